/*
 * state.c - what the probe (freq.c) and the engine (cosched.c) share: the
 * task's page, the end of the current interval, the coarse clock they
 * compare it with, and how many messages the probe lets pass between two
 * looks at that clock.  A leaf: the engine sets these, the probe reads
 * them on every message, and neither has to call the other for it.
 */
#include <time.h>

#include "cosched.h"

struct cosched_page *pvmi_cosched_page;
uint64_t pvmi_cosched_next_roll;
unsigned pvmi_cosched_look_every = 1;
unsigned pvmi_cosched_look_left;

/* Reading even the coarse clock costs about 20 ns on these VMs, the
 * whole budget of the probe: a busy task looks at it only about eight
 * times per interval, and at least every 64 messages. */
#define LOOKS_PER_INTERVAL	8
#define LOOK_EVERY_MAX		64

uint64_t pvmi_cosched_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void pvmi_cosched_look_rate(uint64_t messages)
{
	uint64_t every = messages / LOOKS_PER_INTERVAL;

	pvmi_cosched_look_every = every < 1 ? 1 :
				  every > LOOK_EVERY_MAX ? LOOK_EVERY_MAX :
				  (unsigned)every;
	pvmi_cosched_look_left = 0;
}

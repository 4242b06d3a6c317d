/*
 * calcula - the local workload: a CPU-bound job that never ends.
 *
 * It stands for the owner's work on a node of a non-dedicated cluster.
 * It runs the floating-point kernel (bench/util.c: user time only, no
 * system call inside) in bursts of about 10 ms of CPU time, and after
 * each burst gives the processor up with sched_yield() without leaving
 * the run queue, so that it behaves like a mix of processes that keep
 * asking for time slices of varying length rather than one that holds
 * the CPU for its whole quantum.  Its mean CPU use is about 99%.
 *
 * The burst is measured once at start (kernel steps that take the burst
 * length of CPU time), so the bursts themselves contain no clock reads.
 *
 * Two variants, for the harness's -d and -L:
 *   -d PCT  duty cycle: after each burst it also sleeps (nanosleep) for
 *           burst * (100 - PCT) / PCT, so that on an idle node it uses
 *           PCT percent of the CPU (as calcula2 -d);
 *   -n      never yield: a plain busy loop with no system call at all
 *           (with -d below 100 it still sleeps its duty-cycle pauses), so
 *           that a coscheduler cannot rely on the local jobs' manners.
 *
 * usage: calcula [-b burst_ms] [-d duty_pct] [-n]	(default 10 ms, 100%)
 * Runs until killed; prints nothing.  The harness starts k of these per
 * node (k = 0..5) and kills them at the end of each run.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static volatile double sink;

static void usage(void)
{
	fprintf(stderr, "usage: calcula [-b burst_ms] [-d duty_pct] [-n]\n");
}

int main(int argc, char **argv)
{
	double burst = 10e-3, duty = 100, pause;
	struct timespec ts, left;
	int opt, busy = 0;
	long iters;

	while ((opt = getopt(argc, argv, "b:d:n")) != -1) {
		switch (opt) {
		case 'b':
			burst = atof(optarg) / 1e3;
			break;
		case 'd':
			duty = atof(optarg);
			break;
		case 'n':
			busy = 1;
			break;
		default:
			usage();
			return 1;
		}
	}
	if (burst <= 0 || duty <= 0 || duty > 100 || optind != argc) {
		usage();
		return 1;
	}
	iters = bench_calibrate(burst);
	if (busy && duty >= 100)
		for (;;)
			sink += bench_fp(iters);
	pause = burst * (100 - duty) / duty;
	ts.tv_sec = (time_t)pause;
	ts.tv_nsec = (long)((pause - (double)ts.tv_sec) * 1e9);
	for (;;) {
		sink += bench_fp(iters);
		if (duty < 100) {
			left = ts;
			while (nanosleep(&left, &left) != 0)
				;
		} else {
			sched_yield();
		}
	}
	return 0;
}

/*
 * cosched_bucket.h - the CPU share of a boost, as a token bucket: a
 * boosted task may use `share' of a CPU over time, with bursts of up to
 * share x window, and no more.  While its tokens last the boost is in
 * force; once they are spent it is held (the task runs unboosted) only
 * until the refill has paid the debt back, and then it resumes: the
 * bound is a rate, not a cliff followed by a cool-down.
 *
 * Pure arithmetic on numbers the caller reads (CLOCK_MONOTONIC and the
 * task's CPU time, in ns): copvm-agent runs it, and the tests.
 */
#ifndef COPVM_COSCHED_BUCKET_H
#define COPVM_COSCHED_BUCKET_H

#include <stdint.h>

/* Shares are in parts per million of one CPU. */
#define COSCHED_SHARE_ONE	1000000u

struct cosched_bucket {
	int64_t tokens_ns;	/* CPU still allowed boosted; < 0: a debt */
	uint64_t cap_ns;	/* the most it saves up: share x window */
	uint32_t share_ppm;	/* the refill rate */
	uint64_t at_ns;		/* when it was last brought up to date */
};

/* A full bucket refilled at `share_ppm' (clamped to 1..COSCHED_SHARE_ONE)
 * holding at most share x `window_ns', brought up to date at `now_ns'. */
void cosched_bucket_init(struct cosched_bucket *b, uint32_t share_ppm,
			 uint64_t window_ns, uint64_t now_ns);

/* Brings the bucket to `now_ns' (a time before the last one counts as
 * no time) and takes `used_ns' of CPU the task used boosted since the
 * last call; returns the tokens left (negative: the debt). */
int64_t cosched_bucket_charge(struct cosched_bucket *b, uint64_t now_ns,
			      uint64_t used_ns);

/* Non-zero while the boost may be in force: tokens left, no debt. */
int cosched_bucket_allows(const struct cosched_bucket *b);

/* How long from the last charge until the debt is paid (0 when the
 * bucket allows now). */
uint64_t cosched_bucket_wait_ns(const struct cosched_bucket *b);

#endif /* COPVM_COSCHED_BUCKET_H */

/*
 * cosched_bucket.c - the CPU share of a boost as a token bucket
 * (cosched_bucket.h).  Refill is share x elapsed time, capped; use is
 * the task's CPU time while boosted.  A debt (use beyond the tokens,
 * between two samples) is carried and repaid, so over any long span
 * the boosted CPU is at most share x span + the cap; it is itself capped
 * at one cap, so a hold never lasts longer than one window.
 */
#include "cosched_bucket.h"

void cosched_bucket_init(struct cosched_bucket *b, uint32_t share_ppm,
			 uint64_t window_ns, uint64_t now_ns)
{
	if (share_ppm < 1)
		share_ppm = 1;
	if (share_ppm > COSCHED_SHARE_ONE)
		share_ppm = COSCHED_SHARE_ONE;
	b->share_ppm = share_ppm;
	/* window < 2^64 / 10^6 for any sane window; keep it exact. */
	b->cap_ns = window_ns / COSCHED_SHARE_ONE * share_ppm +
		    window_ns % COSCHED_SHARE_ONE * share_ppm / COSCHED_SHARE_ONE;
	if (b->cap_ns > INT64_MAX / 2)
		b->cap_ns = INT64_MAX / 2;
	b->tokens_ns = (int64_t)b->cap_ns;
	b->at_ns = now_ns;
}

int64_t cosched_bucket_charge(struct cosched_bucket *b, uint64_t now_ns,
			      uint64_t used_ns)
{
	uint64_t dt = now_ns > b->at_ns ? now_ns - b->at_ns : 0;
	uint64_t refill;

	if (now_ns > b->at_ns)
		b->at_ns = now_ns;
	/* share x dt without overflow: dt is at most days, share <= 10^6. */
	refill = dt / COSCHED_SHARE_ONE * b->share_ppm +
		 dt % COSCHED_SHARE_ONE * b->share_ppm / COSCHED_SHARE_ONE;
	if (refill > b->cap_ns)
		refill = b->cap_ns;
	b->tokens_ns += (int64_t)refill;
	if (b->tokens_ns > (int64_t)b->cap_ns)
		b->tokens_ns = (int64_t)b->cap_ns;
	if (used_ns > (uint64_t)INT64_MAX / 4)
		used_ns = (uint64_t)INT64_MAX / 4;
	b->tokens_ns -= (int64_t)used_ns;
	if (b->tokens_ns < -(int64_t)b->cap_ns)
		b->tokens_ns = -(int64_t)b->cap_ns;
	return b->tokens_ns;
}

int cosched_bucket_allows(const struct cosched_bucket *b)
{
	return b->tokens_ns > 0;
}

uint64_t cosched_bucket_wait_ns(const struct cosched_bucket *b)
{
	uint64_t debt;

	if (b->tokens_ns > 0)
		return 0;
	/* Paid when the tokens are above 0 again: debt + 1 ns of refill,
	 * debt / share rounded up (the debt is at most one cap). */
	debt = (uint64_t)(-b->tokens_ns) + 1;
	return (debt * COSCHED_SHARE_ONE + b->share_ppm - 1) / b->share_ppm;
}

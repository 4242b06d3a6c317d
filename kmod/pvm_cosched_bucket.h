/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvm_cosched_bucket.h - the CPU share of a boost, as a token bucket: a
 * boosted task may use `share' of a CPU over time, with bursts of up to
 * share x window, and no more.  While its tokens last the boost is in
 * force; once they are spent it is held (the task runs unboosted, or at
 * the slice level) only until the refill has paid the debt back, and
 * then it resumes: the bound is a rate, not a cliff followed by a
 * cool-down.
 *
 * Refill is share x elapsed time, capped; use is the task's CPU time
 * while boosted.  A debt (use beyond the tokens, between two samples) is
 * carried and repaid, so over any long span the boosted CPU is at most
 * share x span + the cap; the debt is itself capped at one cap, so a
 * hold never lasts longer than one window.
 *
 * A budget shared by several users is split evenly: cosched_part_ppm is
 * each one's refill rate.
 *
 * Pure arithmetic on numbers the caller reads (a monotonic clock and the
 * task's CPU time, in ns), header-only so that one implementation runs
 * in the kernel module (pcs_boost.c) and in user space (copvm-agent,
 * through common/cosched_bucket.h, and the unit tests).
 */
#ifndef PVM_COSCHED_BUCKET_H
#define PVM_COSCHED_BUCKET_H

#include <linux/types.h>

#ifdef __KERNEL__
#include <linux/math64.h>
#endif

/* Shares are in parts per million of one CPU. */
#define COSCHED_SHARE_ONE	1000000u

/* The largest __s64, without the kernel's or libc's limits. */
#define COSCHED_S64_MAX		((__s64)(~0ULL >> 1))

struct cosched_bucket {
	__s64 tokens_ns;	/* CPU still allowed boosted; < 0: a debt */
	__u64 cap_ns;		/* the most it saves up: share x window */
	__u32 share_ppm;	/* the refill rate */
	__u64 at_ns;		/* when it was last brought up to date */
};

/* a / b and a % b (in *rem): div_u64_rem in the kernel, whose 32-bit
 * builds have no 64-bit division, plain C in user space.
 */
static inline __u64 cosched_div(__u64 a, __u32 b, __u32 *rem)
{
#ifdef __KERNEL__
	return div_u64_rem(a, b, rem);
#else
	*rem = (__u32)(a % b);
	return a / b;
#endif
}

/* share_ppm x ns / COSCHED_SHARE_ONE, exact and without overflow for any
 * ns below 2^64 / 10^6 (about 5 hours) and no worse than saturating
 * beyond.
 */
static inline __u64 cosched_share_of(__u32 share_ppm, __u64 ns)
{
	__u32 rem;
	__u64 whole = cosched_div(ns, COSCHED_SHARE_ONE, &rem);

	return whole * share_ppm +
	       (__u64)rem * share_ppm / COSCHED_SHARE_ONE;
}

/* A full bucket refilled at `share_ppm' (clamped to 1..COSCHED_SHARE_ONE)
 * holding at most share x `window_ns', brought up to date at `now_ns'.
 */
static inline void cosched_bucket_init(struct cosched_bucket *b,
				       __u32 share_ppm, __u64 window_ns,
				       __u64 now_ns)
{
	if (share_ppm < 1)
		share_ppm = 1;
	if (share_ppm > COSCHED_SHARE_ONE)
		share_ppm = COSCHED_SHARE_ONE;
	b->share_ppm = share_ppm;
	b->cap_ns = cosched_share_of(share_ppm, window_ns);
	if (b->cap_ns > COSCHED_S64_MAX / 2)
		b->cap_ns = COSCHED_S64_MAX / 2;
	b->tokens_ns = (__s64)b->cap_ns;
	b->at_ns = now_ns;
}

/* Brings the bucket to `now_ns' (a time before the last one counts as
 * no time) and takes `used_ns' of CPU the task used boosted since the
 * last call; returns the tokens left (negative: the debt).
 */
static inline __s64 cosched_bucket_charge(struct cosched_bucket *b,
					  __u64 now_ns, __u64 used_ns)
{
	__u64 dt = now_ns > b->at_ns ? now_ns - b->at_ns : 0;
	__u64 refill;

	if (now_ns > b->at_ns)
		b->at_ns = now_ns;
	refill = cosched_share_of(b->share_ppm, dt);
	if (refill > b->cap_ns)
		refill = b->cap_ns;
	b->tokens_ns += (__s64)refill;
	if (b->tokens_ns > (__s64)b->cap_ns)
		b->tokens_ns = (__s64)b->cap_ns;
	if (used_ns > (__u64)COSCHED_S64_MAX / 4)
		used_ns = (__u64)COSCHED_S64_MAX / 4;
	b->tokens_ns -= (__s64)used_ns;
	if (b->tokens_ns < -(__s64)b->cap_ns)
		b->tokens_ns = -(__s64)b->cap_ns;
	return b->tokens_ns;
}

/* Gives the bucket share `share_ppm' and window `window_ns' from `now_ns'
 * on: it is brought up to date, then keeps its tokens or its debt, within
 * the new cap (a new share refills nothing).
 */
static inline void cosched_bucket_set_share(struct cosched_bucket *b,
					    __u32 share_ppm, __u64 window_ns,
					    __u64 now_ns)
{
	__s64 tokens = cosched_bucket_charge(b, now_ns, 0);

	cosched_bucket_init(b, share_ppm, window_ns, now_ns);
	if (tokens < b->tokens_ns)
		b->tokens_ns = tokens;
	if (b->tokens_ns < -(__s64)b->cap_ns)
		b->tokens_ns = -(__s64)b->cap_ns;
}

/* The part of each of `n' users sharing a budget of `budget_ppm' evenly
 * (n 0 counts as 1): budget / n rounded down, but at least 1 ppm, so
 * that no user with a registered task is left a bucket that never
 * refills.  n parts together are at most the budget, or n ppm for a
 * budget below n.
 */
static inline __u32 cosched_part_ppm(__u32 budget_ppm, __u32 n)
{
	__u32 part = budget_ppm / (n ? n : 1);

	return part ? part : 1;
}

/* Non-zero while the boost may be in force: tokens left, no debt.
 * Reads the bucket as last charged.
 */
static inline int cosched_bucket_allows(const struct cosched_bucket *b)
{
	return b->tokens_ns > 0;
}

/* How long from the last charge until the debt is paid (0 when the
 * bucket allows now): debt + 1 ns of refill, debt / share rounded up.
 */
static inline __u64 cosched_bucket_wait_ns(const struct cosched_bucket *b)
{
	__u64 debt;
	__u32 rem;
	__u64 q;

	if (b->tokens_ns > 0)
		return 0;
	/* The debt is at most one cap, below 2^64 / 10^6 for any window
	 * the callers allow (10 s at most).
	 */
	debt = (__u64)(-b->tokens_ns) + 1;
	q = cosched_div(debt * COSCHED_SHARE_ONE, b->share_ppm, &rem);
	return q + (rem != 0);
}

#endif /* PVM_COSCHED_BUCKET_H */

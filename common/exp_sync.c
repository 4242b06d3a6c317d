/*
 * exp_sync.c - the offset estimate of EXP's clock exchange: see
 * exp_sync.h.  Pure arithmetic on the four stamps of each probe.
 */
#include "exp_sync.h"

/* Computes the sample of stamps t0..t3 into *s; 0 or -1. */
int exp_sync_sample(uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
		    struct exp_sync_sample *s)
{
	uint64_t total, held;

	if (t3 < t0 || t2 < t1)
		return -1;
	total = t3 - t0;
	held = t2 - t1;
	if (held > total)
		return -1;
	s->rtt = total - held;
	/* each difference is an offset plus a delay, far inside 62 bits
	 * (the wrap of an unsigned difference reads as its sign) */
	s->offset = ((int64_t)(t1 - t0) + (int64_t)(t2 - t3)) / 2;
	return 0;
}

/* Empties `f' for a new round. */
void exp_sync_reset(struct exp_sync_filter *f)
{
	f->n = 0;
	f->seen = 0;
	f->best.offset = 0;
	f->best.rtt = 0;
}

/* Offers `s' to `f'; 1 if it became the best. */
int exp_sync_add(struct exp_sync_filter *f, const struct exp_sync_sample *s)
{
	f->seen++;
	if (s->rtt > EXP_SYNC_RTT_MAX_NS)
		return 0;
	if (f->n && s->rtt >= f->best.rtt)
		return 0;
	f->best = *s;
	f->n = 1;
	return 1;
}

/* Master time for slave time `local'. */
uint64_t exp_sync_to_master(uint64_t local, int64_t offset)
{
	if (offset < 0 && (uint64_t)-offset > local)
		return 0;
	return local + (uint64_t)offset;
}

/* Slave time for master time `master'. */
uint64_t exp_sync_to_local(uint64_t master, int64_t offset)
{
	return exp_sync_to_master(master, -offset);
}

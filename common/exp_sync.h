/*
 * exp_sync.h - the arithmetic of EXP's clock exchange: how a slave daemon
 * estimates the offset of its master's clock from its own, NTP-style.
 *
 * The slave stamps t0 when it sends a probe, the master t1 when it reads
 * it and t2 when it answers, the slave t3 when it reads the answer (t0,
 * t3 on the slave's clock, t1, t2 on the master's).  Then
 *     offset = ((t1 - t0) + (t2 - t3)) / 2     (master minus slave)
 *     rtt    = (t3 - t0) - (t2 - t1)           (time on the wire)
 * and whatever the split of rtt between the two ways, the true offset is
 * within rtt / 2 of the estimate.  Among the samples of a round the one
 * with the smallest rtt is kept (the least queued, so the tightest
 * bound); a sample whose rtt exceeds EXP_SYNC_RTT_MAX_NS is never kept.
 * Nanoseconds throughout; no clock is read here.
 */
#ifndef COPVM_EXP_SYNC_H
#define COPVM_EXP_SYNC_H

#include <stdint.h>

/* Probes in one round of the exchange. */
#define EXP_SYNC_PROBES		4
/* A round every this many ms (and one when the slave joins). */
#define EXP_SYNC_PERIOD_MS	5000
/* A probe unanswered after this many ms is counted lost. */
#define EXP_SYNC_PROBE_TIMEOUT_MS	1000
/* A sample with a longer round trip bounds the offset only within half
 * of it: too loose to place a slot, never kept. */
#define EXP_SYNC_RTT_MAX_NS	(200ull * 1000000ull)

/* One exchange's result. */
struct exp_sync_sample {
	int64_t offset;		/* master's clock minus the slave's, ns */
	uint64_t rtt;		/* round trip less the master's time, ns */
};

/* The best sample of a round so far. */
struct exp_sync_filter {
	int n;			/* samples kept (0 or 1) */
	int seen;		/* samples offered */
	struct exp_sync_sample best;
};

/* Computes the sample of stamps t0..t3 into *s.  0, or -1 when the
 * stamps are impossible (t3 before t0, t2 before t1, or the master's
 * time longer than the round trip). */
int exp_sync_sample(uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
		    struct exp_sync_sample *s);

/* Empties `f' for a new round. */
void exp_sync_reset(struct exp_sync_filter *f);

/* Offers sample `s' to `f': kept if its rtt is below EXP_SYNC_RTT_MAX_NS
 * and below the best's.  1 if it became the best, else 0. */
int exp_sync_add(struct exp_sync_filter *f, const struct exp_sync_sample *s);

/* Master time for slave time `local' under offset `offset' (saturating
 * at 0: a time before the epoch is no time). */
uint64_t exp_sync_to_master(uint64_t local, int64_t offset);

/* Slave time for master time `master' under offset `offset'. */
uint64_t exp_sync_to_local(uint64_t master, int64_t offset);

#endif /* COPVM_EXP_SYNC_H */

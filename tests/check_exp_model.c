/*
 * check_exp_model.c - common/exp_model.c: EXP's slots and boundaries in
 * each mode, the PS adjustment and its clamping, the phases of hosts,
 * the load's smoothing and the parsing of the settings; and
 * common/exp_sync.c: the offset a slave estimates from its master's
 * stamps, its min-round-trip filter and the slots it computes with it.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "exp_model.h"
#include "exp_sync.h"

#define MS	EXP_MS
/* A realistic CLOCK_REALTIME, a whole number of 100 ms periods. */
#define T0	(1700000000000ull * MS / 1000 * 1000)

static struct exp_params mk(int mode, unsigned ip_ms, unsigned ps_ms)
{
	struct exp_params p;

	p.mode = mode;
	p.ip_ns = (uint64_t)ip_ms * MS;
	p.ps_ns = (uint64_t)ps_ms * MS;
	return p;
}

START_TEST(defaults_are_the_thesis_exp)
{
	struct exp_params p;

	exp_params_default(&p);
	ck_assert_int_eq(p.mode, EXP_STATIC);
	ck_assert_uint_eq(p.ip_ns, 100 * MS);
	ck_assert_uint_eq(p.ps_ns, 80 * MS);
}
END_TEST

START_TEST(static_slots_and_boundaries)
{
	struct exp_params p = mk(EXP_STATIC, 100, 80);
	struct exp_slot s;
	uint64_t ps = exp_ps_for_load(&p, 3, 5000);

	ck_assert_uint_eq(ps, 80 * MS);		/* load does not matter */
	exp_slot_at(&p, T0, 1, ps, &s);
	ck_assert_int_eq(s.in_ps, 1);
	ck_assert_uint_eq(s.start, T0);
	ck_assert_uint_eq(s.end, T0 + 80 * MS);
	exp_slot_at(&p, T0 + 80 * MS - 1, 1, ps, &s);
	ck_assert_int_eq(s.in_ps, 1);
	ck_assert_uint_eq(s.end, T0 + 80 * MS);
	/* the boundary itself belongs to the next slot */
	exp_slot_at(&p, T0 + 80 * MS, 1, ps, &s);
	ck_assert_int_eq(s.in_ps, 0);
	ck_assert_uint_eq(s.start, T0 + 80 * MS);
	ck_assert_uint_eq(s.end, T0 + 100 * MS);
	exp_slot_at(&p, T0 + 100 * MS, 1, ps, &s);
	ck_assert_int_eq(s.in_ps, 1);
	ck_assert_uint_eq(s.period_start, T0 + 100 * MS);
	ck_assert_uint_eq(s.end, T0 + 180 * MS);
	/* mid-period */
	exp_slot_at(&p, T0 + 1234 * MS + 500, 1, ps, &s);
	ck_assert_int_eq(s.in_ps, 1);
	ck_assert_uint_eq(s.end, T0 + 1280 * MS);
	exp_slot_at(&p, T0 + 1294 * MS + 500, 1, ps, &s);
	ck_assert_int_eq(s.in_ps, 0);
	ck_assert_uint_eq(s.period_start, T0 + 1200 * MS);
	ck_assert_uint_eq(s.end, T0 + 1300 * MS);
}
END_TEST

START_TEST(slot_walk_alternates_with_the_right_lengths)
{
	struct exp_params p = mk(EXP_STATIC, 100, 80);
	struct exp_slot s;
	uint64_t t = T0 + 7 * MS;
	int i, last = -1;

	for (i = 0; i < 200; i++) {
		exp_slot_at(&p, t, 2, p.ps_ns, &s);
		ck_assert(s.end > t);
		ck_assert_int_ne(s.in_ps, last);
		last = s.in_ps;
		/* after the first (entered mid-way) every slot is whole */
		if (i > 0)
			ck_assert_uint_eq(s.end - s.start,
					  (s.in_ps ? 80 : 20) * MS);
		t = s.end;
	}
}
END_TEST

/* Two jobs take turns in the PS: the first runs in its first half, the
 * second in its second half, neither in the LS; no instant has both
 * running, and each runs PS/2 of every period. */
START_TEST(two_jobs_take_turns_in_the_ps)
{
	struct exp_params p = mk(EXP_STATIC, 100, 80);
	struct exp_slot a, b;
	uint64_t t, ran[2] = { 0, 0 };

	exp_job_slot_at(&p, T0 + 10 * MS, 1, p.ps_ns, 0, 2, &a);
	exp_job_slot_at(&p, T0 + 10 * MS, 1, p.ps_ns, 1, 2, &b);
	ck_assert_int_eq(a.in_ps, 1);
	ck_assert_uint_eq(a.end, T0 + 40 * MS);
	ck_assert_int_eq(b.in_ps, 0);
	ck_assert_uint_eq(b.end, T0 + 40 * MS);
	exp_job_slot_at(&p, T0 + 40 * MS, 1, p.ps_ns, 1, 2, &b);
	ck_assert_int_eq(b.in_ps, 1);
	ck_assert_uint_eq(b.start, T0 + 40 * MS);
	ck_assert_uint_eq(b.end, T0 + 80 * MS);
	exp_job_slot_at(&p, T0 + 85 * MS, 1, p.ps_ns, 0, 2, &a);
	exp_job_slot_at(&p, T0 + 85 * MS, 1, p.ps_ns, 1, 2, &b);
	ck_assert(!a.in_ps && !b.in_ps);
	ck_assert_uint_eq(a.end, T0 + 100 * MS);
	for (t = T0; t < T0 + 1000 * MS; t += MS / 2) {
		exp_job_slot_at(&p, t, 1, p.ps_ns, 0, 2, &a);
		exp_job_slot_at(&p, t, 1, p.ps_ns, 1, 2, &b);
		ck_assert_msg(!(a.in_ps && b.in_ps), "both jobs run at %llu",
			      (unsigned long long)(t - T0));
		ck_assert(a.end > t && b.end > t);
		ran[0] += a.in_ps ? MS / 2 : 0;
		ran[1] += b.in_ps ? MS / 2 : 0;
	}
	ck_assert_uint_eq(ran[0], 400 * MS);
	ck_assert_uint_eq(ran[1], 400 * MS);
}
END_TEST

/* One job, or a job index out of range, has the whole PS as before; three
 * jobs of a 10 ns PS still each get a slot, the last the remainder. */
START_TEST(one_job_has_the_whole_ps)
{
	struct exp_params p = mk(EXP_BALANCED, 100, 80);
	struct exp_slot s, j;
	uint64_t t;

#define SAME_SLOT(x, y) ((x).in_ps == (y).in_ps && \
			 (x).period_start == (y).period_start && \
			 (x).ps_ns == (y).ps_ns && (x).start == (y).start && \
			 (x).end == (y).end)
	for (t = T0 + 3 * MS; t < T0 + 300 * MS; t += 7 * MS) {
		exp_slot_at(&p, t, 2, 60 * MS, &s);
		exp_job_slot_at(&p, t, 2, 60 * MS, 0, 1, &j);
		ck_assert(SAME_SLOT(s, j));
		exp_job_slot_at(&p, t, 2, 60 * MS, 5, 2, &j);
		ck_assert(SAME_SLOT(s, j));
	}
	exp_job_slot_at(&p, T0 + 6, 1, 10, 2, 3, &j);
	ck_assert_int_eq(j.in_ps, 1);
	ck_assert_uint_eq(j.start, T0 + 6);
	ck_assert_uint_eq(j.end, T0 + 10);
#undef SAME_SLOT
}
END_TEST

START_TEST(balanced_adjusts_ps_to_the_load)
{
	struct exp_params p = mk(EXP_BALANCED, 100, 80);

	/* D = 1, L = 1: half */
	ck_assert_uint_eq(exp_ps_for_load(&p, 1, 1000), 50 * MS);
	/* D = 3, L = 1: 75 % */
	ck_assert_uint_eq(exp_ps_for_load(&p, 3, 1000), 75 * MS);
	/* D = 1, L = 3: 25 % */
	ck_assert_uint_eq(exp_ps_for_load(&p, 1, 3000), 25 * MS);
	/* a fractional load */
	ck_assert_uint_eq(exp_ps_for_load(&p, 1, 250), 80 * MS);
	/* more load, shorter PS */
	ck_assert(exp_ps_for_load(&p, 2, 1500) > exp_ps_for_load(&p, 2, 2500));
}
END_TEST

START_TEST(adjusted_ps_is_clamped)
{
	struct exp_params p = mk(EXP_BALANCED, 100, 80);
	struct exp_params q = mk(EXP_DISTRIBUTED, 1000, 80);

	ck_assert_uint_eq(exp_ps_for_load(&p, 1, 0), 90 * MS);
	ck_assert_uint_eq(exp_ps_for_load(&p, 50, 0), 90 * MS);
	ck_assert_uint_eq(exp_ps_for_load(&p, 1, 100000), 10 * MS);
	ck_assert_uint_eq(exp_ps_for_load(&p, 0, 100000), 10 * MS);
	/* D = 0 counts as one task */
	ck_assert_uint_eq(exp_ps_for_load(&p, 0, 1000), 50 * MS);
	ck_assert_uint_eq(exp_ps_for_load(&q, 1, 0), 900 * MS);
	ck_assert_uint_eq(exp_ps_for_load(&q, 1, 1000000), 100 * MS);
}
END_TEST

START_TEST(static_and_balanced_hosts_are_in_phase)
{
	struct exp_params p;
	struct exp_slot a, b;
	int mode, h;
	uint64_t t;

	for (mode = EXP_STATIC; mode <= EXP_BALANCED; mode++) {
		p = mk(mode, 100, 80);
		for (h = 1; h < 20; h++) {
			ck_assert_uint_eq(exp_phase_offset(&p, h), 0);
			for (t = T0; t < T0 + 300 * MS; t += 7 * MS) {
				exp_slot_at(&p, t, 1, 60 * MS, &a);
				exp_slot_at(&p, t, h, 60 * MS, &b);
				ck_assert_int_eq(a.in_ps, b.in_ps);
				ck_assert_uint_eq(a.end, b.end);
			}
		}
	}
}
END_TEST

START_TEST(distributed_hosts_have_their_own_phases)
{
	struct exp_params p = mk(EXP_DISTRIBUTED, 100, 80);
	uint64_t off[9];
	struct exp_slot s;
	int h, k, differ = 0;
	uint64_t t;

	for (h = 1; h <= 8; h++) {
		off[h] = exp_phase_offset(&p, h);
		ck_assert(off[h] < p.ip_ns);
		for (k = 1; k < h; k++)
			/* no two hosts closer than 5 % of IP */
			ck_assert(off[h] > off[k] ? off[h] - off[k] >= 5 * MS :
				  off[k] - off[h] >= 5 * MS);
		/* each host's period starts at its offset */
		exp_slot_at(&p, T0 + off[h], h, 50 * MS, &s);
		ck_assert_int_eq(s.in_ps, 1);
		ck_assert_uint_eq(s.period_start, T0 + off[h]);
		ck_assert_uint_eq(s.end, T0 + off[h] + 50 * MS);
		/* just before it, the previous period's LS */
		exp_slot_at(&p, T0 + off[h] - 1, h, 50 * MS, &s);
		ck_assert_int_eq(s.in_ps, 0);
		ck_assert_uint_eq(s.end, T0 + off[h]);
	}
	for (t = T0; t < T0 + 100 * MS; t += MS) {
		struct exp_slot a, b;

		exp_slot_at(&p, t, 1, 50 * MS, &a);
		exp_slot_at(&p, t, 2, 50 * MS, &b);
		differ += a.in_ps != b.in_ps;
	}
	ck_assert_int_gt(differ, 10);
}
END_TEST

START_TEST(small_times_and_odd_ps_do_not_break)
{
	struct exp_params p = mk(EXP_DISTRIBUTED, 100, 80);
	struct exp_slot s;

	/* before host 3's first period: the boundary still comes within
	 * one period */
	exp_slot_at(&p, 5, 3, 50 * MS, &s);
	ck_assert(s.end > 5 && s.end - 5 <= p.ip_ns);
	exp_slot_at(&p, T0, 1, 0, &s);		/* PS 0: a 1 ns PS */
	ck_assert(s.end > T0);
	exp_slot_at(&p, T0 + 3 * MS, 1, 500 * MS, &s);	/* PS >= IP */
	ck_assert(s.end > T0 + 3 * MS);
	ck_assert(s.end - s.period_start <= p.ip_ns);
}
END_TEST

START_TEST(load_smoothing)
{
	uint64_t l = 0;
	int i;

	l = exp_load_step(l, 2);
	ck_assert_uint_eq(l, 1000);
	for (i = 0; i < 20; i++)
		l = exp_load_step(l, 2);
	ck_assert(l > 1990 && l <= 2000);
	l = exp_load_step(l, 0);
	ck_assert(l < 1001);
}
END_TEST

START_TEST(parse_good_values)
{
	struct exp_params p;
	char msg[256];

	ck_assert_int_eq(exp_params_parse(&p, NULL, NULL, NULL, msg,
					  sizeof(msg)), 0);
	ck_assert_int_eq(p.mode, EXP_STATIC);
	ck_assert_uint_eq(p.ip_ns, 100 * MS);
	ck_assert_uint_eq(p.ps_ns, 80 * MS);
	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(exp_params_parse(&p, "Balanced", "200", "150", msg,
					  sizeof(msg)), 0);
	ck_assert_int_eq(p.mode, EXP_BALANCED);
	ck_assert_uint_eq(p.ip_ns, 200 * MS);
	ck_assert_uint_eq(p.ps_ns, 150 * MS);
	ck_assert_int_eq(exp_params_parse(&p, "DISTRIBUTED", "1000", "", NULL,
					  0), 0);
	ck_assert_int_eq(p.mode, EXP_DISTRIBUTED);
	ck_assert_uint_eq(p.ps_ns, 800 * MS);	/* 80 % of IP */
	ck_assert_int_eq(exp_params_parse(&p, "", "100", "20", NULL, 0), 0);
	ck_assert_uint_eq(p.ps_ns, 20 * MS);
	ck_assert_int_eq(exp_mode_parse("static"), EXP_STATIC);
	ck_assert_int_eq(exp_mode_parse("x"), -1);
	ck_assert_int_eq(exp_mode_parse(NULL), -1);
	ck_assert_str_eq(exp_mode_name(EXP_DISTRIBUTED), "distributed");
	ck_assert_str_eq(exp_mode_name(9), "?");
}
END_TEST

START_TEST(parse_bad_values_fall_back_with_a_message)
{
	struct exp_params p;
	char msg[256];

	ck_assert_int_eq(exp_params_parse(&p, "gang", "abc", "80", msg,
					  sizeof(msg)), 2);
	ck_assert_int_eq(p.mode, EXP_STATIC);
	ck_assert_uint_eq(p.ip_ns, 100 * MS);
	ck_assert_uint_eq(p.ps_ns, 80 * MS);
	ck_assert_ptr_nonnull(strstr(msg, "COPVM_EXP_MODE \"gang\""));
	ck_assert_ptr_nonnull(strstr(msg, "COPVM_EXP_IP_MS \"abc\""));
	/* out of range, trailing junk, negative, PS not below IP */
	ck_assert_int_eq(exp_params_parse(&p, NULL, "5", NULL, msg,
					  sizeof(msg)), 1);
	ck_assert_uint_eq(p.ip_ns, 100 * MS);
	ck_assert_int_eq(exp_params_parse(&p, NULL, "20000", NULL, NULL, 0), 1);
	ck_assert_int_eq(exp_params_parse(&p, NULL, "100ms", NULL, NULL, 0), 1);
	ck_assert_int_eq(exp_params_parse(&p, NULL, "200", "200", msg,
					  sizeof(msg)), 1);
	ck_assert_uint_eq(p.ip_ns, 200 * MS);
	ck_assert_uint_eq(p.ps_ns, 160 * MS);
	ck_assert_ptr_nonnull(strstr(msg, "COPVM_EXP_PS_MS \"200\""));
	ck_assert_ptr_nonnull(strstr(msg, "160 ms"));
	ck_assert_int_eq(exp_params_parse(&p, NULL, NULL, "-3", NULL, 0), 1);
	ck_assert_uint_eq(p.ps_ns, 80 * MS);
	ck_assert_int_eq(exp_params_parse(&p, NULL, NULL, "0", NULL, 0), 1);
	/* a tiny message buffer is not overrun */
	ck_assert_int_eq(exp_params_parse(&p, "x", "y", "z", msg, 8), 3);
	ck_assert_uint_eq(strlen(msg), 7);
}
END_TEST

/* ---- the clock exchange (exp_sync.c) ---- */

#define US	1000ull

/* The stamps of one probe sent at slave time `t0' to a master whose
 * clock is `off' ahead of the slave's: `fwd' on the way there, `held' in
 * the master, `back' on the way back. */
static void probe(uint64_t t0, int64_t off, uint64_t fwd, uint64_t held,
		  uint64_t back, struct exp_sync_sample *s)
{
	uint64_t t1 = (uint64_t)((int64_t)(t0 + fwd) + off);

	ck_assert_int_eq(exp_sync_sample(t0, t1, t1 + held,
					 t0 + fwd + held + back, s), 0);
}

static int64_t i64abs(int64_t v)
{
	return v < 0 ? -v : v;
}

START_TEST(symmetric_delays_give_the_exact_offset)
{
	struct exp_sync_sample s;

	/* the slave's clock 700 ms ahead: the master's is 700 ms behind */
	probe(T0, -700 * (int64_t)MS, 200 * US, 50 * US, 200 * US, &s);
	ck_assert_int_eq(s.offset, -700 * (int64_t)MS);
	ck_assert_uint_eq(s.rtt, 400 * US);
	probe(T0, 1234567, 10 * US, 0, 10 * US, &s);
	ck_assert_int_eq(s.offset, 1234567);
	ck_assert_uint_eq(s.rtt, 20 * US);
}
END_TEST

START_TEST(asymmetric_delays_err_by_half_the_difference)
{
	int64_t off = -700 * (int64_t)MS;
	struct exp_sync_sample s;

	/* 1 ms there, 3 ms back: the estimate is 1 ms early, within the
	 * bound of half the round trip (2 ms) */
	probe(T0, off, 1 * MS, 100 * US, 3 * MS, &s);
	ck_assert_uint_eq(s.rtt, 4 * MS);
	ck_assert_int_eq(s.offset - off, -1 * (int64_t)MS);
	ck_assert_int_le(i64abs(s.offset - off), (int64_t)(s.rtt / 2));
	/* all of it one way: the error reaches the bound, no further */
	probe(T0, off, 4 * MS, 0, 0, &s);
	ck_assert_int_eq(s.offset - off, 2 * (int64_t)MS);
	ck_assert_int_le(i64abs(s.offset - off), (int64_t)(s.rtt / 2));
}
END_TEST

START_TEST(the_filter_keeps_the_smallest_round_trip)
{
	int64_t off = 42 * (int64_t)MS;
	struct exp_sync_filter f;
	struct exp_sync_sample s;

	exp_sync_reset(&f);
	ck_assert_int_eq(f.n, 0);
	probe(T0, off, 5 * MS, 0, 1 * MS, &s);		/* rtt 6 ms, 2 ms off */
	ck_assert_int_eq(exp_sync_add(&f, &s), 1);
	probe(T0, off, 150 * US, 0, 250 * US, &s);	/* rtt 0.4 ms */
	ck_assert_int_eq(exp_sync_add(&f, &s), 1);
	probe(T0, off, 3 * MS, 0, 100 * US, &s);	/* rtt 3.1 ms */
	ck_assert_int_eq(exp_sync_add(&f, &s), 0);
	probe(T0, off, 200 * US, 0, 200 * US, &s);	/* a tie: kept first */
	ck_assert_int_eq(exp_sync_add(&f, &s), 0);
	ck_assert_int_eq(f.n, 1);
	ck_assert_int_eq(f.seen, 4);
	ck_assert_uint_eq(f.best.rtt, 400 * US);
	ck_assert_int_eq(f.best.offset - off, -50 * (int64_t)US);
	exp_sync_reset(&f);
	ck_assert_int_eq(f.n, 0);
	ck_assert_int_eq(f.seen, 0);
}
END_TEST

START_TEST(a_sample_with_a_huge_round_trip_is_ignored)
{
	int64_t off = -700 * (int64_t)MS;
	struct exp_sync_filter f;
	struct exp_sync_sample s;

	exp_sync_reset(&f);
	/* 900 ms stuck on the way there: 450 ms wrong; refused even as the
	 * only sample of the round */
	probe(T0, off, 900 * MS, 0, 100 * US, &s);
	ck_assert_int_gt(i64abs(s.offset - off), 400 * (int64_t)MS);
	ck_assert_int_eq(exp_sync_add(&f, &s), 0);
	ck_assert_int_eq(f.n, 0);
	ck_assert_int_eq(f.seen, 1);
	probe(T0, off, 2 * MS, 0, 2 * MS, &s);
	ck_assert_int_eq(exp_sync_add(&f, &s), 1);
	/* and after a good one, a huge one changes nothing */
	probe(T0, off, 100 * US, 0, 600 * MS, &s);
	ck_assert_int_eq(exp_sync_add(&f, &s), 0);
	ck_assert_int_eq(f.best.offset, off);
	ck_assert_uint_eq(f.best.rtt, 4 * MS);
}
END_TEST

START_TEST(impossible_stamps_are_refused)
{
	struct exp_sync_sample s = { 7, 7 };

	/* the answer read before the probe was sent */
	ck_assert_int_eq(exp_sync_sample(T0, T0, T0, T0 - 1, &s), -1);
	/* the master answered before it read */
	ck_assert_int_eq(exp_sync_sample(T0, T0 + 5, T0 + 4, T0 + 9, &s), -1);
	/* the master held it longer than the whole round trip */
	ck_assert_int_eq(exp_sync_sample(T0, T0, T0 + 10, T0 + 5, &s), -1);
	ck_assert_int_eq(s.offset, 7);
	ck_assert_uint_eq(s.rtt, 7);
}
END_TEST

START_TEST(clock_conversions_round_trip)
{
	ck_assert_uint_eq(exp_sync_to_master(T0, -700 * (int64_t)MS),
			  T0 - 700 * MS);
	ck_assert_uint_eq(exp_sync_to_local(T0 - 700 * MS,
					    -700 * (int64_t)MS), T0);
	ck_assert_uint_eq(exp_sync_to_master(T0, 3), T0 + 3);
	ck_assert_uint_eq(exp_sync_to_local(T0 + 3, 3), T0);
	/* before the epoch: 0, not a wrap to the far future */
	ck_assert_uint_eq(exp_sync_to_master(5, -10), 0);
}
END_TEST

/* A slave whose clock is 700 ms ahead (3.5 periods of 200 ms: its own
 * slots are the master's upside down) finds its offset from four probes
 * with uneven delays and places every slot as the master does, except
 * within the estimate's error of a boundary; with no offset it does
 * not. */
START_TEST(a_skewed_slave_computes_the_masters_slots)
{
	const int64_t skew = 700 * (int64_t)MS;
	struct exp_params p = mk(EXP_STATIC, 200, 100);
	static const uint64_t fwd[] = { 3 * MS, 250 * US, 40 * MS, 1 * MS };
	static const uint64_t back[] = { 1 * MS, 150 * US, 2 * MS, 5 * MS };
	struct exp_sync_filter f;
	struct exp_sync_sample s;
	struct exp_slot ms, ss, us;
	uint64_t m, err;
	int i, same = 0, near = 0, unsynced_same = 0, n = 0;

	exp_sync_reset(&f);
	for (i = 0; i < 4; i++) {
		probe(T0 + skew + (uint64_t)i * 50 * MS, -skew, fwd[i], 20 * US,
		      back[i], &s);
		exp_sync_add(&f, &s);
	}
	ck_assert_uint_eq(f.best.rtt, 400 * US);
	err = (uint64_t)i64abs(f.best.offset + skew);
	ck_assert_uint_le(err, f.best.rtt / 2);
	/* every 1.3 ms of master time over 20 periods */
	for (m = T0; m < T0 + 20 * 200 * MS; m += 1300 * US, n++) {
		exp_slot_at(&p, m, 1, p.ps_ns, &ms);
		exp_slot_at(&p, exp_sync_to_master(m + (uint64_t)skew,
						    f.best.offset), 2,
			    p.ps_ns, &ss);
		exp_slot_at(&p, m + (uint64_t)skew, 2, p.ps_ns, &us);
		if (ss.in_ps == ms.in_ps && ss.period_start ==
		    ms.period_start) {
			same++;
		} else {
			/* only next to a boundary */
			ck_assert_uint_le(ms.end - m < m - ms.start ?
					  ms.end - m : m - ms.start, err);
			near++;
		}
		unsynced_same += us.in_ps == ms.in_ps;
	}
	ck_assert_int_ge(same, n - 2);
	/* the same slave with no offset runs its tasks while the master
	 * stops its own, and the other way round */
	ck_assert_int_eq(unsynced_same, 0);
}
END_TEST

static Suite *exp_model_suite(void)
{
	Suite *s = suite_create("exp_model");
	TCase *tc = tcase_create("slots");

	tcase_add_test(tc, defaults_are_the_thesis_exp);
	tcase_add_test(tc, static_slots_and_boundaries);
	tcase_add_test(tc, slot_walk_alternates_with_the_right_lengths);
	tcase_add_test(tc, two_jobs_take_turns_in_the_ps);
	tcase_add_test(tc, one_job_has_the_whole_ps);
	tcase_add_test(tc, balanced_adjusts_ps_to_the_load);
	tcase_add_test(tc, adjusted_ps_is_clamped);
	tcase_add_test(tc, static_and_balanced_hosts_are_in_phase);
	tcase_add_test(tc, distributed_hosts_have_their_own_phases);
	tcase_add_test(tc, small_times_and_odd_ps_do_not_break);
	tcase_add_test(tc, load_smoothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("settings");
	tcase_add_test(tc, parse_good_values);
	tcase_add_test(tc, parse_bad_values_fall_back_with_a_message);
	suite_add_tcase(s, tc);
	tc = tcase_create("sync");
	tcase_add_test(tc, symmetric_delays_give_the_exact_offset);
	tcase_add_test(tc, asymmetric_delays_err_by_half_the_difference);
	tcase_add_test(tc, the_filter_keeps_the_smallest_round_trip);
	tcase_add_test(tc, a_sample_with_a_huge_round_trip_is_ignored);
	tcase_add_test(tc, impossible_stamps_are_refused);
	tcase_add_test(tc, clock_conversions_round_trip);
	tcase_add_test(tc, a_skewed_slave_computes_the_masters_slots);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(exp_model_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

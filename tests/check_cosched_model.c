/*
 * check_cosched_model.c - unit tests of common/cosched_model.c: the
 * frequency recurrence (P = 0, P = 1, in between), decay over empty
 * intervals, which messages DYN and PRE count, the boost each model asks
 * for and its nice bound, the DCS fairness predicate, the CPU budget, the
 * spin bounds, the name tables, and the model table (a row for every
 * model, each rule set, and the rules the engine follows for each).
 */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copvm.h"
#include "cosched_model.h"

#define MS	1000000ULL

static const struct cosched_thresholds thr = {
	COSCHED_F_SLICE, COSCHED_F_NICE, COSCHED_F_RT
};

START_TEST(recurrence_weights_past_and_current)
{
	/* 10 messages in 20 ms = 500/s; F_past 100/s. */
	ck_assert_double_eq_tol(cosched_freq_step(100.0, 0.5, 10, 20 * MS),
				300.0, 1e-9);
	ck_assert_double_eq_tol(cosched_freq_step(100.0, 0.25, 10, 20 * MS),
				0.25 * 100.0 + 0.75 * 500.0, 1e-9);
}
END_TEST

START_TEST(p0_is_the_current_interval_only)
{
	ck_assert_double_eq_tol(cosched_freq_step(1e6, 0.0, 4, 10 * MS),
				400.0, 1e-9);
}
END_TEST

START_TEST(p1_keeps_the_past)
{
	ck_assert_double_eq_tol(cosched_freq_step(123.0, 1.0, 1000, 10 * MS),
				123.0, 1e-9);
}
END_TEST

START_TEST(p_outside_0_1_is_clamped)
{
	ck_assert_double_eq_tol(cosched_freq_step(100.0, 7.0, 10, 10 * MS),
				100.0, 1e-9);
	ck_assert_double_eq_tol(cosched_freq_step(100.0, -3.0, 10, 10 * MS),
				1000.0, 1e-9);
	ck_assert_double_eq_tol(cosched_freq_step(100.0, NAN, 10, 10 * MS),
				1000.0, 1e-9);
}
END_TEST

START_TEST(roll_before_the_interval_ends_changes_nothing)
{
	uint64_t n = 99;

	ck_assert_double_eq(cosched_freq_roll(50.0, 0.5, 30, 19 * MS, 20 * MS, &n),
			    50.0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(empty_intervals_decay_by_p)
{
	uint64_t n;
	double f;

	/* One interval with 20 messages (1000/s), then 3 empty ones. */
	f = cosched_freq_roll(0.0, 0.5, 20, 81 * MS, 20 * MS, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_double_eq_tol(f, 500.0 * 0.5 * 0.5 * 0.5, 1e-9);
	/* P = 0: the first empty interval clears F. */
	f = cosched_freq_roll(800.0, 0.0, 0, 40 * MS, 20 * MS, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_double_eq(f, 0.0);
	/* P = 1: nothing ever decays. */
	f = cosched_freq_roll(800.0, 1.0, 0, 1000 * MS, 20 * MS, &n);
	ck_assert_double_eq_tol(f, 800.0, 1e-9);
	/* A very long silence ends at 0 without looping. */
	f = cosched_freq_roll(800.0, 0.9, 0, 3600000 * MS, 1 * MS, &n);
	ck_assert_uint_eq(n, 3600000);
	ck_assert_double_eq(f, 0.0);
}
END_TEST

START_TEST(dyn_counts_receives_only)
{
	ck_assert_int_eq(cosched_counts_sends(COPVM_MODEL_DYN), 0);
	ck_assert_int_ne(cosched_counts_sends(COPVM_MODEL_PRE), 0);
	ck_assert_int_ne(cosched_counts_sends(COPVM_MODEL_DCS), 0);
	ck_assert_int_ne(cosched_counts_sends(COPVM_MODEL_LIN), 0);
}
END_TEST

START_TEST(boost_follows_the_model)
{
	int m;

	for (m = 0; m < COPVM_NMODELS; m++) {
		int b = cosched_boost_for(m, 1e9, &thr);

		switch (m) {
		case COPVM_MODEL_LIN:
		case COPVM_MODEL_IMP:
		case COPVM_MODEL_EXP:
			ck_assert_int_eq(b, COPVM_BOOST_NONE);
			break;
		default:
			ck_assert_int_eq(b, COPVM_BOOST_RT);
		}
	}
	/* HPDT boosts a task that does not communicate at all. */
	ck_assert_int_eq(cosched_boost_for(COPVM_MODEL_HPDT, 0, &thr), COPVM_BOOST_RT);
	ck_assert_int_eq(cosched_boost_for(COPVM_MODEL_PRE, 0, &thr), COPVM_BOOST_NONE);
	ck_assert_int_eq(cosched_boost_for(COPVM_MODEL_PRE, COSCHED_F_SLICE, &thr),
			 COPVM_BOOST_SLICE);
	ck_assert_int_eq(cosched_boost_for(COPVM_MODEL_DYN, COSCHED_F_NICE, &thr),
			 COPVM_BOOST_NICE);
	ck_assert_int_eq(cosched_boost_for(COPVM_MODEL_DYN, COSCHED_F_RT - 1, &thr),
			 COPVM_BOOST_NICE);
	ck_assert_int_eq(cosched_boost_for(99, 1e9, &thr), COPVM_BOOST_NONE);
}
END_TEST

START_TEST(nice_is_bounded_by_the_floor)
{
	double f;
	int last = 1;

	ck_assert_int_eq(cosched_nice_for(COSCHED_F_NICE - 1, -10, &thr), 0);
	ck_assert_int_eq(cosched_nice_for(COSCHED_F_NICE, -10, &thr), -1);
	ck_assert_int_eq(cosched_nice_for(COSCHED_F_RT, -10, &thr), -10);
	ck_assert_int_eq(cosched_nice_for(1e12, -5, &thr), -5);
	/* No floor: no nice boost. */
	ck_assert_int_eq(cosched_nice_for(1e12, 0, &thr), 0);
	/* Monotonic between the thresholds, never below the floor. */
	for (f = COSCHED_F_NICE; f < COSCHED_F_RT * 2; f *= 1.1) {
		int n = cosched_nice_for(f, -10, &thr);

		ck_assert_int_le(n, last);
		ck_assert_int_ge(n, -10);
		last = n;
	}
}
END_TEST

START_TEST(dcs_predicate)
{
	/* 2^E (Tc - Tp) + C >= Tq R; Tq = 4 ms, R = 2: needs 8 ms. */
	ck_assert_int_eq(cosched_dcs_fair(0, 100 * MS, 92 * MS, 0, 4 * MS, 2), 1);
	ck_assert_int_eq(cosched_dcs_fair(0, 100 * MS, 93 * MS, 0, 4 * MS, 2), 0);
	/* E = -1 halves the elapsed time: 16 ms are needed. */
	ck_assert_int_eq(cosched_dcs_fair(-1, 100 * MS, 85 * MS, 0, 4 * MS, 2), 0);
	ck_assert_int_eq(cosched_dcs_fair(-1, 100 * MS, 84 * MS, 0, 4 * MS, 2), 1);
	/* C adds a constant allowance. */
	ck_assert_int_eq(cosched_dcs_fair(0, 100 * MS, 99 * MS, 7 * MS, 4 * MS, 2), 1);
	ck_assert_int_eq(cosched_dcs_fair(0, 100 * MS, 99 * MS, -2 * (int64_t)MS,
					  1 * MS, 0), 0);
	/* Never boosted before: allowed; an empty run queue: allowed. */
	ck_assert_int_eq(cosched_dcs_fair(0, 5 * MS, 0, 0, 4 * MS, 100), 1);
	ck_assert_int_eq(cosched_dcs_fair(0, 5 * MS, 5 * MS, 0, 4 * MS, 0), 1);
	/* A clock that went backwards counts as no time passed. */
	ck_assert_int_eq(cosched_dcs_fair(0, 5 * MS, 9 * MS, 0, 4 * MS, 1), 0);
}
END_TEST

START_TEST(budget_demotes_above_the_share)
{
	ck_assert_int_eq(cosched_budget_exceeded(50 * MS, 100 * MS, 50), 0);
	ck_assert_int_eq(cosched_budget_exceeded(51 * MS, 100 * MS, 50), 1);
	ck_assert_int_eq(cosched_budget_exceeded(100 * MS, 100 * MS, 100), 0);
	ck_assert_int_eq(cosched_budget_exceeded(1, 0, 50), 0);
}
END_TEST

START_TEST(spin_bounds)
{
	/* IMP: two context switches. */
	ck_assert_uint_eq(cosched_spin_ns(COPVM_MODEL_IMP, COPVM_BOOST_NONE,
					  30000, 40000), 60000);
	/* A boost does not change the spin. */
	ck_assert_uint_eq(cosched_spin_ns(COPVM_MODEL_IMP, COPVM_BOOST_RT,
					  30000, 40000), 60000);
	ck_assert_uint_eq(cosched_spin_ns(COPVM_MODEL_PRE, COPVM_BOOST_RT,
					  30000, 40000), 40000);
	/* The others keep LIN's. */
	ck_assert_uint_eq(cosched_spin_ns(COPVM_MODEL_PRE, COPVM_BOOST_NICE,
					  30000, 40000), 40000);
	ck_assert_uint_eq(cosched_spin_ns(COPVM_MODEL_LIN, COPVM_BOOST_NONE,
					  30000, 40000), 40000);
}
END_TEST

START_TEST(spin_is_rationed_unless_imp_or_a_charged_boost_that_pays)
{
	const unsigned all = COSCHED_HIT_ONE, pays = COSCHED_HIT_PAYS;
	int m;

	for (m = 0; m < COPVM_NMODELS; m++) {
		int imp = cosched_models[m].wait == COSCHED_WAIT_TWO_CTXSW;

		/* Unboosted, or at most a slice (never charged): rationed. */
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_NONE, 1, all), !imp);
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_SLICE, 1, all), !imp);
		/* A strong boost nobody charges (self: its nice is bounded
		 * by the daemon's watch only): rationed. */
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_NICE, 0, all), !imp);
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_RT, 0, all), !imp);
		/* A strong boost charged to a share, while spins pay: not
		 * rationed. */
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_NICE, 1, all), 0);
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_RT, 1, pays), 0);
		/* ... and once they mostly miss, rationed again (not IMP). */
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_RT, 1, pays - 1), !imp);
		ck_assert_int_eq(cosched_spin_rationed(m, COPVM_BOOST_NICE, 1, 0), !imp);
	}
	ck_assert_int_eq(cosched_spin_rationed(COPVM_MODEL_IMP, COPVM_BOOST_NONE, 0, 0), 0);
	ck_assert_int_eq(cosched_spin_rationed(COPVM_MODEL_LIN, COPVM_BOOST_NONE, 0, all), 1);
	/* An unknown model is rationed like LIN. */
	ck_assert_int_eq(cosched_spin_rationed(-1, COPVM_BOOST_NONE, 0, all), 1);
}
END_TEST

START_TEST(names_round_trip)
{
	int i;

	for (i = 0; i < COPVM_NMODELS; i++)
		ck_assert_int_eq(cosched_model_parse(copvm_model_name(i)), i);
	for (i = 0; i < COPVM_NBACKENDS; i++)
		ck_assert_int_eq(cosched_backend_parse(copvm_backend_name(i)), i);
	ck_assert_int_eq(cosched_model_parse("PRE"), COPVM_MODEL_PRE);
	ck_assert_int_eq(cosched_model_parse("pre0.5"), -1);
	ck_assert_int_eq(cosched_model_parse(""), -1);
	ck_assert_int_eq(cosched_model_parse(NULL), -1);
	ck_assert_ptr_null(copvm_model_name(COPVM_NMODELS));
	ck_assert_ptr_null(copvm_model_name(-1));
	ck_assert_ptr_null(copvm_backend_name(COPVM_NBACKENDS));
}
END_TEST

START_TEST(boost_nice_follows_the_boost_rule)
{
	/* RT is at the floor under any model. */
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_PRE, COPVM_BOOST_RT, 0,
					    -10, &thr), -10);
	/* HPDT and DCS boost at the strongest: the floor at any level. */
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_HPDT, COPVM_BOOST_NICE, 0,
					    -7, &thr), -7);
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_DCS, COPVM_BOOST_SLICE, 0,
					    -7, &thr), -7);
	/* By F: no nice below NICE, at least -1 at NICE, the log scale. */
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_PRE, COPVM_BOOST_SLICE,
					    COSCHED_F_RT, -10, &thr), 0);
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_DYN, COPVM_BOOST_NONE,
					    COSCHED_F_RT, -10, &thr), 0);
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_PRE, COPVM_BOOST_NICE, 0,
					    -10, &thr), -1);
	ck_assert_int_eq(cosched_boost_nice(COPVM_MODEL_DYN, COPVM_BOOST_NICE,
					    COSCHED_F_RT / 2, -10, &thr),
			 cosched_nice_for(COSCHED_F_RT / 2, -10, &thr));
	ck_assert_int_lt(cosched_nice_for(COSCHED_F_RT / 2, -10, &thr), -1);
}
END_TEST

START_TEST(every_model_has_a_row)
{
	int m;

	for (m = 0; m < COPVM_NMODELS; m++) {
		const struct cosched_model_rules *r = cosched_model_rules(m);

		ck_assert_msg(r != NULL, "model %d has no row", m);
		ck_assert_ptr_nonnull(r->name);
		ck_assert_int_gt((int)strlen(r->name), 0);
		ck_assert_msg(r->count >= COSCHED_COUNT_BOTH &&
			      r->count <= COSCHED_COUNT_RECVS,
			      "%s: counting rule %d", r->name, r->count);
		ck_assert_msg(r->boost >= COSCHED_BOOSTS_NEVER &&
			      r->boost <= COSCHED_BOOSTS_ON_WAKE,
			      "%s: boost rule %d", r->name, r->boost);
		ck_assert_msg(r->peer >= COSCHED_PEER_NONE &&
			      r->peer <= COSCHED_PEER_WAKE,
			      "%s: peer rule %d", r->name, r->peer);
		ck_assert_msg(r->wait >= COSCHED_WAIT_ADAPTIVE &&
			      r->wait <= COSCHED_WAIT_TWO_CTXSW,
			      "%s: wait rule %d", r->name, r->wait);
		/* A model that never boosts has nobody to boost. */
		if (r->boost == COSCHED_BOOSTS_NEVER)
			ck_assert_int_eq(r->peer, COSCHED_PEER_NONE);
	}
	ck_assert_ptr_null(cosched_model_rules(-1));
	ck_assert_ptr_null(cosched_model_rules(COPVM_NMODELS));
}
END_TEST

START_TEST(row_names_round_trip_through_the_parser)
{
	char upper[16], list[128];
	int m, i;

	cosched_model_list(list, sizeof(list));
	for (m = 0; m < COPVM_NMODELS; m++) {
		const char *name = cosched_model_rules(m)->name;

		ck_assert_str_eq(copvm_model_name(m), name);
		ck_assert_int_eq(cosched_model_parse(name), m);
		for (i = 0; name[i] && i < (int)sizeof(upper) - 1; i++)
			upper[i] = (char)toupper((unsigned char)name[i]);
		upper[i] = 0;
		ck_assert_int_eq(cosched_model_parse(upper), m);
		ck_assert_msg(strstr(list, name) != NULL, "%s not in \"%s\"",
			      name, list);
	}
	ck_assert_str_eq(list, "lin, imp, hpdt, dyn, pre, dcs, exp");
	/* A short buffer is cut, and terminated. */
	ck_assert_str_eq(cosched_model_list(list, 6), "lin, ");
	ck_assert_str_eq(cosched_model_list(list, 1), "");
}
END_TEST

/* The rules each model of the papers has: what the engine follows. */
START_TEST(each_model_has_its_rules)
{
	static const struct {
		int model;
		struct cosched_model_rules want;
	} rows[] = {
		{ COPVM_MODEL_LIN, { "lin", COSCHED_COUNT_BOTH,
		  COSCHED_BOOSTS_NEVER, COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE } },
		{ COPVM_MODEL_IMP, { "imp", COSCHED_COUNT_BOTH,
		  COSCHED_BOOSTS_NEVER, COSCHED_PEER_NONE, COSCHED_WAIT_TWO_CTXSW } },
		{ COPVM_MODEL_HPDT, { "hpdt", COSCHED_COUNT_BOTH,
		  COSCHED_BOOSTS_ALWAYS, COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE } },
		{ COPVM_MODEL_DYN, { "dyn", COSCHED_COUNT_RECVS,
		  COSCHED_BOOSTS_BY_FREQ, COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE } },
		{ COPVM_MODEL_PRE, { "pre", COSCHED_COUNT_BOTH,
		  COSCHED_BOOSTS_BY_FREQ, COSCHED_PEER_RAISE, COSCHED_WAIT_ADAPTIVE } },
		{ COPVM_MODEL_DCS, { "dcs", COSCHED_COUNT_BOTH,
		  COSCHED_BOOSTS_ON_WAKE, COSCHED_PEER_WAKE, COSCHED_WAIT_ADAPTIVE } },
		{ COPVM_MODEL_EXP, { "exp", COSCHED_COUNT_BOTH,
		  COSCHED_BOOSTS_NEVER, COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE } },
	};
	size_t i;

	ck_assert_int_eq((int)(sizeof(rows) / sizeof(rows[0])), COPVM_NMODELS);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct cosched_model_rules *r = cosched_model_rules(rows[i].model);
		const struct cosched_model_rules *w = &rows[i].want;

		ck_assert_str_eq(r->name, w->name);
		ck_assert_int_eq(r->count, w->count);
		ck_assert_int_eq(r->boost, w->boost);
		ck_assert_int_eq(r->peer, w->peer);
		ck_assert_int_eq(r->wait, w->wait);
	}
}
END_TEST

/* The maths follows each row's rules, whatever the model. */
START_TEST(the_maths_follows_the_rows)
{
	int m;

	for (m = 0; m < COPVM_NMODELS; m++) {
		const struct cosched_model_rules *r = cosched_model_rules(m);
		int quiet = cosched_boost_for(m, 0, &thr);
		int busy = cosched_boost_for(m, 1e9, &thr);

		ck_assert_int_eq(cosched_counts_sends(m),
				 r->count == COSCHED_COUNT_BOTH);
		switch (r->boost) {
		case COSCHED_BOOSTS_NEVER:
			ck_assert_int_eq(busy, COPVM_BOOST_NONE);
			ck_assert_int_eq(quiet, COPVM_BOOST_NONE);
			break;
		case COSCHED_BOOSTS_BY_FREQ:
			ck_assert_int_eq(busy, COPVM_BOOST_RT);
			ck_assert_int_eq(quiet, COPVM_BOOST_NONE);
			break;
		default:	/* the strongest, whatever F */
			ck_assert_int_eq(busy, COPVM_BOOST_RT);
			ck_assert_int_eq(quiet, COPVM_BOOST_RT);
			ck_assert_int_eq(cosched_boost_nice(m, COPVM_BOOST_NICE, 0,
							    -9, &thr), -9);
		}
		ck_assert_uint_eq(cosched_spin_ns(m, COPVM_BOOST_NONE, 30000, 40000),
				  r->wait == COSCHED_WAIT_TWO_CTXSW ? 60000 : 40000);
	}
}
END_TEST

static Suite *cosched_model_suite(void)
{
	Suite *s = suite_create("cosched_model");
	TCase *tc;

	tc = tcase_create("frequency");
	tcase_add_test(tc, recurrence_weights_past_and_current);
	tcase_add_test(tc, p0_is_the_current_interval_only);
	tcase_add_test(tc, p1_keeps_the_past);
	tcase_add_test(tc, p_outside_0_1_is_clamped);
	tcase_add_test(tc, roll_before_the_interval_ends_changes_nothing);
	tcase_add_test(tc, empty_intervals_decay_by_p);
	tcase_add_test(tc, dyn_counts_receives_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("policy");
	tcase_add_test(tc, boost_follows_the_model);
	tcase_add_test(tc, nice_is_bounded_by_the_floor);
	tcase_add_test(tc, dcs_predicate);
	tcase_add_test(tc, budget_demotes_above_the_share);
	tcase_add_test(tc, spin_bounds);
	tcase_add_test(tc, spin_is_rationed_unless_imp_or_a_charged_boost_that_pays);
	tcase_add_test(tc, names_round_trip);
	tcase_add_test(tc, boost_nice_follows_the_boost_rule);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_test(tc, every_model_has_a_row);
	tcase_add_test(tc, row_names_round_trip_through_the_parser);
	tcase_add_test(tc, each_model_has_its_rules);
	tcase_add_test(tc, the_maths_follows_the_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cosched_model_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

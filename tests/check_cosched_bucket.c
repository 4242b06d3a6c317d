/*
 * check_cosched_bucket.c - unit tests of kmod/pvm_cosched_bucket.h (the
 * agent's and the module's one token bucket), the CPU share of a boost: the share and its cap, refill, exhaustion, the
 * debt and its repayment, renewal without a cliff (the boost comes
 * back as soon as the refill covers the debt, not after a cool-down), and
 * the split of a budget between users.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "cosched_bucket.h"

#define MS	1000000ULL
#define SHARE(x)	((uint32_t)((x) * COSCHED_SHARE_ONE))

START_TEST(a_new_bucket_is_full_at_share_times_window)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.1), 100 * MS, 5 * MS);
	ck_assert_uint_eq(b.cap_ns, 10 * MS);
	ck_assert_int_eq(b.tokens_ns, 10 * MS);
	ck_assert(cosched_bucket_allows(&b));
	ck_assert_uint_eq(cosched_bucket_wait_ns(&b), 0);
}
END_TEST

START_TEST(shares_are_clamped_to_one_cpu)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, 0, 100 * MS, 0);
	ck_assert_uint_eq(b.share_ppm, 1);
	cosched_bucket_init(&b, 5 * COSCHED_SHARE_ONE, 100 * MS, 0);
	ck_assert_uint_eq(b.share_ppm, COSCHED_SHARE_ONE);
	ck_assert_uint_eq(b.cap_ns, 100 * MS);
}
END_TEST

START_TEST(use_beyond_the_tokens_exhausts_and_leaves_a_debt)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.1), 100 * MS, 0);
	/* 12 ms of CPU over 2 ms of wall time on a full bucket: its
	 * 10 ms (a full bucket saves no refill), 2 ms of debt. */
	ck_assert_int_eq(cosched_bucket_charge(&b, 2 * MS, 12 * MS),
			 -(int64_t)(2 * MS));
	ck_assert(!cosched_bucket_allows(&b));
	/* 2 ms of debt at 0.1 of a CPU: 20 ms (+ 1 ns, rounded up). */
	ck_assert_uint_eq(cosched_bucket_wait_ns(&b), 20 * MS + 10);
}
END_TEST

START_TEST(a_new_share_keeps_the_debt_and_refills_nothing)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.1), 100 * MS, 0);
	cosched_bucket_charge(&b, 0, 13 * MS);	/* 3 ms of debt */
	/* a larger share: the debt stays, repaid at the new rate */
	cosched_bucket_set_share(&b, SHARE(1), 100 * MS, 0);
	ck_assert_uint_eq(b.cap_ns, 100 * MS);
	ck_assert_int_eq(b.tokens_ns, -(int64_t)(3 * MS));
	ck_assert_int_eq(cosched_bucket_charge(&b, 4 * MS, 0),
			 (int64_t)(1 * MS));
	/* a smaller one: the tokens are cut to its cap, a debt to its
	 * cap too */
	cosched_bucket_charge(&b, 1000 * MS, 0);
	cosched_bucket_set_share(&b, SHARE(0.01), 100 * MS, 1000 * MS);
	ck_assert_int_eq(b.tokens_ns, (int64_t)(1 * MS));
	cosched_bucket_charge(&b, 1000 * MS, 50 * MS);
	ck_assert_int_eq(b.tokens_ns, -(int64_t)(1 * MS));
	cosched_bucket_set_share(&b, SHARE(0.001), 100 * MS, 1000 * MS);
	ck_assert_int_eq(b.tokens_ns, -(int64_t)(100 * 1000));
}
END_TEST

START_TEST(the_boost_resumes_once_the_debt_is_repaid)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.1), 100 * MS, 0);
	cosched_bucket_charge(&b, 0, 11 * MS);	/* 1 ms of debt */
	ck_assert(!cosched_bucket_allows(&b));
	/* Held: the task ran unboosted, nothing is charged. */
	cosched_bucket_charge(&b, 9 * MS, 0);
	ck_assert(!cosched_bucket_allows(&b));
	cosched_bucket_charge(&b, 10 * MS + 1000, 0);
	ck_assert(cosched_bucket_allows(&b));
	/* No cool-down: right after the repayment the boost may be used,
	 * and it is held again only by new use. */
	ck_assert_int_gt(b.tokens_ns, 0);
	ck_assert_int_lt(b.tokens_ns, (int64_t)MS);
}
END_TEST

START_TEST(refill_never_exceeds_the_cap)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.5), 100 * MS, 0);
	cosched_bucket_charge(&b, 10000 * MS, 0);
	ck_assert_int_eq(b.tokens_ns, 50 * MS);
}
END_TEST

START_TEST(a_blocked_task_uses_no_budget)
{
	struct cosched_bucket b;
	uint64_t t;

	cosched_bucket_init(&b, SHARE(0.05), 100 * MS, 0);
	for (t = 2 * MS; t <= 2000 * MS; t += 2 * MS)
		cosched_bucket_charge(&b, t, 0);
	ck_assert_int_eq(b.tokens_ns, 5 * MS);
	ck_assert(cosched_bucket_allows(&b));
}
END_TEST

START_TEST(a_spinning_task_is_held_to_its_share)
{
	struct cosched_bucket b;
	uint64_t t, boosted = 0, step = 2 * MS;

	/* A task that would use the whole CPU, sampled every 2 ms: it is
	 * charged only while the boost is in force. */
	cosched_bucket_init(&b, SHARE(0.2), 100 * MS, 0);
	for (t = step; t <= 10000 * MS; t += step) {
		uint64_t used = cosched_bucket_allows(&b) ? step : 0;

		boosted += used;
		cosched_bucket_charge(&b, t, used);
	}
	/* 0.2 of 10 s plus at most the cap and one sample's overshoot. */
	ck_assert_uint_le(boosted, 2000 * MS + 20 * MS + step);
	ck_assert_uint_ge(boosted, 2000 * MS - step);
}
END_TEST

START_TEST(a_debt_is_capped_at_one_window_of_share)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.1), 100 * MS, 0);
	cosched_bucket_charge(&b, 1 * MS, 5000 * MS);
	ck_assert_int_eq(b.tokens_ns, -(int64_t)(10 * MS));
	ck_assert_uint_le(cosched_bucket_wait_ns(&b), 100 * MS + 10);
}
END_TEST

START_TEST(time_going_backwards_refills_nothing)
{
	struct cosched_bucket b;

	cosched_bucket_init(&b, SHARE(0.1), 100 * MS, 50 * MS);
	cosched_bucket_charge(&b, 50 * MS, 10 * MS);
	ck_assert_int_eq(cosched_bucket_charge(&b, 10 * MS, 0), 0);
	ck_assert_uint_eq(b.at_ns, 50 * MS);
}
END_TEST

START_TEST(a_budget_is_split_evenly_and_never_to_nothing)
{
	ck_assert_uint_eq(cosched_part_ppm(SHARE(0.4), 0), SHARE(0.4));
	ck_assert_uint_eq(cosched_part_ppm(SHARE(0.4), 1), SHARE(0.4));
	ck_assert_uint_eq(cosched_part_ppm(SHARE(0.4), 2), SHARE(0.2));
	ck_assert_uint_eq(cosched_part_ppm(SHARE(0.4), 3), 133333);
	ck_assert_uint_eq(cosched_part_ppm(COSCHED_SHARE_ONE, 7), 142857);
	/* rounded down: n parts never exceed the budget */
	ck_assert_uint_le(7 * cosched_part_ppm(COSCHED_SHARE_ONE, 7),
			  COSCHED_SHARE_ONE);
	/* a part too small to refill is 1 ppm, never 0 */
	ck_assert_uint_eq(cosched_part_ppm(5, 10), 1);
	ck_assert_uint_eq(cosched_part_ppm(0, 1), 1);
	ck_assert_uint_eq(cosched_part_ppm(SHARE(1), 0xffffffffu), 1);
}
END_TEST

/* Two users' buckets, each charged by one spinning task (a whole CPU
 * of 2, divided by the CPUs) while it allows, every 2 ms from `t0' for
 * `ms'; each user's boosted CPU goes to boosted[]. */
static void spin_users(struct cosched_bucket *u, int n, uint64_t t0,
		       uint64_t ms, uint64_t *boosted)
{
	uint64_t t, step = 2 * MS;
	int i;

	for (t = t0 + step; t <= t0 + ms * MS; t += step)
		for (i = 0; i < n; i++) {
			uint64_t used = cosched_bucket_allows(&u[i]) ? step : 0;

			boosted[i] += used;
			cosched_bucket_charge(&u[i], t, used / 2);
		}
}

START_TEST(users_sharing_a_budget_each_get_their_part)
{
	struct cosched_bucket u[2];
	uint64_t alone[1] = { 0 }, both[2] = { 0, 0 }, again[1] = { 0 };
	const uint32_t budget = SHARE(0.2);

	/* A alone: the whole budget, 0.2 of each of 2 CPUs, 0.4 s a s */
	cosched_bucket_init(&u[0], cosched_part_ppm(budget, 1), 100 * MS, 0);
	spin_users(u, 1, 0, 10000, alone);
	/* B comes: both get half, A keeping its tokens or debt */
	cosched_bucket_set_share(&u[0], cosched_part_ppm(budget, 2),
				 100 * MS, 10000 * MS);
	cosched_bucket_init(&u[1], cosched_part_ppm(budget, 2), 100 * MS,
			    10000 * MS);
	spin_users(u, 2, 10000 * MS, 10000, both);
	/* B leaves: A gets the whole budget back */
	cosched_bucket_set_share(&u[0], cosched_part_ppm(budget, 1),
				 100 * MS, 20000 * MS);
	spin_users(u, 1, 20000 * MS, 10000, again);
	/* 0.4 of 10 s, plus a cap of 2 x 20 ms and a sample's overshoot */
	ck_assert_uint_le(alone[0], 4000 * MS + 40 * MS + 2 * MS);
	ck_assert_uint_ge(alone[0], 4000 * MS - 2 * MS);
	ck_assert_uint_le(again[0], 4000 * MS + 2 * MS);
	ck_assert_uint_ge(again[0], 4000 * MS - 20 * MS - 2 * MS);
	/* half each: B's burst of its new cap, none for A, whose cap was
	 * cut to the new one */
	ck_assert_uint_le(both[0], 2000 * MS + 20 * MS + 2 * MS);
	ck_assert_uint_ge(both[0], 2000 * MS - 20 * MS - 2 * MS);
	ck_assert_uint_le(both[1], 2000 * MS + 20 * MS + 2 * MS);
	ck_assert_uint_ge(both[1], 2000 * MS - 2 * MS);
}
END_TEST

static Suite *bucket_suite(void)
{
	Suite *s = suite_create("cosched_bucket");
	TCase *tc = tcase_create("bucket");

	tcase_add_test(tc, a_new_bucket_is_full_at_share_times_window);
	tcase_add_test(tc, shares_are_clamped_to_one_cpu);
	tcase_add_test(tc, use_beyond_the_tokens_exhausts_and_leaves_a_debt);
	tcase_add_test(tc, the_boost_resumes_once_the_debt_is_repaid);
	tcase_add_test(tc, refill_never_exceeds_the_cap);
	tcase_add_test(tc, a_blocked_task_uses_no_budget);
	tcase_add_test(tc, a_spinning_task_is_held_to_its_share);
	tcase_add_test(tc, a_debt_is_capped_at_one_window_of_share);
	tcase_add_test(tc, time_going_backwards_refills_nothing);
	tcase_add_test(tc, a_new_share_keeps_the_debt_and_refills_nothing);
	tcase_add_test(tc, a_budget_is_split_evenly_and_never_to_nothing);
	tcase_add_test(tc, users_sharing_a_budget_each_get_their_part);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bucket_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

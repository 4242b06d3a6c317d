/*
 * check_cosched_bucket.c - unit tests of kmod/pvm_cosched_bucket.h (the
 * agent's and the module's one token bucket), the CPU share of a boost: the share and its cap, refill, exhaustion, the
 * debt and its repayment, and renewal without a cliff (the boost comes
 * back as soon as the refill covers the debt, not after a cool-down).
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

/*
 * check_cosched_checks.c - unit tests of kmod/pvm_cosched_checks.h, the
 * kernel module's checks of its arguments, built in user space as the
 * fuzz target builds it: the limits' ranges, the node budget's word among
 * them, and a user's part of the node's budget (pcs_user_part) as the
 * number of users with registered tasks changes.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "pcs_user_space.h"

#include "uapi/pvm_cosched.h"
#include "pvm_cosched_checks.h"

#define MS	1000000ULL

/* The module's defaults (kmod/pcs_state.c). */
static const struct pvm_cosched_limits defaults = {
	.nice_floor = -5, .allow_rt = 0, .box_max_ns = 20 * MS,
	.share_max_ppm = 500000, .window_ns = 100 * MS,
	.sample_ns = 2 * MS, .user_share_ppm = 100000,
	.node_share_ppm = 100000,
};

START_TEST(the_defaults_and_no_node_budget_are_valid)
{
	struct pvm_cosched_limits l = defaults;

	ck_assert(pcs_limits_valid(&l));
	l.node_share_ppm = 0;
	ck_assert(pcs_limits_valid(&l));
	l.node_share_ppm = PCS_SHARE_ONE;
	ck_assert(pcs_limits_valid(&l));
}
END_TEST

START_TEST(a_node_budget_above_one_cpu_or_a_reserved_word_is_refused)
{
	struct pvm_cosched_limits l = defaults;

	l.node_share_ppm = PCS_SHARE_ONE + 1;
	ck_assert(!pcs_limits_valid(&l));
	l.node_share_ppm = 0xffffffffu;
	ck_assert(!pcs_limits_valid(&l));
	l = defaults;
	l.reserved[0] = 1;
	ck_assert(!pcs_limits_valid(&l));
	l = defaults;
	l.user_share_ppm = 0;
	ck_assert(!pcs_limits_valid(&l));
}
END_TEST

START_TEST(without_a_node_budget_each_user_gets_the_user_share)
{
	struct pvm_cosched_limits l = defaults;
	u32 n;

	l.node_share_ppm = 0;
	l.user_share_ppm = 300000;
	for (n = 0; n < 100; n++)
		ck_assert_uint_eq(pcs_user_part(&l, n), 300000);
}
END_TEST

START_TEST(the_node_budget_is_split_evenly_within_the_user_share)
{
	struct pvm_cosched_limits l = defaults;

	l.node_share_ppm = 400000;
	l.user_share_ppm = PCS_SHARE_ONE;
	ck_assert_uint_eq(pcs_user_part(&l, 0), 400000);
	ck_assert_uint_eq(pcs_user_part(&l, 1), 400000);
	ck_assert_uint_eq(pcs_user_part(&l, 2), 200000);
	ck_assert_uint_eq(pcs_user_part(&l, 3), 133333);
	/* the user share bounds a part: a user alone gets no more */
	l.user_share_ppm = 150000;
	ck_assert_uint_eq(pcs_user_part(&l, 1), 150000);
	ck_assert_uint_eq(pcs_user_part(&l, 2), 150000);
	ck_assert_uint_eq(pcs_user_part(&l, 3), 133333);
	ck_assert_uint_eq(pcs_user_part(&l, 4), 100000);
	/* the defaults: one user 10 %, two 5 % each */
	ck_assert_uint_eq(pcs_user_part(&defaults, 1), 100000);
	ck_assert_uint_eq(pcs_user_part(&defaults, 2), 50000);
}
END_TEST

START_TEST(a_part_is_never_zero)
{
	struct pvm_cosched_limits l = defaults;

	l.node_share_ppm = 3;
	ck_assert_uint_eq(pcs_user_part(&l, 2), 1);
	ck_assert_uint_eq(pcs_user_part(&l, 1000), 1);
	ck_assert_uint_eq(pcs_user_part(&l, 0xffffffffu), 1);
}
END_TEST

static Suite *checks_suite(void)
{
	Suite *s = suite_create("cosched_checks");
	TCase *tc = tcase_create("limits");

	tcase_add_test(tc, the_defaults_and_no_node_budget_are_valid);
	tcase_add_test(tc,
		       a_node_budget_above_one_cpu_or_a_reserved_word_is_refused);
	tcase_add_test(tc, without_a_node_budget_each_user_gets_the_user_share);
	tcase_add_test(tc,
		       the_node_budget_is_split_evenly_within_the_user_share);
	tcase_add_test(tc, a_part_is_never_zero);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(checks_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_task_hooks.c - unit tests of lib/task_hooks.c, the registry of
 * what the parts of libpvm3 do when the task enrols, forks, exits or has
 * left: hooks run in registration order, only at their own event, and a
 * full table or a bad event refuses without registering.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "task_hooks.h"

/* What the hooks ran, in order, as letters. */
static char trail[64];

static void note(char c)
{
	size_t n = strlen(trail);

	trail[n] = c;
	trail[n + 1] = '\0';
}

static void hook_a(void) { note('a'); }
static void hook_b(void) { note('b'); }
static void hook_c(void) { note('c'); }

static void setup(void)
{
	trail[0] = '\0';
}

START_TEST(test_hooks_run_in_registration_order)
{
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_LEFT, hook_b), 0);
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_LEFT, hook_a), 0);
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_LEFT, hook_c), 0);
	pvmi_task_hooks_run(PVMI_TASK_LEFT);
	ck_assert_str_eq(trail, "bac");
	pvmi_task_hooks_run(PVMI_TASK_LEFT);
	ck_assert_str_eq(trail, "bacbac");
}
END_TEST

START_TEST(test_hooks_run_only_at_their_event)
{
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_ENROLLED, hook_a), 0);
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_FORKED, hook_b), 0);
	pvmi_task_hooks_run(PVMI_TASK_EXITING);
	pvmi_task_hooks_run(PVMI_TASK_ENROLLING);
	ck_assert_str_eq(trail, "");
	pvmi_task_hooks_run(PVMI_TASK_FORKED);
	ck_assert_str_eq(trail, "b");
	pvmi_task_hooks_run(PVMI_TASK_ENROLLED);
	ck_assert_str_eq(trail, "ba");
}
END_TEST

START_TEST(test_bad_registrations_are_refused)
{
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_NEVENTS, hook_a), -1);
	ck_assert_int_eq(pvmi_task_hook((enum pvmi_task_event)-1, hook_a), -1);
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_LEFT, NULL), -1);
	pvmi_task_hooks_run(PVMI_TASK_NEVENTS);	/* runs nothing */
	pvmi_task_hooks_run(PVMI_TASK_LEFT);
	ck_assert_str_eq(trail, "");
}
END_TEST

START_TEST(test_full_table_refuses_and_keeps_the_others)
{
	int i;

	for (i = 0; i < PVMI_TASK_HOOKS_MAX; i++)
		ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_EXITING, hook_a), 0);
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_EXITING, hook_b), -1);
	pvmi_task_hooks_run(PVMI_TASK_EXITING);
	ck_assert_int_eq((int)strlen(trail), PVMI_TASK_HOOKS_MAX);
	ck_assert_ptr_null(strchr(trail, 'b'));
	/* another event still has room */
	ck_assert_int_eq(pvmi_task_hook(PVMI_TASK_LEFT, hook_c), 0);
}
END_TEST

static Suite *task_hooks_suite(void)
{
	Suite *s = suite_create("task_hooks");
	TCase *tc = tcase_create("registry");

	/* fork mode: each case starts with an empty table */
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_hooks_run_in_registration_order);
	tcase_add_test(tc, test_hooks_run_only_at_their_event);
	tcase_add_test(tc, test_bad_registrations_are_refused);
	tcase_add_test(tc, test_full_table_refuses_and_keeps_the_others);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(task_hooks_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

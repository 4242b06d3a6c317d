/*
 * check_task_state.c - unit tests of lib/task_state.c: the task's state
 * before enrolment, the question "is this process the enrolled one?"
 * across a fork, and the pid cache behind it.  Built from the sources of
 * the unit and of errors.c alone: the state needs nothing else.  Also
 * the shape of a task's tid.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvmi.h"

START_TEST(test_initial_state)
{
	ck_assert_int_eq(pvmi.mytid, 0);
	ck_assert_int_eq(pvmi.ptid, PvmNoParent);
	ck_assert_int_eq(pvmi.ctx, PvmBaseContext);
	ck_assert_int_eq(pvmi.autoerr, 1);
	ck_assert_int_eq(pvmi.route, PvmAllowDirect);
	ck_assert_int_eq(pvmi.fragsize, 4080);
	ck_assert_int_eq(pvmi.showtids, 1);
	ck_assert_int_eq(pvmi.polltype, PvmPollConstant);
	ck_assert_int_eq(pvmi.enrolled, 0);
	ck_assert_ptr_null(pvmi_leave);
	ck_assert_int_eq(pvmi_attached(), 0);
}
END_TEST

START_TEST(test_self_pid_is_getpid)
{
	ck_assert_int_eq(pvmi_self_pid(), getpid());
	ck_assert_int_eq(pvmi_self_pid(), getpid());
}
END_TEST

START_TEST(test_attached_needs_enrolment_and_our_pid)
{
	pvmi.pid = pvmi_self_pid();
	ck_assert_int_eq(pvmi_attached(), 0);
	pvmi.enrolled = 1;
	ck_assert_int_ne(pvmi_attached(), 0);
	pvmi.pid = getpid() + 1;	/* enrolled by another process */
	ck_assert_int_eq(pvmi_attached(), 0);
}
END_TEST

/* A forked child of the enrolled process is not enrolled, and its pid
 * cache holds its own pid, not its parent's. */
START_TEST(test_forked_child_is_not_attached)
{
	pid_t child;
	int status;

	pvmi.pid = pvmi_self_pid();
	pvmi.enrolled = 1;
	ck_assert_int_ne(pvmi_attached(), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(pvmi_attached() == 0 && pvmi_self_pid() == getpid() &&
		      pvmi_self_pid() != pvmi.pid ? 0 : 1);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_ne(pvmi_attached(), 0);	/* still so in the parent */
}
END_TEST

/* pvmi_here, pvmi_attach()'s inline answer: set only for the enrolled
 * process, cleared by leaving and in a forked child. */
START_TEST(test_here_follows_enrolment_and_fork)
{
	pid_t child;
	int status;

	ck_assert_int_eq(pvmi_here, 0);
	pvmi.pid = pvmi_self_pid();
	pvmi_note_attached(1);		/* not enrolled: not noted */
	ck_assert_int_eq(pvmi_here, 0);
	pvmi.enrolled = 1;
	pvmi.pid = getpid() + 1;	/* another process's enrolment */
	pvmi_note_attached(1);
	ck_assert_int_eq(pvmi_here, 0);
	pvmi.pid = pvmi_self_pid();
	pvmi_note_attached(1);
	ck_assert_int_ne(pvmi_here, 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(pvmi_here == 0 && pvmi_attached() == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_ne(pvmi_here, 0);	/* still so in the parent */
	pvmi.enrolled = 0;
	pvmi_note_attached(0);
	ck_assert_int_eq(pvmi_here, 0);
}
END_TEST

START_TEST(test_task_tid_shape)
{
	ck_assert_int_eq(pvmi_check_task_tid(0x40001), PvmOk);
	ck_assert_int_eq(pvmi_check_task_tid(0x3ffc0000 | 0x3ffff), PvmOk);
	ck_assert_int_eq(pvmi_check_task_tid(0), PvmBadParam);
	ck_assert_int_eq(pvmi_check_task_tid(-1), PvmBadParam);
	ck_assert_int_eq(pvmi_check_task_tid(0x40000), PvmBadParam); /* a daemon */
	ck_assert_int_eq(pvmi_check_task_tid(0x00001), PvmBadParam); /* no host */
	ck_assert_int_eq(pvmi_check_task_tid((int)0x80040001u), PvmBadParam);
}
END_TEST

static Suite *task_state_suite(void)
{
	Suite *s = suite_create("task_state");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, test_initial_state);
	tcase_add_test(tc, test_self_pid_is_getpid);
	tcase_add_test(tc, test_attached_needs_enrolment_and_our_pid);
	tcase_add_test(tc, test_forked_child_is_not_attached);
	tcase_add_test(tc, test_here_follows_enrolment_and_fork);
	tcase_add_test(tc, test_task_tid_shape);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(task_state_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_cosched_arrival.c - the task's input files handed to a backend
 * that boosts on arrival (lib/cosched/arrival.c), against a stand-in
 * backend that records its watch calls: files named before the watch
 * and after it are watched with the engine's boost, a file that goes is
 * unwatched while still open, turning the watch off or changing its
 * backend ends every watch first, a file the backend refuses is never
 * unwatched, the module's limit of files is kept, and a forked child
 * does not end its parent's watches.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched/arrival.h"
#include "pvm_cosched.h"

#define MAXCALLS 256

/* What the stand-in backend was asked. */
static struct call {
	int fd, level, nice;
	uint64_t box;
	int by;			/* which stand-in: 1 or 2 */
} calls[MAXCALLS];
static int ncalls;
static int refuse_fd = -1;	/* the stand-in answers -EBADF for it */

static int record(int by, int fd, int level, int nice, uint64_t box)
{
	if (ncalls < MAXCALLS)
		calls[ncalls++] = (struct call){ fd, level, nice, box, by };
	return fd == refuse_fd ? -9 : 0;
}

static int watch1(int fd, int level, int nice, uint64_t box)
{
	return record(1, fd, level, nice, box);
}

static int watch2(int fd, int level, int nice, uint64_t box)
{
	return record(2, fd, level, nice, box);
}

/* The calls for `fd' among the recorded ones, from `from' on. */
static int calls_for(int fd, int level, int by, int from)
{
	int i, n = 0;

	for (i = from; i < ncalls; i++)
		n += calls[i].fd == fd && calls[i].level == level &&
		     calls[i].by == by;
	return n;
}

static void reset(void)
{
	int fd;

	pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
	for (fd = 0; fd < 200; fd++)
		pvmi_cosched_input_gone(fd);
	ncalls = 0;
	refuse_fd = -1;
}

START_TEST(files_named_before_and_after_the_watch_are_watched)
{
	reset();
	pvmi_cosched_input_added(5);
	pvmi_cosched_input_added(6);
	ck_assert_int_eq(ncalls, 0);	/* no watch in force: no call */
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_RT, -10, 4000000);
	ck_assert_int_eq(calls_for(5, COPVM_BOOST_RT, 1, 0), 1);
	ck_assert_int_eq(calls_for(6, COPVM_BOOST_RT, 1, 0), 1);
	ck_assert_int_eq(calls[0].nice, -10);
	ck_assert_uint_eq(calls[0].box, 4000000);
	pvmi_cosched_input_added(7);
	ck_assert_int_eq(calls_for(7, COPVM_BOOST_RT, 1, 0), 1);
	pvmi_cosched_input_added(7);	/* named twice: watched once */
	ck_assert_int_eq(calls_for(7, COPVM_BOOST_RT, 1, 0), 1);
	ck_assert_int_eq(pvmi_cosched_arrivals_watched(), 3);
}
END_TEST

START_TEST(a_file_that_goes_is_unwatched_and_off_ends_every_watch)
{
	int mark;

	reset();
	pvmi_cosched_input_added(5);
	pvmi_cosched_input_added(6);
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_NICE, -5, 1000);
	mark = ncalls;
	pvmi_cosched_input_gone(5);
	ck_assert_int_eq(calls_for(5, COPVM_BOOST_NONE, 1, mark), 1);
	ck_assert_int_eq(pvmi_cosched_arrivals_watched(), 1);
	mark = ncalls;
	pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
	ck_assert_int_eq(calls_for(6, COPVM_BOOST_NONE, 1, mark), 1);
	ck_assert_int_eq(pvmi_cosched_arrivals_watched(), 0);
	/* off again: nothing more to end */
	mark = ncalls;
	pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
	ck_assert_int_eq(ncalls, mark);
	/* a file named while off is not watched */
	pvmi_cosched_input_added(8);
	ck_assert_int_eq(ncalls, mark);
}
END_TEST

START_TEST(a_new_backend_or_boost_ends_the_old_watches_first)
{
	int mark;

	reset();
	pvmi_cosched_input_added(5);
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_RT, -10, 1000);
	mark = ncalls;
	/* the same again changes nothing */
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_RT, -10, 1000);
	ck_assert_int_eq(ncalls, mark);
	pvmi_cosched_arrivals_set(watch2, COPVM_BOOST_NICE, -4, 2000);
	ck_assert_int_eq(ncalls, mark + 2);
	/* the old backend ends its watch before the new one starts */
	ck_assert_int_eq(calls[mark].by, 1);
	ck_assert_int_eq(calls[mark].level, COPVM_BOOST_NONE);
	ck_assert_int_eq(calls[mark + 1].by, 2);
	ck_assert_int_eq(calls[mark + 1].level, COPVM_BOOST_NICE);
	ck_assert_int_eq(calls[mark + 1].nice, -4);
}
END_TEST

START_TEST(a_refused_file_is_never_unwatched)
{
	int mark;

	reset();
	refuse_fd = 6;
	pvmi_cosched_input_added(5);
	pvmi_cosched_input_added(6);
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_RT, -10, 1000);
	ck_assert_int_eq(pvmi_cosched_arrivals_watched(), 1);
	mark = ncalls;
	pvmi_cosched_input_gone(6);
	ck_assert_int_eq(ncalls, mark);
	pvmi_cosched_input_gone(5);
	ck_assert_int_eq(calls_for(5, COPVM_BOOST_NONE, 1, mark), 1);
}
END_TEST

START_TEST(no_more_files_than_the_module_watches)
{
	int fd;

	reset();
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_RT, -10, 1000);
	for (fd = 10; fd < 10 + 2 * PVM_COSCHED_MAX_WATCH; fd++)
		pvmi_cosched_input_added(fd);
	ck_assert_int_eq(ncalls, PVM_COSCHED_MAX_WATCH);
	ck_assert_int_eq(pvmi_cosched_arrivals_watched(),
			 PVM_COSCHED_MAX_WATCH);
	/* the first ones named are the ones kept */
	ck_assert_int_eq(calls_for(10, COPVM_BOOST_RT, 1, 0), 1);
	ck_assert_int_eq(calls_for(10 + PVM_COSCHED_MAX_WATCH, COPVM_BOOST_RT,
				   1, 0), 0);
	/* one goes: room for the next */
	pvmi_cosched_input_gone(10);
	pvmi_cosched_input_added(99);
	ck_assert_int_eq(calls_for(99, COPVM_BOOST_RT, 1, 0), 1);
}
END_TEST

START_TEST(a_forked_child_leaves_its_parents_watches)
{
	pid_t pid;
	int st;

	reset();
	pvmi_cosched_input_added(5);
	pvmi_cosched_arrivals_set(watch1, COPVM_BOOST_RT, -10, 1000);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int mark = ncalls;

		/* the child closes its copies of the parent's files and
		 * turns its watch off: neither reaches the parent's device */
		pvmi_cosched_input_gone(5);
		pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
		_exit(ncalls == mark && pvmi_cosched_arrivals_watched() == 0 ?
			      0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_int_eq(pvmi_cosched_arrivals_watched(), 1);
}
END_TEST

static Suite *arrival_suite(void)
{
	Suite *s = suite_create("cosched_arrival");
	TCase *tc = tcase_create("watch");

	tcase_add_test(tc, files_named_before_and_after_the_watch_are_watched);
	tcase_add_test(tc,
		       a_file_that_goes_is_unwatched_and_off_ends_every_watch);
	tcase_add_test(tc, a_new_backend_or_boost_ends_the_old_watches_first);
	tcase_add_test(tc, a_refused_file_is_never_unwatched);
	tcase_add_test(tc, no_more_files_than_the_module_watches);
	tcase_add_test(tc, a_forked_child_leaves_its_parents_watches);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(arrival_suite());
	int failed;

	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

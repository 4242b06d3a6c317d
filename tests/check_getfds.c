/*
 * check_getfds.c - pvm_getfds() (lib/options.c, lib/conn.c,
 * lib/pollset.c) as stock PVM 3.4 shapes it: one descriptor at the
 * start, one more per direct route a task opened to us, one again once
 * that task has gone; and its first descriptor alone wakes a program
 * that polls it for a message over a shared-memory ring, for a message
 * from the daemon (an exit notify), for a task that connects to us for
 * the first time, and for the daemon going away (pvm_getfds() then says
 * PvmSysErr, as stock's page does for "pvmd not responding").
 *
 * A lost wake-up shows as a poll() that waits its 20 s bound, then a
 * failure.  Loop tests run with the rings on (i == 0) and with
 * COPVM_SHM=0 (i == 1).
 */
#include <check.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	21
#define TAG_ECHO	22
#define TAG_GONE	23
#define WAKE_BOUND_MS	20000

/* A pipe through which the test lets a forked task go on. */
static int go[2] = { -1, -1 };

/* Waits for the go byte of the test (or its end). */
static void wait_go(void)
{
	char c;

	close(go[1]);
	if (read(go[0], &c, 1) < 0)
		_exit(4);
}

static void let_go(void)
{
	ck_assert_int_eq(write(go[1], "g", 1), 1);
}

/* Polls `fd' alone for input (or fails). */
static void poll_one(int fd, int tag)
{
	struct pollfd p;

	p.fd = fd;
	p.events = POLLIN;
	ck_assert_msg(poll(&p, 1, WAKE_BOUND_MS) > 0,
		      "fds[0] slept through input for tag %d", tag);
}

/* Polls `fd' alone, as a program with its own event loop would, until
 * pvm_nrecv(src, tag) has a message; returns its buffer. */
static int poll_one_until(int fd, int src, int tag)
{
	int bufid;

	while ((bufid = pvm_nrecv(src, tag)) == 0)
		poll_one(fd, tag);
	ck_assert_int_gt(bufid, 0);
	return bufid;
}

/* Answers one message of the parent on a direct route, then waits. */
static int echo_once_then_wait(int parent)
{
	pvm_setopt(PvmRoute, PvmRouteDirect);
	vm_send_int(parent, TAG_ECHO, vm_recv_int(parent, TAG_DATA));
	wait_go();
	return 0;
}

START_TEST(counts_are_stocks_one_two_one)
{
	int me, kid, *fds, n, first;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	n = pvm_getfds(&fds);
	ck_assert_int_eq(n, 1);
	first = fds[0];
	ck_assert_int_ge(first, 0);

	ck_assert_int_eq(pipe(go), 0);
	kid = vm_fork_task(echo_once_then_wait, me, &pid);
	close(go[0]);
	pvm_setopt(PvmRoute, PvmRouteDirect);
	ck_assert_int_eq(pvm_notify(PvmTaskExit, TAG_GONE, 1, &kid), PvmOk);
	vm_send_int(kid, TAG_DATA, 5);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), 5);
	/* the kid's circuit to us: one more, and fds[0] stays put */
	n = pvm_getfds(&fds);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(fds[0], first);
	ck_assert_int_ge(fds[1], 0);
	ck_assert_int_ne(fds[1], first);

	let_go();
	ck_assert_int_gt(pvm_recv(-1, TAG_GONE), 0);
	vm_wait_ok(pid);
	n = pvm_getfds(&fds);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(fds[0], first);
	close(go[1]);
	pvm_exit();
}
END_TEST

/* Echoes twenty ints, each when the parent sends it. */
static int paced_echo(int parent)
{
	int i;

	for (i = 0; i < 20; i++)
		vm_send_int(parent, TAG_ECHO, vm_recv_int(parent, TAG_DATA));
	return 0;
}

START_TEST(fds0_alone_wakes_for_ring_messages)
{
	int me, kid, i, *fds, fd;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	ck_assert_int_gt(pvm_getfds(&fds), 0);
	fd = fds[0];
	kid = vm_fork_task(paced_echo, me, &pid);
	for (i = 0; i < 20; i++) {
		vm_send_int(kid, TAG_DATA, i);
		poll_one_until(fd, kid, TAG_ECHO);
		ck_assert_int_eq(pvm_upkint(&me, 1, 1), PvmOk);
		ck_assert_int_eq(me, i);
	}
	if (!_i)
		ck_assert_int_gt(vm_ring_maps(), 0);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* Says nothing to anyone: leaves when let go. */
static int silent(int parent)
{
	wait_go();
	return 0;
}

START_TEST(fds0_alone_wakes_for_the_daemons_messages)
{
	int me, kid, *fds, fd;
	pid_t pid;

	me = pvm_mytid();
	ck_assert_int_gt(pvm_getfds(&fds), 0);
	fd = fds[0];
	ck_assert_int_eq(pipe(go), 0);
	kid = vm_fork_task(silent, me, &pid);
	close(go[0]);
	ck_assert_int_eq(pvm_notify(PvmTaskExit, TAG_GONE, 1, &kid), PvmOk);
	ck_assert_int_eq(pvm_nrecv(-1, TAG_GONE), 0);
	/* the kid never talks to us: only the daemon's notify can wake */
	let_go();
	poll_one(fd, TAG_GONE);
	poll_one_until(fd, -1, TAG_GONE);
	ck_assert_int_eq(pvm_upkint(&me, 1, 1), PvmOk);
	ck_assert_int_eq(me, kid);
	vm_wait_ok(pid);
	close(go[1]);
	pvm_exit();
}
END_TEST

/* When let go, opens a direct route to the parent with one message,
 * then waits to be let go again. */
static int send_then_wait(int parent)
{
	char c;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	wait_go();
	vm_send_int(parent, TAG_DATA, 77);
	if (read(go[0], &c, 1) < 0)
		return 4;
	return 0;
}

START_TEST(fds0_alone_wakes_for_a_new_circuit)
{
	int me, kid, *fds, fd;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	pvm_setopt(PvmRoute, PvmRouteDirect);
	ck_assert_int_eq(pvm_getfds(&fds), 1);
	fd = fds[0];
	ck_assert_int_eq(pipe(go), 0);
	kid = vm_fork_task(send_then_wait, me, &pid);
	close(go[0]);
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	/* it connects while we poll: its connection, its handshake, then
	 * its message must each wake a program that polls fds[0] and never
	 * asks for the list again */
	let_go();
	poll_one(fd, TAG_DATA);
	poll_one_until(fd, kid, TAG_DATA);
	ck_assert_int_eq(pvm_upkint(&me, 1, 1), PvmOk);
	ck_assert_int_eq(me, 77);
	/* it came over a circuit of its own, not through the daemon */
	ck_assert_int_eq(pvm_getfds(&fds), 2);
	ck_assert_int_eq(fds[0], fd);
	let_go();
	vm_wait_ok(pid);
	close(go[1]);
	pvm_exit();
}
END_TEST

START_TEST(fds0_wakes_when_the_daemon_goes_then_getfds_fails)
{
	int me, *fds, fd, pid = 0;
	struct pollfd p;
	char path[512];
	FILE *f;

	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_getfds(&fds), 1);
	fd = fds[0];
	snprintf(path, sizeof(path), "%s/copvm-%u/pvmd.pid", vm_fixture_tmp(),
		 (unsigned)getuid());
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	/* the end of the daemon's link wakes fds[0]; a receive reads it */
	while (pvm_getfds(&fds) > 0) {
		p.fd = fd;
		p.events = POLLIN;
		ck_assert_msg(poll(&p, 1, WAKE_BOUND_MS) > 0,
			      "fds[0] slept through the daemon's end");
		pvm_nrecv(-1, -1);
	}
	ck_assert_int_eq(pvm_getfds(&fds), PvmSysErr);
}
END_TEST

static Suite *getfds_suite(void)
{
	Suite *s = suite_create("getfds");
	TCase *tc = tcase_create("shape");
	TCase *tc2 = tcase_create("daemon-loss");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, counts_are_stocks_one_two_one, 0, 2);
	tcase_add_loop_test(tc, fds0_alone_wakes_for_ring_messages, 0, 2);
	tcase_add_test(tc, fds0_alone_wakes_for_the_daemons_messages);
	tcase_add_loop_test(tc, fds0_alone_wakes_for_a_new_circuit, 0, 2);
	suite_add_tcase(s, tc);
	tcase_add_unchecked_fixture(tc2, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc2, 60);
	tcase_add_test(tc2, fds0_wakes_when_the_daemon_goes_then_getfds_fails);
	suite_add_tcase(s, tc2);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(getfds_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

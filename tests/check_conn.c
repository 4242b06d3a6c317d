/*
 * check_conn.c - circuits between tasks (lib/conn.c, lib/conn_unix.c):
 * large messages in both directions at once, many circuits, a sender
 * killed in the middle of a large message, and the daemon going away.
 */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define BIG	(8 << 20)

static int exchange_child(int parent)
{
	unsigned char *out = malloc(BIG), *in = malloc(BIG);
	int ok;

	vm_fill(out, BIG, 7);
	pvm_initsend(PvmDataRaw);
	pvm_pkbyte((char *)out, BIG, 1);
	if (pvm_send(parent, 1) < 0)
		return 1;
	if (pvm_recv(parent, 2) <= 0 || pvm_upkbyte((char *)in, BIG, 1) < 0)
		return 1;
	vm_fill(out, BIG, 9);
	ok = memcmp(in, out, BIG) == 0;
	free(in);
	free(out);
	return ok ? 0 : 1;
}

START_TEST(large_messages_both_ways_do_not_deadlock)
{
	int me = pvm_mytid(), kid, st;
	unsigned char *out = malloc(BIG), *in = malloc(BIG);
	pid_t pid;

	kid = vm_fork_task(exchange_child, me, &pid);
	/* Both sides send 8 MiB before either receives. */
	vm_fill(out, BIG, 9);
	pvm_initsend(PvmDataRaw);
	pvm_pkbyte((char *)out, BIG, 1);
	ck_assert_int_eq(pvm_send(kid, 2), PvmOk);
	ck_assert_int_gt(pvm_recv(kid, 1), 0);
	ck_assert_int_eq(pvm_upkbyte((char *)in, BIG, 1), PvmOk);
	vm_fill(out, BIG, 7);
	ck_assert_uint_eq(vm_checksum(in, BIG), vm_checksum(out, BIG));
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(in);
	free(out);
	pvm_exit();
}
END_TEST

static int huge_sender(int parent)
{
	size_t n = 256u << 20;
	char *p = calloc(1, n);

	pvm_initsend(PvmDataRaw);
	pvm_pkbyte(p, (int)n, 1);
	pvm_send(parent, 5);	/* killed while this blocks */
	return 0;
}

static int small_sender(int parent)
{
	int v = 4242;

	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	return pvm_send(parent, 6) < 0;
}

START_TEST(sender_killed_mid_message_loses_only_that_message)
{
	int me = pvm_mytid(), v = 0, st, nhost, narch;
	struct pvmhostinfo *hi;
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	pid_t big, small;

	vm_fork_task(huge_sender, me, &big);
	nanosleep(&ts, NULL);
	/* Read part of the stream so the frame is really half-delivered. */
	ck_assert_int_eq(pvm_nrecv(-1, 5), 0);
	kill(big, SIGKILL);
	waitpid(big, &st, 0);
	ck_assert_int_eq(pvm_nrecv(-1, 5), 0);
	vm_fork_task(small_sender, me, &small);
	ck_assert_int_gt(pvm_recv(-1, 6), 0);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	ck_assert_int_eq(v, 4242);
	waitpid(small, &st, 0);
	ck_assert_int_eq(pvm_nrecv(-1, 5), 0);
	/* The daemon noticed nothing wrong and still answers. */
	ck_assert_int_eq(pvm_config(&nhost, &narch, &hi), PvmOk);
	ck_assert_int_eq(nhost, 1);
	pvm_exit();
}
END_TEST

static int echo_child(int parent)
{
	int i, v;

	for (i = 0; i < 50; i++) {
		if (pvm_recv(parent, 1) <= 0 || pvm_upkint(&v, 1, 1) < 0)
			return 1;
		pvm_initsend(PvmDataDefault);
		v++;
		pvm_pkint(&v, 1, 1);
		if (pvm_send(parent, 2) < 0)
			return 1;
	}
	return 0;
}

START_TEST(circuits_are_reused_across_many_messages)
{
	int me = pvm_mytid(), kid, i, v, st, *fds, nfd_before, nfd_after = -2;
	pid_t pid;

	kid = vm_fork_task(echo_child, me, &pid);
	nfd_before = -1;
	for (i = 0; i < 50; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		ck_assert_int_eq(pvm_send(kid, 1), PvmOk);
		ck_assert_int_gt(pvm_recv(kid, 2), 0);
		pvm_upkint(&v, 1, 1);
		ck_assert_int_eq(v, i + 1);
		if (i == 1)
			nfd_before = pvm_getfds(&fds);
		/* before the last exchange: after it the child may have
		 * exited and its link be gone */
		if (i == 48)
			nfd_after = pvm_getfds(&fds);
	}
	ck_assert_int_eq(nfd_before, nfd_after);
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pvm_exit();
}
END_TEST

START_TEST(daemon_gone_makes_calls_fail_cleanly)
{
	int me = pvm_mytid(), rc, pid = 0, nhost, narch;
	struct pvmhostinfo *hi;
	char path[512];
	FILE *f;

	ck_assert_int_gt(me, 0);
	pvm_setopt(PvmAutoErr, 0);
	/* The daemon vanishes (kill -9): no cleanup, no goodbye. */
	snprintf(path, sizeof(path), "%s/copvm-%u/pvmd.pid", vm_fixture_tmp(),
		 (unsigned)getuid());
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	rc = pvm_recv(-1, 1);
	ck_assert_int_eq(rc, PvmSysErr);
	rc = pvm_config(&nhost, &narch, &hi);
	ck_assert_int_lt(rc, 0);
}
END_TEST

static Suite *conn_suite(void)
{
	Suite *s = suite_create("conn");
	TCase *tc = tcase_create("circuits");
	TCase *tc2 = tcase_create("daemon-loss");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, large_messages_both_ways_do_not_deadlock);
	tcase_add_test(tc, sender_killed_mid_message_loses_only_that_message);
	tcase_add_test(tc, circuits_are_reused_across_many_messages);
	suite_add_tcase(s, tc);
	tcase_add_unchecked_fixture(tc2, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc2, 30);
	tcase_add_test(tc2, daemon_gone_makes_calls_fail_cleanly);
	suite_add_tcase(s, tc2);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(conn_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/*
 * check_spin_fair.c - a receive's spin reads the link its last look found
 * input on first (lib/conn.c, pvmi_conn_spin_hint and spin_round), and
 * must still read the others: a task flooding the test's task over one
 * ring does not keep another task's message, waiting in a second ring,
 * from being received until the flood is over.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	11	/* the set-up trips */
#define TAG_ECHO	12
#define TAG_GO		13
#define TAG_FLOOD	21
#define TAG_OTHER	22
#define TRIPS		20	/* put a circuit on its ring, and hint it */
#define FLOOD		4000	/* 64-byte records: a quarter of a ring */

static int ready_pipe[2];

/* Tells the test that this child's messages are all in its ring. */
static void child_ready(void)
{
	char c = 1;

	if (write(ready_pipe[1], &c, 1) != 1)
		_exit(3);
}

/* Waits until a child said its messages are all in its ring. */
static void wait_ready(void)
{
	char c;

	ck_assert_int_eq(read(ready_pipe[0], &c, 1), 1);
}

/* After the go: FLOOD messages at once, then waits for the end. */
static int flood_child(int parent)
{
	int i;

	if (vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO) ||
	    vm_recv_int(parent, TAG_GO) != 1)
		return 1;
	for (i = 0; i < FLOOD; i++)
		vm_send_int(parent, TAG_FLOOD, i);
	child_ready();
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 1;
}

/* After the go: one message, then waits for the end. */
static int other_child(int parent)
{
	if (vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO) ||
	    vm_recv_int(parent, TAG_GO) != 1)
		return 1;
	vm_send_int(parent, TAG_OTHER, 7);
	child_ready();
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 1;
}

START_TEST(a_flooding_task_does_not_starve_another_ring)
{
	int me = pvm_mytid(), flood, other, b, tag, src, bytes, v, before = -1;
	int got = 0;
	pid_t fpid, opid;

	ck_assert_int_eq(pipe(ready_pipe), 0);
	other = vm_fork_task(other_child, me, &opid);
	flood = vm_fork_task(flood_child, me, &fpid);
	vm_trips(other, TRIPS, TAG_DATA, TAG_ECHO);
	/* the flooder's circuit last: its link is the one the spin's looks
	 * found input on, and look at first */
	vm_trips(flood, TRIPS, TAG_DATA, TAG_ECHO);
	ck_assert_int_ge(vm_ring_maps(), 2);
	vm_send_int(other, TAG_GO, 1);
	wait_ready();
	vm_send_int(flood, TAG_GO, 1);
	wait_ready();
	/* both rings hold their messages: the other's must come well
	 * before the flood's end */
	while (got < FLOOD + 1) {
		b = pvm_recv(-1, -1);
		ck_assert_int_gt(b, 0);
		ck_assert_int_eq(pvm_bufinfo(b, &bytes, &tag, &src), PvmOk);
		ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
		if (tag == TAG_OTHER) {
			ck_assert_int_eq(src, other);
			before = got;
		} else {
			ck_assert_int_eq(tag, TAG_FLOOD);
			ck_assert_int_eq(v, got - (before >= 0));
		}
		got++;
	}
	ck_assert_int_ge(before, 0);
	ck_assert_msg(before < FLOOD / 4, "the other task's message came "
		      "after %d of the flood's %d", before, FLOOD);
	vm_send_int(flood, TAG_GO, -1);
	vm_send_int(other, TAG_GO, -1);
	vm_wait_ok(fpid);
	vm_wait_ok(opid);
	pvm_exit();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spin_fair");
	TCase *tc = tcase_create("spin");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_flooding_task_does_not_starve_another_ring);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

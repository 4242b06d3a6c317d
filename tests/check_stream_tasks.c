/*
 * check_stream_tasks.c - a stream of messages between two tasks of this
 * host over a unix socket (COPVM_SHM=0), read by lib/transport/stream.c
 * in bounded looks: once the receive under way has its match, a look
 * hands on a batch and leaves the rest of its staging buffer parsed
 * later (PVMI_LOOK_MSGS, PVMI_LOOK_BYTES).  One pvm_probe still sees a
 * message behind a thousand others, and a receiver that blocks with
 * frames staged, which poll() on the socket cannot see, is not left
 * asleep: every message of a flood that its socket held whole arrives,
 * in order, each within a bound.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	31
#define TAG_ECHO	32
#define TAG_EXIT	33
#define FLOOD		1000	/* small messages: one staging buffer */
#define BIG_FLOOD	40	/* 16 KiB messages: 12 a look */
#define BIG_LEN		16384
#define SETUP_TRIPS	3	/* round trips that set up the circuit */
#define RECV_BOUND_S	20	/* a receive that takes longer hung */

static int done_fd = -1;	/* the flooder's pipe to the test */

/* The round trips that set up the circuit (vm_fixture.h); then the
 * circuit from `kid' is a direct socket, which pvm_getfds() counts. */
#define setup_trips_child(parent) \
	vm_trips_child(parent, SETUP_TRIPS, TAG_DATA, TAG_ECHO)

static void setup_trips(int kid)
{
	int *fds;

	vm_trips(kid, SETUP_TRIPS, TAG_DATA, TAG_ECHO);
	ck_assert_int_eq(pvm_getfds(&fds), 2);
}

/* Says on done_fd that everything was sent (not a PVM message: the
 * test must not read its input to learn it), then waits for the end. */
static int flood_done(int parent)
{
	if (write(done_fd, "x", 1) != 1)
		return 1;
	return vm_recv_int(parent, TAG_EXIT) == 0 ? 0 : 1;
}

/* Sends FLOOD ints after the setup, then one more with another tag;
 * 0, or 1 when something failed. */
static int flood_child(int parent)
{
	int n;

	if (setup_trips_child(parent))
		return 1;
	for (n = 0; n < FLOOD; n++)
		vm_send_int(parent, TAG_DATA, n);
	vm_send_int(parent, TAG_ECHO, FLOOD);
	return flood_done(parent);
}

/* Sends BIG_FLOOD messages of BIG_LEN bytes, each its number, then one
 * int with another tag. */
static int big_flood_child(int parent)
{
	char *buf = calloc(1, BIG_LEN);
	int n, rc;

	if (!buf || setup_trips_child(parent)) {
		free(buf);
		return 1;
	}
	for (n = 0; n < BIG_FLOOD; n++) {
		memset(buf, n, BIG_LEN);
		pvm_initsend(PvmDataRaw);
		pvm_pkbyte(buf, BIG_LEN, 1);
		pvm_send(parent, TAG_DATA);
	}
	free(buf);
	vm_send_int(parent, TAG_ECHO, BIG_FLOOD);
	rc = flood_done(parent);
	return rc;
}

/* Starts `fn' as a task over sockets, sets up its circuit and waits
 * until it sent everything; its tid, *pid its pid. */
static int start_flood(int (*fn)(int), pid_t *pid)
{
	int me, kid, fds[2];
	char c;

	vm_set_shm(1);
	ck_assert_int_eq(pipe(fds), 0);
	done_fd = fds[1];
	me = pvm_mytid();
	kid = vm_fork_task(fn, me, pid);
	close(fds[1]);
	setup_trips(kid);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return kid;
}

/* Receives from `kid' with `tag' within RECV_BOUND_S, as a pvm_recv
 * would block; the buffer id (a timeout fails the test). */
static int recv_within(int kid, int tag)
{
	struct timeval tmout = { RECV_BOUND_S, 0 };
	int bufid = pvm_trecv(kid, tag, &tmout);

	ck_assert_msg(bufid > 0, "no message within %d s (bufid %d): a "
		      "receive slept with frames staged", RECV_BOUND_S, bufid);
	return bufid;
}

/* Until the receive has its match a look takes all there is: one
 * pvm_probe sees a message behind a thousand others on the socket. */
START_TEST(one_probe_sees_a_message_behind_a_thousand_others)
{
	int kid, n;
	pid_t pid;

	kid = start_flood(flood_child, &pid);
	ck_assert_int_gt(pvm_probe(kid, TAG_ECHO), 0);
	for (n = 0; n < FLOOD; n++)
		ck_assert_int_eq(vm_recv_int(kid, TAG_DATA), n);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), FLOOD);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* The flood is all in the socket before the first receive, so the first
 * look stages all of it and hands on a batch; every later receive must
 * find the rest without anything new on the socket. */
START_TEST(a_receive_with_frames_staged_does_not_sleep)
{
	int kid, n, v;
	pid_t pid;

	kid = start_flood(flood_child, &pid);
	for (n = 0; n < FLOOD; n++) {
		recv_within(kid, TAG_DATA);
		ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
		ck_assert_int_eq(v, n);
	}
	recv_within(kid, TAG_ECHO);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* The same with 16 KiB messages, which a look bounds by their bytes,
 * some of them read in place past the staging buffer. */
START_TEST(large_messages_staged_are_received_in_order)
{
	char *buf = malloc(BIG_LEN);
	int kid, n, i, bad;
	pid_t pid;

	ck_assert_ptr_nonnull(buf);
	kid = start_flood(big_flood_child, &pid);
	for (n = 0; n < BIG_FLOOD; n++) {
		recv_within(kid, TAG_DATA);
		ck_assert_int_eq(pvm_upkbyte(buf, BIG_LEN, 1), PvmOk);
		for (i = 0, bad = 0; i < BIG_LEN; i++)
			bad |= buf[i] != (char)n;
		ck_assert_int_eq(bad, 0);
	}
	free(buf);
	recv_within(kid, TAG_ECHO);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

static Suite *stream_tasks_suite(void)
{
	Suite *s = suite_create("stream_tasks");
	TCase *tc = tcase_create("sockets");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, one_probe_sees_a_message_behind_a_thousand_others);
	tcase_add_test(tc, a_receive_with_frames_staged_does_not_sleep);
	tcase_add_test(tc, large_messages_staged_are_received_in_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stream_tasks_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

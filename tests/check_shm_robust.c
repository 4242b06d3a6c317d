/*
 * check_shm_robust.c - the same-host circuits (lib/transport/shm.c) when
 * things go wrong or go on for long, through libpvm3 and a private pvmd,
 * with rings on and with the unix-socket fallback (COPVM_SHM=0):
 *   - a sender stopped (SIGSTOP) in the middle of a 64 MiB message: the
 *     receiver's pvm_nrecv and pvm_trecv still return, pvm_recv still
 *     serves another task and the daemon (a notify), and once the sender
 *     goes on the message arrives whole;
 *   - a ring that cannot be mapped by the receiver, or made by the
 *     sender (the test hook COPVM_SHM_FAULT, docs/shm.md): the circuit
 *     stays on the socket and every message arrives;
 *   - 10^6 small messages: neither task's resident memory grows by more
 *     than MEM_BOUND_KB between warm-up and the end;
 *   - single copy (COPVM_SHM_SINGLECOPY=1): every size from 0 B to 16 MiB
 *     both ways with checksums, read by process_vm_readv, refused by the
 *     receiver (the test hook COPVM_SHM_FAULT=copy), and from a
 *     non-dumpable sender (refused unless the reader may ptrace it
 *     anyway, as root may); a sender killed in the middle of one.
 *
 * Loop tests: _i == 0 rings on, _i == 1 COPVM_SHM=0 (except the fault
 * test, whose two runs are the two faults).
 */
#include <check.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	21
#define TAG_ECHO	22
#define TAG_EXIT	23
#define TAG_GO		24
#define TAG_OTHER	25
#define TAG_NOTE	26
#define TAG_ACK		27
#define BIG		(64u << 20)
#define NMSG		1000000
#define WARMUP		100000
#define WINDOW		1000
#define MEM_BOUND_KB	1024

/* A field ("VmRSS:", "VmSize:") of /proc/self/status in KiB, or -1. */
static long status_kb(const char *field)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = atol(line + strlen(field));
	fclose(f);
	return kb;
}

/* Sends `n' bytes with their length and checksum. */
static int send_block(int tid, int tag, const unsigned char *p, size_t n)
{
	int len = (int)n;
	unsigned int sum = vm_checksum(p, n);

	pvm_initsend(PvmDataRaw);
	pvm_pkint(&len, 1, 1);
	pvm_pkuint(&sum, 1, 1);
	if (n)
		pvm_pkbyte((char *)p, len, 1);
	return pvm_send(tid, tag);
}

/* Unpacks what send_block packed into `buf' of `cap' bytes; the length,
 * or -1 when it does not fit or the checksum does not match. */
static long recv_block(unsigned char *buf, size_t cap)
{
	int len;
	unsigned int sum;

	if (pvm_upkint(&len, 1, 1) < 0 || pvm_upkuint(&sum, 1, 1) < 0)
		return -1;
	if (len < 0 || (size_t)len > cap)
		return -1;
	if (len && pvm_upkbyte((char *)buf, len, 1) < 0)
		return -1;
	return vm_checksum(buf, len) == sum ? len : -1;
}

/* ---- a sender stuck in the middle of a message ---- */

/* Says hello, waits for the answer, sends BIG bytes (stopped and let go
 * on by the parent meanwhile), then waits for TAG_EXIT. */
static int big_sender(int parent)
{
	unsigned char *p = malloc(BIG);

	if (!p)
		return 1;
	vm_fill(p, BIG, 5);
	vm_send_int(parent, TAG_ECHO, 1);
	if (vm_recv_int(parent, TAG_ECHO) != 2)
		return 1;
	if (send_block(parent, TAG_DATA, p, BIG) < 0)
		return 1;
	free(p);
	return vm_recv_int(parent, TAG_EXIT) == 0 ? 0 : 1;
}

/* Sends 7 on TAG_OTHER when told, then leaves when told. */
static int other_sender(int parent)
{
	if (vm_recv_int(parent, TAG_GO) != 0)
		return 1;
	vm_send_int(parent, TAG_OTHER, 7);
	return vm_recv_int(parent, TAG_EXIT) == 0 ? 0 : 1;
}

START_TEST(a_stopped_sender_mid_message_blocks_no_receive)
{
	struct timespec pace = { 0, 10 * 1000 * 1000 };
	struct timeval tmo = { 0, 200 * 1000 };
	unsigned char *in = malloc(BIG);
	int me, kid, other, st, who = 0, rounds;
	long base;
	pid_t pid, opid;

	vm_set_shm(_i);
	me = pvm_mytid();
	kid = vm_fork_task(big_sender, me, &pid);
	other = vm_fork_task(other_sender, me, &opid);
	ck_assert_int_eq(pvm_notify(PvmTaskExit, TAG_NOTE, 1, &other), PvmOk);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), 1);
	base = status_kb("VmSize:");
	ck_assert_int_gt(base, 0);
	vm_send_int(kid, TAG_ECHO, 2);
	/* Stop the sender, take what it sent, and look whether the
	 * message's body buffer exists here (the message has begun); if
	 * not, let it go on a little and look again.  Stopped, it can add
	 * at most a ring or a socket buffer, never finish the message. */
	for (rounds = 0;; rounds++) {
		ck_assert_int_lt(rounds, 3000);
		ck_assert_int_eq(kill(pid, SIGSTOP), 0);
		ck_assert_int_eq(waitpid(pid, &st, WUNTRACED), pid);
		ck_assert(WIFSTOPPED(st));
		ck_assert_int_eq(pvm_nrecv(kid, TAG_DATA), 0);
		if (status_kb("VmSize:") > base + (long)(BIG >> 10) * 3 / 4)
			break;
		ck_assert_int_eq(kill(pid, SIGCONT), 0);
		nanosleep(&pace, NULL);
	}
	/* the stuck message holds up nothing */
	ck_assert_int_eq(pvm_nrecv(kid, TAG_DATA), 0);
	ck_assert_int_eq(pvm_trecv(kid, TAG_DATA, &tmo), 0);
	ck_assert_int_eq(pvm_trecv(-1, -1, &tmo), 0);
	vm_send_int(other, TAG_GO, 0);
	ck_assert_int_eq(vm_recv_int(-1, TAG_OTHER), 7);
	vm_send_int(other, TAG_EXIT, 0);
	ck_assert_int_gt(pvm_recv(-1, TAG_NOTE), 0);
	ck_assert_int_eq(pvm_upkint(&who, 1, 1), PvmOk);
	ck_assert_int_eq(who, other);
	vm_wait_ok(opid);
	/* let it go on: the message arrives whole */
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	ck_assert_int_gt(pvm_recv(kid, TAG_DATA), 0);
	ck_assert_int_eq(recv_block(in, BIG), (long)BIG);
	if (!_i)
		ck_assert_int_gt(vm_ring_maps(), 0);	/* it came by ring */
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	free(in);
	pvm_exit();
}
END_TEST

/* ---- a ring that cannot be mapped or made ---- */

static const size_t sizes[] = {
	0, 1, 8, 100, 4096, 16384, 16385, 65536, 262145, 1 << 20,
	(4 << 20) + 5,
};
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))

/* The largest block an echo child takes (the single-copy sizes' top). */
#define ECHO_MAX	(16 << 20)

/* Echoes every block back until TAG_EXIT; exits 1 on a bad one. */
static int echo_child(int parent)
{
	unsigned char *buf = malloc(ECHO_MAX);
	int bad = 0;
	long n;

	for (;;) {
		int bufid = pvm_recv(parent, -1), tag, bytes, src;

		if (bufid <= 0)
			return 1;
		pvm_bufinfo(bufid, &bytes, &tag, &src);
		if (tag == TAG_EXIT)
			break;
		n = recv_block(buf, ECHO_MAX);
		if (n < 0)
			bad = 1;
		if (send_block(parent, TAG_ECHO, buf, n < 0 ? 0 : n) < 0)
			return 1;
	}
	free(buf);
	return bad;
}

static int map_fault_child(int parent)
{
	setenv("COPVM_SHM_FAULT", "map", 1);
	return echo_child(parent);
}

static int create_fault_child(int parent)
{
	setenv("COPVM_SHM_FAULT", "create", 1);
	return echo_child(parent);
}

START_TEST(a_ring_that_cannot_be_mapped_or_made_leaves_the_socket)
{
	unsigned char *out = malloc(8 << 20), *in = malloc(8 << 20);
	int me, kid, round;
	size_t i;
	pid_t pid;

	unsetenv("COPVM_SHM");
	unsetenv("COPVM_SHM_FAULT");
	me = pvm_mytid();
	kid = vm_fork_task(_i ? create_fault_child : map_fault_child, me, &pid);
	/* twice: the second round runs after any switch could have come */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < NSIZES; i++) {
			vm_fill(out, sizes[i], (unsigned)i + round);
			ck_assert_int_eq(send_block(kid, TAG_DATA, out,
						    sizes[i]), PvmOk);
			ck_assert_int_gt(pvm_recv(kid, TAG_ECHO), 0);
			ck_assert_int_eq(recv_block(in, 8 << 20), (long)sizes[i]);
			ck_assert(memcmp(in, out, sizes[i]) == 0);
		}
	}
	/* One way failed and fell back, the other has its ring: with
	 * "map" ours was let go and the child's is mapped here; with
	 * "create" the child made none and ours is mapped. */
	ck_assert_int_eq(vm_ring_maps(), 1);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	free(in);
	free(out);
	pvm_exit();
}
END_TEST

/* ---- memory over 10^6 messages ---- */

/* Sends NMSG small messages, waiting for an ack after every WINDOW;
 * reports its VmRSS after WARMUP and at the end. */
static int many_sender(int parent)
{
	int i, v;
	long rss0 = 0;

	for (i = 0; i < NMSG; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		if (pvm_send(parent, TAG_DATA) < 0)
			return 1;
		if ((i + 1) % WINDOW == 0) {
			v = vm_recv_int(parent, TAG_ACK);
			if (v != i)
				return 1;
		}
		if (i + 1 == WARMUP)
			rss0 = status_kb("VmRSS:");
	}
	vm_send_int(parent, TAG_ECHO, (int)rss0);
	vm_send_int(parent, TAG_ECHO, (int)status_kb("VmRSS:"));
	return 0;
}

START_TEST(a_million_messages_leave_memory_flat)
{
	int me, kid, i, v, srss0, srss1;
	long rss0 = 0, rss1;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	kid = vm_fork_task(many_sender, me, &pid);
	for (i = 0; i < NMSG; i++) {
		ck_assert_int_gt(pvm_recv(kid, TAG_DATA), 0);
		ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
		ck_assert_int_eq(v, i);
		if ((i + 1) % WINDOW == 0)
			vm_send_int(kid, TAG_ACK, i);
		if (i + 1 == WARMUP)
			rss0 = status_kb("VmRSS:");
	}
	rss1 = status_kb("VmRSS:");
	srss0 = vm_recv_int(kid, TAG_ECHO);
	srss1 = vm_recv_int(kid, TAG_ECHO);
	vm_wait_ok(pid);
	printf("%s: receiver VmRSS %ld -> %ld KiB, sender %d -> %d KiB\n",
	       _i ? "sockets" : "rings", rss0, rss1, srss0, srss1);
	ck_assert_int_gt(rss0, 0);
	ck_assert_int_gt(srss0, 0);
#ifndef __SANITIZE_ADDRESS__
	/* ASan keeps freed memory in its quarantine (256 MiB): RSS grows
	 * under it whatever copvm does, so only the messages count there */
	ck_assert_int_lt(rss1 - rss0, MEM_BOUND_KB);
	ck_assert_int_lt(srss1 - srss0, MEM_BOUND_KB);
#endif
	if (!_i)
		ck_assert_int_gt(vm_ring_maps(), 0);
	pvm_exit();
}
END_TEST

/* ---- single copy ---- */

static const size_t copy_sizes[] = {
	0, 1, 4096, 65535, 65536, 65537, 262144, 1 << 20, (1 << 20) + 7,
	4 << 20, 16 << 20,
};
#define NCOPY	(sizeof(copy_sizes) / sizeof(copy_sizes[0]))

static int copy_refusing_child(int parent)
{
	setenv("COPVM_SHM_FAULT", "copy", 1);
	return echo_child(parent);
}

static int undumpable_child(int parent)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return 1;
	return echo_child(parent);
}

/* _i: 0 plain, 1 the child refuses to read, 2 the child is not
 * dumpable. */
START_TEST(single_copy_sizes_arrive_intact_read_or_refused)
{
	static int (*const kids[])(int) = {
		echo_child, copy_refusing_child, undumpable_child,
	};
	unsigned char *out = malloc(16 << 20), *in = malloc(16 << 20);
	int me, kid;
	size_t i;
	pid_t pid;

	unsetenv("COPVM_SHM");
	unsetenv("COPVM_SHM_FAULT");
	setenv("COPVM_SHM_SINGLECOPY", "1", 1);
	me = pvm_mytid();
	kid = vm_fork_task(kids[_i], me, &pid);
	for (i = 0; i < NCOPY; i++) {
		vm_fill(out, copy_sizes[i], (unsigned)i + 11);
		ck_assert_int_eq(send_block(kid, TAG_DATA, out, copy_sizes[i]),
				 PvmOk);
		ck_assert_int_gt(pvm_recv(kid, TAG_ECHO), 0);
		ck_assert_int_eq(recv_block(in, 16 << 20), (long)copy_sizes[i]);
		ck_assert(memcmp(in, out, copy_sizes[i]) == 0);
	}
	ck_assert_int_eq(vm_ring_maps(), 2);	/* a ring each way */
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	unsetenv("COPVM_SHM_SINGLECOPY");
	free(in);
	free(out);
	pvm_exit();
}
END_TEST

/* Says hello, waits for the answer, then offers BIG bytes single-copy
 * to a parent that does not read yet; it is killed meanwhile. */
static int copy_sender(int parent)
{
	unsigned char *p = calloc(1, BIG);

	vm_send_int(parent, TAG_ECHO, 1);
	if (vm_recv_int(parent, TAG_ECHO) != 2)
		return 1;
	send_block(parent, TAG_DATA, p, BIG);
	return 0;
}

START_TEST(a_sender_killed_during_single_copy_gives_notify_only)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int me, kid, st, who = 0, bufid, bytes, tag, src;
	pid_t pid;

	unsetenv("COPVM_SHM");
	setenv("COPVM_SHM_SINGLECOPY", "1", 1);
	me = pvm_mytid();
	kid = vm_fork_task(copy_sender, me, &pid);
	ck_assert_int_eq(pvm_notify(PvmTaskExit, TAG_EXIT, 1, &kid), PvmOk);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), 1);
	vm_send_int(kid, TAG_ECHO, 2);
	/* whenever it is killed (usually waiting for our answer to its
	 * offer), the outcome is the same: a notify, never a message */
	nanosleep(&ts, NULL);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	bufid = pvm_recv(-1, -1);
	ck_assert_int_gt(bufid, 0);
	pvm_bufinfo(bufid, &bytes, &tag, &src);
	ck_assert_int_eq(tag, TAG_EXIT);
	ck_assert_int_eq(pvm_upkint(&who, 1, 1), PvmOk);
	ck_assert_int_eq(who, kid);
	ck_assert_int_eq(pvm_nrecv(-1, TAG_DATA), 0);
	unsetenv("COPVM_SHM_SINGLECOPY");
	pvm_exit();
}
END_TEST

static Suite *shm_robust_suite(void)
{
	Suite *s = suite_create("shm_robust");
	TCase *tc = tcase_create("robust");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, a_stopped_sender_mid_message_blocks_no_receive,
			    0, 2);
	tcase_add_loop_test(tc,
			    a_ring_that_cannot_be_mapped_or_made_leaves_the_socket,
			    0, 2);
	tcase_add_loop_test(tc, a_million_messages_leave_memory_flat, 0, 2);
	tcase_add_loop_test(tc, single_copy_sizes_arrive_intact_read_or_refused,
			    0, 3);
	tcase_add_test(tc, a_sender_killed_during_single_copy_gives_notify_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(shm_robust_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

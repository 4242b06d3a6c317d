/*
 * check_shm_keep.c - bodies read in the ring (lib/transport/shm_keep.c):
 * a small whole frame's body of KEEP_MIN (256) bytes or more stays in
 * its ring record, lent to the received message, until the message
 * lets go of it.  Each test has forked tasks send 1 KiB messages to the
 * test's task over shared-memory circuits and checks what a program
 * sees: a buffer it keeps stays intact while a few ringfuls flow behind
 * it, when it is forwarded (send, multicast, with bytes appended, and by
 * a send that waits while its ring moves on), in a forked child after
 * the parent's ring moved on, when the kept buffers are freed out of
 * order, and after its sender left; and no hang follows.  One more checks
 * that the mechanism is in use at all: while the program holds a kept
 * buffer, its sender cannot fill the ring past that buffer's record.
 */
#include <check.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	11	/* the set-up trips */
#define TAG_ECHO	12
#define TAG_GO		13	/* the test is ready: send now */
#define TAG_MSG		21	/* the stream's messages */
#define TAG_FWD		31	/* a buffer forwarded to a reporter */
#define TAG_REPORT	32	/* what the reporter got */
#define TRIPS		3	/* round trips that put a circuit on its ring */
#define KIB		1024
#define SMALL		100	/* under KEEP_MIN: copied out of the ring */
#define WAIT_S		10	/* a receive that waits longer has hung */

/* Puts the circuit between the test and `kid' on its ring. */
static void ring_up(int kid)
{
	vm_trips(kid, TRIPS, TAG_DATA, TAG_ECHO);
	ck_assert_int_gt(vm_ring_maps(), 0);
}

/* Fills `n' bytes for message `seed': vm_fill's pattern, which repeats
 * every 256 seeds, with the seed itself in front. */
static void fill(unsigned char *p, int n, unsigned seed)
{
	vm_fill(p, n, seed);
	if (n >= (int)sizeof(seed))
		memcpy(p, &seed, sizeof(seed));
}

/* Sends `n' bytes of message `seed' to `tid' (raw); 0, or 1 on an
 * error. */
static int send_bytes(int tid, int tag, int n, unsigned seed)
{
	unsigned char buf[4 * KIB];

	fill(buf, n, seed);
	pvm_initsend(PvmDataRaw);
	if (pvm_pkbyte((char *)buf, n, 1) != PvmOk)
		return 1;
	return pvm_send(tid, tag) == PvmOk ? 0 : 1;
}

/* Unpacks the active receive buffer and checks that it is `n' bytes of
 * message `seed'. */
static void check_bytes(int n, unsigned seed)
{
	unsigned char want[4 * KIB], got[4 * KIB];
	int bytes = -1, tag, src;

	ck_assert_int_eq(pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src),
			 PvmOk);
	ck_assert_int_eq(bytes, n);
	ck_assert_int_eq(pvm_upkbyte((char *)got, n, 1), PvmOk);
	fill(want, n, seed);
	ck_assert_msg(memcmp(got, want, n) == 0,
		      "message %u: not its own bytes", seed);
}

/* Receives from `tid' with `tag', failing the test rather than hanging
 * when nothing comes for WAIT_S seconds; the buffer id. */
static int recv_or_fail(int tid, int tag)
{
	struct timeval tv = { WAIT_S, 0 };
	int b = pvm_trecv(tid, tag, &tv);

	ck_assert_msg(b > 0, "nothing from t%x (tag %d) in %d s: %d", tid,
		      tag, WAIT_S, b);
	return b;
}

/* Receives message `seed' of `n' bytes from `tid' and checks it. */
static int recv_check(int tid, int n, unsigned seed)
{
	int b = recv_or_fail(tid, TAG_MSG);

	check_bytes(n, seed);
	return b;
}

/* Unpacks kept buffer `b' from its start and checks it is message
 * `seed'; the buffer stays registered. */
static void check_kept(int b, int n, unsigned seed)
{
	int old = pvm_setrbuf(b);

	check_bytes(n, seed);
	pvm_setrbuf(old);
}

/* ---- the senders ---- */

/* What stream_child sends: phases of `n' messages of `size' bytes, of
 * seeds `seed', seed + 1, ... (set before the fork). */
struct phase {
	int n, size;
	unsigned seed;
};
static struct phase plan[4];
static int nplan;
/* stream_child writes a byte to `sig_fd' once its message number
 * `sig_after' (from 0, all phases counted) is sent; -1: never. */
static int sig_after = -1, sig_fd = -1;
/* How stream_child leaves once its messages are sent: at the end the
 * test sends (STAY), at once by pvm_exit (LEAVE), or by ending its
 * process without a word to the library (END): its rings are then not
 * marked closed, and the test learns of it from its socket alone. */
enum { STAY, LEAVE, END };
static int leave_how;
/* stream_child waits for a second go (1) before its second phase. */
static int go_between;

/* Sets the plan's phase `i'. */
static void set_phase(int i, int n, int size, unsigned seed)
{
	plan[i].n = n;
	plan[i].size = size;
	plan[i].seed = seed;
	nplan = i + 1;
}

/* After the go, sends the plan's messages; then waits for the end. */
static int stream_child(int parent)
{
	int i, j, k = 0;

	if (vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO) ||
	    vm_recv_int(parent, TAG_GO) != 0)
		return 1;
	for (i = 0; i < nplan; i++)
		for (j = 0; j < plan[i].n; j++, k++) {
			if (i == 1 && j == 0 && go_between &&
			    vm_recv_int(parent, TAG_GO) != 1)
				return 5;
			if (send_bytes(parent, TAG_MSG, plan[i].size,
				       plan[i].seed + j))
				return 2;
			if (k == sig_after && write(sig_fd, "s", 1) != 1)
				return 3;
		}
	if (leave_how == END)
		_exit(0);
	if (leave_how == LEAVE)
		return 0;
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 4;
}

/* Receives `n' messages with TAG_FWD and reports each: its length, the
 * FNV sum of its first KiB, and the int after that KiB (-1: none). */
static int report_n(int parent, int n)
{
	unsigned char buf[KIB];
	int i, bytes, tag, src, extra, rep[3];

	for (i = 0; i < n; i++) {
		if (pvm_recv(parent, TAG_FWD) <= 0 ||
		    pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src) ||
		    bytes < KIB || pvm_upkbyte((char *)buf, KIB, 1))
			return 1;
		extra = -1;
		if (bytes == KIB + 4 && pvm_upkint(&extra, 1, 1))
			return 2;
		rep[0] = bytes;
		rep[1] = (int)vm_checksum(buf, KIB);
		rep[2] = extra;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(rep, 3, 1);
		pvm_send(parent, TAG_REPORT);
	}
	return 0;
}

/* Sets up its circuit, reports `n' forwarded buffers, waits the end. */
static int reporter_of(int parent, int n)
{
	if (vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO) ||
	    report_n(parent, n))
		return 1;
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 4;
}

#define BETWEEN		1100	/* 1,088-byte records: more than a ring */

/* Sends message 1, BETWEEN messages of seeds 70000 on, and message 2
 * after the go, then reports one buffer. */
static int send_then_report(int parent)
{
	int i;

	if (vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO) ||
	    vm_recv_int(parent, TAG_GO) != 0 ||
	    send_bytes(parent, TAG_MSG, KIB, 1))
		return 1;
	for (i = 0; i < BETWEEN; i++)
		if (send_bytes(parent, TAG_MSG, KIB, 70000 + i))
			return 1;
	if (send_bytes(parent, TAG_MSG, KIB, 2))
		return 1;
	if (report_n(parent, 1))
		return 2;
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 4;
}

static int reporter_of_2(int parent)
{
	return reporter_of(parent, 2);
}

static int reporter_of_1(int parent)
{
	return reporter_of(parent, 1);
}

/* Starts stream_child with the plan set, its circuit on its ring; its
 * tid, *pid its pid. */
static int start_stream(pid_t *pid)
{
	int kid = vm_fork_task(stream_child, pvm_mytid(), pid);

	ring_up(kid);
	return kid;
}

/* Ends a stream_child: the end sent, its exit checked. */
static void end_stream(int kid, pid_t pid)
{
	vm_send_int(kid, TAG_GO, -1);
	vm_wait_ok(pid);
}

/* ---- the tests ---- */

/* A kept buffer's record holds the tail: kept bodies are copied out
 * once they hold back a quarter of the ring (ring_take for the small
 * frames, which are not kept themselves; pvmi_shm_keep_slot for 1 KiB
 * ones).  Two ringfuls behind kept buffers flow without a hang, each
 * message intact, and the kept buffers keep their own bytes. */
START_TEST(a_kept_buffer_survives_a_ringful_behind_it)
{
	int kid, i, a, b;
	pid_t pid;

	set_phase(0, 1, KIB, 1);		/* A */
	set_phase(1, 12000, SMALL, 100);	/* 12,000 records of 192 B */
	set_phase(2, 1, KIB, 2);		/* B */
	set_phase(3, 3000, KIB, 20000);		/* 3,000 of 1,088 B */
	kid = start_stream(&pid);
	vm_send_int(kid, TAG_GO, 0);
	recv_or_fail(kid, TAG_MSG);
	a = pvm_setrbuf(0);
	for (i = 0; i < plan[1].n; i++)
		recv_check(kid, SMALL, plan[1].seed + i);
	recv_or_fail(kid, TAG_MSG);
	b = pvm_setrbuf(0);
	for (i = 0; i < plan[3].n; i++)
		recv_check(kid, KIB, plan[3].seed + i);
	check_kept(a, KIB, 1);
	check_kept(b, KIB, 2);
	ck_assert_int_eq(pvm_freebuf(a), PvmOk);
	ck_assert_int_eq(pvm_freebuf(b), PvmOk);
	end_stream(kid, pid);
	pvm_exit();
}
END_TEST

/* Checks the next report from `tid': `len' bytes, the first KiB that of
 * message `seed', then `extra' (-1: nothing). */
static void check_report(int tid, int len, unsigned seed, int extra)
{
	unsigned char want[KIB];
	int rep[3] = { 0, 0, 0 };

	recv_or_fail(tid, TAG_REPORT);
	ck_assert_int_eq(pvm_upkint(rep, 3, 1), PvmOk);
	fill(want, KIB, seed);
	ck_assert_int_eq(rep[0], len);
	ck_assert_msg((uint32_t)rep[1] == vm_checksum(want, KIB),
		      "t%x got other bytes than message %u's", tid, seed);
	ck_assert_int_eq(rep[2], extra);
}

/* A received buffer made the send buffer goes on whole: by pvm_send
 * (the short way, ring to ring) and by pvm_mcast to two tasks, and,
 * with an int packed after the lent body, back to its sender; and its
 * ring record is given back, so that a ringful more from its sender
 * still comes. */
START_TEST(a_lent_buffer_forwarded_arrives_whole)
{
	int me = pvm_mytid(), k1, k2, k3, both[2], v = 4242, old, i;
	pid_t p1, p2, p3;

	k1 = vm_fork_task(send_then_report, me, &p1);
	k2 = vm_fork_task(reporter_of_2, me, &p2);
	k3 = vm_fork_task(reporter_of_1, me, &p3);
	ring_up(k1);
	ring_up(k2);
	ring_up(k3);
	vm_send_int(k1, TAG_GO, 0);
	recv_check(k1, KIB, 1);
	old = pvm_setsbuf(pvm_setrbuf(0));
	ck_assert_int_eq(pvm_send(k2, TAG_FWD), PvmOk);
	both[0] = k2;
	both[1] = k3;
	ck_assert_int_eq(pvm_mcast(both, 2, TAG_FWD), PvmOk);
	check_report(k2, KIB, 1, -1);
	check_report(k2, KIB, 1, -1);
	check_report(k3, KIB, 1, -1);
	for (i = 0; i < BETWEEN; i++)
		recv_check(k1, KIB, 70000 + i);
	ck_assert_int_eq(pvm_freebuf(pvm_setsbuf(old)), PvmOk);
	/* message 2, lent still, with an int packed after its body */
	recv_or_fail(k1, TAG_MSG);
	old = pvm_setsbuf(pvm_setrbuf(0));
	ck_assert_int_eq(pvm_pkint(&v, 1, 1), PvmOk);
	ck_assert_int_eq(pvm_send(k1, TAG_FWD), PvmOk);
	check_report(k1, KIB + 4, 2, v);
	ck_assert_int_eq(pvm_freebuf(pvm_setsbuf(old)), PvmOk);
	vm_send_int(k1, TAG_GO, -1);
	vm_send_int(k2, TAG_GO, -1);
	vm_send_int(k3, TAG_GO, -1);
	vm_wait_ok(p1);
	vm_wait_ok(p2);
	vm_wait_ok(p3);
	pvm_exit();
}
END_TEST

/* The late reader of the case below: the fd it waits on first. */
static int late_fd = -1;
#define LATE_SENDS	1200	/* 1,088-byte records: more than its ring */

/* Waits on late_fd, then receives LATE_SENDS buffers of message 1 with
 * 4242 after it; reports how many were not. */
static int late_reader(int parent)
{
	unsigned char want[KIB], got[KIB];
	int i, bytes, tag, src, v, bad = 0;
	char c;

	if (vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO) ||
	    read(late_fd, &c, 1) != 1)
		return 1;
	fill(want, KIB, 1);
	for (i = 0; i < LATE_SENDS; i++) {
		v = -1;
		if (pvm_recv(parent, TAG_FWD) <= 0 ||
		    pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src) ||
		    bytes != KIB + 4 || pvm_upkbyte((char *)got, KIB, 1) ||
		    pvm_upkint(&v, 1, 1) || memcmp(got, want, KIB) ||
		    v != 4242)
			bad++;
	}
	vm_send_int(parent, TAG_REPORT, bad);
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 4;
}

/* A lent buffer sent while the send waits for room, the task reading
 * its input meanwhile (route.c gives the buffer its own copy first):
 * the test sends message 1, an int packed after it, to a task that
 * reads only once the sender of message 1 has sent two ringfuls more,
 * which the test takes while it waits, so that the ring where message
 * 1 lay is written over before the waiting send goes on. */
START_TEST(a_lent_buffer_sent_while_its_ring_moves_on)
{
	int me = pvm_mytid(), k1, k2, i, fds[2], v = 4242, old;
	pid_t p1, p2;

	ck_assert_int_eq(pipe(fds), 0);
	set_phase(0, 1, KIB, 1);
	set_phase(1, 2000, KIB, 60000);
	go_between = 1;
	sig_after = 2000;
	sig_fd = fds[1];
	late_fd = fds[0];
	k1 = start_stream(&p1);
	k2 = vm_fork_task(late_reader, me, &p2);
	ring_up(k2);
	close(fds[0]);
	close(fds[1]);
	vm_send_int(k1, TAG_GO, 0);
	recv_check(k1, KIB, 1);
	old = pvm_setsbuf(pvm_setrbuf(0));
	ck_assert_int_eq(pvm_pkint(&v, 1, 1), PvmOk);
	vm_send_int(k1, TAG_GO, 1);
	for (i = 0; i < LATE_SENDS; i++)
		ck_assert_int_eq(pvm_send(k2, TAG_FWD), PvmOk);
	for (i = 0; i < plan[1].n; i++)
		recv_check(k1, KIB, plan[1].seed + i);
	recv_or_fail(k2, TAG_REPORT);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	ck_assert_msg(v == 0, "%d of %d copies were not message 1", v,
		      LATE_SENDS);
	ck_assert_int_eq(pvm_freebuf(pvm_setsbuf(old)), PvmOk);
	end_stream(k1, p1);
	vm_send_int(k2, TAG_GO, -1);
	vm_wait_ok(p2);
	pvm_exit();
}
END_TEST

/* The child of case 3: waits for the go on `fd', then unpacks its copy
 * of the receive buffer.  0: message 1's bytes; 1: others; 2: none. */
static int child_reads_its_copy(int fd)
{
	unsigned char want[KIB], got[KIB];
	char c;

	if (read(fd, &c, 1) != 1 ||
	    pvm_upkbyte((char *)got, KIB, 1) != PvmOk)
		return 2;
	fill(want, KIB, 1);
	return memcmp(got, want, KIB) ? 1 : 0;
}

/* A fork copies the lent bodies out first (shm_keep.c's atfork
 * handler): the child, which does not call PVM until then, reads its
 * receive buffer after the parent freed its own and two ringfuls
 * overwrote the ring where the body lay. */
START_TEST(a_forked_child_reads_its_own_copy)
{
	int kid, i, fds[2], st;
	pid_t pid, child;

	set_phase(0, 1, KIB, 1);
	set_phase(1, 2000, KIB, 5000);
	kid = start_stream(&pid);
	vm_send_int(kid, TAG_GO, 0);
	recv_or_fail(kid, TAG_MSG);		/* lent, left unread */
	ck_assert_int_eq(pipe(fds), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		close(fds[1]);
		_exit(child_reads_its_copy(fds[0]));
	}
	close(fds[0]);
	ck_assert_int_eq(pvm_freebuf(pvm_getrbuf()), PvmOk);
	for (i = 0; i < plan[1].n; i++)
		recv_check(kid, KIB, plan[1].seed + i);
	ck_assert_int_eq(write(fds[1], "g", 1), 1);
	close(fds[1]);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st), "the child died of signal %d",
		      WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	ck_assert_msg(WEXITSTATUS(st) == 0, "the child read %s",
		      WEXITSTATUS(st) == 1 ? "other bytes" : "nothing");
	end_stream(kid, pid);
	pvm_exit();
}
END_TEST

/* Four buffers kept (SHM_RING_KEEPS records), freed in the order 2, 4,
 * 1, 3, the others checked after each: the tail moves once the oldest
 * goes, and a further 3,000 messages flow. */
START_TEST(freeing_in_any_order_frees_the_ring)
{
	static const int order[4] = { 1, 3, 0, 2 };
	int kid, i, j, b[4];
	pid_t pid;

	set_phase(0, 4, KIB, 1);
	set_phase(1, 3000, KIB, 30000);
	kid = start_stream(&pid);
	vm_send_int(kid, TAG_GO, 0);
	for (i = 0; i < 4; i++) {
		recv_or_fail(kid, TAG_MSG);
		b[i] = pvm_setrbuf(0);
	}
	for (i = 0; i < 4; i++) {
		j = order[i];
		check_kept(b[j], KIB, 1 + j);
		ck_assert_int_eq(pvm_freebuf(b[j]), PvmOk);
	}
	for (i = 0; i < plan[1].n; i++)
		recv_check(kid, KIB, plan[1].seed + i);
	end_stream(kid, pid);
	pvm_exit();
}
END_TEST

/* Two senders leave while the test keeps their messages, one by
 * pvm_exit, one by its process's end: their circuits close and their
 * rings are unmapped (the lent bodies copied out first: take_record
 * for a ring its producer closed, shm_close for the other), and the
 * kept buffers still read their bytes. */
START_TEST(the_peer_leaving_leaves_the_kept_buffer_readable)
{
	struct timeval tv = { 0, 10000 };
	int k1, k2, a1, a2, i;
	pid_t p1, p2;

	set_phase(0, 1, 4 * KIB, 7);
	leave_how = LEAVE;
	k1 = start_stream(&p1);
	set_phase(0, 1, 4 * KIB, 8);
	leave_how = END;
	k2 = start_stream(&p2);
	vm_send_int(k1, TAG_GO, 0);
	vm_send_int(k2, TAG_GO, 0);
	recv_or_fail(k1, TAG_MSG);
	a1 = pvm_setrbuf(0);
	recv_or_fail(k2, TAG_MSG);
	a2 = pvm_setrbuf(0);
	vm_wait_ok(p1);
	vm_wait_ok(p2);
	/* the rings they wrote close when the pump sees the end of their
	 * sockets, those they read when a send finds them gone */
	for (i = 0; i < 500 && vm_ring_maps() > 0; i++) {
		vm_send_int(k1, TAG_GO, -1);
		vm_send_int(k2, TAG_GO, -1);
		ck_assert_int_eq(pvm_trecv(-1, -1, &tv), 0);
	}
	ck_assert_int_eq(vm_ring_maps(), 0);
	check_kept(a1, 4 * KIB, 7);
	check_kept(a2, 4 * KIB, 8);
	ck_assert_int_eq(pvm_freebuf(a1), PvmOk);
	ck_assert_int_eq(pvm_freebuf(a2), PvmOk);
	pvm_exit();
}
END_TEST

/* The mechanism in use: while the test keeps message A, unread past 50
 * messages, its record holds the tail, so the sender cannot complete
 * a ringful of records from A on (990 x 1,088 B > 1 MiB) until the test
 * reads on.  Were A copied out, the sender could (A and the 50 read
 * leave it room for about 1,013).  It says so through a pipe. */
START_TEST(a_kept_body_holds_its_place_in_the_ring)
{
	struct pollfd pfd;
	int kid, i, a, fds[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	set_phase(0, 1, KIB, 1);
	set_phase(1, 1100, KIB, 40000);
	sig_after = 990;
	sig_fd = fds[1];
	kid = start_stream(&pid);
	close(fds[1]);
	vm_send_int(kid, TAG_GO, 0);
	recv_or_fail(kid, TAG_MSG);
	a = pvm_setrbuf(0);
	for (i = 0; i < 50; i++)
		recv_check(kid, KIB, plan[1].seed + i);
	/* no PVM call now: nothing more leaves the ring */
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	ck_assert_msg(poll(&pfd, 1, 500) == 0,
		      "the sender filled the ring past a kept record");
	for (; i < plan[1].n; i++)
		recv_check(kid, KIB, plan[1].seed + i);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);	/* it did, later */
	check_kept(a, KIB, 1);
	end_stream(kid, pid);
	close(fds[0]);
	pvm_exit();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("shm_keep");
	TCase *tc = tcase_create("kept_bodies");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_kept_buffer_survives_a_ringful_behind_it);
	tcase_add_test(tc, a_lent_buffer_forwarded_arrives_whole);
	tcase_add_test(tc, a_lent_buffer_sent_while_its_ring_moves_on);
	tcase_add_test(tc, a_forked_child_reads_its_own_copy);
	tcase_add_test(tc, freeing_in_any_order_frees_the_ring);
	tcase_add_test(tc, the_peer_leaving_leaves_the_kept_buffer_readable);
	tcase_add_test(tc, a_kept_body_holds_its_place_in_the_ring);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

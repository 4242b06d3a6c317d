/*
 * check_shm_transport.c - messages between tasks of one host through the
 * shared-memory ring transport (lib/transport/shm.c), and the same
 * through the unix-socket fallback (COPVM_SHM=0): every size from 0 B to
 * 16 MiB with checksums both ways, mixed sizes from several senders to
 * one receiver in order per sender, a peer with rings off, a sender
 * killed in the middle of a chunked message, no fd or segment left
 * after pvm_exit(), and a program that waits on pvm_getfds()' fds being
 * woken by ring messages, a sender letting go of the ring of a
 * receiver that was killed, and the messages of a task that exited
 * coming before the notify of its exit, and one probe seeing a message
 * behind a thousand others in the ring.
 *
 * Loop tests run twice: i == 0 with rings on (the default), i == 1 with
 * COPVM_SHM=0.  Each Check test runs in its own process, which reads the
 * variable at its first circuit.
 */
#include <check.h>
#include <dirent.h>
#include <poll.h>
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

#define TAG_DATA	11
#define TAG_ECHO	12
#define TAG_EXIT	13
#define NSENDERS	3
#define PER_SENDER	150

static const size_t sizes[] = {
	0, 1, 7, 8, 31, 32, 33, 100, 1000, 4096, 16352, 16353, 16384, 65535,
	65536, 262144, 262145, 1 << 20, (1 << 20) + 3, 4 << 20, 16 << 20,
};
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))
/* Then every size of a window around the largest message that goes as
 * one ring record (WHOLE_MAX, lib/transport/shm_pipe.h, less the
 * header's bytes a whole record leaves out and the packed items'). */
#define WINDOW_LO	16272
#define WINDOW		96
#define NBLOCKS		(NSIZES + WINDOW)

/* The size of block `i' of the exchange: sizes[], then the window. */
static size_t size_of(size_t i)
{
	return i < NSIZES ? sizes[i] : WINDOW_LO + (i - NSIZES);
}

/* Open fds of this process. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

/* Sends `n' bytes of pattern `seed' with their length and checksum. */
static int send_block(int tid, int tag, const unsigned char *p, size_t n,
		      int seq)
{
	int len = (int)n;
	unsigned int sum = vm_checksum(p, n);

	pvm_initsend(PvmDataRaw);
	pvm_pkint(&seq, 1, 1);
	pvm_pkint(&len, 1, 1);
	pvm_pkuint(&sum, 1, 1);
	if (n)
		pvm_pkbyte((char *)p, len, 1);
	return pvm_send(tid, tag);
}

/* Unpacks what send_block packed into `buf'; the length, or -1 when
 * the checksum does not match. */
static long recv_block(unsigned char *buf, int *seq)
{
	int len;
	unsigned int sum;

	if (pvm_upkint(seq, 1, 1) < 0 || pvm_upkint(&len, 1, 1) < 0 ||
	    pvm_upkuint(&sum, 1, 1) < 0)
		return -1;
	if (len && pvm_upkbyte((char *)buf, len, 1) < 0)
		return -1;
	return vm_checksum(buf, len) == sum ? len : -1;
}

/* Echoes every block back until TAG_EXIT; exits 1 on a bad one. */
static int echo_child(int parent)
{
	unsigned char *buf = malloc(16 << 20);
	int seq, bad = 0;
	long n;

	for (;;) {
		int bufid = pvm_recv(parent, -1), tag, bytes, src;

		if (bufid <= 0)
			return 1;
		pvm_bufinfo(bufid, &bytes, &tag, &src);
		if (tag == TAG_EXIT)
			break;
		n = recv_block(buf, &seq);
		if (n < 0 || seq < 0 || (size_t)seq >= NBLOCKS ||
		    (size_t)n != size_of((size_t)seq))
			bad = 1;
		if (send_block(parent, TAG_ECHO, buf, n < 0 ? 0 : n, seq) < 0)
			return 1;
	}
	free(buf);
	return bad;
}

START_TEST(every_size_to_16mib_arrives_intact_both_ways)
{
	unsigned char *out = malloc(16 << 20), *in = malloc(16 << 20);
	int me, kid, seq;
	size_t i;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	kid = vm_fork_task(echo_child, me, &pid);
	for (i = 0; i < NBLOCKS; i++) {
		vm_fill(out, size_of(i), (unsigned)i);
		ck_assert_int_eq(send_block(kid, TAG_DATA, out, size_of(i), i),
				 PvmOk);
		ck_assert_int_gt(pvm_recv(kid, TAG_ECHO), 0);
		ck_assert_int_eq(recv_block(in, &seq), (long)size_of(i));
		ck_assert_int_eq(seq, (int)i);
		ck_assert(memcmp(in, out, size_of(i)) == 0);
	}
	/* the ring carried them, or with COPVM_SHM=0 none was made */
	if (_i)
		ck_assert_int_eq(vm_ring_maps(), 0);
	else
		ck_assert_int_gt(vm_ring_maps(), 0);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	free(in);
	free(out);
	pvm_exit();
}
END_TEST

/* One of several senders: PER_SENDER blocks of mixed sizes, numbered. */
static int mixed_sender(int parent)
{
	unsigned char *buf = malloc(300000);
	unsigned int r = (unsigned)getpid();
	int i;

	for (i = 0; i < PER_SENDER; i++) {
		size_t n;

		r = r * 1103515245u + 12345u;
		n = (i % 10 == 9) ? 200000 + r % 90000 : (r >> 8) % 3000;
		vm_fill(buf, n, r);
		if (send_block(parent, TAG_DATA, buf, n, i) < 0)
			return 1;
	}
	free(buf);
	return 0;
}

START_TEST(mixed_sizes_from_many_senders_keep_order_per_sender)
{
	unsigned char *buf = malloc(300000);
	int me, kids[NSENDERS], next[NSENDERS] = { 0 }, k, n, seq;
	pid_t pids[NSENDERS];

	vm_set_shm(_i);
	me = pvm_mytid();
	for (k = 0; k < NSENDERS; k++)
		kids[k] = vm_fork_task(mixed_sender, me, &pids[k]);
	for (n = 0; n < NSENDERS * PER_SENDER; n++) {
		int bufid = pvm_recv(-1, TAG_DATA), bytes, tag, src;

		ck_assert_int_gt(bufid, 0);
		pvm_bufinfo(bufid, &bytes, &tag, &src);
		for (k = 0; k < NSENDERS && kids[k] != src; k++)
			;
		ck_assert_int_lt(k, NSENDERS);
		ck_assert_int_ge(recv_block(buf, &seq), 0);
		ck_assert_int_eq(seq, next[k]);
		next[k]++;
	}
	for (k = 0; k < NSENDERS; k++) {
		ck_assert_int_eq(next[k], PER_SENDER);
		vm_wait_ok(pids[k]);
	}
	free(buf);
	pvm_exit();
}
END_TEST


START_TEST(peer_with_rings_off_gets_all_over_the_socket)
{
	unsigned char *out = malloc(1 << 20), *in = malloc(1 << 20);
	int me, kid, seq;
	size_t i;
	pid_t pid;

	unsetenv("COPVM_SHM");
	me = pvm_mytid();
	/* the child reads COPVM_SHM when it enrols, in vm_fork_task (we
	 * read it at ours, so it changes nothing here) */
	setenv("COPVM_SHM", "0", 1);
	kid = vm_fork_task(echo_child, me, &pid);
	unsetenv("COPVM_SHM");
	for (i = 0; i < NSIZES && sizes[i] <= (1 << 20); i++) {
		vm_fill(out, sizes[i], (unsigned)i + 3);
		ck_assert_int_eq(send_block(kid, TAG_DATA, out, sizes[i], i),
				 PvmOk);
		ck_assert_int_gt(pvm_recv(kid, TAG_ECHO), 0);
		ck_assert_int_eq(recv_block(in, &seq), (long)sizes[i]);
		ck_assert(memcmp(in, out, sizes[i]) == 0);
	}
	/* the child declined ours and never offered one */
	ck_assert_int_eq(vm_ring_maps(), 0);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	free(in);
	free(out);
	pvm_exit();
}
END_TEST

#define BURST		600	/* more than the sender's 256 quick looks */
#define LATE_MORE	50

/* A receiver that starts reading late: it sleeps before its first
 * receive, so its greeting comes after the sender's burst; then takes
 * every message in order and answers with their count. */
static int late_child(int parent)
{
	int n, v;

	usleep(300000);
	for (n = 0; n < BURST + LATE_MORE; n++) {
		v = vm_recv_int(parent, TAG_DATA);
		if (v != n)
			return 1;
	}
	vm_send_int(parent, TAG_ECHO, n);
	return 0;
}

/* A burst of frames to a task that has not greeted yet goes on the
 * socket; the sender keeps looking for the greeting, less often, and
 * moves onto the ring once it is there, in order. */
START_TEST(a_burst_to_a_late_receiver_still_moves_onto_the_ring)
{
	int me, kid, n;
	pid_t pid;

	unsetenv("COPVM_SHM");
	me = pvm_mytid();
	kid = vm_fork_task(late_child, me, &pid);
	for (n = 0; n < BURST; n++)
		vm_send_int(kid, TAG_DATA, n);
	ck_assert_int_eq(vm_ring_maps(), 0);
	usleep(500000);		/* it greets when it starts reading */
	for (; n < BURST + LATE_MORE; n++)
		vm_send_int(kid, TAG_DATA, n);
	ck_assert_int_gt(vm_ring_maps(), 0);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), BURST + LATE_MORE);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

#define FLOOD		1000	/* records: less than a ring holds */
static int flood_done_fd = -1;	/* the flooder's pipe to the test */

#define SETUP_TRIPS	3	/* round trips that put a circuit on its ring */

/* The round trips that put a circuit on its ring (vm_fixture.h). */
#define setup_trips_child(parent) \
	vm_trips_child(parent, SETUP_TRIPS, TAG_DATA, TAG_ECHO)
#define setup_trips(kid)	vm_trips(kid, SETUP_TRIPS, TAG_DATA, TAG_ECHO)

/* After SETUP_TRIPS round trips, sends FLOOD messages, one more with
 * another tag, then says so on flood_done_fd (not a PVM message: the
 * test must not read its input to learn it) and waits for the end. */
static int flood_child(int parent)
{
	int n;

	if (setup_trips_child(parent))
		return 1;
	for (n = 0; n < FLOOD; n++)
		vm_send_int(parent, TAG_DATA, n);
	vm_send_int(parent, TAG_ECHO, FLOOD);
	if (write(flood_done_fd, "x", 1) != 1)
		return 1;
	return vm_recv_int(parent, TAG_EXIT) == 0 ? 0 : 1;
}

/* A look takes a bounded batch of a ring only once the receive under way
 * has its match: one pvm_probe sees a message behind a thousand others,
 * and then everything is received in order. */
START_TEST(one_probe_sees_a_message_behind_a_thousand_others)
{
	int me, kid, n, fds[2];
	char c;
	pid_t pid;

	vm_set_shm(_i);
	ck_assert_int_eq(pipe(fds), 0);
	flood_done_fd = fds[1];
	me = pvm_mytid();
	kid = vm_fork_task(flood_child, me, &pid);
	close(fds[1]);
	setup_trips(kid);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	close(fds[0]);
	if (!_i)
		ck_assert_int_gt(vm_ring_maps(), 0);
	ck_assert_int_gt(pvm_probe(kid, TAG_ECHO), 0);
	for (n = 0; n < FLOOD; n++)
		ck_assert_int_eq(vm_recv_int(kid, TAG_DATA), n);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), FLOOD);
	vm_send_int(kid, TAG_EXIT, 0);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

#define CROSS_BYTES	(6 << 20)
#define CROSS_ROUNDS	8

/* Sends CROSS_BYTES to `peer' and receives as much from it, both ways at
 * once, CROSS_ROUNDS times; 0 when every block arrived intact. */
static int cross_rounds(int peer, unsigned int seed)
{
	unsigned char *out = malloc(CROSS_BYTES), *in = malloc(CROSS_BYTES);
	int r, seq, bad = 0;

	for (r = 0; r < CROSS_ROUNDS && !bad; r++) {
		vm_fill(out, CROSS_BYTES, seed + r);
		if (send_block(peer, TAG_DATA, out, CROSS_BYTES, r) < 0 ||
		    pvm_recv(peer, TAG_DATA) <= 0 ||
		    recv_block(in, &seq) != CROSS_BYTES || seq != r)
			bad = 1;
	}
	free(in);
	free(out);
	return bad;
}

static int cross_child(int parent)
{
	return cross_rounds(parent, 100);
}

/* Both tasks send a message several times the ring's size before either
 * receives: each sender, waiting for room, reads its own input, and
 * every block arrives whole, in order. */
START_TEST(large_messages_crossing_arrive_intact)
{
	int me, kid;
	pid_t pid;

	unsetenv("COPVM_SHM");
	me = pvm_mytid();
	kid = vm_fork_task(cross_child, me, &pid);
	ck_assert_int_eq(cross_rounds(kid, 200), 0);
	ck_assert_int_gt(vm_ring_maps(), 0);	/* it came by ring */
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* Says hello, waits for the answer, then sends 64 MiB that nobody reads
 * yet: it blocks in the middle of the message and is killed there. */
static int stuck_sender(int parent)
{
	size_t n = 64u << 20;
	char *p = calloc(1, n);

	vm_send_int(parent, TAG_ECHO, 1);
	/* the parent's greeting is here by now: the big one takes the ring */
	if (vm_recv_int(parent, TAG_ECHO) != 2)
		return 1;
	pvm_initsend(PvmDataRaw);
	pvm_pkbyte(p, (int)n, 1);
	pvm_send(parent, TAG_DATA);
	return 0;
}

START_TEST(sender_killed_mid_message_gives_notify_only)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	int me, kid, st, bufid, bytes, tag, src, who = 0;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	kid = vm_fork_task(stuck_sender, me, &pid);
	ck_assert_int_eq(pvm_notify(PvmTaskExit, TAG_EXIT, 1, &kid), PvmOk);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), 1);
	vm_send_int(kid, TAG_ECHO, 2);
	nanosleep(&ts, NULL);
	/* Stop the sender first: a running one refills the ring or socket as
	 * fast as we drain it and may finish the message inside one nrecv. */
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(pid, &st, WUNTRACED), pid);
	ck_assert(WIFSTOPPED(st));
	/* take what is there: part of the message, never all of it */
	ck_assert_int_eq(pvm_nrecv(kid, TAG_DATA), 0);
	nanosleep(&ts, NULL);
	ck_assert_int_eq(pvm_nrecv(kid, TAG_DATA), 0);
	if (!_i)
		ck_assert_int_gt(vm_ring_maps(), 0);	/* it came by ring */
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	bufid = pvm_recv(-1, -1);
	ck_assert_int_gt(bufid, 0);
	pvm_bufinfo(bufid, &bytes, &tag, &src);
	ck_assert_int_eq(tag, TAG_EXIT);
	ck_assert_int_eq(pvm_upkint(&who, 1, 1), PvmOk);
	ck_assert_int_eq(who, kid);
	ck_assert_int_eq(pvm_nrecv(-1, TAG_DATA), 0);
	ck_assert_int_eq(pvm_probe(-1, -1), 0);
	pvm_exit();
}
END_TEST

/* Ten round trips: enough for both circuits to switch to their rings
 * (the first frames go on the socket until the greeting is read). */
static int short_echo_child(int parent)
{
	int i, v;

	for (i = 0; i < 10; i++) {
		v = vm_recv_int(parent, TAG_DATA);
		vm_send_int(parent, TAG_ECHO, v + 1);
	}
	return 0;
}

START_TEST(no_fd_or_segment_is_left_after_exit)
{
	int fds0, maps0, me, kid, k, i;
	pid_t pid;

	vm_set_shm(_i);
	fds0 = open_fds();
	maps0 = vm_ring_maps();
	ck_assert_int_eq(maps0, 0);
	me = pvm_mytid();
	for (k = 0; k < 3; k++) {
		kid = vm_fork_task(short_echo_child, me, &pid);
		for (i = 0; i < 10; i++) {
			vm_send_int(kid, TAG_DATA, k + i);
			ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), k + i + 1);
		}
		if (_i)
			ck_assert_int_eq(vm_ring_maps(), 0);
		else
			ck_assert_int_gt(vm_ring_maps(), 0);
		vm_wait_ok(pid);
	}
	pvm_exit();
	ck_assert_int_eq(vm_ring_maps(), 0);
	ck_assert_int_eq(open_fds(), fds0);
}
END_TEST

/* Waits for the parent's go, then sends `n' ints, each after the
 * parent asked for it. */
static int paced_sender(int parent)
{
	int i;

	for (i = 0; i < 20; i++) {
		if (vm_recv_int(parent, TAG_DATA) != i)
			return 1;
		vm_send_int(parent, TAG_ECHO, i);
	}
	return 0;
}

START_TEST(a_program_polling_getfds_hears_of_ring_messages)
{
	struct pollfd pfd[64];
	int me, kid, i, j, n, *fds;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	kid = vm_fork_task(paced_sender, me, &pid);
	for (i = 0; i < 20; i++) {
		vm_send_int(kid, TAG_DATA, i);
		/* as a select()-driven program does: nrecv, else wait on the
		 * library's fds */
		while (pvm_nrecv(kid, TAG_ECHO) == 0) {
			n = pvm_getfds(&fds);
			ck_assert_int_gt(n, 0);
			ck_assert_int_le(n, 64);
			for (j = 0; j < n; j++) {
				pfd[j].fd = fds[j];
				pfd[j].events = POLLIN;
			}
			/* a lost wake-up shows as a 20 s wait, then failure */
			ck_assert_int_gt(poll(pfd, n, 20000), 0);
		}
		ck_assert_int_eq(pvm_upkint(&j, 1, 1), PvmOk);
		ck_assert_int_eq(j, i);
	}
	if (!_i)
		ck_assert_int_gt(vm_ring_maps(), 0);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* Echoes ten ints, then waits to be killed. */
static int echo_then_sleep_child(int parent)
{
	int i;

	for (i = 0; i < 10; i++)
		vm_send_int(parent, TAG_ECHO, vm_recv_int(parent, TAG_DATA));
	pause();
	return 0;
}

START_TEST(sends_to_a_killed_receiver_end_its_ring)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	int me, kid, i, st;
	pid_t pid;

	unsetenv("COPVM_SHM");
	me = pvm_mytid();
	kid = vm_fork_task(echo_then_sleep_child, me, &pid);
	for (i = 0; i < 10; i++) {
		vm_send_int(kid, TAG_DATA, i);
		ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), i);
	}
	ck_assert_int_gt(vm_ring_maps(), 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	/* the sends go on without an error or a crash, and within a few
	 * of them the circuit is found dead and its ring let go */
	for (i = 0; i < 500 && vm_ring_maps() > 0; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		ck_assert_int_ge(pvm_send(kid, TAG_DATA), 0);
		pvm_nrecv(-1, -1);
		nanosleep(&ts, NULL);
	}
	ck_assert_int_eq(vm_ring_maps(), 0);
	pvm_exit();
}
END_TEST

/* Sends one int, and after the parent's go four more, then exits: those
 * four go on the socket after its ring offer (the parent, not reading,
 * never answered it), the fds' message first. */
#define BEFORE_EXIT	200	/* more than one look at a ring takes */

static int offer_then_exit_child(int parent)
{
	int i;

	if (setup_trips_child(parent))
		return 1;
	for (i = 1; i <= BEFORE_EXIT; i++)
		vm_send_int(parent, TAG_DATA, i);
	return 0;
}

START_TEST(messages_sent_before_exit_come_before_its_notify)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	int me, kid, i, tag, src, v;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	kid = vm_fork_task(offer_then_exit_child, me, &pid);
	ck_assert_int_ge(pvm_notify(PvmTaskExit, TAG_EXIT, 1, &kid), 0);
	setup_trips(kid);
	/* not reading while it sends and leaves: its messages and the
	 * daemon's notify all wait for us */
	vm_wait_ok(pid);
	nanosleep(&ts, NULL);
	/* stock's order: what a task sent before it exited comes first,
	 * though a look at its ring takes fewer once a receive has its
	 * match (the notify drains every circuit whole) */
	for (i = 1; i <= BEFORE_EXIT + 1; i++) {
		ck_assert_int_gt(pvm_recv(-1, -1), 0);
		ck_assert_int_ge(pvm_bufinfo(pvm_getrbuf(), NULL, &tag, &src), 0);
		if (i == BEFORE_EXIT + 1) {
			ck_assert_int_eq(tag, TAG_EXIT);
			break;
		}
		ck_assert_int_eq(tag, TAG_DATA);
		ck_assert_int_eq(src, kid);
		ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
		ck_assert_int_eq(v, i);
	}
	pvm_exit();
}
END_TEST

static Suite *shm_transport_suite(void)
{
	Suite *s = suite_create("shm_transport");
	TCase *tc = tcase_create("paths");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, every_size_to_16mib_arrives_intact_both_ways,
			    0, 2);
	tcase_add_loop_test(tc,
			    mixed_sizes_from_many_senders_keep_order_per_sender,
			    0, 2);
	tcase_add_test(tc, peer_with_rings_off_gets_all_over_the_socket);
	tcase_add_test(tc, large_messages_crossing_arrive_intact);
	tcase_add_test(tc, a_burst_to_a_late_receiver_still_moves_onto_the_ring);
	tcase_add_loop_test(tc, one_probe_sees_a_message_behind_a_thousand_others,
			    0, 2);
	tcase_add_loop_test(tc, sender_killed_mid_message_gives_notify_only,
			    0, 2);
	tcase_add_loop_test(tc, no_fd_or_segment_is_left_after_exit, 0, 2);
	tcase_add_loop_test(tc, a_program_polling_getfds_hears_of_ring_messages,
			    0, 2);
	tcase_add_test(tc, sends_to_a_killed_receiver_end_its_ring);
	tcase_add_loop_test(tc, messages_sent_before_exit_come_before_its_notify,
			    0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(shm_transport_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

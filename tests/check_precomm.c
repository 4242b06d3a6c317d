/*
 * check_precomm.c - tests of precommunication (lib/precomm.c,
 * pvm_indication) against a private daemon: an indicated message reaches
 * the receiver exactly as a plain send would (bytes, tag, source), sends
 * keep program order, and each misuse (never sent, another buffer, a
 * buffer packed further, a dead destination, too many, bad arguments)
 * behaves as pvm_indication(3) documents.  The peer is tests/task_child
 * in "mirror" mode, which sends back what it received; a body here is
 * (int n, n bytes) pairs.
 *
 * The frames themselves are watched on the circuit's socket (the shm
 * transport off): with the mirror stopped, what this task wrote and the
 * mirror has not read stays in the kernel (SIOCOUTQ).  A receive that
 * waits must put the whole indicated message there before pvm_send, the
 * send then only a small RELEASE frame, and an expiring or superseded
 * indication a small cancel frame; once the mirror runs again, the
 * released copy is delivered and the cancelled ones never are.
 */
#include <check.h>
#include <linux/sockios.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "pvm3.h"
#include "vm_fixture.h"

#ifndef TASK_CHILD
#error "TASK_CHILD must name the built tests/task_child"
#endif

#define MIRROR_TAG	100
#define BIG		(64 * 1024 + 7)

struct echo {
	int src, tag, len;
	char *bytes;
};

static int spawn_mirror(void)
{
	char *av[] = { "mirror", NULL };
	int tid;

	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	return tid;
}

static void stop_mirror(int tid)
{
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, 99);
}

/* Receives the mirror's report of the next message it got. */
static struct echo next_echo(int tid)
{
	struct echo e;
	int info[3];

	ck_assert_int_gt(pvm_recv(tid, MIRROR_TAG), 0);
	ck_assert_int_eq(pvm_upkint(info, 3, 1), PvmOk);
	e.src = info[0];
	e.tag = info[1];
	e.len = info[2];
	e.bytes = calloc(1, e.len > 0 ? e.len : 1);
	if (e.len > 0)
		ck_assert_int_eq(pvm_upkbyte(e.bytes, e.len, 1), PvmOk);
	return e;
}

/* A new active send buffer holding `len' bytes of pattern `seed'. */
static int packed(int len, int seed)
{
	char *p = malloc(len);
	int b, i;

	for (i = 0; i < len; i++)
		p[i] = (char)(i * 7 + seed);
	b = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(b);
	pvm_pkint(&len, 1, 1);
	pvm_pkbyte(p, len, 1);
	free(p);
	return b;
}

static void check_echo(struct echo e, int tag, int len, int seed)
{
	int i;

	ck_assert_int_eq(e.src, pvm_mytid());
	ck_assert_int_eq(e.tag, tag);
	ck_assert_int_eq(e.len, len);
	for (i = 0; i < len; i++)
		ck_assert_int_eq(e.bytes[i], (char)(i * 7 + seed));
	free(e.bytes);
}

/* The same bytes sent plain and sent after an indication and a receive
 * arrive the same (bytes, tag, source), small and large. */
START_TEST(indicated_message_is_identical_to_a_plain_send)
{
	int c = spawn_mirror(), sizes[] = { 0, 8, 4096, BIG }, i;

	for (i = 0; i < 4; i++) {
		packed(sizes[i], i);
		ck_assert_int_eq(pvm_send(c, 10), PvmOk);
		packed(sizes[i], i);
		ck_assert_int_eq(pvm_indication(c, 11), PvmOk);
		/* waits for the first echo: the indicated one is staged */
		check_echo(next_echo(c), 10, sizes[i], i);
		ck_assert_int_eq(pvm_send(c, 11), PvmOk);
		check_echo(next_echo(c), 11, sizes[i], i);
	}
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* An indicated send leaves after the sends called before it, and before
 * those called after it, whatever the staging did meanwhile. */
START_TEST(sends_keep_program_order)
{
	int c = spawn_mirror(), a, b;

	a = packed(5000, 1);
	ck_assert_int_eq(pvm_indication(c, 20), PvmOk);
	b = packed(300, 2);
	ck_assert_int_eq(pvm_send(c, 21), PvmOk);
	check_echo(next_echo(c), 21, 300, 2);	/* A is staged meanwhile */
	ck_assert_int_eq(pvm_send(c, 22), PvmOk);
	pvm_setsbuf(a);
	ck_assert_int_eq(pvm_send(c, 20), PvmOk);
	pvm_setsbuf(b);
	ck_assert_int_eq(pvm_send(c, 23), PvmOk);
	check_echo(next_echo(c), 22, 300, 2);
	check_echo(next_echo(c), 20, 5000, 1);
	check_echo(next_echo(c), 23, 300, 2);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* At most 8 indications pend; one more fails with PvmNoMem.  Those never
 * sent expire at the second blocking receive, freeing their places. */
START_TEST(too_many_fail_and_unsent_ones_expire)
{
	int c = spawn_mirror(), i;

	pvm_setopt(PvmAutoErr, 0);
	packed(100, 3);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pvm_indication(c, 30 + i), PvmOk);
	ck_assert_int_eq(pvm_indication(c, 40), PvmNoMem);
	/* a newer indication of a pending (tid, tag) replaces it */
	ck_assert_int_eq(pvm_indication(c, 30), PvmOk);
	ck_assert_int_eq(pvm_send(c, 50), PvmOk);
	check_echo(next_echo(c), 50, 100, 3);	/* stages them */
	ck_assert_int_eq(pvm_send(c, 51), PvmOk);
	check_echo(next_echo(c), 51, 100, 3);	/* expires them */
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pvm_indication(c, 60 + i), PvmOk);
	/* left pending at exit: freed there */
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* A send of another buffer to the indicated (tid, tag) sends that buffer
 * and drops the indication; so does a buffer packed further after it. */
START_TEST(another_or_changed_buffer_is_sent_plain)
{
	int c = spawn_mirror(), a;
	char more[10] = "0123456789";
	int ten = 10;

	a = packed(2000, 4);
	ck_assert_int_eq(pvm_indication(c, 70), PvmOk);
	ck_assert_int_eq(pvm_send(c, 1), PvmOk);
	check_echo(next_echo(c), 1, 2000, 4);	/* staged */
	packed(700, 5);
	ck_assert_int_eq(pvm_send(c, 70), PvmOk);
	check_echo(next_echo(c), 70, 700, 5);
	pvm_setsbuf(a);
	ck_assert_int_eq(pvm_send(c, 70), PvmOk);
	check_echo(next_echo(c), 70, 2000, 4);

	ck_assert_int_eq(pvm_indication(c, 71), PvmOk);
	ck_assert_int_eq(pvm_send(c, 2), PvmOk);
	check_echo(next_echo(c), 2, 2000, 4);	/* staged */
	pvm_pkint(&ten, 1, 1);
	pvm_pkbyte(more, 10, 1);
	ck_assert_int_eq(pvm_send(c, 71), PvmOk);
	{
		struct echo e = next_echo(c);

		ck_assert_int_eq(e.tag, 71);
		ck_assert_int_eq(e.len, 2010);
		ck_assert_int_eq(memcmp(e.bytes + 2000, more, 10), 0);
		free(e.bytes);
	}
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* An indicated send to a task that is gone answers as a plain one. */
START_TEST(dead_destination_answers_as_a_plain_send)
{
	int c = spawn_mirror(), dead, plain, indicated;

	/* a task of this host that does not exist */
	dead = (pvm_mytid() & ~0x3ffff) | 0x3fff0;
	packed(100, 6);
	plain = pvm_send(dead, 80);
	ck_assert_int_eq(pvm_indication(dead, 80), PvmOk);
	ck_assert_int_eq(pvm_send(c, 3), PvmOk);
	check_echo(next_echo(c), 3, 100, 6);	/* staging fails quietly */
	indicated = pvm_send(dead, 80);
	ck_assert_int_eq(indicated, plain);
	/* and the circuit that works still does */
	ck_assert_int_eq(pvm_send(c, 4), PvmOk);
	check_echo(next_echo(c), 4, 100, 6);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

START_TEST(bad_arguments_get_error_codes)
{
	int c = spawn_mirror();

	pvm_setopt(PvmAutoErr, 0);
	packed(10, 7);
	ck_assert_int_eq(pvm_indication(c, -1), PvmBadParam);
	ck_assert_int_eq(pvm_indication(0, 5), PvmBadParam);
	ck_assert_int_eq(pvm_indication(-7, 5), PvmBadParam);
	pvm_setsbuf(0);
	ck_assert_int_eq(pvm_indication(c, 5), PvmNoBuf);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* ---- the frames on the circuit's socket ---- */

#define STAGED	(32 * 1024)	/* the indicated body: well above a frame
				 * header, well below a socket's buffer */
#define MAXFD	1024

static struct timeval short_wait = { 0, 100000 };

/* Bytes this task wrote to each of its sockets that the peer has not
 * read yet (SIOCOUTQ), by descriptor; -1 for a descriptor that is not a
 * socket. */
static void unread(long *q)
{
	struct stat st;
	int fd, v;

	for (fd = 0; fd < MAXFD; fd++) {
		q[fd] = -1;
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    ioctl(fd, SIOCOUTQ, &v) == 0)
			q[fd] = v;
	}
}

/* The socket whose unread bytes grew by at least `n' from `before' to
 * `after', or -1. */
static int grown_by(const long *before, const long *after, long n)
{
	int fd;

	for (fd = 0; fd < MAXFD; fd++)
		if (before[fd] >= 0 && after[fd] - before[fd] >= n)
			return fd;
	return -1;
}

static long unread_on(int fd)
{
	int v;

	ck_assert_int_eq(ioctl(fd, SIOCOUTQ, &v), 0);
	return v;
}

/* The process id of task `tid' (this host's task list). */
static pid_t task_pid(int tid)
{
	struct pvmtaskinfo *ti;
	int n, i;

	ck_assert_int_eq(pvm_tasks(0, &n, &ti), PvmOk);
	for (i = 0; i < n; i++)
		if (ti[i].ti_tid == tid)
			return ti[i].ti_pid;
	ck_abort_msg("task t%x not listed", tid);
	return -1;
}

/* Stops process `pid' and returns once it is stopped: from then on it
 * reads nothing. */
static void stop_reading(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	char path[64], line[256], *p;
	FILE *f;
	int i;

	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 10000; i++) {
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		fclose(f);
		if (p && (p[2] == 'T' || p[2] == 't'))
			return;
		nanosleep(&ms, NULL);
	}
	ck_abort_msg("task process %d did not stop", (int)pid);
}

/* A mirror on a socket circuit, up (one round trip), and its process. */
static int socket_mirror(pid_t *pid)
{
	int c;

	vm_set_shm(1);
	c = spawn_mirror();
	packed(10, 1);
	ck_assert_int_eq(pvm_send(c, 1), PvmOk);
	check_echo(next_echo(c), 1, 10, 1);
	ck_assert_int_eq(vm_ring_maps(), 0);	/* no ring: all on sockets */
	*pid = task_pid(c);
	return c;
}

/* A receive of nothing that waits, with the indicated message staged
 * meanwhile; returns the socket it went on, at least STAGED bytes. */
static int staging_receive(int c)
{
	long before[MAXFD], after[MAXFD];
	int fd;

	unread(before);
	ck_assert_int_eq(pvm_trecv(c, MIRROR_TAG, &short_wait), 0);
	unread(after);
	fd = grown_by(before, after, STAGED);
	ck_assert_msg(fd >= 0, "the receive sent no held copy ahead");
	return fd;
}

/* Checks that a small frame, and only that, went on `fd' since it held
 * `was' unread bytes. */
static void check_small_frame(int fd, long was, const char *what)
{
	long d = unread_on(fd) - was;

	ck_assert_msg(d > 0, "%s: no frame sent", what);
	ck_assert_msg(d < STAGED / 4, "%s: %ld bytes sent, the body again",
		      what, d);
}

/* The receive that waits sends the indicated message ahead, whole; the
 * send sends only a small release; the mirror then gets the message,
 * once, as packed. */
START_TEST(a_waiting_receive_sends_ahead_and_the_send_releases)
{
	pid_t pid;
	int c = socket_mirror(&pid), fd;
	long was;

	stop_reading(pid);
	packed(STAGED, 2);
	ck_assert_int_eq(pvm_indication(c, 11), PvmOk);
	fd = staging_receive(c);
	was = unread_on(fd);
	ck_assert_int_eq(pvm_send(c, 11), PvmOk);
	check_small_frame(fd, was, "the send of a staged message");
	packed(10, 3);
	ck_assert_int_eq(pvm_send(c, 12), PvmOk);
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	check_echo(next_echo(c), 11, STAGED, 2);
	check_echo(next_echo(c), 12, 10, 3);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* A staged copy never sent is cancelled by a small frame at the second
 * receive; so is one a newer indication of its (tid, tag) supersedes, at
 * once.  The mirror never gets the cancelled copies. */
START_TEST(expired_and_superseded_copies_are_cancelled)
{
	pid_t pid;
	int c = socket_mirror(&pid), fd;
	long was;

	stop_reading(pid);
	packed(STAGED, 4);
	ck_assert_int_eq(pvm_indication(c, 21), PvmOk);
	fd = staging_receive(c);
	was = unread_on(fd);
	ck_assert_int_eq(pvm_trecv(c, MIRROR_TAG, &short_wait), 0);
	check_small_frame(fd, was, "an expired indication");

	ck_assert_int_eq(pvm_indication(c, 22), PvmOk);
	ck_assert_int_eq(staging_receive(c), fd);
	packed(100, 5);
	was = unread_on(fd);
	ck_assert_int_eq(pvm_indication(c, 22), PvmOk);
	check_small_frame(fd, was, "a superseded indication");
	ck_assert_int_eq(pvm_send(c, 22), PvmOk);	/* not staged: plain */
	packed(10, 6);
	ck_assert_int_eq(pvm_send(c, 23), PvmOk);
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	check_echo(next_echo(c), 22, 100, 5);
	check_echo(next_echo(c), 23, 10, 6);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

static Suite *precomm_suite(void)
{
	Suite *s = suite_create("precomm");
	TCase *tc = tcase_create("indication");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup,
				    vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, indicated_message_is_identical_to_a_plain_send);
	tcase_add_test(tc, sends_keep_program_order);
	tcase_add_test(tc, too_many_fail_and_unsent_ones_expire);
	tcase_add_test(tc, another_or_changed_buffer_is_sent_plain);
	tcase_add_test(tc, dead_destination_answers_as_a_plain_send);
	tcase_add_test(tc, bad_arguments_get_error_codes);
	tcase_add_test(tc, a_waiting_receive_sends_ahead_and_the_send_releases);
	tcase_add_test(tc, expired_and_superseded_copies_are_cancelled);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(precomm_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

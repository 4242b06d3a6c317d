/*
 * check_recv.c - message matching and delivery order (lib/recv.c,
 * lib/send.c): wildcards, FIFO per sender and tag, contexts, probes,
 * timeouts, handlers, buffer info, on a private pvmd.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

static void send_int(int tid, int tag, int v)
{
	ck_assert_int_ge(pvm_initsend(PvmDataDefault), 0);
	ck_assert_int_eq(pvm_pkint(&v, 1, 1), PvmOk);
	ck_assert_int_eq(pvm_send(tid, tag), PvmOk);
}

static int recv_int(int tid, int tag)
{
	int v = -1;

	ck_assert_int_gt(pvm_recv(tid, tag), 0);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	return v;
}

START_TEST(send_to_self_round_trips_and_reports_bufinfo)
{
	int me = pvm_mytid(), bytes, tag, src, bufid, v[3] = { 1, -2, 3 };
	int out[3];

	ck_assert_int_gt(me, 0);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 3, 1);
	ck_assert_int_eq(pvm_send(me, 42), PvmOk);
	bufid = pvm_recv(-1, -1);
	ck_assert_int_gt(bufid, 0);
	ck_assert_int_eq(pvm_bufinfo(bufid, &bytes, &tag, &src), PvmOk);
	ck_assert_int_eq(tag, 42);
	ck_assert_int_eq(src, me);
	ck_assert_int_gt(bytes, 0);
	ck_assert_int_eq(pvm_upkint(out, 3, 1), PvmOk);
	ck_assert_int_eq(out[0], 1);
	ck_assert_int_eq(out[1], -2);
	ck_assert_int_eq(out[2], 3);
	ck_assert_int_eq(pvm_getrbuf(), bufid);
	pvm_exit();
}
END_TEST

START_TEST(wildcards_select_by_tag_and_source)
{
	int me = pvm_mytid();

	send_int(me, 5, 50);
	send_int(me, 6, 60);
	send_int(me, 7, 70);
	ck_assert_int_eq(recv_int(-1, 6), 60);
	ck_assert_int_eq(recv_int(me, -1), 50);
	ck_assert_int_gt(pvm_probe(-1, 7), 0);
	ck_assert_int_eq(pvm_nrecv(-1, 99), 0);
	ck_assert_int_eq(pvm_nrecv(me + 1, -1), 0);
	ck_assert_int_eq(recv_int(-1, -1), 70);
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	pvm_exit();
}
END_TEST

/* Receives that take the queue's last message, then one in its middle,
 * leave the rest in order for what is queued after them. */
START_TEST(taking_the_tail_or_middle_keeps_the_queue_in_order)
{
	int me = pvm_mytid();

	send_int(me, 5, 50);
	send_int(me, 6, 60);
	send_int(me, 7, 70);
	ck_assert_int_eq(recv_int(-1, 7), 70);		/* the tail */
	send_int(me, 8, 80);
	ck_assert_int_eq(recv_int(-1, 6), 60);		/* the middle */
	send_int(me, 9, 90);
	ck_assert_int_eq(recv_int(-1, -1), 50);
	ck_assert_int_eq(recv_int(-1, -1), 80);
	ck_assert_int_eq(recv_int(-1, -1), 90);
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	send_int(me, 10, 100);				/* into an empty queue */
	ck_assert_int_eq(recv_int(-1, -1), 100);
	pvm_exit();
}
END_TEST

/* Stock frees the receive buffer as a receive starts: a pvm_nrecv or a
 * pvm_trecv that finds nothing leaves no receive buffer, and the old id
 * is gone; a probe or a pvm_precv leaves it. */
START_TEST(a_receive_that_finds_nothing_clears_the_receive_buffer)
{
	struct timeval tv = { 0, 1000 };
	int me = pvm_mytid(), rb, v = 0, bytes, tag, src;

	pvm_setopt(PvmAutoErr, 0);
	send_int(me, 3, 30);
	rb = pvm_recv(me, 3);
	ck_assert_int_gt(rb, 0);
	ck_assert_int_eq(pvm_probe(me, 99), 0);
	ck_assert_int_eq(pvm_getrbuf(), rb);
	v = 40;
	ck_assert_int_eq(pvm_psend(me, 4, &v, 1, PVM_INT), PvmOk);
	v = 0;
	ck_assert_int_eq(pvm_precv(me, 4, &v, 1, PVM_INT, &src, &tag, &bytes),
			 PvmOk);
	ck_assert_int_eq(v, 40);
	ck_assert_int_eq(pvm_getrbuf(), rb);
	ck_assert_int_eq(pvm_nrecv(me, 99), 0);
	ck_assert_int_eq(pvm_getrbuf(), 0);
	ck_assert_int_eq(pvm_bufinfo(rb, &bytes, &tag, &src), PvmNoSuchBuf);

	send_int(me, 3, 31);
	rb = pvm_recv(me, 3);
	ck_assert_int_gt(rb, 0);
	ck_assert_int_eq(pvm_trecv(me, 99, &tv), 0);
	ck_assert_int_eq(pvm_getrbuf(), 0);
	ck_assert_int_eq(pvm_bufinfo(rb, &bytes, &tag, &src), PvmNoSuchBuf);
	pvm_exit();
}
END_TEST

START_TEST(probe_returns_the_id_recv_later_returns)
{
	int me = pvm_mytid(), p, r, bytes, tag, src;

	send_int(me, 9, 90);
	p = pvm_probe(-1, 9);
	ck_assert_int_gt(p, 0);
	ck_assert_int_eq(pvm_bufinfo(p, &bytes, &tag, &src), PvmOk);
	ck_assert_int_eq(tag, 9);
	r = pvm_recv(-1, 9);
	ck_assert_int_eq(r, p);
	pvm_exit();
}
END_TEST

/* A child task: 0, 1, ... 199 to `parent', on tags 1 and 2 in turn. */
static int send_200_on_two_tags(int parent)
{
	int i;

	for (i = 0; i < 200; i++)
		send_int(parent, 1 + (i & 1), i);
	return 0;
}

/* Two child tasks each send 200 messages on two tags; the parent reads
 * them with specific (source, tag) pairs and in any order and must see
 * each sender's sequence in order for each tag. */
START_TEST(fifo_per_sender_and_tag)
{
	int me = pvm_mytid(), kids[2], k, i, tag;
	pid_t pids[2];

	for (k = 0; k < 2; k++)
		kids[k] = vm_fork_task(send_200_on_two_tags, me, &pids[k]);
	for (tag = 2; tag >= 1; tag--) {
		for (k = 1; k >= 0; k--) {
			int expect = tag - 1;

			for (i = 0; i < 100; i++, expect += 2)
				ck_assert_int_eq(recv_int(kids[k], tag),
						 expect);
		}
	}
	for (k = 0; k < 2; k++) {
		int st;

		waitpid(pids[k], &st, 0);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	pvm_exit();
}
END_TEST

START_TEST(contexts_separate_messages)
{
	int me = pvm_mytid(), base, other;

	base = pvm_getcontext();
	other = pvm_newcontext();
	ck_assert_int_gt(other, 0);
	ck_assert_int_ne(other, base);
	send_int(me, 1, 100);			/* in the base context */
	ck_assert_int_eq(pvm_setcontext(other), base);
	send_int(me, 1, 200);			/* in the new context */
	ck_assert_int_eq(recv_int(-1, 1), 200);
	ck_assert_int_eq(pvm_nrecv(-1, 1), 0);
	ck_assert_int_eq(pvm_setcontext(base), other);
	ck_assert_int_eq(recv_int(-1, 1), 100);
	ck_assert_int_eq(pvm_freecontext(other), PvmOk);
	pvm_exit();
}
END_TEST

START_TEST(trecv_times_out_with_zero)
{
	struct timeval tv = { 0, 50000 }, zero = { 0, 0 };

	pvm_mytid();
	ck_assert_int_eq(pvm_trecv(-1, 1234, &tv), 0);
	ck_assert_int_eq(pvm_trecv(-1, 1234, &zero), 0);
	tv.tv_sec = -1;
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_trecv(-1, 1234, &tv), PvmBadParam);
	pvm_exit();
}
END_TEST

static int handled_value = -1;

static int handler(int mid)
{
	int v;

	(void)mid;
	if (pvm_upkint(&v, 1, 1) == PvmOk)
		handled_value = v;
	return 0;
}

START_TEST(message_handler_takes_matching_messages)
{
	int me = pvm_mytid(), id;

	id = pvm_addmhf(-1, 77, -1, handler);
	ck_assert_int_ge(id, 0);
	send_int(me, 77, 7);
	send_int(me, 78, 8);
	ck_assert_int_eq(recv_int(-1, -1), 8);
	ck_assert_int_eq(handled_value, 7);
	ck_assert_int_eq(pvm_delmhf(id), PvmOk);
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_delmhf(id), PvmNotFound);
	send_int(me, 77, 9);
	ck_assert_int_eq(recv_int(-1, 77), 9);
	pvm_exit();
}
END_TEST

static int pick_tag_three(int mid, int tid, int tag)
{
	int t;

	(void)tid;
	(void)tag;
	pvm_bufinfo(mid, NULL, &t, NULL);
	return t == 3 ? 1 : 0;
}

START_TEST(recvf_replaces_the_match_function)
{
	int me = pvm_mytid();

	send_int(me, 2, 20);
	send_int(me, 3, 30);
	ck_assert_ptr_null(pvm_recvf(pick_tag_three));
	ck_assert_int_eq(recv_int(-1, -1), 30);
	ck_assert_ptr_eq(pvm_recvf(NULL), pick_tag_three);
	ck_assert_int_eq(recv_int(-1, -1), 20);
	pvm_exit();
}
END_TEST

START_TEST(psend_precv_round_trip)
{
	int me = pvm_mytid(), tid, tag, len;
	double in[4] = { 1.5, -2.5, 3.25, 1e300 }, out[4] = { 0 };

	ck_assert_int_eq(pvm_psend(me, 11, in, 4, PVM_DOUBLE), PvmOk);
	ck_assert_int_eq(pvm_precv(-1, 11, out, 4, PVM_DOUBLE, &tid, &tag,
				   &len), PvmOk);
	ck_assert_int_eq(tid, me);
	ck_assert_int_eq(tag, 11);
	ck_assert_int_eq(len, (int)sizeof(in));	/* bytes, as stock */
	ck_assert(memcmp(in, out, sizeof(in)) == 0);
	/* a smaller buffer: cut short, no error, the full length */
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(pvm_psend(me, 12, in, 4, PVM_DOUBLE), PvmOk);
	ck_assert_int_eq(pvm_precv(-1, 12, out, 2, PVM_DOUBLE, NULL, NULL,
				   &len), PvmOk);
	ck_assert_int_eq(len, (int)sizeof(in));
	ck_assert(memcmp(in, out, 2 * sizeof(double)) == 0);
	ck_assert(out[2] == 0);
	/* another type: the bytes, not converted */
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(pvm_psend(me, 13, in, 4, PVM_DOUBLE), PvmOk);
	ck_assert_int_eq(pvm_precv(-1, 13, out, 8, PVM_INT, NULL, NULL,
				   &len), PvmOk);
	ck_assert(memcmp(in, out, sizeof(in)) == 0);
	pvm_exit();
}
END_TEST

START_TEST(bad_arguments_get_error_codes)
{
	int me = pvm_mytid();

	pvm_setopt(PvmAutoErr, 0);
	pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_send(-5, 1), PvmBadParam);
	ck_assert_int_eq(pvm_send(me, -1), PvmBadParam);
	ck_assert_int_eq(pvm_mcast(NULL, 2, 1), PvmBadParam);
	ck_assert_int_eq(pvm_psend(me, 1, NULL, 3, PVM_INT), PvmBadParam);
	ck_assert_int_eq(pvm_psend(me, 1, &me, 1, 99), PvmBadParam);
	/* A well-formed tid of this host whose task is gone: the message
	 * is dropped like stock PVM does, and the send succeeds. */
	ck_assert_int_eq(pvm_send(me + 100, 1), PvmOk);
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	pvm_freebuf(pvm_getsbuf());
	ck_assert_int_eq(pvm_send(me, 1), PvmNoBuf);
	pvm_exit();
}
END_TEST

/* ---- back-pressure ---- */

#define FLOOD_MSGS	512
#define FLOOD_LEN	(64 * 1024)

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* How many of B's sends have returned: shared with the children. */
static volatile int *sent;

/* Child B: FLOOD_MSGS messages of FLOOD_LEN bytes, each stamped with its
 * number, counting in *sent the sends that returned. */
static int flood(int parent)
{
	static int body[FLOOD_LEN / sizeof(int)];
	int i, j;

	for (i = 0; i < FLOOD_MSGS; i++) {
		for (j = 0; j < (int)(FLOOD_LEN / sizeof(int)); j++)
			body[j] = i * 7 + j;
		if (pvm_initsend(PvmDataRaw) < 0 ||
		    pvm_pkint(body, FLOOD_LEN / sizeof(int), 1) ||
		    pvm_send(parent, 1))
			_exit(2);
		__atomic_store_n(sent, i + 1, __ATOMIC_SEQ_CST);
	}
	return 0;
}

/* Child A: waits until B has sent everything or has stopped making
 * progress for a second (it is held back), then sends its one message. */
static int watcher(int parent)
{
	long long start = ms_now(), since = start;
	int last = -1, now;

	for (;;) {
		now = __atomic_load_n(sent, __ATOMIC_SEQ_CST);
		if (now >= FLOOD_MSGS || ms_now() - start > 40000)
			break;
		if (now != last) {
			last = now;
			since = ms_now();
		} else if (now > 0 && ms_now() - since > 1000) {
			break;
		}
		usleep(10000);
	}
	if (pvm_mytid() < 0)
		_exit(2);
	send_int(parent, 3, now);
	return 0;
}

/* With the receive queue limited to 1 MiB, a task waiting for A's
 * message does not read all of B's flood: B blocks in pvm_send after a
 * few MiB (queue, ring and socket), not after 32 MiB; once the task
 * receives from B, every message arrives, whole and in order. */
START_TEST(a_full_queue_holds_back_senders_not_waited_for)
{
	static int body[FLOOD_LEN / sizeof(int)];
	int me, kid[2], i, j, n, st;
	pid_t pid[2];

	sent = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne((void *)sent, MAP_FAILED);
	*sent = 0;
	setenv("COPVM_RXQ_MB", "1", 1);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	kid[0] = vm_fork_task(flood, me, &pid[0]);
	kid[1] = vm_fork_task(watcher, me, &pid[1]);
	n = recv_int(kid[1], 3);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(n < FLOOD_MSGS, "B sent all %d messages: not held",
		      FLOOD_MSGS);
	ck_assert_msg((long)n * FLOOD_LEN <= 8L << 20,
		      "B got %d messages (%ld KiB) out", n,
		      (long)n * FLOOD_LEN >> 10);
	for (i = 0; i < FLOOD_MSGS; i++) {
		ck_assert_int_gt(pvm_recv(kid[0], 1), 0);
		ck_assert_int_eq(pvm_upkint(body, FLOOD_LEN / sizeof(int), 1),
				 PvmOk);
		for (j = 0; j < (int)(FLOOD_LEN / sizeof(int)); j++)
			if (body[j] != i * 7 + j)
				ck_abort_msg("message %d, int %d: %d", i, j,
					     body[j]);
	}
	for (i = 0; i < 2; i++) {
		waitpid(pid[i], &st, 0);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	pvm_exit();
}
END_TEST

static Suite *recv_suite(void)
{
	Suite *s = suite_create("recv");
	TCase *tc = tcase_create("matching");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, send_to_self_round_trips_and_reports_bufinfo);
	tcase_add_test(tc, wildcards_select_by_tag_and_source);
	tcase_add_test(tc, taking_the_tail_or_middle_keeps_the_queue_in_order);
	tcase_add_test(tc, probe_returns_the_id_recv_later_returns);
	tcase_add_test(tc, a_receive_that_finds_nothing_clears_the_receive_buffer);
	tcase_add_test(tc, fifo_per_sender_and_tag);
	tcase_add_test(tc, contexts_separate_messages);
	tcase_add_test(tc, trecv_times_out_with_zero);
	tcase_add_test(tc, message_handler_takes_matching_messages);
	tcase_add_test(tc, recvf_replaces_the_match_function);
	tcase_add_test(tc, psend_precv_round_trip);
	tcase_add_test(tc, bad_arguments_get_error_codes);
	suite_add_tcase(s, tc);
	tc = tcase_create("back-pressure");
	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, a_full_queue_holds_back_senders_not_waited_for);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(recv_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

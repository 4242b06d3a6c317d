/*
 * check_route.c - unit tests of lib/route.c, the virtual circuit of every
 * destination, against stand-ins for the modules below it (conn.c,
 * conn_unix.c, conn_tcp.c, daemon_link.c, transport/registry.c) that
 * count what route.c asks of them: the route and its transport are
 * decided once per destination and remembered; one failure path; held
 * frames of precommunication kept by their circuit; a
 * steady-state send is one lookup and no scan of the links; a link that
 * goes is found again; messages to ourselves are queued and never
 * remembered (a forked child has another tid); gone tasks' messages are
 * dropped the way send.c expects; a same-host task out of descriptors is
 * reached through the daemon, for good; a multicast sends its direct
 * copies as one batch when their transport batches (io_uring), one by
 * one otherwise.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "conn.h"
#include "conn_tcp.h"
#include "conn_unix.h"
#include "daemon_link.h"
#include "msg.h"
#include "proto.h"
#include "pvmi.h"
#include "route.h"
#include "transport/registry.h"

#define ME	0x40001		/* host 1 */
#define LOCAL	0x40005		/* host 1 */
#define REMOTE	0x80003		/* host 2 */

/* What route.c asked for, and what the stand-ins answer. */
static struct {
	int link_find, unix_open, unix_send, tcp_open, tcp_link;
	int tcp_send, daemon_send, delivered, route_calls;
	int tcp_batches;		/* the circuits batch (io_uring) */
	int many_calls, many_copies;	/* pvmi_conn_send_many() */
	int many_rc;			/* what each copy comes back with */
	int unix_open_rc, unix_send_rc, tcp_open_rc, call_rc;
	int tcp_send_rc;
	int tcp_have;			/* an authenticated circuit exists */
	int unix_busy;			/* the receiver marked itself busy */
	int picks;			/* pvmi_transport_pick() */
	const struct pvmi_transport *open_tp;	/* what an open was given */
	int last_tag, last_dst, last_kind, last_enc;
	char open_addr[64];
	int open_port;
} s;

static struct link unix_link, tcp_link;

/* Stand-ins for the transports route.c may choose: only their reach and
 * whether they batch (queue and submit) matter to it. */
static int no_submit(void)
{
	return 0;
}

static int no_queue(struct pvmi_pipe *p, struct pvmi_tx *tx)
{
	return 0;
}

static const struct pvmi_transport host_tp = {
	.name = "host", .reach = PVMI_REACH_HOST,
};
static const struct pvmi_transport net_tp = {
	.name = "net", .reach = PVMI_REACH_NET,
};
static const struct pvmi_transport net_batch_tp = {
	.name = "net-batch", .reach = PVMI_REACH_NET,
	.queue = no_queue, .submit = no_submit,
};

/* transport/registry.c */
const struct pvmi_transport *pvmi_transport_pick(int reach, int setup)
{
	s.picks++;
	ck_assert_int_eq(setup, 1);
	if (reach == PVMI_REACH_HOST)
		return &host_tp;
	return s.tcp_batches ? &net_batch_tp : &net_tp;
}

/* conn.c */
struct link *pvmi_link_find(int role, int peer)
{
	s.link_find++;
	return NULL;
}

void pvmi_link_watch(struct link *l, struct link **ref)
{
	l->watch = ref;
	*ref = l;
}

void pvmi_conn_deliver(struct pvmi_msg *m)
{
	s.delivered++;
	s.last_tag = m->tag;
	pvmi_msg_free(m);
}

/* conn.c frees a link: whoever watches it forgets it. */
static void link_freed(struct link *l)
{
	if (l->watch && *l->watch == l)
		*l->watch = NULL;
	l->watch = NULL;
}

/* The one send of conn.c: counted per link; a link that breaks is
 * freed, as conn.c does. */
int pvmi_conn_send(struct link *l, struct pvmi_frame *f,
		   const unsigned char *hdr, const struct pvmi_msg *m)
{
	int rc;

	s.last_kind = f->kind;
	s.last_enc = f->enc;
	if (l == &unix_link) {
		s.unix_send++;
		s.last_tag = f->tag;
		rc = s.unix_send_rc;
	} else {
		ck_assert_ptr_eq(l, &tcp_link);
		s.tcp_send++;
		rc = s.tcp_send_rc;
	}
	s.last_dst = f->dst;
	if (rc == PvmNoTask) {		/* freed: not found again */
		link_freed(l);
		if (l == &tcp_link)
			s.tcp_have = 0;
	}
	return rc;
}

/* conn_send.c: the failure path of the short way (check_route_fast.c
 * tests it); freed, as conn.c does. */
int pvmi_conn_broke(struct link *l)
{
	link_freed(l);
	return PvmNoTask;
}

int pvmi_conn_send_many(struct pvmi_link_copy *c, int n,
			const struct pvmi_msg *m)
{
	int i;

	s.many_calls++;
	s.many_copies += n;
	for (i = 0; i < n; i++) {
		ck_assert_ptr_eq(c[i].l, &tcp_link);
		ck_assert_uint_eq(c[i].f.len, m->len);
		ck_assert_int_eq(c[i].f.kind, PVMI_KIND_USER);
		s.last_dst = c[i].f.dst;
		s.last_tag = c[i].f.tag;
		c[i].rc = s.many_rc;
	}
	return PvmOk;
}

/* conn_unix.c */
int pvmi_conn_unix_open(int tid, const struct pvmi_transport *tp,
			struct link **lp)
{
	s.unix_open++;
	s.open_tp = tp;
	if (s.unix_open_rc != PvmOk)
		return s.unix_open_rc;
	unix_link.role = LINK_OUT;
	unix_link.peer = tid;
	unix_link.pipe.tp = tp;
	*lp = &unix_link;
	return PvmOk;
}

int pvmi_conn_unix_busy(int tid)
{
	return s.unix_busy;
}

/* conn_tcp.c */
int pvmi_conn_tcp_open(int tid, const char *addr, int port,
		       const struct pvmi_transport *tp, int timeout_ms)
{
	s.tcp_open++;
	s.open_tp = tp;
	strncpy(s.open_addr, addr, sizeof(s.open_addr) - 1);
	s.open_port = port;
	if (s.tcp_open_rc == PvmOk) {
		s.tcp_have = 1;
		tcp_link.pipe.tp = tp;
	}
	return s.tcp_open_rc;
}

struct link *pvmi_conn_tcp_link(int tid)
{
	s.tcp_link++;
	if (s.tcp_have && !tcp_link.pipe.tp)	/* it connected to us */
		tcp_link.pipe.tp = s.tcp_batches ? &net_batch_tp : &net_tp;
	return s.tcp_have ? &tcp_link : NULL;
}

int pvmi_conn_tcp_usable(const struct link *l)
{
	return s.tcp_have;
}

int pvmi_conn_tcp_listen(void)
{
	return 5000;
}

void pvmi_conn_tcp_adopt(int fd)
{
}

void pvmi_conn_set_secret(const unsigned char *key)
{
}

/* daemon_link.c */
int pvmi_conn_send_daemon(struct pvmi_frame *f, const struct pvmi_msg *m)
{
	s.daemon_send++;
	s.last_dst = f->dst;
	return PvmOk;
}

/* The daemon's answer to PVMI_OP_ROUTE: status, address, port. */
int pvmi_call(int op, const struct pvmi_wbuf *req, struct pvmi_rbuf *rep)
{
	static struct pvmi_wbuf w;

	ck_assert_int_eq(op, PVMI_OP_ROUTE);
	s.route_calls++;
	if (s.call_rc != PvmOk)
		return s.call_rc;
	pvmi_w_free(&w);
	memset(&w, 0, sizeof(w));
	pvmi_w_int(&w, PvmOk);
	pvmi_w_str(&w, "10.0.0.2");
	pvmi_w_int(&w, 6000);
	pvmi_r_init(rep, w.data, w.len);
	return PvmOk;
}

static struct pvmi_msg *msg;

static void setup(void)
{
	memset(&s, 0, sizeof(s));
	memset(&unix_link, 0, sizeof(unix_link));
	memset(&tcp_link, 0, sizeof(tcp_link));
	pvmi.mytid = ME;
	pvmi.route = PvmAllowDirect;
	msg = pvmi_msg_new(PvmDataRaw);
	ck_assert_int_eq(pvmi_pack(msg, PVM_BYTE, "hello", 5, 1), PvmOk);
}

static void teardown(void)
{
	pvmi_route_reset();
	pvmi_msg_free(msg);
}

START_TEST(self_is_queued_and_never_remembered)
{
	ck_assert_int_eq(pvmi_route_send(msg, ME, 7), PVMI_ROUTE_NOT_SENT);
	ck_assert_int_eq(s.delivered, 1);
	ck_assert_int_eq(s.last_tag, 7);
	ck_assert_int_eq(s.unix_send, 0);
	/* a forked child enrols as another task: the old tid is a peer */
	pvmi.mytid = ME + 1;
	ck_assert_int_eq(pvmi_route_send(msg, ME, 8), PvmOk);
	ck_assert_int_eq(s.delivered, 1);
	ck_assert_int_eq(s.unix_send, 1);
	ck_assert_int_eq(s.last_dst, ME);
}
END_TEST

START_TEST(same_host_circuit_opened_once_then_one_lookup)
{
	int i;

	for (i = 0; i < 5; i++)
		ck_assert_int_eq(pvmi_route_send(msg, LOCAL, i), PvmOk);
	ck_assert_int_eq(s.unix_send, 5);
	ck_assert_int_eq(s.unix_open, 1);
	ck_assert_int_eq(s.link_find, 1);	/* the first message only */
	ck_assert_int_eq(s.tcp_link + s.daemon_send, 0);
	ck_assert_int_eq(s.last_tag, 4);
}
END_TEST

START_TEST(a_freed_link_is_found_again)
{
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 1), PvmOk);
	ck_assert_ptr_eq(unix_link.watch ? *unix_link.watch : NULL,
			 &unix_link);
	link_freed(&unix_link);
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 2), PvmOk);
	ck_assert_int_eq(s.link_find, 2);
	ck_assert_int_eq(s.unix_open, 2);
	ck_assert_int_eq(s.unix_send, 2);
}
END_TEST

START_TEST(gone_local_task_is_not_sent)
{
	s.unix_open_rc = PvmNoTask;
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 1), PVMI_ROUTE_NOT_SENT);
	ck_assert_int_eq(s.unix_send, 0);
	s.unix_open_rc = PvmOk;
	s.unix_send_rc = PvmNoTask;	/* it vanished while we wrote */
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 2), PVMI_ROUTE_NOT_SENT);
	s.unix_open_rc = PvmSysErr;
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 3), PvmSysErr);
}
END_TEST

START_TEST(other_host_goes_through_the_daemon_decided_once)
{
	int i;

	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pvmi_route_send(msg, REMOTE, i), PvmOk);
	ck_assert_int_eq(s.daemon_send, 3);
	ck_assert_int_eq(s.tcp_link, 1);
	ck_assert_int_eq(s.route_calls + s.tcp_open, 0);
	ck_assert_int_eq(s.last_dst, REMOTE);
	/* a circuit that comes up later does not move the route: order */
	s.tcp_have = 1;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 4), PvmOk);
	ck_assert_int_eq(s.daemon_send, 4);
	ck_assert_int_eq(s.tcp_send, 0);
}
END_TEST

START_TEST(circuit_already_up_is_used_then_one_lookup)
{
	int i;

	s.tcp_have = 1;
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pvmi_route_send(msg, REMOTE, i), PvmOk);
	ck_assert_int_eq(s.tcp_send, 4);
	ck_assert_int_eq(s.tcp_link, 1);	/* found once, then kept */
	ck_assert_int_eq(s.daemon_send, 0);
}
END_TEST

START_TEST(route_direct_opens_a_circuit)
{
	pvmi.route = PvmRouteDirect;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 1), PvmOk);
	ck_assert_int_eq(s.route_calls, 1);
	ck_assert_int_eq(s.tcp_open, 1);
	ck_assert_str_eq(s.open_addr, "10.0.0.2");
	ck_assert_int_eq(s.open_port, 6000);
	ck_assert_int_eq(s.tcp_send, 1);
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 2), PvmOk);
	ck_assert_int_eq(s.tcp_open, 1);
	ck_assert_int_eq(s.tcp_send, 2);
}
END_TEST

START_TEST(failed_direct_open_falls_back_to_the_daemon)
{
	pvmi.route = PvmRouteDirect;
	s.tcp_open_rc = PvmSysErr;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 1), PvmOk);
	ck_assert_int_eq(s.tcp_open, 1);
	ck_assert_int_eq(s.daemon_send, 1);
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 2), PvmOk);
	ck_assert_int_eq(s.tcp_open, 1);	/* not tried again */
	ck_assert_int_eq(s.daemon_send, 2);
}
END_TEST

START_TEST(dead_direct_circuit_drops_the_message)
{
	s.tcp_have = 1;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 1), PvmOk);
	s.tcp_have = 0;			/* the peer went away */
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 2), PVMI_ROUTE_DROPPED);
	ck_assert_int_eq(s.tcp_send, 1);
	ck_assert_int_eq(s.daemon_send, 0);	/* never rerouted */
}
END_TEST

START_TEST(reset_forgets_every_circuit)
{
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 1), PvmOk);
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 1), PvmOk);
	pvmi_route_reset();
	/* the link outlives the table: nothing may point into it */
	ck_assert_ptr_null(unix_link.watch);
	s.tcp_have = 1;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 2), PvmOk);
	ck_assert_int_eq(s.tcp_link, 2);
	ck_assert_int_eq(s.tcp_send, 1);
}
END_TEST

START_TEST(busy_local_task_goes_through_the_daemon)
{
	s.unix_busy = 1;
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 1), PvmOk);
	s.unix_busy = 0;		/* decided once: order kept */
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 2), PvmOk);
	ck_assert_int_eq(s.unix_open, 0);
	ck_assert_int_eq(s.daemon_send, 2);
	ck_assert_int_eq(s.last_dst, LOCAL);
}
END_TEST

START_TEST(unconnectable_local_task_goes_through_the_daemon)
{
	s.unix_open_rc = PvmOutOfRes;	/* backlog full, or we are at EMFILE */
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 1), PvmOk);
	s.unix_open_rc = PvmOk;
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 2), PvmOk);
	ck_assert_int_eq(s.unix_open, 1);
	ck_assert_int_eq(s.unix_send, 0);
	ck_assert_int_eq(s.daemon_send, 2);
}
END_TEST

/* A multicast to three tasks of other hosts over direct circuits whose
 * transport batches: one batch of three copies; the task of this host
 * still goes on its unix circuit, ourselves queued. */
START_TEST(mcast_batches_direct_copies_that_can)
{
	const int tids[] = { REMOTE, LOCAL, REMOTE + 1, ME, REMOTE + 2 };
	int rcs[5], i;

	pvmi.route = PvmRouteDirect;
	s.tcp_open_rc = PvmOk;
	s.tcp_batches = 1;
	pvmi_route_mcast(msg, tids, 5, 9, rcs);
	ck_assert_int_eq(s.many_calls, 1);
	ck_assert_int_eq(s.many_copies, 3);
	ck_assert_int_eq(s.tcp_send, 0);
	ck_assert_int_eq(s.unix_send, 1);
	ck_assert_int_eq(s.delivered, 1);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(rcs[i], tids[i] == ME ? PVMI_ROUTE_NOT_SENT :
							 PvmOk);
	/* a broken circuit: dropped, the send still succeeds */
	s.many_rc = PvmNoTask;
	pvmi_route_mcast(msg, tids, 5, 10, rcs);
	ck_assert_int_eq(s.many_calls, 2);
	ck_assert_int_eq(rcs[0], PVMI_ROUTE_DROPPED);
	ck_assert_int_eq(s.last_tag, 10);
}
END_TEST

/* Plain sockets do not batch: each copy is sent on its own. */
START_TEST(mcast_sends_one_by_one_without_batching)
{
	const int tids[] = { REMOTE, REMOTE + 1, REMOTE + 2 };
	int rcs[3];

	pvmi.route = PvmRouteDirect;
	s.tcp_open_rc = PvmOk;
	pvmi_route_mcast(msg, tids, 3, 9, rcs);
	ck_assert_int_eq(s.many_calls, 0);
	ck_assert_int_eq(s.tcp_send, 3);
	ck_assert_int_eq(rcs[0] | rcs[1] | rcs[2], PvmOk);
}
END_TEST

/* The decision names the transport: the host's pick opens a circuit of
 * this host, the network's pick a direct one; asked once per
 * destination. */
START_TEST(the_circuit_keeps_the_transport_decided)
{
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 1), PvmOk);
	ck_assert_ptr_eq(s.open_tp, &host_tp);
	link_freed(&unix_link);		/* reopened with the same transport */
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 2), PvmOk);
	ck_assert_int_eq(s.unix_open, 2);
	ck_assert_ptr_eq(s.open_tp, &host_tp);
	pvmi.route = PvmRouteDirect;
	s.tcp_batches = 1;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 1), PvmOk);
	ck_assert_ptr_eq(s.open_tp, &net_batch_tp);
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 2), PvmOk);
	ck_assert_int_eq(s.picks, 2);
}
END_TEST

/* One failure path: a link that breaks under a send, or is gone,
 * drops the message: not sent to a task of this host, dropped on the
 * way to one of another host (send.c asks whether its host left). */
START_TEST(a_broken_circuit_drops_the_message)
{
	s.tcp_have = 1;
	s.tcp_send_rc = PvmNoTask;
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 1), PVMI_ROUTE_DROPPED);
	ck_assert_int_eq(pvmi_route_send(msg, REMOTE, 2), PVMI_ROUTE_DROPPED);
	ck_assert_int_eq(s.tcp_send, 1);	/* the second found none */
	s.unix_send_rc = PvmNoTask;
	ck_assert_int_eq(pvmi_route_send(msg, LOCAL, 3), PVMI_ROUTE_NOT_SENT);
	ck_assert_int_eq(s.daemon_send, 0);	/* never rerouted */
}
END_TEST

/* Precommunication: the circuit keeps what it sent held, released or
 * cancelled once by its tag, lost with its link. */
START_TEST(held_frames_are_kept_by_their_circuit)
{
	ck_assert_int_eq(pvmi_route_stage(msg, ME, 3), PVMI_ROUTE_NOT_SENT);
	ck_assert_int_eq(pvmi_route_stage(msg, LOCAL, 3), PvmOk);
	ck_assert_int_eq(s.last_kind, PVMI_KIND_HELD);
	ck_assert_int_eq(pvmi_route_stage(msg, LOCAL, 4), PvmOk);
	ck_assert_int_eq(pvmi_route_release(LOCAL, 3, 1), PvmOk);
	ck_assert_int_eq(s.last_kind, PVMI_KIND_RELEASE);
	ck_assert_int_eq(s.last_tag, 3);
	ck_assert_int_eq(s.last_enc, 1);
	ck_assert_int_eq(pvmi_route_release(LOCAL, 3, 1),
			 PVMI_ROUTE_HELD_LOST);	/* released once */
	ck_assert_int_eq(pvmi_route_release(LOCAL, 4, 0), PvmOk);
	ck_assert_int_eq(s.last_enc, 0);	/* cancelled */
	ck_assert_int_eq(pvmi_route_stage(msg, LOCAL, 5), PvmOk);
	link_freed(&unix_link);		/* the held copy went with it */
	ck_assert_int_eq(pvmi_route_release(LOCAL, 5, 1),
			 PVMI_ROUTE_HELD_LOST);
	ck_assert_int_eq(s.unix_send, 5);
	ck_assert_int_eq(pvmi_route_release(REMOTE, 1, 1),
			 PVMI_ROUTE_HELD_LOST);	/* never staged */
}
END_TEST

static Suite *route_suite(void)
{
	Suite *su = suite_create("route");
	TCase *tc = tcase_create("circuit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, self_is_queued_and_never_remembered);
	tcase_add_test(tc, same_host_circuit_opened_once_then_one_lookup);
	tcase_add_test(tc, a_freed_link_is_found_again);
	tcase_add_test(tc, gone_local_task_is_not_sent);
	tcase_add_test(tc, other_host_goes_through_the_daemon_decided_once);
	tcase_add_test(tc, circuit_already_up_is_used_then_one_lookup);
	tcase_add_test(tc, route_direct_opens_a_circuit);
	tcase_add_test(tc, failed_direct_open_falls_back_to_the_daemon);
	tcase_add_test(tc, dead_direct_circuit_drops_the_message);
	tcase_add_test(tc, reset_forgets_every_circuit);
	tcase_add_test(tc, busy_local_task_goes_through_the_daemon);
	tcase_add_test(tc, unconnectable_local_task_goes_through_the_daemon);
	tcase_add_test(tc, mcast_batches_direct_copies_that_can);
	tcase_add_test(tc, mcast_sends_one_by_one_without_batching);
	tcase_add_test(tc, the_circuit_keeps_the_transport_decided);
	tcase_add_test(tc, a_broken_circuit_drops_the_message);
	tcase_add_test(tc, held_frames_are_kept_by_their_circuit);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(route_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

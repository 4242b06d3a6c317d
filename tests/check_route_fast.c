/*
 * check_route_fast.c - unit tests of the short way of lib/route.c
 * (pvmi_route_send_fast), against stand-ins for the modules below it
 * that log every frame in the order it left, and by which way: a small
 * flat message on an established circuit of this host goes straight to
 * its transport's send_whole with the circuit's prebuilt header, patched
 * right; larger, multi-fragment and held messages take the plain way in
 * between and the order holds; and the short way steps aside, sending
 * nothing, whenever what it rests on changed: the link freed or
 * replaced, marked dead or busy, the ring full, the link broken (freed,
 * as pvmi_conn_send() does), another context or source, a held frame on
 * the circuit, VCC off, a circuit that is not of this host.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "bufcache.h"
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
#define MAXLOG	64

/* One frame as it left: by which way, its tag, body bytes, the pipe. */
struct sent {
	int fast;
	int tag, ctx, src;
	size_t len;
	const struct pvmi_pipe *pipe;
};

static struct {
	struct sent log[MAXLOG];
	int n;
	int whole_rc;		/* what send_whole answers (1 taken) */
	int whole_calls;	/* send_whole called, whatever it said */
	int opens, broke, finds;
	struct link *next_link;	/* what the next open gives */
} s;

static struct link link_a, link_b, tcp_link;

static void log_frame(int fast, int tag, int ctx, int src, size_t len,
		      const struct pvmi_pipe *p)
{
	ck_assert_int_lt(s.n, MAXLOG);
	s.log[s.n++] = (struct sent){ fast, tag, ctx, src, len, p };
}

/* The ring's short way: checks the prebuilt header it is handed. */
static int whole(struct pvmi_pipe *p, const unsigned char *hdr,
		 const void *body, size_t len)
{
	struct pvmi_frame f;

	s.whole_calls++;
	if (s.whole_rc != 1)
		return s.whole_rc;
	ck_assert_int_eq(pvmi_frame_decode(hdr, &f), 0);
	ck_assert_uint_eq(f.kind, PVMI_KIND_USER);
	ck_assert_uint_eq(f.len, len);
	ck_assert_int_eq(f.dst, LOCAL);
	ck_assert(len == 0 || body != NULL);
	log_frame(1, f.tag, f.ctx, f.src, len, p);
	return 1;
}

static const struct pvmi_transport ring_tp = {
	.name = "ring", .reach = PVMI_REACH_HOST, .send_whole = whole,
};
static const struct pvmi_transport net_tp = {
	.name = "net", .reach = PVMI_REACH_NET, .send_whole = whole,
};

/* transport/registry.c */
const struct pvmi_transport *pvmi_transport_pick(int reach, int setup)
{
	return reach == PVMI_REACH_HOST ? &ring_tp : &net_tp;
}

/* conn.c */
struct link *pvmi_link_find(int role, int peer)
{
	s.finds++;
	return NULL;
}

void pvmi_link_watch(struct link *l, struct link **ref)
{
	l->watch = ref;
	*ref = l;
}

void pvmi_conn_deliver(struct pvmi_msg *m)
{
	pvmi_msg_free(m);
}

/* conn.c frees a link: whoever watches it forgets it. */
static void link_freed(struct link *l)
{
	if (l->watch && *l->watch == l)
		*l->watch = NULL;
	l->watch = NULL;
}

int pvmi_conn_send(struct link *l, struct pvmi_frame *f,
		   const unsigned char *hdr, const struct pvmi_msg *m)
{
	if (hdr)	/* the prebuilt header says what the frame says */
		ck_assert_int_eq((int32_t)get_be32(hdr + 16), f->tag);
	if (f->kind == PVMI_KIND_USER)
		log_frame(0, f->tag, f->ctx, f->src, m ? m->len : 0,
			  &l->pipe);
	return PvmOk;
}

int pvmi_conn_broke(struct link *l)
{
	s.broke++;
	link_freed(l);
	return PvmNoTask;
}

int pvmi_conn_send_many(struct pvmi_link_copy *c, int n,
			const struct pvmi_msg *m)
{
	return PvmOk;
}

/* conn_unix.c */
int pvmi_conn_unix_open(int tid, const struct pvmi_transport *tp,
			struct link **lp)
{
	struct link *l = s.next_link ? s.next_link : &link_a;

	s.opens++;
	l->role = LINK_OUT;
	l->peer = tid;
	l->pipe.tp = tp;
	*lp = l;
	return PvmOk;
}

int pvmi_conn_unix_busy(int tid)
{
	return 0;
}

/* conn_tcp.c: a direct circuit with REMOTE is up */
int pvmi_conn_tcp_open(int tid, const char *addr, int port,
		       const struct pvmi_transport *tp, int timeout_ms)
{
	return PvmSysErr;
}

struct link *pvmi_conn_tcp_link(int tid)
{
	tcp_link.pipe.tp = &net_tp;
	return &tcp_link;
}

int pvmi_conn_tcp_usable(const struct link *l)
{
	return 1;
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
	return PvmOk;
}

int pvmi_call(int op, const struct pvmi_wbuf *req, struct pvmi_rbuf *rep)
{
	return PvmSysErr;
}

static struct pvmi_msg *small, *multi;
static char part[2][4000];

/* What pvm_send does (send.c): the short way, else the plain one. */
static int pvm_send_like(const struct pvmi_msg *m, int tid, int tag)
{
	int rc = pvmi_route_send_fast(m, tid, tag);

	return rc == PVMI_ROUTE_SLOW ?
	       pvmi_route_send((struct pvmi_msg *)m, tid, tag) : rc;
}

static void setup(void)
{
	memset(&s, 0, sizeof(s));
	memset(&link_a, 0, sizeof(link_a));
	memset(&link_b, 0, sizeof(link_b));
	memset(&tcp_link, 0, sizeof(tcp_link));
	s.whole_rc = 1;
	pvmi.mytid = ME;
	pvmi.ctx = 0;
	pvmi.route = PvmAllowDirect;
	pvmi_bufcache_setup(1, 0);
	small = pvmi_msg_new(PvmDataRaw);
	ck_assert_int_eq(pvmi_pack(small, PVM_BYTE, "hello", 5, 1), PvmOk);
	/* two fragments: user memory read at send time */
	multi = pvmi_msg_new(PvmDataInPlace);
	ck_assert_int_eq(pvmi_pack(multi, PVM_BYTE, part[0], 4000, 1), PvmOk);
	ck_assert_int_eq(pvmi_pack(multi, PVM_BYTE, part[1], 4000, 1), PvmOk);
	ck_assert_int_gt(multi->nfrag, 1);
}

static void teardown(void)
{
	pvmi_route_reset();
	pvmi_msg_free(small);
	pvmi_msg_free(multi);
}

/* Sends `small' to LOCAL with `tag' and checks the way it went. */
static void small_by(int tag, int fast)
{
	int n = s.n;

	ck_assert_int_eq(pvm_send_like(small, LOCAL, tag), PvmOk);
	ck_assert_int_eq(s.n, n + 1);
	ck_assert_int_eq(s.log[n].tag, tag);
	ck_assert_int_eq(s.log[n].fast, fast);
	ck_assert_uint_eq(s.log[n].len, small->len);
}

START_TEST(the_second_small_send_takes_the_short_way)
{
	ck_assert_int_eq(pvmi_route_send_fast(small, LOCAL, 1),
			 PVMI_ROUTE_SLOW);	/* no circuit yet */
	ck_assert_int_eq(s.n, 0);
	small_by(1, 0);				/* decides, opens, prebuilds */
	small_by(2, 1);
	small_by(3, 1);
	ck_assert_int_eq(s.log[2].src, ME);
	ck_assert_ptr_eq(s.log[2].pipe, &link_a.pipe);
	ck_assert_int_eq(s.opens, 1);
	ck_assert_int_eq(s.finds, 1);
}
END_TEST

START_TEST(slow_sends_between_short_ones_keep_the_order)
{
	int i, n;

	small_by(0, 0);
	for (i = 1; i < 20; i++) {
		if (i % 3 == 1) {	/* multi-fragment: the plain way */
			n = s.n;
			ck_assert_int_eq(pvm_send_like(multi, LOCAL, i), PvmOk);
			ck_assert_int_eq(s.log[n].fast, 0);
			ck_assert_uint_eq(s.log[n].len, 8000 + 16);
		} else {
			small_by(i, 1);
		}
	}
	for (i = 0; i < s.n; i++)
		ck_assert_int_eq(s.log[i].tag, i);
}
END_TEST

START_TEST(a_freed_link_stops_the_short_way_until_found_again)
{
	small_by(1, 0);
	small_by(2, 1);
	link_freed(&link_a);
	ck_assert_int_eq(pvmi_route_send_fast(small, LOCAL, 3),
			 PVMI_ROUTE_SLOW);
	ck_assert_int_eq(s.whole_calls, 1);	/* not called on it */
	small_by(3, 0);				/* opened again */
	ck_assert_int_eq(s.opens, 2);
	small_by(4, 1);
}
END_TEST

START_TEST(a_replaced_link_is_the_one_written)
{
	small_by(1, 0);
	small_by(2, 1);
	link_freed(&link_a);
	s.next_link = &link_b;
	small_by(3, 0);
	small_by(4, 1);
	ck_assert_ptr_eq(s.log[3].pipe, &link_b.pipe);
}
END_TEST

START_TEST(a_dead_or_busy_link_takes_the_plain_way)
{
	small_by(1, 0);
	link_a.busy = 1;	/* part way through a frame */
	small_by(2, 0);
	link_a.busy = 0;
	small_by(3, 1);
	link_a.dead = 1;	/* not freed yet */
	ck_assert_int_eq(pvmi_route_send_fast(small, LOCAL, 4),
			 PVMI_ROUTE_SLOW);
	ck_assert_int_eq(s.whole_calls, 1);
}
END_TEST

START_TEST(a_full_ring_sends_nothing_and_the_plain_way_follows)
{
	small_by(1, 0);
	small_by(2, 1);
	s.whole_rc = 0;		/* no room now */
	ck_assert_int_eq(pvmi_route_send_fast(small, LOCAL, 3),
			 PVMI_ROUTE_SLOW);
	ck_assert_int_eq(s.n, 2);
	small_by(3, 0);
	s.whole_rc = 1;
	small_by(4, 1);
	ck_assert_int_eq(s.log[2].tag, 3);
}
END_TEST

START_TEST(a_broken_link_is_freed_and_the_message_not_sent)
{
	small_by(1, 0);
	s.whole_rc = -EPIPE;
	ck_assert_int_eq(pvmi_route_send_fast(small, LOCAL, 2),
			 PVMI_ROUTE_NOT_SENT);
	ck_assert_int_eq(s.broke, 1);
	ck_assert_ptr_null(link_a.watch);
	s.whole_rc = 1;
	small_by(3, 0);		/* found again */
	ck_assert_int_eq(s.opens, 2);
}
END_TEST

START_TEST(another_context_or_source_rebuilds_the_header_first)
{
	small_by(1, 0);
	pvmi.ctx = 7;
	small_by(2, 0);
	small_by(3, 1);
	ck_assert_int_eq(s.log[2].ctx, 7);
	pvmi.ctx = 0;
	small_by(4, 0);
	small_by(5, 1);
	ck_assert_int_eq(s.log[4].ctx, 0);
	pvmi.mytid = ME + 1;	/* a forked child, enrolled again */
	small_by(6, 0);
	small_by(7, 1);
	ck_assert_int_eq(s.log[6].src, ME + 1);
}
END_TEST

START_TEST(a_held_frame_on_the_circuit_takes_the_plain_way)
{
	small_by(1, 0);
	ck_assert_int_eq(pvmi_route_stage(small, LOCAL, 9), PvmOk);
	small_by(2, 0);
	ck_assert_int_eq(pvmi_route_release(LOCAL, 9, 1), PvmOk);
	small_by(3, 1);
}
END_TEST

/* COPVM_VCC=0, read once before the first message: no header is
 * prebuilt, so no short way either */
START_TEST(vcc_off_leaves_no_short_way)
{
	pvmi_bufcache_setup(0, 0);
	small_by(1, 0);
	small_by(2, 0);
	small_by(3, 0);
	ck_assert_int_eq(s.whole_calls, 0);
}
END_TEST

START_TEST(only_circuits_of_this_host_take_it)
{
	ck_assert_int_eq(pvmi_route_send(small, REMOTE, 1), PvmOk);
	ck_assert_int_eq(pvmi_route_send_fast(small, REMOTE, 2),
			 PVMI_ROUTE_SLOW);
	ck_assert_int_eq(pvmi_route_send_fast(small, ME, 3),
			 PVMI_ROUTE_SLOW);
	ck_assert_int_eq(s.whole_calls, 0);
}
END_TEST

static Suite *route_fast_suite(void)
{
	Suite *su = suite_create("route_fast");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_second_small_send_takes_the_short_way);
	tcase_add_test(tc, slow_sends_between_short_ones_keep_the_order);
	tcase_add_test(tc, a_freed_link_stops_the_short_way_until_found_again);
	tcase_add_test(tc, a_replaced_link_is_the_one_written);
	tcase_add_test(tc, a_dead_or_busy_link_takes_the_plain_way);
	tcase_add_test(tc, a_full_ring_sends_nothing_and_the_plain_way_follows);
	tcase_add_test(tc, a_broken_link_is_freed_and_the_message_not_sent);
	tcase_add_test(tc, another_context_or_source_rebuilds_the_header_first);
	tcase_add_test(tc, a_held_frame_on_the_circuit_takes_the_plain_way);
	tcase_add_test(tc, vcc_off_leaves_no_short_way);
	tcase_add_test(tc, only_circuits_of_this_host_take_it);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(route_fast_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

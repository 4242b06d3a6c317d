/*
 * check_precomm_stage.c - unit tests of lib/precomm.c's decisions,
 * compiled in from its source against stand-ins for route.c's
 * pvmi_route_stage() and pvmi_route_release() that record each call: a
 * receive about to wait stages each indication once, the matching send
 * only releases it (go 1), and an indication that expires, is superseded,
 * or whose buffer changed, moved or left its context is cancelled (go 0)
 * exactly when something was staged.  A receive is played as recv.c and
 * wait.c call the hooks: recv_begin(), then stage() when it waits.  What
 * route.c sends for each call is check_route.c's; what the receiver does
 * with it, check_conn_frame.c's; check_precomm.c watches the whole chain.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "copvm.h"
#include "msg.h"
#include "precomm.h"
#include "pvm3.h"
#include "pvmi.h"
#include "route.h"
#include "task_hooks.h"

#define PEER	0x40005
#define PEER2	0x40006

enum { STAGE = 1, RELEASE };

/* What precomm.c asked of route.c, and what the stand-ins answer. */
static struct call {
	int what;			/* STAGE or RELEASE */
	const struct pvmi_msg *m;	/* STAGE: the message */
	size_t len;			/* ... and its length then */
	int tid, tag, go;		/* RELEASE: go */
} calls[32];
static int ncalls, stage_rc, release_rc;

/* ---- stand-ins for route.c and task.c ---- */

/* route.c's staging: records the call (the message, its length then,
 * the destination); returns stage_rc. */
int pvmi_route_stage(const struct pvmi_msg *m, int tid, int tag)
{
	ck_assert_int_lt(ncalls, 32);
	calls[ncalls++] = (struct call){ STAGE, m, m->len, tid, tag, -1 };
	return stage_rc;
}

/* route.c's release (go 1) or cancel (go 0): records the call;
 * returns release_rc. */
int pvmi_route_release(int tid, int tag, int go)
{
	ck_assert_int_lt(ncalls, 32);
	calls[ncalls++] = (struct call){ RELEASE, NULL, 0, tid, tag, go };
	return release_rc;
}

/* task.c's enrolment, never needed here (pvmi_here is set); returns
 * PvmOk. */
int pvmi_attach_slow(void)
{
	return PvmOk;
}

/* ---- helpers ---- */

/* A new active send buffer holding `len' bytes; returns its id. */
static int packed(int len)
{
	char *p = calloc(1, len);
	int b = pvm_mkbuf(PvmDataDefault);

	ck_assert_int_gt(b, 0);
	pvm_setsbuf(b);
	ck_assert_int_eq(pvm_pkbyte(p, len, 1), PvmOk);
	free(p);
	return b;
}

/* A blocking receive as recv.c and wait.c make it: it begins, and when
 * it finds nothing it stages before it waits; returns stage()'s answer
 * (0 when it did not wait). */
static int blocking_recv(int waits)
{
	pvmi_precomm_recv_begin();
	return waits ? pvmi_precomm_stage() : 0;
}

/* pvm_send's question to precomm.c for the active send buffer: 1 when
 * the send went as a release (*rc its result), 0 for a plain send. */
static int send_asks(int tid, int tag, int *rc)
{
	const struct pvmi_msg *m = pvmi_mid_lookup(pvm_getsbuf());

	ck_assert_ptr_nonnull(m);
	*rc = -12345;
	return pvmi_precomm_release(m, tid, tag, rc);
}

static void check_stage(int i, int mid, int tid, int tag)
{
	ck_assert_int_lt(i, ncalls);
	ck_assert_int_eq(calls[i].what, STAGE);
	ck_assert_ptr_eq(calls[i].m, pvmi_mid_lookup(mid));
	ck_assert_uint_eq(calls[i].len, pvmi_mid_lookup(mid)->len);
	ck_assert_int_eq(calls[i].tid, tid);
	ck_assert_int_eq(calls[i].tag, tag);
}

static void check_release(int i, int tid, int tag, int go)
{
	ck_assert_int_lt(i, ncalls);
	ck_assert_int_eq(calls[i].what, RELEASE);
	ck_assert_int_eq(calls[i].tid, tid);
	ck_assert_int_eq(calls[i].tag, tag);
	ck_assert_int_eq(calls[i].go, go);
}

static void setup(void)
{
	ncalls = 0;
	stage_rc = PvmOk;
	release_rc = PvmOk;
	pvmi_here = 1;
	pvmi.ctx = 0;
}

/* ---- tests ---- */

/* The receive that waits stages the indicated buffer once, before any
 * send; the send then releases it (go 1), nothing else, and answers with
 * the release's result. */
START_TEST(a_waiting_receive_stages_and_the_send_releases)
{
	int b = packed(300), rc;

	ck_assert_int_eq(pvm_indication(PEER, 7), PvmOk);
	ck_assert_int_eq(pvmi_precomm_pending(), 1);
	ck_assert_int_eq(ncalls, 0);		/* nothing before a receive */
	ck_assert_int_eq(blocking_recv(1), 1);
	ck_assert_int_eq(ncalls, 1);
	check_stage(0, b, PEER, 7);
	ck_assert_int_eq(pvmi_precomm_stage(), 0);	/* once only */
	ck_assert_int_eq(ncalls, 1);
	release_rc = PVMI_ROUTE_DROPPED;	/* passed on as it is */
	ck_assert_int_eq(send_asks(PEER, 7, &rc), 1);
	ck_assert_int_eq(rc, PVMI_ROUTE_DROPPED);
	ck_assert_int_eq(ncalls, 2);
	check_release(1, PEER, 7, 1);
	ck_assert_int_eq(pvmi_precomm_pending(), 0);
	/* the same send again is a plain one */
	ck_assert_int_eq(send_asks(PEER, 7, &rc), 0);
	ck_assert_int_eq(ncalls, 2);
}
END_TEST

/* A receive that finds its message at once stages nothing; the
 * indication then expires at the next receive with nothing to cancel,
 * and its send is plain. */
START_TEST(a_receive_that_does_not_wait_stages_nothing)
{
	int rc;

	packed(40);
	ck_assert_int_eq(pvm_indication(PEER, 7), PvmOk);
	ck_assert_int_eq(blocking_recv(0), 0);
	ck_assert_int_eq(blocking_recv(0), 0);
	ck_assert_int_eq(pvmi_precomm_pending(), 0);	/* expired */
	ck_assert_int_eq(send_asks(PEER, 7, &rc), 0);
	ck_assert_int_eq(ncalls, 0);
}
END_TEST

/* One never sent is cancelled (go 0) at the second blocking receive
 * after it, the one after the receive that staged it; not before. */
START_TEST(an_unsent_staged_indication_is_cancelled_when_it_expires)
{
	int b = packed(500), rc;

	ck_assert_int_eq(pvm_indication(PEER, 9), PvmOk);
	ck_assert_int_eq(blocking_recv(1), 1);
	check_stage(0, b, PEER, 9);
	pvmi_precomm_recv_begin();		/* the expiring receive */
	ck_assert_int_eq(ncalls, 2);
	check_release(1, PEER, 9, 0);
	ck_assert_int_eq(pvmi_precomm_pending(), 0);
	ck_assert_int_eq(pvmi_precomm_stage(), 0);	/* nothing left */
	ck_assert_int_eq(send_asks(PEER, 9, &rc), 0);	/* plain */
	ck_assert_int_eq(ncalls, 2);
}
END_TEST

/* A newer indication of the same (tid, tag) cancels the staged copy at
 * once; the newer one is staged and released in its turn. */
START_TEST(a_newer_indication_cancels_the_staged_copy)
{
	int a = packed(100), b, rc;

	ck_assert_int_eq(pvm_indication(PEER, 3), PvmOk);
	ck_assert_int_eq(blocking_recv(1), 1);
	check_stage(0, a, PEER, 3);
	b = packed(200);
	ck_assert_int_eq(pvm_indication(PEER, 3), PvmOk);
	ck_assert_int_eq(ncalls, 2);
	check_release(1, PEER, 3, 0);
	ck_assert_int_eq(pvmi_precomm_pending(), 1);
	ck_assert_int_eq(blocking_recv(1), 1);
	check_stage(2, b, PEER, 3);
	ck_assert_int_eq(send_asks(PEER, 3, &rc), 1);
	ck_assert_int_eq(rc, PvmOk);
	check_release(3, PEER, 3, 1);
	ck_assert_int_eq(ncalls, 4);
}
END_TEST

/* The send of a buffer packed further after the indication, of another
 * buffer, or in another context is plain, and cancels the staged copy. */
START_TEST(a_changed_or_other_buffer_cancels_and_is_sent_plain)
{
	int a, b, rc;
	char more[4] = "abc";

	a = packed(64);
	ck_assert_int_eq(pvm_indication(PEER, 1), PvmOk);
	blocking_recv(1);
	ck_assert_int_eq(pvm_pkbyte(more, 4, 1), PvmOk);
	ck_assert_int_eq(send_asks(PEER, 1, &rc), 0);
	ck_assert_int_eq(ncalls, 2);
	check_release(1, PEER, 1, 0);

	b = packed(64);
	pvm_setsbuf(a);
	ck_assert_int_eq(pvm_indication(PEER, 2), PvmOk);
	blocking_recv(1);
	pvm_setsbuf(b);
	ck_assert_int_eq(send_asks(PEER, 2, &rc), 0);
	ck_assert_int_eq(ncalls, 4);
	check_release(3, PEER, 2, 0);

	ck_assert_int_eq(pvm_indication(PEER, 4), PvmOk);
	blocking_recv(1);
	pvmi.ctx = 5;
	ck_assert_int_eq(send_asks(PEER, 4, &rc), 0);
	ck_assert_int_eq(ncalls, 6);
	check_release(5, PEER, 4, 0);
}
END_TEST

/* A buffer packed further between the indication and the receive is not
 * staged (its send will be plain), and nothing is cancelled for it. */
START_TEST(a_buffer_changed_before_the_receive_is_not_staged)
{
	int rc;
	char more[4] = "abc";

	packed(64);
	ck_assert_int_eq(pvm_indication(PEER, 1), PvmOk);
	ck_assert_int_eq(pvm_pkbyte(more, 4, 1), PvmOk);
	ck_assert_int_eq(blocking_recv(1), 0);
	ck_assert_int_eq(send_asks(PEER, 1, &rc), 0);
	ck_assert_int_eq(ncalls, 0);
}
END_TEST

/* Staging that fails (a dead task, a route through the daemons) is not
 * tried again and leaves a plain send with nothing to cancel; a copy
 * whose circuit went sends plain too. */
START_TEST(failed_staging_or_a_lost_copy_leaves_a_plain_send)
{
	int rc;

	packed(80);
	stage_rc = PVMI_ROUTE_NOT_SENT;
	ck_assert_int_eq(pvm_indication(PEER, 6), PvmOk);
	ck_assert_int_eq(blocking_recv(1), 1);
	ck_assert_int_eq(pvmi_precomm_stage(), 0);
	ck_assert_int_eq(send_asks(PEER, 6, &rc), 0);
	ck_assert_int_eq(ncalls, 1);		/* the stage, no release */

	stage_rc = PvmOk;
	release_rc = PVMI_ROUTE_HELD_LOST;
	ck_assert_int_eq(pvm_indication(PEER, 6), PvmOk);
	ck_assert_int_eq(blocking_recv(1), 1);
	ck_assert_int_eq(send_asks(PEER, 6, &rc), 0);
	ck_assert_int_eq(ncalls, 3);
	check_release(2, PEER, 6, 1);
	ck_assert_int_eq(pvmi_precomm_pending(), 0);
}
END_TEST

/* Each indication is staged on its own circuit; a send matching none is
 * plain and leaves them all pending; each send releases its own. */
START_TEST(each_send_releases_only_its_own_indication)
{
	int b = packed(10), rc;

	ck_assert_int_eq(pvm_indication(PEER, 7), PvmOk);
	ck_assert_int_eq(pvm_indication(PEER2, 7), PvmOk);
	ck_assert_int_eq(blocking_recv(1), 2);
	check_stage(0, b, PEER, 7);
	check_stage(1, b, PEER2, 7);
	ck_assert_int_eq(send_asks(PEER, 8, &rc), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(pvmi_precomm_pending(), 2);
	ck_assert_int_eq(send_asks(PEER2, 7, &rc), 1);
	check_release(2, PEER2, 7, 1);
	ck_assert_int_eq(send_asks(PEER, 7, &rc), 1);
	check_release(3, PEER, 7, 1);
	ck_assert_int_eq(ncalls, 4);
}
END_TEST

/* Leaving the machine forgets every indication without a frame (the
 * circuits close and the receivers free what they hold). */
START_TEST(leaving_the_machine_forgets_them_quietly)
{
	int rc;

	packed(10);
	ck_assert_int_eq(pvm_indication(PEER, 7), PvmOk);
	blocking_recv(1);
	pvmi_task_hooks_run(PVMI_TASK_LEFT);
	ck_assert_int_eq(pvmi_precomm_pending(), 0);
	ck_assert_int_eq(send_asks(PEER, 7, &rc), 0);
	ck_assert_int_eq(ncalls, 1);
}
END_TEST

static Suite *precomm_stage_suite(void)
{
	Suite *s = suite_create("precomm_stage");
	TCase *tc = tcase_create("calls");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, a_waiting_receive_stages_and_the_send_releases);
	tcase_add_test(tc, a_receive_that_does_not_wait_stages_nothing);
	tcase_add_test(tc,
		       an_unsent_staged_indication_is_cancelled_when_it_expires);
	tcase_add_test(tc, a_newer_indication_cancels_the_staged_copy);
	tcase_add_test(tc, a_changed_or_other_buffer_cancels_and_is_sent_plain);
	tcase_add_test(tc, a_buffer_changed_before_the_receive_is_not_staged);
	tcase_add_test(tc, failed_staging_or_a_lost_copy_leaves_a_plain_send);
	tcase_add_test(tc, each_send_releases_only_its_own_indication);
	tcase_add_test(tc, leaving_the_machine_forgets_them_quietly);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(precomm_stage_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

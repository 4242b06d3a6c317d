/*
 * check_send_fast.c - pvm_send's short way (lib/route.c,
 * pvmi_route_send_fast) between two tasks over a real shared-memory
 * ring: small messages, which take it, interleaved with the messages
 * that cannot (chunked large ones, multi-fragment PvmDataInPlace ones)
 * and empty ones, all arrive intact and in the order sent; and a burst
 * that fills the ring, where the short way gives way to the plain one
 * and back again many times, loses or reorders nothing.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_TRIP	1
#define TAG_TRIPECHO	2
#define TAG_DATA	10	/* + seq % 3 */
#define TAG_EMPTY	20
#define TAG_END		21
#define TAG_RESULT	22
#define NMIXED		900
#define NBURST		40000	/* over twice the records a ring holds */
#define BIG		(100 << 10)

static unsigned char big[BIG];
static int burst;		/* small messages only (set before the fork) */

/* The bytes message `seq' carries, and how (see send_one). */
static int len_of(int seq)
{
	if (burst)
		return seq % 4;
	if (seq % 7 == 3)
		return BIG - seq;	/* chunked: the plain way */
	if (seq % 7 == 5)
		return 3000 + seq;	/* in place, in fragments */
	return seq % 4;			/* small: the short way */
}

/* Sends message `seq' (after it, every ninth time, an empty one). */
static int send_one(int tid, int seq)
{
	int len = len_of(seq), rc;
	unsigned int sum;

	vm_fill(big, (size_t)len, (unsigned)seq);
	sum = vm_checksum(big, (size_t)len);
	pvm_initsend(seq % 7 == 5 ? PvmDataInPlace : PvmDataDefault);
	pvm_pkint(&seq, 1, 1);
	pvm_pkint(&len, 1, 1);
	pvm_pkuint(&sum, 1, 1);
	if (len)
		pvm_pkbyte((char *)big, len, 1);
	rc = pvm_send(tid, TAG_DATA + seq % 3);
	if (rc >= 0 && seq % 9 == 8) {
		pvm_initsend(PvmDataDefault);
		rc = pvm_send(tid, TAG_EMPTY);
	}
	return rc;
}

/* Receives messages from `parent' until TAG_END, checking that each is
 * the next one sent and intact; returns the count of bad ones and tells
 * the parent how many came. */
static int take_all(int parent)
{
	static unsigned char got[BIG];
	int bufid, bytes, tag, src, seq, len, next = 0, bad = 0;
	int want_empty = 0;
	unsigned int sum;

	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid <= 0 || pvm_bufinfo(bufid, &bytes, &tag, &src) < 0)
			return 1;
		if (tag == TAG_END)
			break;
		if (tag == TAG_EMPTY) {
			bad += !want_empty || bytes != 0;
			want_empty = 0;
			continue;
		}
		bad += want_empty;
		want_empty = 0;
		if (pvm_upkint(&seq, 1, 1) < 0 || pvm_upkint(&len, 1, 1) < 0 ||
		    pvm_upkuint(&sum, 1, 1) < 0 || seq != next ||
		    tag != TAG_DATA + seq % 3 || len != len_of(seq) ||
		    (len && pvm_upkbyte((char *)got, len, 1) < 0) ||
		    vm_checksum(got, (size_t)len) != sum) {
			bad++;
			seq = next;
		}
		next = seq + 1;
		want_empty = seq % 9 == 8;
	}
	vm_send_int(parent, TAG_RESULT, next);
	return bad != 0;
}

static int mixed_child(int parent)
{
	if (vm_trips_child(parent, 3, TAG_TRIP, TAG_TRIPECHO))
		return 1;
	return take_all(parent);
}

START_TEST(small_sends_between_large_and_fragmented_ones_keep_order)
{
	int me, kid, i;
	pid_t pid;

	vm_set_shm(0);
	me = pvm_mytid();
	kid = vm_fork_task(mixed_child, me, &pid);
	vm_trips(kid, 3, TAG_TRIP, TAG_TRIPECHO);
	for (i = 0; i < NMIXED; i++)
		ck_assert_int_eq(send_one(kid, i), PvmOk);
	vm_send_int(kid, TAG_END, 0);
	ck_assert_int_eq(vm_recv_int(kid, TAG_RESULT), NMIXED);
	ck_assert_int_gt(vm_ring_maps(), 0);	/* the ring carried them */
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* Lets the parent fill its ring before reading anything. */
static int late_child(int parent)
{
	if (vm_trips_child(parent, 3, TAG_TRIP, TAG_TRIPECHO))
		return 1;
	if (vm_recv_int(parent, TAG_TRIP) != 7)	/* the burst has begun */
		return 1;
	usleep(300 * 1000);
	return take_all(parent);
}

START_TEST(a_burst_that_fills_the_ring_keeps_order)
{
	int me, kid, i;
	pid_t pid;

	vm_set_shm(0);
	burst = 1;
	me = pvm_mytid();
	kid = vm_fork_task(late_child, me, &pid);
	vm_trips(kid, 3, TAG_TRIP, TAG_TRIPECHO);
	vm_send_int(kid, TAG_TRIP, 7);
	for (i = 0; i < NBURST; i++)
		ck_assert_int_eq(send_one(kid, i), PvmOk);
	vm_send_int(kid, TAG_END, 0);
	ck_assert_int_eq(vm_recv_int(kid, TAG_RESULT), NBURST);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

static Suite *send_fast_suite(void)
{
	Suite *s = suite_create("send_fast");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc,
		       small_sends_between_large_and_fragmented_ones_keep_order);
	tcase_add_test(tc, a_burst_that_fills_the_ring_keeps_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(send_fast_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

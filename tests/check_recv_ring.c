/*
 * check_recv_ring.c - the receive's short path (lib/recv.c, "the short
 * path"): a blocking pvm_recv whose queue holds no match takes the first
 * matching message a ring brings straight as its receive buffer, and
 * the retired receive buffer's body and object serve the next frame
 * (lib/msg.c, pvmi_mid_retire).  Each test has a forked task send to the
 * test's task over a shared-memory circuit while the test waits in
 * pvm_recv, and checks what the queue-and-search path gives: tag and
 * source matching, order per sender with messages queued before the
 * match, a message that did not match found later, pvm_recvf and
 * pvm_setcontext honoured, bodies of changing sizes intact, and a
 * receive buffer the program kept left alone.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	11	/* the set-up trips */
#define TAG_ECHO	12
#define TAG_GO		13	/* the test is about to wait: send now */
#define TAG_A		21
#define TAG_B		22
#define TRIPS		3	/* round trips that put a circuit on its ring */
#define ROUNDS		50

/* Puts the circuit between the test and `kid' on its ring. */
static void ring_up(int kid)
{
	vm_trips(kid, TRIPS, TAG_DATA, TAG_ECHO);
	ck_assert_int_gt(vm_ring_maps(), 0);
}

/* The child's side of ring_up: 0, or 1 on a failure. */
static int child_ring_up(int parent)
{
	return vm_trips_child(parent, TRIPS, TAG_DATA, TAG_ECHO);
}

/* Waits for the test's go; its value, -12345 on a failure. */
static int child_go(int parent)
{
	return vm_recv_int(parent, TAG_GO);
}

/* Receives from `tid' with `tag' and returns the int it holds and, in
 * *gottag and *src, what pvm_bufinfo says. */
static int recv_info(int tid, int tag, int *gottag, int *src)
{
	int b = pvm_recv(tid, tag), v = -12345, bytes;

	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, gottag, src), PvmOk);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	return v;
}

/* Sends A1 B2 B3 A4 B5, rounds times, each round after a go. */
static int mixed_child(int parent)
{
	int r;

	if (child_ring_up(parent))
		return 1;
	for (r = 0; r < ROUNDS; r++) {
		if (child_go(parent) != r)
			return 1;
		vm_send_int(parent, TAG_A, 10 * r + 1);
		vm_send_int(parent, TAG_B, 10 * r + 2);
		vm_send_int(parent, TAG_B, 10 * r + 3);
		vm_send_int(parent, TAG_A, 10 * r + 4);
		vm_send_int(parent, TAG_B, 10 * r + 5);
	}
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 1;
}

/* Waiting for tag B while A1 comes first: B2 is the receive's, A1 is
 * queued and found later, and each tag keeps its sender's order. */
START_TEST(a_match_behind_a_queued_message_keeps_the_order)
{
	int me = pvm_mytid(), kid, r, tag, src;
	pid_t pid;

	kid = vm_fork_task(mixed_child, me, &pid);
	ring_up(kid);
	for (r = 0; r < ROUNDS; r++) {
		vm_send_int(kid, TAG_GO, r);
		ck_assert_int_eq(recv_info(kid, TAG_B, &tag, &src), 10 * r + 2);
		ck_assert_int_eq(tag, TAG_B);
		ck_assert_int_eq(src, kid);
		ck_assert_int_eq(recv_info(-1, -1, &tag, &src), 10 * r + 1);
		ck_assert_int_eq(tag, TAG_A);
		ck_assert_int_eq(recv_info(kid, TAG_B, &tag, &src), 10 * r + 3);
		ck_assert_int_eq(recv_info(kid, -1, &tag, &src), 10 * r + 4);
		ck_assert_int_eq(tag, TAG_A);
		ck_assert_int_eq(recv_info(-1, TAG_B, &tag, &src), 10 * r + 5);
		ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	}
	vm_send_int(kid, TAG_GO, -1);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* Sends its own value `v' with TAG_A after each go, rounds times. */
static int tagged_child_of(int parent, int v)
{
	int r;

	if (child_ring_up(parent))
		return 1;
	for (r = 0; r < ROUNDS; r++) {
		if (child_go(parent) != r)
			return 1;
		vm_send_int(parent, TAG_A, v + r);
	}
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 1;
}

static int first_child(int parent)
{
	return tagged_child_of(parent, 1000);
}

static int second_child(int parent)
{
	return tagged_child_of(parent, 2000);
}

/* Waiting for the second task while the first sends the same tag: the
 * first's message is queued, the second's taken, then the first's. */
START_TEST(a_receive_from_one_task_leaves_the_others_queued)
{
	int me = pvm_mytid(), k1, k2, r, tag, src;
	pid_t p1, p2;

	k1 = vm_fork_task(first_child, me, &p1);
	k2 = vm_fork_task(second_child, me, &p2);
	ring_up(k1);
	ring_up(k2);
	for (r = 0; r < ROUNDS; r++) {
		vm_send_int(k1, TAG_GO, r);
		usleep(r % 2 ? 0 : 200);	/* k1's first, mostly */
		vm_send_int(k2, TAG_GO, r);
		ck_assert_int_eq(recv_info(k2, TAG_A, &tag, &src), 2000 + r);
		ck_assert_int_eq(src, k2);
		ck_assert_int_eq(recv_info(k1, -1, &tag, &src), 1000 + r);
		ck_assert_int_eq(src, k1);
	}
	vm_send_int(k1, TAG_GO, -1);
	vm_send_int(k2, TAG_GO, -1);
	vm_wait_ok(p1);
	vm_wait_ok(p2);
	pvm_exit();
}
END_TEST

/* After a go that carries a context: 1 in the base context, then 2 in
 * that context, both with TAG_A. */
static int context_child(int parent)
{
	int r, ctx, base = pvm_getcontext();

	if (child_ring_up(parent))
		return 1;
	for (r = 0; r < ROUNDS; r++) {
		ctx = child_go(parent);
		if (ctx == -12345)
			return 1;
		vm_send_int(parent, TAG_A, 1);
		pvm_setcontext(ctx);
		vm_send_int(parent, TAG_A, 2);
		pvm_setcontext(base);
	}
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 1;
}

/* Waiting in another context: the message of the base context, which
 * comes first and matches source and tag, is not the one. */
START_TEST(a_receive_takes_only_its_context)
{
	int me = pvm_mytid(), kid, r, base, other, tag, src;
	pid_t pid;

	base = pvm_getcontext();
	kid = vm_fork_task(context_child, me, &pid);
	ring_up(kid);
	other = pvm_newcontext();
	ck_assert_int_gt(other, 0);
	for (r = 0; r < ROUNDS; r++) {
		vm_send_int(kid, TAG_GO, other);	/* sent in base */
		pvm_setcontext(other);
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 2);
		pvm_setcontext(base);
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 1);
	}
	vm_send_int(kid, TAG_GO, -1);
	vm_wait_ok(pid);
	ck_assert_int_eq(pvm_freecontext(other), PvmOk);
	pvm_exit();
}
END_TEST

/* A match function that takes TAG_B only, whatever the receive asks. */
static int pick_tag_b(int mid, int tid, int tag)
{
	int bytes, t, src;

	if (pvm_bufinfo(mid, &bytes, &t, &src) < 0)
		return -1;
	return t == TAG_B;
}

/* With pvm_recvf set, its answer counts, not the default match that the
 * short path applies: A1, which the receive's own (tid, tag) takes,
 * stays queued. */
START_TEST(a_match_function_is_honoured)
{
	int me = pvm_mytid(), kid, r, tag, src;
	pid_t pid;

	kid = vm_fork_task(mixed_child, me, &pid);
	ring_up(kid);
	for (r = 0; r < ROUNDS; r++) {
		vm_send_int(kid, TAG_GO, r);
		ck_assert_ptr_null(pvm_recvf(pick_tag_b));
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 10 * r + 2);
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 10 * r + 3);
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 10 * r + 5);
		ck_assert_ptr_eq(pvm_recvf(NULL), pick_tag_b);
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 10 * r + 1);
		ck_assert_int_eq(recv_info(kid, TAG_A, &tag, &src), 10 * r + 4);
	}
	vm_send_int(kid, TAG_GO, -1);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

/* Sizes that grow past the retired body's room and shrink again. */
static const int sizes[] = { 8, 100, 3000, 8, 16000, 40, 9000, 0, 70000, 8 };
#define NSIZES	((int)(sizeof(sizes) / sizeof(sizes[0])))

/* After each go, a message of sizes[i] bytes of pattern i. */
static int sizes_child(int parent)
{
	unsigned char *buf = malloc(70000);
	int i, r;

	if (child_ring_up(parent))
		return 1;
	for (r = 0; r < 3; r++)
		for (i = 0; i < NSIZES; i++) {
			if (child_go(parent) != i)
				return 1;
			vm_fill(buf, sizes[i], i);
			pvm_initsend(PvmDataRaw);
			pvm_pkint((int *)&sizes[i], 1, 1);
			pvm_pkbyte((char *)buf, sizes[i], 1);
			pvm_send(parent, TAG_A);
		}
	free(buf);
	return vm_recv_int(parent, TAG_GO) == -1 ? 0 : 1;
}

/* Unpacks the receive buffer as sizes_child packs it and checks it is
 * message i: its length, then sizes[i] bytes of pattern i. */
static void check_sized(int i, unsigned char *want, unsigned char *got)
{
	int n = -1;

	ck_assert_int_eq(pvm_upkint(&n, 1, 1), PvmOk);
	ck_assert_int_eq(n, sizes[i]);
	ck_assert_int_eq(pvm_upkbyte((char *)got, n, 1), PvmOk);
	vm_fill(want, n, i);
	ck_assert_int_eq(memcmp(got, want, n), 0);
}

/* Each receive frees the last receive buffer, whose body the next frame
 * may take: bodies of every size arrive intact, and a receive buffer the
 * program kept (pvm_setrbuf(0)) keeps its bytes. */
START_TEST(bodies_of_changing_sizes_arrive_intact)
{
	unsigned char *want = malloc(70000), *got = malloc(70000);
	int me = pvm_mytid(), kid, i, r, kept = 0;
	pid_t pid;

	kid = vm_fork_task(sizes_child, me, &pid);
	ring_up(kid);
	for (r = 0; r < 3; r++)
		for (i = 0; i < NSIZES; i++) {
			vm_send_int(kid, TAG_GO, i);
			ck_assert_int_gt(pvm_recv(kid, TAG_A), 0);
			if (r == 1 && i == 3) {	/* kept, read at the end */
				kept = pvm_setrbuf(0);
				continue;
			}
			check_sized(i, want, got);
		}
	/* the kept buffer, unpacked again from its start */
	ck_assert_int_gt(kept, 0);
	pvm_setrbuf(kept);
	check_sized(3, want, got);
	vm_send_int(kid, TAG_GO, -1);
	vm_wait_ok(pid);
	free(want);
	free(got);
	pvm_exit();
}
END_TEST

/* pvm_freebuf keeps a freed buffer's small body for the next frame as a
 * receive does (pvmi_mid_retire): a program that forwards each message
 * (pvm_setrbuf(0), pvm_setsbuf, pvm_freebuf of the old send buffer)
 * gets every body intact, and a freed InPlace buffer, whose bytes are
 * the program's own array, never takes a frame. */
START_TEST(freed_buffers_serve_frames_but_never_an_in_place_one)
{
	unsigned char *want = malloc(70000), *got = malloc(70000);
	unsigned char mine[64], copy[64];
	int me = pvm_mytid(), kid, i, r, b, old;
	pid_t pid;

	kid = vm_fork_task(sizes_child, me, &pid);
	ring_up(kid);
	vm_fill(mine, sizeof(mine), 99);
	memcpy(copy, mine, sizeof(mine));
	for (r = 0; r < 3; r++)
		for (i = 0; i < NSIZES; i++) {
			vm_send_int(kid, TAG_GO, i);
			ck_assert_int_gt(pvm_recv(kid, TAG_A), 0);
			if (i % 3 == 0) {
				/* an InPlace buffer freed while no body is
				 * kept (the receive took it) */
				b = pvm_mkbuf(PvmDataInPlace);
				old = pvm_setsbuf(b);
				ck_assert_int_eq(pvm_pkbyte((char *)mine,
						sizeof(mine), 1), PvmOk);
				pvm_setsbuf(old);
				ck_assert_int_eq(pvm_freebuf(b), PvmOk);
			}
			check_sized(i, want, got);
			/* the message becomes the send buffer, the old one
			 * freed: its body may take the next frame */
			b = pvm_setrbuf(0);
			old = pvm_setsbuf(b);
			if (old > 0 && old != b)
				ck_assert_int_eq(pvm_freebuf(old), PvmOk);
			ck_assert_int_eq(memcmp(mine, copy, sizeof(mine)), 0);
		}
	ck_assert_int_eq(pvm_freebuf(pvm_getsbuf()), PvmOk);
	vm_send_int(kid, TAG_GO, -1);
	vm_wait_ok(pid);
	free(want);
	free(got);
	pvm_exit();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recv_ring");
	TCase *tc = tcase_create("short_path");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_match_behind_a_queued_message_keeps_the_order);
	tcase_add_test(tc, a_receive_from_one_task_leaves_the_others_queued);
	tcase_add_test(tc, a_receive_takes_only_its_context);
	tcase_add_test(tc, a_match_function_is_honoured);
	tcase_add_test(tc, bodies_of_changing_sizes_arrive_intact);
	tcase_add_test(tc, freed_buffers_serve_frames_but_never_an_in_place_one);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

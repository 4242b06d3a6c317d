/*
 * check_shm_ring_keep.c - unit tests of the consumer's records kept in
 * place (lib/transport/shm_ring.h: shm_ring_keep_whole, shm_ring_let_go,
 * shm_ring_kept_span), on which transport/shm_keep.c lets a message read
 * its body in the ring: the records after a kept one are read on, while
 * the producer gets no room back past the oldest kept record, whatever
 * the order they are let go in; the kept bytes stay as written however
 * hard the producer pushes; at most SHM_RING_KEEPS are kept.
 * Fixtures in shm_fixture.c.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/shm_layout.h"
#include "transport/shm_ring.h"
#include "shm_fixture.h"

/* Puts message `n' of `len' bytes (tag n) into producer `p'; 0 or the
 * put's error. */
static int put(struct shm_ring *p, uint32_t n, uint32_t len)
{
	unsigned char b[512];

	fill(b, n, len);
	return shm_ring_put2(p, n, b, len, NULL, 0);
}

/* The front record of consumer `c', which must be message `n' of `len'
 * bytes, whole and intact: its payload in place. */
static const unsigned char *front(struct shm_ring *c, uint32_t n,
				  uint32_t len)
{
	const unsigned char *pl = NULL;
	uint32_t tag = 0, got = 0;

	ck_assert_int_eq(shm_ring_whole_front(c, &pl, &tag, &got), 1);
	ck_assert_uint_eq(tag, n);
	ck_assert_uint_eq(got, len);
	ck_assert(intact(pl, n, len));
	return pl;
}

/* The tail the producer sees. */
static uint32_t tail_seen(const struct shm_ring *c)
{
	return __atomic_load_n(&c->hdr->tail, __ATOMIC_ACQUIRE);
}

/* A kept record is read past: the next record is the front, its bytes
 * stay where they are, and the tail stays at the kept record until it is
 * let go. */
START_TEST(test_kept_record_is_read_past_and_holds_the_tail)
{
	struct shm_ring p, c;
	const unsigned char *a;
	uint32_t at, start;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	ck_assert_int_eq(put(&p, 1, 300), 0);
	ck_assert_int_eq(put(&p, 2, 40), 0);
	start = tail_seen(&c);
	a = front(&c, 1, 300);
	ck_assert_int_eq(shm_ring_keep_whole(&c, 300, &at), 0);
	ck_assert_uint_eq(at, start);
	ck_assert_int_eq(c.nkept, 1);
	ck_assert_uint_eq(shm_ring_kept_span(&c), SHM_WHOLE_REC_BYTES(300));
	front(&c, 2, 40);
	shm_ring_drop_whole(&c, 40);
	ck_assert_uint_eq(tail_seen(&c), start);	/* held back */
	ck_assert(intact(a, 1, 300));
	shm_ring_let_go(&c, at);
	ck_assert_int_eq(c.nkept, 0);
	ck_assert_uint_eq(shm_ring_kept_span(&c), 0);
	ck_assert_uint_eq(tail_seen(&c), c.pos);	/* both freed */
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

/* Let go in any order, the tail moves only past records no longer
 * kept: to the oldest still kept, and to the read position once none
 * is.  Letting go of a place twice, or of one never kept, does nothing. */
START_TEST(test_let_go_in_any_order_moves_the_tail_past_the_oldest)
{
	struct shm_ring p, c;
	uint32_t at[4], i;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(put(&p, 10 + i, 100), 0);
	for (i = 0; i < 4; i++) {
		front(&c, 10 + i, 100);
		ck_assert_int_eq(shm_ring_keep_whole(&c, 100, &at[i]), 0);
	}
	shm_ring_let_go(&c, at[1]);
	shm_ring_let_go(&c, at[3]);
	ck_assert_uint_eq(tail_seen(&c), at[0]);
	shm_ring_let_go(&c, at[1]);		/* again: nothing */
	shm_ring_let_go(&c, at[0] + 1);		/* never kept: nothing */
	ck_assert_uint_eq(tail_seen(&c), at[0]);
	ck_assert_int_eq(c.nkept, 4);
	shm_ring_let_go(&c, at[0]);		/* 1 and 0 gone: up to 2 */
	ck_assert_uint_eq(tail_seen(&c), at[2]);
	ck_assert_int_eq(c.nkept, 2);
	ck_assert_uint_eq(shm_ring_kept_span(&c), c.pos - at[2]);
	shm_ring_let_go(&c, at[2]);		/* and 3 was let go */
	ck_assert_uint_eq(tail_seen(&c), c.pos);
	ck_assert_int_eq(c.nkept, 0);
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

/* At most SHM_RING_KEEPS records are kept: one more is refused and the
 * ring is left as it was, the record still at the front. */
START_TEST(test_one_keep_too_many_changes_nothing)
{
	struct shm_ring p, c;
	uint32_t at, pos, seq, i;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	for (i = 0; i <= SHM_RING_KEEPS; i++)
		ck_assert_int_eq(put(&p, i + 1, 64), 0);
	for (i = 0; i < SHM_RING_KEEPS; i++) {
		front(&c, i + 1, 64);
		ck_assert_int_eq(shm_ring_keep_whole(&c, 64, &at), 0);
	}
	front(&c, SHM_RING_KEEPS + 1, 64);
	pos = c.pos;
	seq = c.seq;
	at = 12345;
	ck_assert_int_eq(shm_ring_keep_whole(&c, 64, &at), -1);
	ck_assert_uint_eq(at, 12345);
	ck_assert_uint_eq(c.pos, pos);
	ck_assert_uint_eq(c.seq, seq);
	ck_assert_int_eq(c.nkept, SHM_RING_KEEPS);
	front(&c, SHM_RING_KEEPS + 1, 64);
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

/* The producer fills the ring behind a kept record: it is refused room
 * once the ring up to the kept record is full, and the kept bytes are
 * never written over however many records are read and freed past them;
 * once the record is let go the producer has its room back. */
START_TEST(test_producer_never_writes_over_a_kept_record)
{
	struct shm_ring p, c;
	const unsigned char *a;
	uint32_t at, n = 2;
	int rc, rounds;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	ck_assert_int_eq(put(&p, 1, 200), 0);
	a = front(&c, 1, 200);
	ck_assert_int_eq(shm_ring_keep_whole(&c, 200, &at), 0);
	/* many laps' worth of records, each read and dropped as soon as
	 * it is put, until the producer is refused */
	for (rounds = 0; rounds < 1000; rounds++) {
		rc = put(&p, n, 100);
		if (rc)
			break;
		front(&c, n, 100);
		shm_ring_drop_whole(&c, 100);
		n++;
	}
	ck_assert_int_eq(rc, -EAGAIN);
	ck_assert_int_lt(rounds, 1000);
	ck_assert(intact(a, 1, 200));
	/* the room it was refused comes with the kept record's release */
	shm_ring_let_go(&c, at);
	ck_assert_int_eq(put(&p, n, 100), 0);
	front(&c, n, 100);
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("shm_ring_keep");
	TCase *tc = tcase_create("keep");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_kept_record_is_read_past_and_holds_the_tail);
	tcase_add_test(tc,
		       test_let_go_in_any_order_moves_the_tail_past_the_oldest);
	tcase_add_test(tc, test_one_keep_too_many_changes_nothing);
	tcase_add_test(tc, test_producer_never_writes_over_a_kept_record);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_shm_ring_put.c - unit tests of shm_ring_put2 (lib/transport/
 * shm_ring.c), the unchecked two-piece send that shm.c's send_whole
 * uses for a small frame: its records read back by a real receiver,
 * tag and both pieces intact, also when the payload runs past the end
 * of the ring; nothing written when the ring is full; a closed consumer;
 * record numbers that wrap.  And the consumer's inline take of such a
 * record (shm_ring_whole_front, shm_ring_drop_whole, shm.c's take):
 * what shm_ring_front_in_place would answer, the rest left to it; the
 * producer looked at every SHM_FREE_CHECK_EVERY records.
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

/* Records of every small length, each read back at once, so that their
 * starts walk around the ring and some payloads wrap: every one comes
 * back with its tag and its two pieces as written. */
START_TEST(test_put2_records_read_back_also_wrapped)
{
	struct shm_ring p, c;
	unsigned char a[24], b[200], in[256];
	uint32_t tag = 0, blen, at;
	int i, wrapped = 0;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	for (i = 0; i < 4000; i++) {
		blen = (uint32_t)(i % (int)sizeof(b));
		fill(a, (uint32_t)i, sizeof(a));
		fill(b, (uint32_t)i + 1, blen);
		at = (p.pos & p.mask) + (uint32_t)sizeof(struct shm_rec);
		if (at + sizeof(a) + blen > p.mask + 1)
			wrapped++;
		ck_assert_int_eq(shm_ring_put2(&p, 100 + (uint32_t)i, a,
					       sizeof(a), b, blen), 0);
		memset(in, 0, sizeof(in));
		ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in),
					       SHM_NO_WAIT),
				 sizeof(a) + blen);
		ck_assert_uint_eq(tag, 100 + (uint32_t)i);
		ck_assert(intact(in, (uint32_t)i, sizeof(a)));
		ck_assert(intact(in + sizeof(a), (uint32_t)i + 1, blen));
	}
	ck_assert_int_gt(wrapped, 3);
	/* a header alone, and nothing at all */
	ck_assert_int_eq(shm_ring_put2(&p, 7, a, sizeof(a), NULL, 0), 0);
	ck_assert_int_eq(shm_ring_put2(&p, 8, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 sizeof(a));
	ck_assert_uint_eq(tag, 7);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 0);
	ck_assert_uint_eq(tag, 8);
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

/* A full ring: -EAGAIN with nothing written, every record before it read
 * back whole, room again once read; a closed consumer: -EPIPE. */
START_TEST(test_put2_full_ring_writes_nothing)
{
	struct shm_ring p, c;
	unsigned char a[24], b[8], in[64];
	uint32_t tag = 0;
	int rc, n = 0, i;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	fill(a, 1, sizeof(a));
	fill(b, 2, sizeof(b));
	while ((rc = shm_ring_put2(&p, (uint32_t)n, a, sizeof(a), b,
				   sizeof(b))) == 0)
		n++;
	ck_assert_int_eq(rc, -EAGAIN);
	ck_assert_int_gt(n, 10);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in),
					       SHM_NO_WAIT),
				 sizeof(a) + sizeof(b));
		ck_assert_uint_eq(tag, (uint32_t)i);
		ck_assert(intact(in, 1, sizeof(a)));
		ck_assert(intact(in + sizeof(a), 2, sizeof(b)));
	}
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 -EAGAIN);
	ck_assert_int_eq(shm_ring_put2(&p, 9, a, sizeof(a), b, sizeof(b)), 0);
	shm_ring_close(&c);
	ck_assert_int_eq(shm_ring_put2(&p, 10, a, sizeof(a), b, sizeof(b)),
			 -EPIPE);
	shm_ring_close(&p);
}
END_TEST

/* Record numbers wrap past 0, which never numbers a record (a cleared
 * slot reads 0): the one after UINT32_MAX is 1 on both sides. */
START_TEST(test_put2_record_numbers_skip_zero)
{
	struct shm_ring p, c;
	unsigned char a[24], in[64];
	uint32_t tag = 0;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	fill(a, 3, sizeof(a));
	p.seq = c.seq = UINT32_MAX;
	ck_assert_int_eq(shm_ring_put2(&p, 1, a, sizeof(a), NULL, 0), 0);
	ck_assert_uint_eq(p.seq, 1);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 sizeof(a));
	ck_assert_uint_eq(c.seq, 1);
	/* the cleared slot after it is no record */
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 -EAGAIN);
	ck_assert_int_eq(shm_ring_put2(&p, 2, a, sizeof(a), NULL, 0), 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 sizeof(a));
	ck_assert_uint_eq(tag, 2);
	ck_assert(intact(in, 3, sizeof(a)));
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

/* ---- the consumer's inline take ---- */

/* Records of every small length walking around the ring: each one that
 * lies in one piece is given in place, with what shm_ring_front_in_place
 * gives, and freed by shm_ring_drop_whole; one that wraps is left to
 * shm_ring_front_in_place (-1).  An empty ring is 0, its -EAGAIN. */
START_TEST(test_whole_front_gives_what_front_in_place_gives)
{
	struct shm_ring p, c;
	struct shm_front f;
	const unsigned char *pl, *pl2;
	unsigned char a[24], b[200], in[256];
	uint32_t tag = 0, len = 0, blen, at, u;
	int i, rc, wrapped = 0, in_place = 0;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), 0);
	ck_assert_int_eq(shm_ring_front_in_place(&c, &f, &pl), -EAGAIN);
	ck_assert_ptr_null(pl);
	for (i = 0; i < 4000; i++) {
		blen = (uint32_t)(i % (int)sizeof(b));
		fill(a, (uint32_t)i, sizeof(a));
		fill(b, (uint32_t)i + 1, blen);
		ck_assert_int_eq(shm_ring_put2(&p, 100 + (uint32_t)i, a,
					       sizeof(a), b, blen), 0);
		at = (c.pos & c.mask) + (uint32_t)sizeof(struct shm_rec);
		rc = shm_ring_whole_front(&c, &pl, &tag, &len);
		ck_assert_int_eq(shm_ring_front_in_place(&c, &f, &pl2), 0);
		ck_assert_uint_eq(f.tag, 100 + (uint32_t)i);
		ck_assert_uint_eq(f.len, sizeof(a) + blen);
		if (at + sizeof(a) + blen > c.mask + 1) {
			/* it wraps: the long way */
			ck_assert_int_eq(rc, -1);
			ck_assert_ptr_null(pl2);
			ck_assert_int_eq(shm_ring_take_front(&c, &f, in,
							     sizeof(in), NULL),
					 sizeof(a) + blen);
			ck_assert(intact(in, (uint32_t)i, sizeof(a)));
			wrapped++;
			continue;
		}
		ck_assert_int_eq(rc, 1);
		ck_assert_ptr_eq(pl, pl2);
		ck_assert_uint_eq(tag, 100 + (uint32_t)i);
		ck_assert_uint_eq(len, sizeof(a) + blen);
		ck_assert(intact(pl, (uint32_t)i, sizeof(a)));
		ck_assert(intact(pl + sizeof(a), (uint32_t)i + 1, blen));
		u = c.unchecked;
		shm_ring_drop_whole(&c, len);
		/* the producer looked at every SHM_FREE_CHECK_EVERY records */
		ck_assert_uint_eq(c.unchecked,
				  u + 1 >= SHM_FREE_CHECK_EVERY ? 0 : u + 1);
		ck_assert_uint_eq(c.hdr->tail, c.pos);
		in_place++;
	}
	ck_assert_int_gt(wrapped, 3);
	ck_assert_int_gt(in_place, 3000);
	ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), 0);
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

/* What is not a whole record of one piece is -1, for
 * shm_ring_front_in_place to answer: a chunked message, a forged length
 * (-EPROTO there), the producer's close once the ring is drained
 * (-EPIPE there). */
START_TEST(test_whole_front_leaves_the_rest_to_front_in_place)
{
	struct shm_ring p, c;
	struct shm_front f;
	struct shm_rec *rec;
	const unsigned char *pl;
	unsigned char *big;
	uint32_t tag = 0, len = 0;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	big = calloc(1, 3 * c.chunk);
	ck_assert_ptr_nonnull(big);
	fill(big, 5, 3 * c.chunk);
	ck_assert_int_eq(shm_ring_send(&p, 9, big, 3 * c.chunk, SHM_NO_WAIT),
			 0);
	ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), -1);
	ck_assert_int_eq(shm_ring_front_in_place(&c, &f, &pl), 0);
	ck_assert_ptr_null(pl);
	ck_assert_uint_eq(f.len, 3 * c.chunk);
	memset(big, 0, 3 * c.chunk);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, big, 3 * c.chunk,
				       SHM_NO_WAIT), 3 * c.chunk);
	ck_assert(intact(big, 5, 3 * c.chunk));
	/* a whole record that claims more than a chunk */
	ck_assert_int_eq(shm_ring_put2(&p, 3, big, 8, NULL, 0), 0);
	rec = (struct shm_rec *)(c.data + (c.pos & c.mask));
	rec->len = c.chunk + 1;
	ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), -1);
	ck_assert_int_eq(shm_ring_front_in_place(&c, &f, &pl), -EPROTO);
	rec->len = 8;
	ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), 1);
	shm_ring_drop_whole(&c, len);
	/* closed and drained */
	shm_ring_close(&p);
	ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), -1);
	ck_assert_int_eq(shm_ring_front_in_place(&c, &f, &pl), -EPIPE);
	free(big);
	shm_ring_close(&c);
}
END_TEST

/* A producer that armed itself for room is woken by the consumer's
 * SHM_FREE_CHECK_EVERY-th drop, not before. */
START_TEST(test_drop_whole_wakes_an_armed_producer_at_the_16th)
{
	struct shm_ring p, c;
	const unsigned char *pl;
	unsigned char a[8] = { 0 };
	uint32_t tag = 0, len = 0;
	uint64_t wakes;
	int i;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	for (i = 0; i < SHM_FREE_CHECK_EVERY; i++)
		ck_assert_int_eq(shm_ring_put2(&p, 1, a, sizeof(a), NULL, 0),
				 0);
	c.hdr->prod_armed = 1;
	wakes = c.wakes_sent;
	for (i = 0; i < SHM_FREE_CHECK_EVERY; i++) {
		ck_assert_uint_eq(c.hdr->prod_armed, 1);
		ck_assert_int_eq(shm_ring_whole_front(&c, &pl, &tag, &len), 1);
		shm_ring_drop_whole(&c, len);
	}
	ck_assert_uint_eq(c.hdr->prod_armed, 0);
	ck_assert_uint_eq(c.wakes_sent, wakes + 1);
	shm_ring_close(&c);
	shm_ring_close(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("shm_ring_put");
	TCase *tc = tcase_create("put2");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_put2_records_read_back_also_wrapped);
	tcase_add_test(tc, test_put2_full_ring_writes_nothing);
	tcase_add_test(tc, test_put2_record_numbers_skip_zero);
	suite_add_tcase(s, tc);
	tc = tcase_create("whole");
	tcase_add_test(tc, test_whole_front_gives_what_front_in_place_gives);
	tcase_add_test(tc, test_whole_front_leaves_the_rest_to_front_in_place);
	tcase_add_test(tc, test_drop_whole_wakes_an_armed_producer_at_the_16th);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

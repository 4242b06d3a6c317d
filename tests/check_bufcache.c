/*
 * check_bufcache.c - unit tests of lib/bufcache.c, the one owner of
 * message body memory: its counters, and that the message layer (msg.c,
 * pack.c) takes every body buffer from it and gives every one back; and
 * its VCC pools: reuse without the heap, their bounds, the idle shrink,
 * the off switch, and the message objects msg.c keeps.  And a body that
 * a transport lends (struct pvmi_lend): never this layer's to free, given
 * back once by whatever lets go of it, or copied to the message's own.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bufcache.h"
#include "msg.h"
#include "pvm3.h"
#include "wire.h"

START_TEST(counts_buffers_out_and_back)
{
	long live = pvmi_buf_live();
	unsigned long allocs = pvmi_buf_allocs();
	unsigned char *a = pvmi_buf_alloc(0), *b = pvmi_buf_alloc(100);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pvmi_buf_live(), live + 2);
	ck_assert_uint_eq(pvmi_buf_allocs(), allocs + 2);
	pvmi_buf_free(a);
	pvmi_buf_free(NULL);
	ck_assert_int_eq(pvmi_buf_live(), live + 1);
	pvmi_buf_free(b);
	ck_assert_int_eq(pvmi_buf_live(), live);
	ck_assert_uint_eq(pvmi_buf_allocs(), allocs + 2);
}
END_TEST

START_TEST(realloc_keeps_contents_and_count)
{
	unsigned char *p = pvmi_buf_realloc(NULL, 10);
	long live = pvmi_buf_live();
	int i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < 10; i++)
		p[i] = (unsigned char)(i * 7);
	p = pvmi_buf_realloc(p, 1 << 20);
	ck_assert_ptr_nonnull(p);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(p[i], (unsigned char)(i * 7));
	ck_assert_int_eq(pvmi_buf_live(), live);
	pvmi_buf_free(p);
	ck_assert_int_eq(pvmi_buf_live(), live - 1);
}
END_TEST

START_TEST(message_bodies_come_from_it_and_go_back)
{
	long live = pvmi_buf_live();
	unsigned long allocs = pvmi_buf_allocs();
	struct pvmi_msg *m = pvmi_msg_new(PvmDataDefault), *c, *outer, *in;
	static int data[4096];
	unsigned char *flat;
	size_t len;

	ck_assert_ptr_nonnull(m);
	/* enough to grow the first fragment past its first size */
	ck_assert_int_eq(pvmi_pack(m, PVM_INT, data, 4096, 1), PvmOk);
	ck_assert_int_ge(pvmi_buf_live(), live + 1);
	flat = pvmi_msg_flatten(m, &len);
	ck_assert_ptr_nonnull(flat);
	ck_assert_uint_eq(len, m->len);
	c = pvmi_msg_from_body(flat, len, m->enc);
	ck_assert_ptr_nonnull(c);
	/* a message inside a message, and out again */
	outer = pvmi_msg_new(PvmDataDefault);
	ck_assert_int_eq(pvmi_pack_msg(outer, c), PvmOk);
	pvmi_msg_rewind(outer);
	ck_assert_int_eq(pvmi_unpack_msg(outer, &in), PvmOk);
	ck_assert_uint_eq(in->len, c->len);
	ck_assert_uint_ge(pvmi_buf_allocs(), allocs + 4);
	pvmi_msg_free(m);
	pvmi_msg_free(c);
	pvmi_msg_free(outer);
	pvmi_msg_free(in);
	ck_assert_int_eq(pvmi_buf_live(), live);
	/* an empty body is given back at once */
	c = pvmi_msg_from_body(pvmi_buf_alloc(0), 0, PvmDataRaw);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(pvmi_buf_live(), live);
	pvmi_msg_free(c);
}
END_TEST

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A buffer given back is handed out again for a request of its size
 * class, with no heap allocation. */
START_TEST(pools_reuse_buffers_without_the_heap)
{
	unsigned long heap;
	void *a, *b;
	int i;

	pvmi_bufcache_setup(1, 60000);
	a = pvmi_buf_alloc(3000);
	ck_assert_uint_ge(pvmi_buf_cap(a), 3000);
	pvmi_buf_free(a);
	ck_assert_int_eq(pvmi_bufcache_bytes(), (long)pvmi_buf_cap(a));
	heap = pvmi_buf_heap_allocs();
	for (i = 0; i < 1000; i++) {
		b = pvmi_buf_alloc(2100 + i);	/* same 4 KiB class */
		ck_assert_ptr_eq(b, a);
		pvmi_buf_free(b);
	}
	ck_assert_uint_eq(pvmi_buf_heap_allocs(), heap);
	/* growing inside the class keeps the buffer */
	a = pvmi_buf_alloc(10);
	ck_assert_ptr_eq(pvmi_buf_realloc(a, 200), a);
	pvmi_buf_free(a);
}
END_TEST

/* A pooled body starts on a 64-byte line, in every class, whether new
 * or reused; freeing and trimming give the memory back cleanly (ASan). */
START_TEST(pooled_bodies_start_on_a_cache_line)
{
	size_t n;
	void *a, *b;

	pvmi_bufcache_setup(1, 60000);
	for (n = 1; n <= (2UL << 20); n = n * 3 + 1) {
		a = pvmi_buf_alloc(n);
		ck_assert_ptr_nonnull(a);
		ck_assert_uint_eq((uintptr_t)a % 64, 0);
		memset(a, 0x5a, n);
		pvmi_buf_free(a);
		b = pvmi_buf_alloc(n);
		ck_assert_ptr_eq(b, a);
		b = pvmi_buf_realloc(b, n * 2 + 1);
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq((uintptr_t)b % 64, 0);
		ck_assert_int_eq(((unsigned char *)b)[n - 1], 0x5a);
		pvmi_buf_free(b);
	}
	pvmi_bufcache_trim();
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
}
END_TEST

/* At most 16 buffers of a class up to 64 KiB, 4 above, 16 MiB in all;
 * a block above 2 MiB is kept apart (large_blocks_are_kept_two_at_most). */
START_TEST(pools_are_bounded)
{
	void *p[40];
	int i;

	pvmi_bufcache_setup(1, 60000);
	for (i = 0; i < 40; i++)
		p[i] = pvmi_buf_alloc(1024);
	for (i = 0; i < 40; i++)
		pvmi_buf_free(p[i]);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 16 * 1024);
	pvmi_bufcache_trim();
	for (i = 0; i < 10; i++)
		p[i] = pvmi_buf_alloc(1 << 20);
	for (i = 0; i < 10; i++)
		pvmi_buf_free(p[i]);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 4L << 20);
	for (i = 0; i < 10; i++)
		p[i] = pvmi_buf_alloc(2 << 20);
	for (i = 0; i < 10; i++)
		pvmi_buf_free(p[i]);
	/* 4 MiB of 1 MiB buffers, then 2 MiB ones up to the 16 MiB bound */
	ck_assert_int_eq(pvmi_bufcache_bytes(), 12L << 20);
	/* 4 x 512 KiB, 4 x 256 KiB, 4 x 128 KiB: 15.5 MiB */
	for (i = 0; i < 10; i++)
		p[i] = pvmi_buf_alloc(300 * 1024);
	for (i = 0; i < 10; i++)
		p[10 + i] = pvmi_buf_alloc(200 * 1024);
	for (i = 0; i < 10; i++)
		p[20 + i] = pvmi_buf_alloc(100 * 1024);
	for (i = 0; i < 30; i++)
		pvmi_buf_free(p[i]);
	ck_assert_int_eq(pvmi_bufcache_bytes(), (31L << 20) / 2);
	/* 64 KiB ones fill the last half MiB, no more */
	for (i = 0; i < 16; i++)
		p[i] = pvmi_buf_alloc(60 * 1024);
	for (i = 0; i < 16; i++)
		pvmi_buf_free(p[i]);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 16L << 20);
	pvmi_bufcache_trim();
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
}
END_TEST

/* A body above the classes is a heap block of its own size; the last
 * two given back, up to 64 MiB together, serve the next bodies that fit
 * in them, with no heap allocation; trimmed or idle, they go. */
START_TEST(large_blocks_are_kept_two_at_most)
{
	unsigned long heap;
	void *a, *b, *c;

	pvmi_bufcache_setup(1, 60000);
	heap = pvmi_buf_heap_allocs();
	a = pvmi_buf_alloc(4 << 20);
	ck_assert_ptr_nonnull(a);
	memset(a, 1, 4 << 20);
	pvmi_buf_free(a);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 4L << 20);
	/* a smaller large body takes it again; a larger one cannot */
	b = pvmi_buf_alloc((3 << 20) + 5);
	ck_assert_ptr_eq(b, a);
	ck_assert_uint_eq(pvmi_buf_heap_allocs(), heap + 1);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
	c = pvmi_buf_alloc(5 << 20);
	ck_assert_uint_eq(pvmi_buf_heap_allocs(), heap + 2);
	a = pvmi_buf_alloc(6 << 20);
	pvmi_buf_free(a);
	pvmi_buf_free(b);
	pvmi_buf_free(c);	/* the third: back to the heap */
	ck_assert_int_eq(pvmi_bufcache_bytes(), (6L << 20) + (4L << 20));
	/* the smallest that fits is taken */
	b = pvmi_buf_alloc(3 << 20);
	ck_assert_uint_eq(pvmi_buf_cap(b), 4 << 20);
	pvmi_buf_free(b);
	/* 60 MiB more would pass the 64 MiB bound: not kept */
	pvmi_bufcache_trim();
	a = pvmi_buf_alloc(10 << 20);
	b = pvmi_buf_alloc(60 << 20);
	pvmi_buf_free(a);
	pvmi_buf_free(b);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 10L << 20);
	pvmi_bufcache_trim();
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
	/* idle: the next allocation's sweep gives it back */
	pvmi_bufcache_setup(1, 100);
	a = pvmi_buf_alloc(3 << 20);
	pvmi_buf_free(a);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 3L << 20);
	sleep_ms(300);
	a = pvmi_buf_alloc(100);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
	pvmi_buf_free(a);
	/* with VCC off nothing is kept */
	pvmi_bufcache_setup(0, 60000);
	a = pvmi_buf_alloc(3 << 20);
	pvmi_buf_free(a);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
	pvmi_bufcache_setup(1, 60000);
}
END_TEST

/* A class not used for an idle interval is emptied at the next
 * allocation after it; one in use stays. */
START_TEST(pools_shrink_when_idle)
{
	void *a, *b;

	pvmi_bufcache_setup(1, 100);
	a = pvmi_buf_alloc(100);
	b = pvmi_buf_alloc(50000);
	pvmi_buf_free(a);
	pvmi_buf_free(b);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 256 + 65536);
	sleep_ms(300);
	a = pvmi_buf_alloc(100);	/* the sweep runs here */
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
	pvmi_buf_free(a);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 256);
}
END_TEST

/* COPVM_VCC=0 (here: the switch) caches nothing: every buffer is a heap
 * block, and message objects are not kept. */
START_TEST(switch_off_uses_the_heap_every_time)
{
	unsigned long heap;
	struct pvmi_msg *m;
	void *a;
	int i;

	pvmi_bufcache_setup(0, 0);
	ck_assert_int_eq(pvmi_vcc_enabled(), 0);
	heap = pvmi_buf_heap_allocs();
	for (i = 0; i < 10; i++) {
		a = pvmi_buf_alloc(1000);
		pvmi_buf_free(a);
		m = pvmi_msg_new(PvmDataRaw);
		pvmi_msg_free(m);
	}
	ck_assert_uint_eq(pvmi_buf_heap_allocs(), heap + 10);
	ck_assert_int_eq(pvmi_bufcache_bytes(), 0);
	a = pvmi_buf_realloc(pvmi_buf_alloc(10), 5000);	/* heap realloc */
	ck_assert_ptr_nonnull(a);
	pvmi_buf_free(a);
}
END_TEST

/* A freed message object comes back empty, keeping its fragment array. */
START_TEST(message_objects_are_reused_clean)
{
	struct pvmi_msg *m, *n;
	int v = 5;

	pvmi_bufcache_setup(1, 60000);
	m = pvmi_msg_new(PvmDataDefault);
	ck_assert_int_eq(pvmi_pack(m, PVM_INT, &v, 1, 1), PvmOk);
	m->tag = 9;
	pvmi_msg_free(m);
	n = pvmi_msg_new(PvmDataRaw);
	ck_assert_ptr_eq(n, m);
	ck_assert_int_eq(n->nfrag, 0);
	ck_assert_uint_eq(n->len, 0);
	ck_assert_int_eq(n->tag, 0);
	ck_assert_int_eq(n->enc, PvmDataRaw);
	ck_assert_int_ge(n->fragcap, 1);
	pvmi_msg_free(n);
}
END_TEST

/* A stand-in lender: counts the lends given back. */
struct lender {
	struct pvmi_lend lend;
	int ended;
};

static void lender_end(struct pvmi_lend *l)
{
	((struct lender *)l)->ended++;
}

/* A message of the lent body `body' (`len' bytes) from `lr'. */
static struct pvmi_msg *lent_msg(unsigned char *body, size_t len,
				 struct lender *lr)
{
	struct pvmi_frame f = { .len = (uint32_t)len, .src = 5, .tag = 7,
				.enc = PvmDataDefault };
	struct pvmi_msg *m;

	lr->lend.end = lender_end;
	lr->lend.m = NULL;
	lr->ended = 0;
	m = pvmi_msg_from_lent(body, &f, &lr->lend);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_eq(m->frags[0].data, body);
	ck_assert_uint_eq(m->frags[0].cap, 0);
	ck_assert_ptr_eq(m->lend, &lr->lend);
	ck_assert_ptr_eq(lr->lend.m, m);
	ck_assert_int_eq(m->tag, 7);
	return m;
}

/* A lent body is read where it lies, never given to the pools, and
 * given back exactly once by a free or an empty; a pack onto it goes
 * into a fragment of its own; unlent, the message owns a copy and the
 * lend is detached without being ended. */
START_TEST(a_lent_body_is_read_in_place_and_given_back_once)
{
	static unsigned char body[1024];
	int in[200], out[200], i;
	struct pvmi_msg *src = pvmi_msg_new(PvmDataDefault), *m;
	struct lender lr;
	unsigned char *flat;
	long live;
	size_t len;

	for (i = 0; i < 200; i++)
		in[i] = i * 7 - 100;
	ck_assert_int_eq(pvmi_pack(src, PVM_INT, in, 200, 1), PvmOk);
	flat = pvmi_msg_flatten(src, &len);
	ck_assert_ptr_nonnull(flat);
	ck_assert_uint_le(len, sizeof(body));
	memcpy(body, flat, len);
	pvmi_buf_free(flat);
	pvmi_msg_free(src);
	live = pvmi_buf_live();

	/* read in place; freed: ended once, nothing given to the pools */
	m = lent_msg(body, len, &lr);
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(pvmi_unpack(m, PVM_INT, out, 200, 1), PvmOk);
	ck_assert_mem_eq(out, in, sizeof(in));
	pvmi_msg_free(m);
	ck_assert_int_eq(lr.ended, 1);
	ck_assert_ptr_null(lr.lend.m);
	ck_assert_int_eq(pvmi_buf_live(), live);

	/* emptied for a pack (pvm_initsend of a received buffer) */
	m = lent_msg(body, len, &lr);
	pvmi_msg_empty(m);
	ck_assert_int_eq(lr.ended, 1);
	ck_assert_ptr_null(m->lend);
	pvmi_msg_free(m);
	ck_assert_int_eq(lr.ended, 1);

	/* packed onto: a new fragment, the lent bytes untouched */
	m = lent_msg(body, len, &lr);
	ck_assert_int_eq(pvmi_pack(m, PVM_INT, in, 3, 1), PvmOk);
	ck_assert_int_eq(m->nfrag, 2);
	ck_assert_ptr_eq(m->frags[0].data, body);
	ck_assert_int_eq(lr.ended, 0);
	pvmi_msg_free(m);
	ck_assert_int_eq(lr.ended, 1);

	/* unlent: a copy of its own, the lend detached, not ended */
	m = lent_msg(body, len, &lr);
	ck_assert_int_eq(pvmi_msg_unlend(m, 0), 0);
	ck_assert_ptr_null(m->lend);
	ck_assert_ptr_null(lr.lend.m);
	ck_assert_ptr_ne(m->frags[0].data, body);
	ck_assert_uint_eq(m->frags[0].cap, len);
	ck_assert_int_eq(pvmi_buf_live(), live + 1);
	memset(body, 0, sizeof(body));		/* the lender reuses it */
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(pvmi_unpack(m, PVM_INT, out, 200, 1), PvmOk);
	ck_assert_mem_eq(out, in, sizeof(in));
	pvmi_msg_free(m);
	ck_assert_int_eq(lr.ended, 0);
	ck_assert_int_eq(pvmi_buf_live(), live);
}
END_TEST

static Suite *bufcache_suite(void)
{
	Suite *s = suite_create("bufcache");
	TCase *tc = tcase_create("owner");

	tcase_add_test(tc, counts_buffers_out_and_back);
	tcase_add_test(tc, realloc_keeps_contents_and_count);
	tcase_add_test(tc, message_bodies_come_from_it_and_go_back);
	tcase_add_test(tc, pools_reuse_buffers_without_the_heap);
	tcase_add_test(tc, pooled_bodies_start_on_a_cache_line);
	tcase_add_test(tc, pools_are_bounded);
	tcase_add_test(tc, pools_shrink_when_idle);
	tcase_add_test(tc, switch_off_uses_the_heap_every_time);
	tcase_add_test(tc, large_blocks_are_kept_two_at_most);
	tcase_add_test(tc, message_objects_are_reused_clean);
	tcase_add_test(tc, a_lent_body_is_read_in_place_and_given_back_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bufcache_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_bufcache.c - unit tests of lib/bufcache.c, the one owner of
 * message body memory: its counters, and that the message layer (msg.c,
 * pack.c) takes every body buffer from it and gives every one back.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "msg.h"
#include "pvm3.h"

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

static Suite *bufcache_suite(void)
{
	Suite *s = suite_create("bufcache");
	TCase *tc = tcase_create("owner");

	tcase_add_test(tc, counts_buffers_out_and_back);
	tcase_add_test(tc, realloc_keeps_contents_and_count);
	tcase_add_test(tc, message_bodies_come_from_it_and_go_back);
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

/*
 * check_pvmd_mbox.c - the daemon's message mailbox through its socket:
 * default, overwritable, direct-index, multi-instance, persistent and
 * read-and-delete entries, listing, and WaitForInfo requests.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvmd_fixture.h"

static int mb_put(int fd, const char *name, int flags, int32_t val)
{
	struct pvmi_wbuf w = { 0 }, m = { 0 };

	pvmi_w_int(&m, val);
	pvmi_w_str(&w, name);
	pvmi_w_int(&w, flags);
	pvmi_w_int(&w, PvmDataDefault);
	pvmi_w_int(&w, 9);
	pvmi_w_bytes(&w, m.data, m.len);
	pvmi_w_free(&m);
	return call_status(fd, PVMI_OP_MBOX_PUT, &w);
}

/* Parses a GET reply; returns its status, *val and *src when PvmOk. */
static int mb_parse_get(unsigned char *body, size_t len, int32_t *val,
			int32_t *src)
{
	struct pvmi_rbuf r, m;
	const void *p;
	size_t n;
	int st;

	pvmi_r_init(&r, body, len);
	st = pvmi_r_int(&r);
	if (st == PvmOk) {
		ck_assert_int_eq(pvmi_r_int(&r), PvmDataDefault);
		ck_assert_int_eq(pvmi_r_int(&r), 9);
		*src = pvmi_r_int(&r);
		p = pvmi_r_bytes(&r, &n);
		ck_assert_ptr_ne(p, NULL);
		pvmi_r_init(&m, p, n);
		*val = pvmi_r_int(&m);
		ck_assert_int_eq(m.failed, 0);
	}
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);
	return st;
}

static void mb_get_send(int fd, const char *name, int index, int flags)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_str(&w, name);
	pvmi_w_int(&w, index);
	pvmi_w_int(&w, flags);
	send_raw(fd, PVMI_KIND_REQUEST, PVMI_OP_MBOX_GET, w.data, w.len);
	pvmi_w_free(&w);
}

/* Reads the reply of a GET sent earlier; 1 when it came in `ms'. */
static int mb_get_reply(int fd, int ms, int *st, int32_t *val, int32_t *src)
{
	struct pvmi_frame f;
	unsigned char *body;

	if (read_frame(fd, ms, &f, &body) != 1)
		return 0;
	ck_assert_uint_eq(f.kind, PVMI_KIND_REPLY);
	ck_assert_int_eq(f.tag, PVMI_OP_MBOX_GET);
	*st = mb_parse_get(body, f.len, val, src);
	return 1;
}

static int mb_get(int fd, const char *name, int index, int flags,
		  int32_t *val, int32_t *src)
{
	int32_t v = 0, s = 0;
	int st;

	mb_get_send(fd, name, index, flags);
	ck_assert(mb_get_reply(fd, REPLY_MS, &st, &v, &s));
	if (val)
		*val = v;
	if (src)
		*src = s;
	return st;
}

static int mb_del(int fd, const char *name, int index)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_str(&w, name);
	pvmi_w_int(&w, index);
	pvmi_w_int(&w, 0);
	return call_status(fd, PVMI_OP_MBOX_DEL, &w);
}

/* Lists classes matching `pat'; for class `name' fills the entries and
 * returns their number (-1 if absent); *ncls gets the class count. */
static int mb_list(int fd, const char *pat, const char *name, int *ncls,
		   int32_t *idx, int32_t *own, int32_t *flg)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	int32_t a[3][32];
	int i, k, n, nc, found = -1, match;

	pvmi_w_str(&w, pat);
	body = call(fd, PVMI_OP_MBOX_LIST, &w, &r);
	nc = pvmi_r_int(&r);
	for (i = 0; i < nc; i++) {
		match = str_item_eq(&r, name);
		n = pvmi_r_int(&r);
		ck_assert_int_le(n, 32);
		for (k = 0; k < 3; k++)
			ck_assert_int_eq(pvmi_r_ints(&r, a[k], (size_t)n), 0);
		if (match) {
			found = n;
			for (k = 0; k < n; k++) {
				idx[k] = a[0][k];
				own[k] = a[1][k];
				flg[k] = a[2][k];
			}
		}
	}
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);
	if (ncls)
		*ncls = nc;
	return found;
}

START_TEST(mbox_default_and_overwrite)
{
	int32_t v, src, idx[32], own[32], flg[32];
	int a, b, fa = task_connect(&a), fb = task_connect(&b);

	/* a default entry: the owner may replace it, others are denied
	 * (stock 3.4.6 answers so; never PvmExists) */
	ck_assert_int_eq(mb_put(fa, "svc", PvmMboxDefault, 1), 0);
	ck_assert_int_eq(mb_put(fb, "svc", PvmMboxDefault, 2), PvmDenied);
	ck_assert_int_eq(mb_del(fb, "svc", 0), PvmDenied);
	ck_assert_int_eq(mb_put(fa, "svc", PvmMboxDefault, 3), 0);
	ck_assert_int_eq(mb_get(fb, "svc", 0, 0, &v, &src), PvmOk);
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(src, a);
	ck_assert_int_eq(mb_get(fb, "svc", 0, PvmMboxReadAndDelete, &v, NULL),
			 PvmDenied);
	ck_assert_int_eq(mb_get(fb, "svc", 1, 0, &v, NULL), PvmNotFound);
	ck_assert_int_eq(mb_get(fb, "none", 0, 0, &v, NULL), PvmNotFound);
	ck_assert_int_eq(mb_get(fb, "svc", -1, 0, &v, NULL), PvmBadParam);
	ck_assert_int_eq(mb_del(fb, "none", 0), PvmNotFound);

	/* OverWritable: anyone replaces it, and then owns it */
	ck_assert_int_eq(mb_put(fa, "ow", PvmMboxOverWritable, 1), 0);
	ck_assert_int_eq(mb_put(fb, "ow", PvmMboxDefault, 2), 0);
	ck_assert_int_eq(mb_list(fa, "ow", "ow", NULL, idx, own, flg), 1);
	ck_assert_int_eq(own[0], b);
	ck_assert_int_eq(flg[0], 0);
	ck_assert_int_eq(mb_del(fa, "ow", 0), PvmDenied);
	ck_assert_int_eq(mb_del(fb, "ow", 0), PvmOk);
	ck_assert_int_eq(mb_list(fa, "ow", "ow", NULL, idx, own, flg), -1);

	/* a direct index, and overwriting a locked one */
	ck_assert_int_eq(mb_put(fa, "d", PvmMboxDirectIndex(3), 5), 3);
	ck_assert_int_eq(mb_put(fb, "d", PvmMboxDirectIndex(3), 6), PvmDenied);
	ck_assert_int_eq(mb_get(fb, "d", 3, 0, &v, NULL), PvmOk);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(mb_list(fa, "d", "d", NULL, idx, own, flg), 1);
	ck_assert_int_eq(flg[0], PvmMboxDirectIndex(3));
	/* an overwritable multi-instance entry replaced in place */
	ck_assert_int_eq(mb_put(fa, "dm", PvmMboxMultiInstance |
				PvmMboxOverWritable, 1), 0);
	ck_assert_int_eq(mb_put(fa, "dm", PvmMboxMultiInstance |
				PvmMboxOverWritable, 2), 1);
	ck_assert_int_eq(mb_put(fb, "dm", PvmMboxMultiInstance |
				PvmMboxDirectIndex(1), 3), 1);
	ck_assert_int_eq(mb_get(fa, "dm", 1, 0, &v, NULL), PvmOk);
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(mb_list(fa, "dm", "dm", NULL, idx, own, flg), 2);
	ck_assert_int_eq(own[1], b);

	/* ReadAndDelete by the owner */
	ck_assert_int_eq(mb_put(fa, "rd", 0, 7), 0);
	ck_assert_int_eq(mb_get(fa, "rd", 0, PvmMboxReadAndDelete, &v, NULL),
			 PvmOk);
	ck_assert_int_eq(v, 7);
	ck_assert_int_eq(mb_get(fa, "rd", 0, 0, &v, NULL), PvmNotFound);
	close(fa);
	close(fb);
}
END_TEST

START_TEST(mbox_multi_and_list)
{
	int32_t v, idx[32], own[32], flg[32];
	int a, b, fa = task_connect(&a), fb = task_connect(&b), nc;

	ck_assert_int_eq(mb_put(fa, "m", PvmMboxMultiInstance, 10), 0);
	ck_assert_int_eq(mb_put(fa, "m", PvmMboxMultiInstance, 11), 1);
	ck_assert_int_eq(mb_put(fa, "m", PvmMboxMultiInstance, 12), 2);
	ck_assert_int_eq(mb_put(fb, "m", PvmMboxMultiInstance, 13), 3);
	ck_assert_int_eq(mb_del(fa, "m", 1), PvmOk);
	ck_assert_int_eq(mb_put(fa, "m", PvmMboxMultiInstance, 14), 1);
	ck_assert_int_eq(mb_get(fb, "m", 1, 0, &v, NULL), PvmOk);
	ck_assert_int_eq(v, 14);
	ck_assert_int_eq(mb_get(fb, "m", 4, 0, &v, NULL), PvmNotFound);
	ck_assert_int_eq(mb_get(fb, "m", 4, PvmMboxFirstAvail, &v, NULL),
			 PvmNotFound);
	ck_assert_int_eq(mb_get(fb, "m", 2, PvmMboxFirstAvail, &v, NULL),
			 PvmOk);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(mb_del(fa, "m", 2), PvmOk);
	ck_assert_int_eq(mb_get(fb, "m", 2, PvmMboxFirstAvail, &v, NULL),
			 PvmOk);
	ck_assert_int_eq(v, 13);
	ck_assert_int_eq(mb_del(fb, "m", 0), PvmDenied);

	ck_assert_int_eq(mb_list(fa, "m", "m", &nc, idx, own, flg), 3);
	ck_assert_int_eq(nc, 1);
	ck_assert_int_eq(idx[0], 0);
	ck_assert_int_eq(idx[1], 1);
	ck_assert_int_eq(idx[2], 3);
	ck_assert_int_eq(own[0], a);
	ck_assert_int_eq(own[1], a);
	ck_assert_int_eq(own[2], b);
	ck_assert_int_eq(flg[0], PvmMboxMultiInstance);

	ck_assert_int_eq(mb_put(fa, "mm", 0, 1), 0);
	ck_assert_int_eq(mb_put(fa, "x", 0, 1), 0);
	mb_list(fa, "m*", "m", &nc, idx, own, flg);
	ck_assert_int_eq(nc, 2);
	mb_list(fa, "*", "m", &nc, idx, own, flg);
	ck_assert_int_eq(nc, 3);
	mb_list(fa, "", "m", &nc, idx, own, flg);
	ck_assert_int_eq(nc, 3);
	mb_list(fa, "zz*", "m", &nc, idx, own, flg);
	ck_assert_int_eq(nc, 0);

	/* MultiInstance | OverWritable: others may read-and-delete */
	ck_assert_int_eq(mb_put(fa, "q",
				PvmMboxMultiInstance | PvmMboxOverWritable, 1),
			 0);
	ck_assert_int_eq(mb_get(fb, "q", 0, PvmMboxReadAndDelete, &v, NULL),
			 PvmOk);
	ck_assert_int_eq(mb_get(fb, "q", 0, 0, &v, NULL), PvmNotFound);
	close(fa);
	close(fb);
}
END_TEST

START_TEST(mbox_persistent)
{
	int32_t idx[32], own[32], flg[32], v;
	long long end;
	int a, b, fa = task_connect(&a), fb = task_connect(&b);

	ck_assert_int_eq(mb_put(fb, "p", PvmMboxPersistent, 1), 0);
	ck_assert_int_eq(mb_put(fb, "np", 0, 2), 0);
	ck_assert_int_eq(mb_put(fb, "pm", PvmMboxPersistent |
				PvmMboxMultiInstance, 3), 0);
	ck_assert_int_eq(mb_put(fb, "pm", PvmMboxPersistent |
				PvmMboxMultiInstance, 4), 1);
	ck_assert_int_eq(mb_put(fb, "pow", PvmMboxPersistent |
				PvmMboxOverWritable, 5), 0);
	close(fb);		/* b is gone */
	for (end = now_ms() + 3000;
	     mb_list(fa, "np", "np", NULL, idx, own, flg) != -1; msleep(10))
		ck_assert(now_ms() < end);
	ck_assert_int_eq(mb_list(fa, "p", "p", NULL, idx, own, flg), 1);
	ck_assert_int_eq(own[0], 0);
	ck_assert_int_eq(flg[0], PvmMboxPersistent);
	ck_assert_int_eq(mb_list(fa, "pm", "pm", NULL, idx, own, flg), 2);
	ck_assert_int_eq(mb_get(fa, "p", 0, 0, &v, NULL), PvmOk);
	ck_assert_int_eq(v, 1);
	/* an entry left ownerless stays locked, as in stock */
	ck_assert_int_eq(mb_put(fa, "p", 0, 5), PvmDenied);
	ck_assert_int_eq(mb_del(fa, "pm", 0), PvmDenied);
	ck_assert_int_eq(mb_get(fa, "p", 0, PvmMboxReadAndDelete, &v, NULL),
			 PvmDenied);
	/* unless it is overwritable */
	ck_assert_int_eq(mb_put(fa, "pow", 0, 6), 0);
	ck_assert_int_eq(mb_list(fa, "pow", "pow", NULL, idx, own, flg), 1);
	ck_assert_int_eq(own[0], a);
	close(fa);
}
END_TEST

START_TEST(mbox_wait)
{
	int32_t v = 0, src = 0;
	int a, b, c, d, fa = task_connect(&a), fb = task_connect(&b);
	int fc = task_connect(&c), fd = task_connect(&d), st;

	mb_get_send(fa, "w", 0, PvmMboxWaitForInfo);
	ck_assert(!mb_get_reply(fa, 300, &st, &v, &src));
	ck_assert_int_eq(mb_put(fb, "w", 0, 5), 0);
	ck_assert(mb_get_reply(fa, 2000, &st, &v, &src));
	ck_assert_int_eq(st, PvmOk);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(src, b);
	ck_assert_int_eq(call_status(fa, PVMI_OP_PSTAT, NULL), PvmBadMsg);

	/* oldest waiter first; its ReadAndDelete leaves nothing for the
	 * next, who waits for the next put */
	mb_get_send(fa, "w2", 0, PvmMboxWaitForInfo | PvmMboxReadAndDelete);
	msleep(50);
	mb_get_send(fc, "w2", 0, PvmMboxWaitForInfo);
	msleep(50);
	ck_assert_int_eq(mb_put(fb, "w2", PvmMboxOverWritable, 6), 0);
	ck_assert(mb_get_reply(fa, 2000, &st, &v, &src));
	ck_assert_int_eq(st, PvmOk);
	ck_assert_int_eq(v, 6);
	ck_assert(!mb_get_reply(fc, 200, &st, &v, &src));
	ck_assert_int_eq(mb_put(fb, "w2", PvmMboxOverWritable, 7), 0);
	ck_assert(mb_get_reply(fc, 2000, &st, &v, &src));
	ck_assert_int_eq(v, 7);

	/* FirstAvail: only an index at or above the one asked */
	mb_get_send(fa, "w4", 2, PvmMboxWaitForInfo | PvmMboxFirstAvail);
	ck_assert_int_eq(mb_put(fb, "w4", PvmMboxMultiInstance, 0), 0);
	ck_assert_int_eq(mb_put(fb, "w4", PvmMboxMultiInstance, 1), 1);
	ck_assert(!mb_get_reply(fa, 200, &st, &v, &src));
	ck_assert_int_eq(mb_put(fb, "w4", PvmMboxMultiInstance, 2), 2);
	ck_assert(mb_get_reply(fa, 2000, &st, &v, &src));
	ck_assert_int_eq(v, 2);

	/* a waiter that goes away is forgotten */
	mb_get_send(fd, "w3", 0, PvmMboxWaitForInfo);
	msleep(50);
	close(fd);
	msleep(50);
	ck_assert_int_eq(mb_put(fb, "w3", 0, 8), 0);
	assert_alive();
	close(fa);
	close(fb);
	close(fc);
}
END_TEST

static Suite *mbox_suite(void)
{
	Suite *s = suite_create("pvmd_mbox");
	TCase *tc = tcase_create("mailbox");

	tcase_add_checked_fixture(tc, start_daemon, stop_daemon);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, mbox_default_and_overwrite);
	tcase_add_test(tc, mbox_multi_and_list);
	tcase_add_test(tc, mbox_persistent);
	tcase_add_test(tc, mbox_wait);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mbox_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

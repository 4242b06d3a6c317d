/*
 * check_codec.c - unit tests of common/wire.c and common/codec.c: exact
 * byte layouts of frame headers and items, round trips, and a reader
 * that fails cleanly (and stays failed) on truncated, mistyped, oversized
 * and random input.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "wire.h"
#include "codec.h"

static void check_bytes(const unsigned char *got, size_t glen,
			const unsigned char *want, size_t wlen)
{
	size_t i;

	ck_assert_uint_eq(glen, wlen);
	for (i = 0; i < wlen; i++)
		ck_assert_msg(got[i] == want[i], "byte %zu: 0x%02x != 0x%02x",
			      i, got[i], want[i]);
}

START_TEST(frame_layout)
{
	static const unsigned char want[PVMI_FRAME_HDR_LEN] = {
		0x43, 0x50, 0x56, 0x32,		/* magic "CPV2" */
		0x00, 0x00, 0x01, 0x02,		/* len */
		0x00, 0x04, 0x00, 0x01,		/* src */
		0xff, 0xff, 0xff, 0xfe,		/* dst = -2 */
		0x00, 0x00, 0x00, 0x07,		/* tag */
		0x12, 0x34, 0x56, 0x78,		/* ctx */
		0x00, 0x00, 0x00, 0x01,		/* enc */
		0xff, 0xff, 0xff, 0xfd,		/* wid = -3 */
		0x00, 0x00, 0x00, 0x02,		/* kind */
	};
	struct pvmi_frame f = {
		.magic = PVMI_FRAME_MAGIC, .len = 0x102, .src = 0x40001,
		.dst = -2, .tag = 7, .ctx = 0x12345678, .enc = 1,
		.wid = -3, .kind = PVMI_KIND_REPLY,
	};
	struct pvmi_frame g;
	unsigned char buf[PVMI_FRAME_HDR_LEN];

	pvmi_frame_encode(&f, buf);
	check_bytes(buf, sizeof(buf), want, sizeof(want));
	ck_assert_int_eq(pvmi_frame_decode(buf, &g), 0);
	ck_assert_uint_eq(g.magic, f.magic);
	ck_assert_uint_eq(g.len, f.len);
	ck_assert_int_eq(g.src, f.src);
	ck_assert_int_eq(g.dst, f.dst);
	ck_assert_int_eq(g.tag, f.tag);
	ck_assert_int_eq(g.ctx, f.ctx);
	ck_assert_int_eq(g.enc, f.enc);
	ck_assert_int_eq(g.wid, f.wid);
	ck_assert_uint_eq(g.kind, f.kind);
}
END_TEST

/* The decoder of a ring's whole record (the header without magic and
 * length) gives what the full decoder gives for the same header, and
 * rejects what it rejects. */
START_TEST(frame_tail_matches)
{
	static const uint32_t kinds[] = {
		PVMI_KIND_USER, PVMI_KIND_HELD, PVMI_KIND_RELEASE,
		PVMI_KIND_RELEASE + 1, 0x80000000u, 0xffffffffu,
	};
	static const uint32_t lens[] = {
		0, 8, 0x102, PVMI_FRAME_MAX_BODY, PVMI_FRAME_MAX_BODY + 1,
		0xffffffffu,
	};
	struct pvmi_frame f = {
		.magic = PVMI_FRAME_MAGIC, .src = 0x40001, .dst = -2,
		.tag = 7, .ctx = 0x12345678, .enc = 1, .wid = -3,
	};
	struct pvmi_frame g, h;
	unsigned char buf[PVMI_FRAME_HDR_LEN];
	size_t k, l;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			f.kind = kinds[k];
			f.len = lens[l];
			f.tag = (int)(k * 31 + l);
			pvmi_frame_encode(&f, buf);
			memset(&h, 0x5a, sizeof(h));
			ck_assert_int_eq(pvmi_frame_decode_tail(buf + 8, f.len,
								&h),
					 pvmi_frame_decode(buf, &g));
			ck_assert_mem_eq(&h, &g, sizeof(g));
		}
	}
}
END_TEST

START_TEST(frame_rejects)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = 8 };
	struct pvmi_frame g;
	unsigned char buf[PVMI_FRAME_HDR_LEN];

	f.kind = PVMI_KIND_RELEASE + 1;
	pvmi_frame_encode(&f, buf);
	ck_assert_int_eq(pvmi_frame_decode(buf, &g), -1);

	f.kind = PVMI_KIND_USER;
	f.len = PVMI_FRAME_MAX_BODY + 1;
	pvmi_frame_encode(&f, buf);
	ck_assert_int_eq(pvmi_frame_decode(buf, &g), -1);

	f.len = PVMI_FRAME_MAX_BODY;
	pvmi_frame_encode(&f, buf);
	ck_assert_int_eq(pvmi_frame_decode(buf, &g), 0);

	f.magic = 0x31565043;		/* byte-swapped magic */
	pvmi_frame_encode(&f, buf);
	ck_assert_int_eq(pvmi_frame_decode(buf, &g), -1);

	memset(buf, 0xff, sizeof(buf));
	ck_assert_int_eq(pvmi_frame_decode(buf, &g), -1);
}
END_TEST

START_TEST(int_layout)
{
	static const unsigned char want[] = {
		0, 0, 0, PVM_INT, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xf9,
		0, 0, 0, PVM_INT, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2,
		0x80, 0, 0, 0,
		0, 0, 0, PVM_INT, 0, 0, 0, 0,
	};
	struct pvmi_wbuf w = { 0 };
	int32_t v[3] = { 1, 2, INT32_MIN };

	pvmi_w_int(&w, PvmNoFile);
	pvmi_w_ints(&w, v, 3);
	pvmi_w_ints(&w, NULL, 0);
	ck_assert_int_eq(w.failed, 0);
	check_bytes(w.data, w.len, want, sizeof(want));
	pvmi_w_free(&w);
	ck_assert_ptr_eq(w.data, NULL);
	ck_assert_uint_eq(w.len, 0);
}
END_TEST

START_TEST(str_layout)
{
	static const unsigned char want[] = {
		0, 0, 0, PVM_STR, 0, 0, 0, 4, 'a', 'b', 'c', 0,
		0, 0, 0, PVM_STR, 0, 0, 0, 5, 'a', 'b', 'c', 'd', 0, 0, 0, 0,
		0, 0, 0, PVM_STR, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, PVM_STR, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	struct pvmi_wbuf w = { 0 };

	pvmi_w_str(&w, "abc");
	pvmi_w_str(&w, "abcd");
	pvmi_w_str(&w, "");
	pvmi_w_str(&w, NULL);
	check_bytes(w.data, w.len, want, sizeof(want));
	pvmi_w_free(&w);
}
END_TEST

START_TEST(bytes_layout)
{
	static const unsigned char want[] = {
		0, 0, 0, PVM_BYTE, 0, 0, 0, 5, 1, 2, 3, 4, 5, 0, 0, 0,
		0, 0, 0, PVM_BYTE, 0, 0, 0, 0,
		0, 0, 0, PVM_BYTE, 0, 0, 0, 4, 9, 8, 7, 6,
	};
	static const unsigned char five[] = { 1, 2, 3, 4, 5 };
	static const unsigned char four[] = { 9, 8, 7, 6 };
	struct pvmi_wbuf w = { 0 };

	pvmi_w_bytes(&w, five, 5);
	pvmi_w_bytes(&w, NULL, 0);
	pvmi_w_bytes(&w, four, 4);
	check_bytes(w.data, w.len, want, sizeof(want));
	pvmi_w_free(&w);
}
END_TEST

/* Writes the mixed sequence the round-trip and truncation tests read. */
static void write_mixed(struct pvmi_wbuf *w)
{
	int32_t v[4] = { -1, 0, 0x7fffffff, 42 };
	char big[3000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pvmi_w_int(w, 0x40001);
	pvmi_w_str(w, "hello");
	pvmi_w_ints(w, v, 4);
	pvmi_w_bytes(w, "\x00\x01\x02", 3);
	pvmi_w_str(w, big);
	pvmi_w_int(w, -7);
}

/* Reads it back; returns 0 when everything matched. */
static int read_mixed(struct pvmi_rbuf *r)
{
	int32_t v[4];
	const unsigned char *b;
	char *s, *big;
	size_t n = 0;
	int ok = 1;

	ok &= pvmi_r_int(r) == 0x40001;
	s = pvmi_r_str(r);
	ok &= s && !strcmp(s, "hello");
	free(s);
	ok &= pvmi_r_ints(r, v, 4) == 0 && v[0] == -1 && v[1] == 0 &&
	      v[2] == 0x7fffffff && v[3] == 42;
	b = pvmi_r_bytes(r, &n);
	ok &= b && n == 3 && b[0] == 0 && b[1] == 1 && b[2] == 2;
	big = pvmi_r_str(r);
	ok &= big && strlen(big) == 2999;
	free(big);
	ok &= pvmi_r_int(r) == -7;
	return ok && !r->failed ? 0 : -1;
}

START_TEST(round_trip)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;

	write_mixed(&w);
	ck_assert_int_eq(w.failed, 0);
	ck_assert_uint_eq(w.len % 4, 0);
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_int_eq(read_mixed(&r), 0);
	ck_assert_uint_eq(r.pos, r.len);
	pvmi_w_free(&w);
}
END_TEST

/* A 64-bit value travels as two int items, high half first, whole
 * (no sign or half lost); half of one is a failure that reads 0. */
START_TEST(u64_round_trip)
{
	static const uint64_t v[] = { 0, 1, 0xffffffffu, 0x100000000ull,
				      0x8000000080000000ull, UINT64_MAX };
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		pvmi_w_u64(&w, v[i]);
	ck_assert_int_eq(w.failed, 0);
	pvmi_r_init(&r, w.data, w.len);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_uint_eq(pvmi_r_u64(&r), v[i]);
	ck_assert_uint_eq(r.pos, r.len);
	/* the high half first: as two ints, 1 then 2 */
	pvmi_r_init(&r, w.data, w.len);
	(void)pvmi_r_u64(&r);
	(void)pvmi_r_u64(&r);
	(void)pvmi_r_u64(&r);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	pvmi_w_free(&w);
	pvmi_w_int(&w, 7);	/* half of one */
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_uint_eq(pvmi_r_u64(&r), 0);
	ck_assert_int_eq(r.failed, 1);
	pvmi_w_free(&w);
}
END_TEST

START_TEST(truncated)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *copy;
	size_t cut;

	write_mixed(&w);
	for (cut = 0; cut < w.len; cut++) {
		/* an exact-size copy, so reading past it is a real overrun */
		copy = malloc(cut ? cut : 1);
		ck_assert_ptr_ne(copy, NULL);
		memcpy(copy, w.data, cut);
		pvmi_r_init(&r, copy, cut);
		ck_assert_msg(read_mixed(&r) < 0, "cut at %zu read back", cut);
		ck_assert_int_eq(r.failed, 1);
		ck_assert_uint_le(r.pos, r.len);
		free(copy);
	}
	pvmi_w_free(&w);
}
END_TEST

START_TEST(wrong_types)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int32_t v[2];
	size_t n;

	pvmi_w_str(&w, "x");
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(r.failed, 1);

	pvmi_r_init(&r, w.data, w.len);
	ck_assert_ptr_eq(pvmi_r_bytes(&r, &n), NULL);
	ck_assert_int_eq(r.failed, 1);
	pvmi_w_free(&w);

	pvmi_w_int(&w, 5);
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_ptr_eq(pvmi_r_str(&r), NULL);
	ck_assert_int_eq(r.failed, 1);

	/* count mismatch both ways */
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_int_eq(pvmi_r_ints(&r, v, 2), -1);
	pvmi_w_free(&w);
	pvmi_w_ints(&w, (int32_t[]){ 1, 2 }, 2);
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(r.failed, 1);
	pvmi_w_free(&w);
}
END_TEST

START_TEST(uint_is_int)
{
	static const unsigned char body[] = {
		0, 0, 0, PVM_UINT, 0, 0, 0, 1, 0, 0, 0, 9,
		0, 0, 0, PVM_SHORT, 0, 0, 0, 1, 0, 0, 0, 9,
	};
	struct pvmi_rbuf r;

	pvmi_r_init(&r, body, sizeof(body));
	ck_assert_int_eq(pvmi_r_int(&r), 9);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(r.failed, 1);
}
END_TEST

START_TEST(huge_counts)
{
	unsigned char body[64] = { 0 };
	struct pvmi_rbuf r;
	int32_t v;
	size_t n;
	int type;

	for (type = PVM_STR; type <= PVM_INT; type++) {
		body[3] = (unsigned char)type;
		body[4] = body[5] = body[6] = body[7] = 0xff;
		pvmi_r_init(&r, body, sizeof(body));
		switch (type) {
		case PVM_STR:
			ck_assert_ptr_eq(pvmi_r_str(&r), NULL);
			break;
		case PVM_BYTE:
			ck_assert_ptr_eq(pvmi_r_bytes(&r, &n), NULL);
			break;
		case PVM_INT:
			ck_assert_int_eq(pvmi_r_ints(&r, &v, 1), -1);
			break;
		default:
			continue;
		}
		ck_assert_int_eq(r.failed, 1);
	}
	/* a count that fits but leaves no room for the padding */
	memset(body, 0, sizeof(body));
	body[3] = PVM_BYTE;
	body[7] = 9;
	pvmi_r_init(&r, body, 8 + 9);
	ck_assert_ptr_eq(pvmi_r_bytes(&r, &n), NULL);
	pvmi_r_init(&r, body, 8 + 12);
	ck_assert_ptr_ne(pvmi_r_bytes(&r, &n), NULL);
	ck_assert_uint_eq(n, 9);
}
END_TEST

START_TEST(bad_strings)
{
	static const unsigned char no_nul[] = {
		0, 0, 0, PVM_STR, 0, 0, 0, 4, 'a', 'b', 'c', 'd',
	};
	static const unsigned char empty[] = {
		0, 0, 0, PVM_STR, 0, 0, 0, 0,
	};
	struct pvmi_rbuf r;

	pvmi_r_init(&r, no_nul, sizeof(no_nul));
	ck_assert_ptr_eq(pvmi_r_str(&r), NULL);
	ck_assert_int_eq(r.failed, 1);
	pvmi_r_init(&r, empty, sizeof(empty));
	ck_assert_ptr_eq(pvmi_r_str(&r), NULL);
	ck_assert_int_eq(r.failed, 1);
}
END_TEST

START_TEST(sticky_failure)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	char *s;

	pvmi_w_str(&w, "a");
	pvmi_w_int(&w, 3);
	pvmi_r_init(&r, w.data, w.len);
	ck_assert_int_eq(pvmi_r_int(&r), 0);	/* wrong type */
	s = pvmi_r_str(&r);			/* valid, but too late */
	ck_assert_ptr_eq(s, NULL);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(r.failed, 1);
	pvmi_w_free(&w);

	pvmi_r_init(&r, NULL, 100);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(r.failed, 1);
}
END_TEST

START_TEST(writer_limits)
{
	struct pvmi_wbuf w = { 0 };
	int32_t v = 1;

	pvmi_w_ints(&w, &v, (size_t)PVMI_FRAME_MAX_BODY);
	ck_assert_int_eq(w.failed, 1);
	/* failure is sticky */
	pvmi_w_int(&w, 1);
	ck_assert_uint_eq(w.len, 0);
	pvmi_w_free(&w);
	ck_assert_int_eq(w.failed, 0);
}
END_TEST

/* Random bodies and random read sequences: nothing may crash or read
 * outside the body (the body is an exact-size allocation). */
START_TEST(fuzz)
{
	unsigned int seed = 12345;
	struct pvmi_rbuf r;
	unsigned char *body;
	size_t len, n, i;
	int round, k;
	int32_t v[4];
	char *s;

	for (round = 0; round < 20000; round++) {
		len = (size_t)(rand_r(&seed) % 64);
		body = malloc(len ? len : 1);
		ck_assert_ptr_ne(body, NULL);
		for (i = 0; i < len; i++) {
			body[i] = (unsigned char)rand_r(&seed);
			/* make plausible headers common */
			if (i % 4 < 3 && rand_r(&seed) % 2)
				body[i] = 0;
		}
		pvmi_r_init(&r, body, len);
		for (k = 0; k < 6; k++) {
			switch (rand_r(&seed) % 4) {
			case 0:
				pvmi_r_int(&r);
				break;
			case 1:
				pvmi_r_ints(&r, v, (size_t)(rand_r(&seed) % 5));
				break;
			case 2:
				s = pvmi_r_str(&r);
				if (s)
					ck_assert_uint_lt(strlen(s), len);
				free(s);
				break;
			default:
				if (pvmi_r_bytes(&r, &n))
					ck_assert_uint_le(n, len);
				break;
			}
			ck_assert_uint_le(r.pos, r.len);
		}
		free(body);
	}
}
END_TEST

static Suite *codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, frame_layout);
	tcase_add_test(tc, frame_rejects);
	tcase_add_test(tc, frame_tail_matches);
	suite_add_tcase(s, tc);

	tc = tcase_create("items");
	tcase_add_test(tc, int_layout);
	tcase_add_test(tc, str_layout);
	tcase_add_test(tc, bytes_layout);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, writer_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_add_test(tc, truncated);
	tcase_add_test(tc, wrong_types);
	tcase_add_test(tc, uint_is_int);
	tcase_add_test(tc, huge_counts);
	tcase_add_test(tc, bad_strings);
	tcase_add_test(tc, sticky_failure);
	tcase_add_test(tc, fuzz);
	tcase_add_test(tc, u64_round_trip);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(codec_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_pack_api.c - unit tests of lib/pack_api.c's short paths: a dense
 * pvm_pk* into the room of the send buffer's last fragment and a
 * pvm_upk* of a whole item of the same type and count write and read
 * exactly what pack.c's general path does (pvmi_pack, the reference
 * here), and every other call still goes that way: strides, InPlace,
 * a full fragment, another type or count, the end of the body.
 *
 * Built from the library sources directly, so it needs no daemon.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "pvmi.h"
#include "msg.h"
#include "wire.h"

static void setup(void)
{
	pvmi.autoerr = 0;
}

/* The message behind the active send buffer. */
static struct pvmi_msg *smsg(void)
{
	return pvmi_mid_lookup(pvm_getsbuf());
}

/* Every owned fragment of `m' within its capacity. */
static void assert_frags_ok(const struct pvmi_msg *m)
{
	int i;

	for (i = 0; i < m->nfrag; i++)
		if (m->frags[i].cap)
			ck_assert_uint_le(m->frags[i].len, m->frags[i].cap);
}

/* A send buffer of `enc' whose one kept body buffer is full of 0xab
 * from the message before: the state pk's short path writes into. */
static void renewed_sbuf(int enc)
{
	unsigned char junk[200];

	memset(junk, 0xab, sizeof(junk));
	pvm_initsend(enc);
	ck_assert_int_eq(pvm_pkbyte((char *)junk, sizeof(junk), 1), PvmOk);
	pvm_initsend(enc);
	ck_assert_int_eq(smsg()->nfrag, 1);
	ck_assert_uint_ge(smsg()->frags[0].cap, 1024);
	ck_assert_uint_eq(smsg()->len, 0);
}

/* Checks the send buffer's body equals what pvmi_pack() writes for the
 * same item into a new message. */
static void assert_body_as_general(int enc, int type, const void *p, int n)
{
	struct pvmi_msg *ref = pvmi_msg_new(enc);
	unsigned char *a, *b;
	size_t alen, blen;

	ck_assert_int_eq(pvmi_pack(ref, type, p, n, 1), PvmOk);
	a = pvmi_msg_flatten(smsg(), &alen);
	b = pvmi_msg_flatten(ref, &blen);
	ck_assert_uint_eq(alen, blen);
	ck_assert_mem_eq(a, b, alen);
	pvmi_buf_free(a);
	pvmi_buf_free(b);
	pvmi_msg_free(ref);
}

/* Every length around the copy's size steps and the XDR pad, in both
 * encodings that copy: the exact bytes, the pad zeroed over old bytes,
 * and the bytes read back, then PvmNoData. */
START_TEST(short_bytes_are_packed_as_by_the_general_path)
{
	static const int encs[] = { PvmDataDefault, PvmDataRaw };
	unsigned char in[40], out[40];
	size_t want;
	int e, n, i;

	for (i = 0; i < 40; i++)
		in[i] = (unsigned char)(i * 7 + 1);
	for (e = 0; e < 2; e++) {
		for (n = 1; n <= 40; n++) {
			renewed_sbuf(encs[e]);
			ck_assert_int_eq(pvm_pkbyte((char *)in, n, 1), PvmOk);
			want = PVMI_ITEM_HDR_LEN + n +
			       (encs[e] == PvmDataDefault ? -n & 3 : 0);
			ck_assert_uint_eq(smsg()->len, want);
			ck_assert_int_eq(smsg()->nfrag, 1);
			for (i = PVMI_ITEM_HDR_LEN + n; i < (int)want; i++)
				ck_assert_int_eq(smsg()->frags[0].data[i], 0);
			assert_body_as_general(encs[e], PVM_BYTE, in, n);
			pvm_setrbuf(pvm_getsbuf());
			memset(out, 0, sizeof(out));
			ck_assert_int_eq(pvm_upkbyte((char *)out, n, 1), PvmOk);
			ck_assert_mem_eq(out, in, n);
			ck_assert_int_eq(pvm_upkbyte((char *)out, 1, 1),
					 PvmNoData);
			ck_assert_int_eq(pvm_errno, PvmNoData);
		}
	}
}
END_TEST

/* Each typed pair through the short paths, in XDR and Raw: the body as
 * the general path writes it, and the values back. */
START_TEST(each_type_is_packed_as_by_the_general_path)
{
	static const int encs[] = { PvmDataDefault, PvmDataRaw };
	short s[3] = { -2, 300, 32767 }, so[3];
	unsigned short us[3] = { 1, 65535, 2 }, uso[3];
	int iv[3] = { -1, 7, 1 << 30 }, io[3];
	unsigned int ui[3] = { 4000000000u, 0, 9 }, uio[3];
	long l[3] = { -5, 0x1122334455667788L, 3 }, lo[3];
	unsigned long ul[3] = { ~0UL, 1, 2 }, ulo[3];
	float f[3] = { 1.5f, -2, 3 }, fo[3];
	float c[6] = { 1.5f, -2, 3, 4, 5, 6 }, co[6];
	double d[3] = { 2.5, -1e300, 3 }, dout[3];
	double dc[6] = { 2.5, -1e300, 3, 4, 5, 6 }, dco[6];
	int e;

#define ONE_TYPE(pk, upk, type, in, out, ctype)				\
	do {								\
		renewed_sbuf(encs[e]);					\
		ck_assert_int_eq(pk((ctype *)in, 3, 1), PvmOk);		\
		assert_body_as_general(encs[e], type, in, 3);		\
		pvm_setrbuf(pvm_getsbuf());				\
		memset(out, 0, sizeof(out));				\
		ck_assert_int_eq(upk((ctype *)out, 3, 1), PvmOk);	\
		ck_assert_mem_eq(out, in, sizeof(in));			\
	} while (0)

	for (e = 0; e < 2; e++) {
		ONE_TYPE(pvm_pkshort, pvm_upkshort, PVM_SHORT, s, so, short);
		ONE_TYPE(pvm_pkushort, pvm_upkushort, PVM_USHORT, us, uso,
			 unsigned short);
		ONE_TYPE(pvm_pkint, pvm_upkint, PVM_INT, iv, io, int);
		ONE_TYPE(pvm_pkuint, pvm_upkuint, PVM_UINT, ui, uio,
			 unsigned int);
		ONE_TYPE(pvm_pklong, pvm_upklong, PVM_LONG, l, lo, long);
		ONE_TYPE(pvm_pkulong, pvm_upkulong, PVM_ULONG, ul, ulo,
			 unsigned long);
		ONE_TYPE(pvm_pkcplx, pvm_upkcplx, PVM_CPLX, c, co, float);
		ONE_TYPE(pvm_pkdcplx, pvm_upkdcplx, PVM_DCPLX, dc, dco,
			 double);
		ONE_TYPE(pvm_pkfloat, pvm_upkfloat, PVM_FLOAT, f, fo, float);
		ONE_TYPE(pvm_pkdouble, pvm_upkdouble, PVM_DOUBLE, d, dout,
			 double);
	}
#undef ONE_TYPE
}
END_TEST

/* Packs a Raw filler item leaving `room' bytes in the first fragment. */
static void leave_room(size_t room)
{
	size_t k = smsg()->frags[0].cap - smsg()->frags[0].len -
		   PVMI_ITEM_HDR_LEN - room;
	char *filler = calloc(1, k);

	ck_assert_int_eq(pvm_pkbyte(filler, (int)k, 1), PvmOk);
	free(filler);
	ck_assert_uint_eq(smsg()->frags[0].cap - smsg()->frags[0].len, room);
}

/* An item that fills the fragment exactly stays in it; one byte more
 * than the room goes the general way (the fragment grows or a new one
 * follows), never past the fragment's end. */
START_TEST(room_exactly_full_and_one_byte_short)
{
	char in[16] = "0123456789abcdef", out[16], *filler;
	size_t cap, k;

	/* XDR, 10 bytes and their pad of 2: 20 bytes into a room of 20 */
	renewed_sbuf(PvmDataDefault);
	cap = smsg()->frags[0].cap;
	leave_room(20);
	ck_assert_int_eq(pvm_pkbyte(in, 10, 1), PvmOk);
	ck_assert_int_eq(smsg()->nfrag, 1);
	ck_assert_uint_eq(smsg()->frags[0].len, cap);
	ck_assert_mem_eq(smsg()->frags[0].data + cap - 12, in, 10);
	ck_assert_mem_eq(smsg()->frags[0].data + cap - 2, "\0\0", 2);
	ck_assert_int_eq(pvm_pkbyte(in + 10, 1, 1), PvmOk);
	assert_frags_ok(smsg());
	ck_assert_uint_eq(smsg()->len, cap + 12);
	/* Raw, 8 + 12 bytes into a room of 19 */
	renewed_sbuf(PvmDataRaw);
	cap = smsg()->frags[0].cap;
	k = cap - PVMI_ITEM_HDR_LEN - 19;
	leave_room(19);
	ck_assert_int_eq(pvm_pkbyte(in, 12, 1), PvmOk);
	assert_frags_ok(smsg());
	ck_assert_uint_eq(smsg()->len, cap + 1);
	pvm_setrbuf(pvm_getsbuf());
	filler = malloc(k);
	ck_assert_int_eq(pvm_upkbyte(filler, (int)k, 1), PvmOk);
	free(filler);
	ck_assert_int_eq(pvm_upkbyte(out, 12, 1), PvmOk);
	ck_assert_mem_eq(out, in, 12);
}
END_TEST

/* A stride other than 1 takes the general path: only the selected
 * elements are packed, and only every stride-th slot is written. */
START_TEST(stride_takes_the_general_path)
{
	int v[6] = { 1, 2, 3, 4, 5, 6 }, o[6] = { -1, -1, -1, -1, -1, -1 };
	char b[6] = "abcdef", bo[6] = "......";

	renewed_sbuf(PvmDataDefault);
	ck_assert_int_eq(pvm_pkint(v, 3, 2), PvmOk);
	ck_assert_int_eq(pvm_pkbyte(b, 3, 2), PvmOk);
	pvm_setrbuf(pvm_getsbuf());
	ck_assert_int_eq(pvm_upkint(o, 3, 1), PvmOk);
	ck_assert_int_eq(o[0], 1);
	ck_assert_int_eq(o[1], 3);
	ck_assert_int_eq(o[2], 5);
	ck_assert_int_eq(pvm_upkbyte(bo, 3, 2), PvmOk);
	ck_assert_mem_eq(bo, "a.c.e.", 6);
	/* a dense item read with a stride */
	renewed_sbuf(PvmDataRaw);
	ck_assert_int_eq(pvm_pkint(v, 3, 1), PvmOk);
	pvm_setrbuf(pvm_getsbuf());
	memset(o, 0xff, sizeof(o));
	ck_assert_int_eq(pvm_upkint(o, 3, 2), PvmOk);
	ck_assert_int_eq(o[0], 1);
	ck_assert_int_eq(o[1], -1);
	ck_assert_int_eq(o[2], 2);
	ck_assert_int_eq(o[4], 3);
	ck_assert_int_eq(o[5], -1);
}
END_TEST

/* PvmDataInPlace keeps borrowing a dense array even with room in the
 * fragment: the body shows the array as it is at send time. */
START_TEST(inplace_still_borrows)
{
	int v[2] = { 1, 2 }, o[2];

	pvm_initsend(PvmDataInPlace);
	pvm_pkint(v, 2, 1);
	pvm_initsend(PvmDataInPlace);
	ck_assert_int_eq(smsg()->nfrag, 1);
	ck_assert_int_eq(pvm_pkint(v, 2, 1), PvmOk);
	ck_assert_int_eq(smsg()->nfrag, 2);
	ck_assert_uint_eq(smsg()->frags[1].cap, 0);
	v[1] = 42;
	pvm_setrbuf(pvm_getsbuf());
	ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
	ck_assert_int_eq(o[1], 42);
}
END_TEST

/* An item of another count is not read as a whole: two byte items read
 * in one call give both, in either encoding. */
START_TEST(unpack_needs_the_same_count)
{
	static const int encs[] = { PvmDataDefault, PvmDataRaw };
	char out[8];
	int e;

	for (e = 0; e < 2; e++) {
		renewed_sbuf(encs[e]);
		pvm_pkbyte("abcd", 4, 1);
		pvm_pkbyte("efgh", 4, 1);
		pvm_setrbuf(pvm_getsbuf());
		memset(out, 0, sizeof(out));
		ck_assert_int_eq(pvm_upkbyte(out, 8, 1), PvmOk);
		ck_assert_mem_eq(out, "abcdefgh", 8);
	}
}
END_TEST

/* With COPVM_STRICT_UNPACK=1 an item of another type is PvmBadMsg and
 * nothing is read; the same count of the right type reads it. */
START_TEST(unpack_needs_the_same_type)
{
	static const int encs[] = { PvmDataDefault, PvmDataRaw };
	int v[2] = { 5, 6 }, o[2] = { 0, 0 };
	float f[2] = { -1, -1 };
	int e;

	setenv("COPVM_STRICT_UNPACK", "1", 1);
	for (e = 0; e < 2; e++) {
		renewed_sbuf(encs[e]);
		pvm_pkint(v, 2, 1);
		pvm_setrbuf(pvm_getsbuf());
		ck_assert_int_eq(pvm_upkfloat(f, 2, 1), PvmBadMsg);
		ck_assert_float_eq(f[0], -1);
		ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
		ck_assert_int_eq(o[1], 6);
	}
}
END_TEST

/* A string item is not bytes: read as bytes of its length it shows
 * stock's length word first (pack_view.c), not the string. */
START_TEST(string_item_read_as_bytes_is_not_copied_whole)
{
	char out[4];

	renewed_sbuf(PvmDataDefault);
	pvm_pkstr("abc");
	pvm_setrbuf(pvm_getsbuf());
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(pvm_upkbyte(out, 4, 1), PvmOk);
	ck_assert_mem_eq(out, "\0\0\0\4", 4);
}
END_TEST

/* The end of the body: a call for more than is left copies what is
 * there and is PvmNoData; an item whose header claims more than the
 * body holds is PvmBadMsg and copies nothing. */
START_TEST(unpack_past_the_end)
{
	static const unsigned char short_body[] = {
		0, 0, 0, PVM_BYTE, 0, 0, 0, 8, 'a', 'b', 'c', 'd',
	};
	char out[8] = "........";
	void *copy;
	struct pvmi_msg *m;

	renewed_sbuf(PvmDataRaw);
	pvm_pkbyte("xyz", 3, 1);
	pvm_setrbuf(pvm_getsbuf());
	ck_assert_int_eq(pvm_upkbyte(out, 4, 1), PvmNoData);
	ck_assert_mem_eq(out, "xyz", 3);
	copy = pvmi_buf_alloc(sizeof(short_body));
	memcpy(copy, short_body, sizeof(short_body));
	m = pvmi_msg_from_body(copy, sizeof(short_body), PvmDataRaw);
	pvm_setrbuf(pvmi_mid_register(m));
	memset(out, '.', sizeof(out));
	ck_assert_int_eq(pvm_upkbyte(out, 8, 1), PvmBadMsg);
	ck_assert_mem_eq(out, "........", 8);
}
END_TEST

/* Items whose header ends a fragment, or that start in the next one
 * (InPlace bodies), are read the general way, values intact. */
START_TEST(items_across_fragments)
{
	int v[2] = { 11, 12 }, w[4] = { 21, 0, 22, 0 }, o[2];

	pvm_initsend(PvmDataInPlace);
	pvm_pkint(v, 1, 1);
	pvm_initsend(PvmDataInPlace);
	ck_assert_int_eq(pvm_pkint(v, 2, 1), PvmOk);
	ck_assert_int_eq(pvm_pkint(w, 2, 2), PvmOk);
	ck_assert_int_eq(smsg()->nfrag, 3);
	pvm_setrbuf(pvm_getsbuf());
	ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
	ck_assert_int_eq(o[0], 11);
	ck_assert_int_eq(o[1], 12);
	ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
	ck_assert_int_eq(o[0], 21);
	ck_assert_int_eq(o[1], 22);
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
}
END_TEST

/* Bad arguments and no buffer keep their codes through the new paths. */
START_TEST(errors_are_unchanged)
{
	char b[4];

	pvm_setsbuf(0);
	pvm_setrbuf(0);
	ck_assert_int_eq(pvm_pkbyte(b, 4, 1), PvmNoBuf);
	ck_assert_int_eq(pvm_upkbyte(b, 4, 1), PvmNoBuf);
	ck_assert_int_eq(pvm_pkbyte(b, -1, 1), PvmBadParam);
	ck_assert_int_eq(pvm_pkbyte(NULL, 4, 1), PvmBadParam);
	ck_assert_int_eq(pvm_upkbyte(b, 4, 0), PvmBadParam);
	/* n == 0 is no short path: the buffer is still asked for */
	ck_assert_int_eq(pvm_pkbyte(NULL, 0, 1), PvmNoBuf);
	pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_pkbyte(NULL, 0, 1), PvmOk);
	ck_assert_int_eq(pvm_pkbyte(b, 4, 0), PvmBadParam);
}
END_TEST

static Suite *pack_api_suite(void)
{
	Suite *s = suite_create("pack_api");
	TCase *tc = tcase_create("short_paths");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, short_bytes_are_packed_as_by_the_general_path);
	tcase_add_test(tc, each_type_is_packed_as_by_the_general_path);
	tcase_add_test(tc, room_exactly_full_and_one_byte_short);
	tcase_add_test(tc, stride_takes_the_general_path);
	tcase_add_test(tc, inplace_still_borrows);
	tcase_add_test(tc, unpack_needs_the_same_count);
	tcase_add_test(tc, unpack_needs_the_same_type);
	tcase_add_test(tc, string_item_read_as_bytes_is_not_copied_whole);
	tcase_add_test(tc, unpack_past_the_end);
	tcase_add_test(tc, items_across_fragments);
	tcase_add_test(tc, errors_are_unchanged);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pack_api_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_pack.c - unit tests of lib/pack.c and lib/packf.c: round trips of
 * every data type in every encoding, the exact XDR and raw byte layout,
 * how unpack calls consume items, its failures, PvmDataInPlace, nested
 * messages and the printf-like formats.
 *
 * Built from the library sources directly, so it needs no daemon.
 */
#include <check.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "pvmi.h"
#include "msg.h"
#include "wire.h"

static const int encodings[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };

static void setup(void)
{
	pvmi.autoerr = 0;
}

/* The message behind the active send buffer. */
static struct pvmi_msg *smsg(void)
{
	return pvmi_mid_lookup(pvm_getsbuf());
}

/* Makes the send buffer the receive buffer too, to unpack what was packed. */
static void read_back(void)
{
	ck_assert_int_ge(pvm_setrbuf(pvm_getsbuf()), 0);
}

/* Flattens the send buffer's body; checks its length is `want'. */
static unsigned char *sbody(size_t want)
{
	size_t len = 0;
	unsigned char *b = pvmi_msg_flatten(smsg(), &len);

	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(len, want);
	return b;
}

/* Deterministic filler, so failures reproduce. */
static void fill_random(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

/*
 * One row per data type: its pack and unpack calls behind a common
 * signature, its element size and the extreme values put first.
 */
struct ptype {
	const char *name;
	size_t esz;
	int (*pk)(void *, int, int);
	int (*upk)(void *, int, int);
	const void *special;
	int nspecial;
};

#define WRAP(name, ctype)						\
	static int pk_##name(void *p, int n, int s)			\
	{ return pvm_pk##name((ctype *)p, n, s); }			\
	static int upk_##name(void *p, int n, int s)			\
	{ return pvm_upk##name((ctype *)p, n, s); }

WRAP(byte, char)
WRAP(short, short)
WRAP(ushort, unsigned short)
WRAP(int, int)
WRAP(uint, unsigned int)
WRAP(long, long)
WRAP(ulong, unsigned long)
WRAP(float, float)
WRAP(double, double)
WRAP(cplx, float)
WRAP(dcplx, double)

static const char sp_byte[] = { 0, 1, 127, -128, -1 };
static const short sp_short[] = { SHRT_MIN, SHRT_MAX, -1, 0, 1 };
static const unsigned short sp_ushort[] = { 0, USHRT_MAX, 0x8000, 1 };
static const int sp_int[] = { INT_MIN, INT_MAX, -1, 0, 1, 0x01020304 };
static const unsigned int sp_uint[] = { 0, UINT_MAX, 0x80000000u, 1 };
static const long sp_long[] = { LONG_MIN, LONG_MAX, -1, 0, 0x0102030405060708 };
static const unsigned long sp_ulong[] = { 0, ULONG_MAX, 1ul << 63, 1 };
static float sp_float[8];
static double sp_double[8];

static void init_specials(void)
{
	float f[] = { NAN, INFINITY, -INFINITY, -0.0f, FLT_MIN, FLT_MAX,
		      FLT_TRUE_MIN, 1.5f };
	double d[] = { NAN, INFINITY, -INFINITY, -0.0, DBL_MIN, DBL_MAX,
		       DBL_TRUE_MIN, -2.25 };

	memcpy(sp_float, f, sizeof(f));
	memcpy(sp_double, d, sizeof(d));
}

static const struct ptype ptypes[] = {
	{ "byte", 1, pk_byte, upk_byte, sp_byte, 5 },
	{ "short", 2, pk_short, upk_short, sp_short, 5 },
	{ "ushort", 2, pk_ushort, upk_ushort, sp_ushort, 4 },
	{ "int", 4, pk_int, upk_int, sp_int, 6 },
	{ "uint", 4, pk_uint, upk_uint, sp_uint, 4 },
	{ "long", 8, pk_long, upk_long, sp_long, 5 },
	{ "ulong", 8, pk_ulong, upk_ulong, sp_ulong, 4 },
	{ "float", 4, pk_float, upk_float, sp_float, 8 },
	{ "double", 8, pk_double, upk_double, sp_double, 8 },
	/* complex: pairs of the float/double specials */
	{ "cplx", 8, pk_cplx, upk_cplx, sp_float, 4 },
	{ "dcplx", 16, pk_dcplx, upk_dcplx, sp_double, 4 },
};

enum { T_BYTE, T_SHORT, T_USHORT, T_INT, T_UINT, T_LONG, T_ULONG, T_FLOAT,
       T_DOUBLE, T_CPLX, T_DCPLX };

/* Packs `n' elements every `stride' slots, unpacks them into a poisoned
 * array with the same stride, and compares bit for bit, gaps included. */
static void roundtrip(const struct ptype *t, int enc, int stride, int n)
{
	size_t span = (size_t)n * stride * t->esz, i, j;
	unsigned char *src = malloc(span), *dst = malloc(span);
	int k;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	fill_random(src, span, (unsigned)(n * 31 + stride * 7 + enc));
	for (k = 0; k < t->nspecial && k < n; k++)
		memcpy(src + (size_t)k * stride * t->esz,
		       (const unsigned char *)t->special + k * t->esz, t->esz);
	memset(dst, 0xa5, span);

	ck_assert_int_gt(pvm_initsend(enc), 0);
	ck_assert_int_eq(t->pk(src, n, stride), PvmOk);
	read_back();
	ck_assert_int_eq(t->upk(dst, n, stride), PvmOk);
	for (i = 0; i < (size_t)n; i++) {
		unsigned char *d = dst + i * stride * t->esz;

		ck_assert_msg(!memcmp(d, src + i * stride * t->esz, t->esz),
			      "%s enc %d stride %d: element %zu differs",
			      t->name, enc, stride, i);
		for (j = t->esz; j < stride * t->esz; j++)
			ck_assert_msg(d[j] == 0xa5,
				      "%s enc %d stride %d: gap after %zu written",
				      t->name, enc, stride, i);
	}
	ck_assert_int_eq(t->upk(dst, 1, 1), PvmNoData);
	free(src);
	free(dst);
}

static void roundtrip_all(const struct ptype *t)
{
	static const int strides[] = { 1, 3 };
	static const int counts[] = { 1, 5, 37 };
	size_t e, s, c;

	init_specials();
	for (e = 0; e < 3; e++)
		for (s = 0; s < 2; s++)
			for (c = 0; c < 3; c++)
				roundtrip(t, encodings[e], strides[s], counts[c]);
}

#define RT_TEST(name, idx)						\
	START_TEST(test_roundtrip_##name)				\
	{								\
		roundtrip_all(&ptypes[idx]);				\
	}								\
	END_TEST

RT_TEST(byte, T_BYTE)
RT_TEST(short, T_SHORT)
RT_TEST(ushort, T_USHORT)
RT_TEST(int, T_INT)
RT_TEST(uint, T_UINT)
RT_TEST(long, T_LONG)
RT_TEST(ulong, T_ULONG)
RT_TEST(float, T_FLOAT)
RT_TEST(double, T_DOUBLE)
RT_TEST(cplx, T_CPLX)
RT_TEST(dcplx, T_DCPLX)

START_TEST(test_roundtrip_strings)
{
	static const char *strs[] = { "", "a", "abc", "abcd", "hello, world" };
	char big[5000], out[5000];
	size_t e, i;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* not PvmDataInPlace: pvm_pkstr is PvmNotImpl there, as stock */
	for (e = 0; e < 2; e++) {
		ck_assert_int_gt(pvm_initsend(encodings[e]), 0);
		for (i = 0; i < 5; i++)
			ck_assert_int_eq(pvm_pkstr((char *)strs[i]), PvmOk);
		ck_assert_int_eq(pvm_pkstr(big), PvmOk);
		read_back();
		for (i = 0; i < 5; i++) {
			memset(out, 0x7f, sizeof(out));
			ck_assert_int_eq(pvm_upkstr(out), PvmOk);
			ck_assert_str_eq(out, strs[i]);
		}
		ck_assert_int_eq(pvm_upkstr(out), PvmOk);
		ck_assert_str_eq(out, big);
		ck_assert_int_eq(pvm_upkstr(out), PvmNoData);
	}
}
END_TEST

START_TEST(test_roundtrip_1mib_arrays)
{
	size_t n = 1 << 18, i, e;
	int *iv = malloc(n * sizeof(int)), *io = malloc(n * sizeof(int));
	char *bv = malloc(n * 4), *bo = malloc(n * 4);

	ck_assert(iv && io && bv && bo);
	for (i = 0; i < n; i++)
		iv[i] = (int)(i * 2654435761u);
	fill_random((unsigned char *)bv, n * 4, 99);
	for (e = 0; e < 3; e++) {
		memset(io, 0, n * sizeof(int));
		memset(bo, 0, n * 4);
		ck_assert_int_gt(pvm_initsend(encodings[e]), 0);
		ck_assert_int_eq(pvm_pkint(iv, (int)n, 1), PvmOk);
		ck_assert_int_eq(pvm_pkbyte(bv, (int)n * 4, 1), PvmOk);
		read_back();
		ck_assert_int_eq(pvm_upkint(io, (int)n, 1), PvmOk);
		ck_assert_int_eq(pvm_upkbyte(bo, (int)n * 4, 1), PvmOk);
		ck_assert(!memcmp(iv, io, n * sizeof(int)));
		ck_assert(!memcmp(bv, bo, n * 4));
	}
	free(iv);
	free(io);
	free(bv);
	free(bo);
}
END_TEST

START_TEST(test_xdr_short_sign_crosses_family)
{
	short s = -1, so = 0;
	unsigned short us = 65535, uo = 0;

	pvm_initsend(PvmDataDefault);
	pvm_pkshort(&s, 1, 1);
	pvm_pkushort(&us, 1, 1);
	read_back();
	ck_assert_int_eq(pvm_upkushort(&uo, 1, 1), PvmOk);
	ck_assert_uint_eq(uo, 65535);
	ck_assert_int_eq(pvm_upkshort(&so, 1, 1), PvmOk);
	ck_assert_int_eq(so, -1);
}
END_TEST

/* Byte layout of the wire format, checked byte for byte. */

START_TEST(test_xdr_layout_int_items)
{
	int v[2] = { 1, -2 };
	unsigned int u = 0xdeadbeef;
	static const unsigned char want[] = {
		0, 0, 0, PVM_INT, 0, 0, 0, 2,
		0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe,
		0, 0, 0, PVM_UINT, 0, 0, 0, 1,
		0xde, 0xad, 0xbe, 0xef,
	};
	unsigned char *b;

	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 2, 1);
	pvm_pkuint(&u, 1, 1);
	b = sbody(sizeof(want));
	ck_assert_mem_eq(b, want, sizeof(want));
	pvmi_buf_free(b);
}
END_TEST

START_TEST(test_xdr_layout_bytes_and_strings_are_padded)
{
	static const unsigned char want[] = {
		0, 0, 0, PVM_BYTE, 0, 0, 0, 3, 'a', 'b', 'c', 0,
		0, 0, 0, PVM_STR, 0, 0, 0, 3, 'h', 'i', 0, 0,
		0, 0, 0, PVM_STR, 0, 0, 0, 4, 'x', 'y', 'z', 0,
		0, 0, 0, PVM_STR, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, PVM_BYTE, 0, 0, 0, 4, 1, 2, 3, 4,
	};
	unsigned char *b;

	pvm_initsend(PvmDataDefault);
	pvm_pkbyte("abc", 3, 1);
	pvm_pkstr("hi");
	pvm_pkstr("xyz");
	pvm_pkstr("");
	pvm_pkbyte("\1\2\3\4", 4, 1);
	b = sbody(sizeof(want));
	ck_assert_mem_eq(b, want, sizeof(want));
	pvmi_buf_free(b);
}
END_TEST

START_TEST(test_xdr_layout_wide_types)
{
	short s = -2;
	unsigned short us = 0xfffe;
	long l = 0x0102030405060708;
	float f = 1.0f;
	double d = 1.0;
	float c[2] = { 1.0f, -2.0f };
	static const unsigned char want[] = {
		0, 0, 0, PVM_SHORT, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe,
		0, 0, 0, PVM_USHORT, 0, 0, 0, 1, 0, 0, 0xff, 0xfe,
		0, 0, 0, PVM_LONG, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8,
		0, 0, 0, PVM_FLOAT, 0, 0, 0, 1, 0x3f, 0x80, 0, 0,
		0, 0, 0, PVM_DOUBLE, 0, 0, 0, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, PVM_CPLX, 0, 0, 0, 1, 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0,
	};
	unsigned char *b;

	pvm_initsend(PvmDataDefault);
	pvm_pkshort(&s, 1, 1);
	pvm_pkushort(&us, 1, 1);
	pvm_pklong(&l, 1, 1);
	pvm_pkfloat(&f, 1, 1);
	pvm_pkdouble(&d, 1, 1);
	pvm_pkcplx(c, 1, 1);
	b = sbody(sizeof(want));
	ck_assert_mem_eq(b, want, sizeof(want));
	pvmi_buf_free(b);
}
END_TEST

START_TEST(test_raw_layout_is_native_and_unpadded)
{
	int v[2] = { 1, -2 };
	short s = 7;
	static const unsigned char hdr_int[] = { 0, 0, 0, PVM_INT, 0, 0, 0, 2 };
	static const unsigned char hdr_byte[] = { 0, 0, 0, PVM_BYTE, 0, 0, 0, 3 };
	static const unsigned char hdr_short[] = { 0, 0, 0, PVM_SHORT, 0, 0, 0, 1 };
	unsigned char *b;
	size_t e;

	for (e = 1; e < 3; e++) {
		pvm_initsend(encodings[e]);
		pvm_pkint(v, 2, 1);
		pvm_pkbyte("abc", 3, 1);
		pvm_pkshort(&s, 1, 1);
		b = sbody(8 + 8 + 8 + 3 + 8 + 2);
		ck_assert_mem_eq(b, hdr_int, 8);
		ck_assert_mem_eq(b + 8, v, 8);
		ck_assert_mem_eq(b + 16, hdr_byte, 8);
		ck_assert_mem_eq(b + 24, "abc", 3);
		ck_assert_mem_eq(b + 27, hdr_short, 8);
		ck_assert_mem_eq(b + 35, &s, 2);
		pvmi_buf_free(b);
	}
}
END_TEST

START_TEST(test_strided_item_holds_only_selected_elements)
{
	int v[7] = { 10, -1, -1, 20, -1, -1, 30 };
	static const unsigned char want[] = {
		0, 0, 0, PVM_INT, 0, 0, 0, 3, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30,
	};
	unsigned char *b;

	pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_pkint(v, 3, 3), PvmOk);
	b = sbody(sizeof(want));
	ck_assert_mem_eq(b, want, sizeof(want));
	pvmi_buf_free(b);
}
END_TEST

/* How unpack calls consume items. */

START_TEST(test_one_item_read_in_two_calls)
{
	int v[10], o[10], i;
	size_t e;

	for (i = 0; i < 10; i++)
		v[i] = i * 11;
	for (e = 0; e < 3; e++) {
		memset(o, 0, sizeof(o));
		pvm_initsend(encodings[e]);
		pvm_pkint(v, 10, 1);
		read_back();
		ck_assert_int_eq(pvm_upkint(o, 5, 1), PvmOk);
		ck_assert_int_eq(pvm_upkint(o + 5, 5, 1), PvmOk);
		ck_assert_mem_eq(o, v, sizeof(v));
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
	}
}
END_TEST

START_TEST(test_two_items_read_in_one_call)
{
	int v[6] = { 1, 2, 3, 4, 5, 6 }, o[6];
	size_t e;

	for (e = 0; e < 3; e++) {
		memset(o, 0, sizeof(o));
		pvm_initsend(encodings[e]);
		pvm_pkint(v, 3, 1);
		pvm_pkint(v + 3, 3, 1);
		read_back();
		ck_assert_int_eq(pvm_upkint(o, 6, 1), PvmOk);
		ck_assert_mem_eq(o, v, sizeof(v));
	}
}
END_TEST

/* Items unpacked whole, with their own type and count, move the cursor
 * past their pad to the next item; a strided one fills only its slots. */
START_TEST(test_whole_items_read_in_place_keep_the_cursor)
{
	char bytes[5] = { 'a', 'b', 'c', 'd', 'e' }, ob[5];
	int v[3] = { 7, -8, 9 }, o[5];
	double d[2] = { 0.5, -2.25 }, od[2];
	size_t e;

	for (e = 0; e < 3; e++) {
		memset(ob, 0, sizeof(ob));
		memset(od, 0, sizeof(od));
		memset(o, 0xff, sizeof(o));
		pvm_initsend(encodings[e]);
		pvm_pkbyte(bytes, 5, 1);
		pvm_pkint(v, 3, 1);
		pvm_pkdouble(d, 2, 1);
		read_back();
		ck_assert_int_eq(pvm_upkbyte(ob, 5, 1), PvmOk);
		ck_assert_mem_eq(ob, bytes, sizeof(bytes));
		ck_assert_int_eq(pvm_upkint(o, 3, 2), PvmOk);
		ck_assert_int_eq(o[0], 7);
		ck_assert_int_eq(o[2], -8);
		ck_assert_int_eq(o[4], 9);
		ck_assert_int_eq(o[1], -1);
		ck_assert_int_eq(o[3], -1);
		ck_assert_int_eq(pvm_upkdouble(od, 2, 1), PvmOk);
		ck_assert_mem_eq(od, d, sizeof(d));
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
	}
}
END_TEST

START_TEST(test_signed_and_unsigned_items_merge)
{
	int v[2] = { -5, 6 };
	unsigned int u[2] = { 7, UINT_MAX };
	unsigned int o[4];

	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 2, 1);
	pvm_pkuint(u, 2, 1);
	read_back();
	ck_assert_int_eq(pvm_upkuint(o, 4, 1), PvmOk);
	ck_assert_uint_eq(o[0], (unsigned int)-5);
	ck_assert_uint_eq(o[1], 6);
	ck_assert_uint_eq(o[2], 7);
	ck_assert_uint_eq(o[3], UINT_MAX);
}
END_TEST

START_TEST(test_unpack_across_items_with_stride)
{
	long v[4] = { 1, 2, 3, 4 }, o[8];
	int i;

	pvm_initsend(PvmDataRaw);
	pvm_pklong(v, 1, 1);
	pvm_pklong(v + 1, 3, 1);
	read_back();
	for (i = 0; i < 8; i++)
		o[i] = -9;
	ck_assert_int_eq(pvm_upklong(o, 4, 2), PvmOk);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(o[2 * i], v[i]);
		ck_assert_int_eq(o[2 * i + 1], -9);
	}
}
END_TEST

START_TEST(test_past_the_end_copies_what_is_there_and_is_nodata)
{
	int v[3] = { 1, 2, 3 }, o[4];
	size_t e;

	/* as stock: the ints left are copied and consumed */
	for (e = 0; e < 3; e++) {
		memset(o, 0xff, sizeof(o));
		pvm_initsend(encodings[e]);
		pvm_pkint(v, 3, 1);
		read_back();
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmOk);
		ck_assert_int_eq(pvm_upkint(o + 1, 3, 1), PvmNoData);
		ck_assert_int_eq(pvm_errno, PvmNoData);
		ck_assert_mem_eq(o, v, sizeof(v));
		ck_assert_int_eq(o[3], -1);
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
		ck_assert_int_eq(o[0], 1);
	}
}
END_TEST

START_TEST(test_strict_past_the_end_is_nodata_and_consumes_nothing)
{
	int v[3] = { 1, 2, 3 }, o[4] = { -1, -1, -1, -1 };
	size_t e;

	setenv("COPVM_STRICT_UNPACK", "1", 1);
	for (e = 0; e < 3; e++) {
		memset(o, 0xff, sizeof(o));
		pvm_initsend(encodings[e]);
		pvm_pkint(v, 3, 1);
		read_back();
		ck_assert_int_eq(pvm_upkint(o, 4, 1), PvmNoData);
		ck_assert_int_eq(pvm_errno, PvmNoData);
		ck_assert_int_eq(o[0], -1);
		ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
		ck_assert_int_eq(pvm_upkint(o + 2, 2, 1), PvmNoData);
		ck_assert_int_eq(o[2], -1);
		ck_assert_int_eq(pvm_upkint(o + 2, 1, 1), PvmOk);
		ck_assert_mem_eq(o, v, sizeof(v));
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
	}
}
END_TEST

START_TEST(test_strict_wrong_type_is_badmsg_and_consumes_nothing)
{
	int v[4] = { 1, 2, 3, 4 }, o[4] = { 0 };
	float f[2];
	double d;
	char s[8];
	size_t e;

	setenv("COPVM_STRICT_UNPACK", "1", 1);
	for (e = 0; e < 3; e++) {
		pvm_initsend(encodings[e]);
		pvm_pkint(v, 4, 1);
		pvm_pkdouble(&(double){ 2.5 }, 1, 1);
		read_back();
		ck_assert_int_eq(pvm_upkfloat(f, 1, 1), PvmBadMsg);
		ck_assert_int_eq(pvm_upkstr(s), PvmBadMsg);
		ck_assert_int_eq(pvm_upklong((long *)f, 1, 1), PvmBadMsg);
		ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
		/* inside the item too */
		ck_assert_int_eq(pvm_upkfloat(f, 1, 1), PvmBadMsg);
		ck_assert_int_eq(pvm_upkstr(s), PvmBadMsg);
		/* running into the double: nothing taken from the ints */
		ck_assert_int_eq(pvm_upkint(o + 2, 3, 1), PvmBadMsg);
		ck_assert_int_eq(pvm_errno, PvmBadMsg);
		ck_assert_int_eq(pvm_upkint(o + 2, 2, 1), PvmOk);
		ck_assert_mem_eq(o, v, sizeof(v));
		ck_assert_int_eq(pvm_upkdouble(&d, 1, 1), PvmOk);
		ck_assert(d == 2.5);
	}
}
END_TEST

START_TEST(test_wrong_type_reads_the_bytes_as_stock)
{
	float fv = 1.5f, f;
	double dv = -2.25;
	int iv, o[3];
	uint64_t bits;
	size_t e;

	memcpy(&iv, &fv, 4);
	memcpy(&bits, &dv, 8);
	for (e = 0; e < 3; e++) {
		pvm_initsend(encodings[e]);
		pvm_pkint(&iv, 1, 1);
		pvm_pkdouble(&dv, 1, 1);
		pvm_pkint(&iv, 1, 1);
		read_back();
		ck_assert_int_eq(pvm_upkfloat(&f, 1, 1), PvmOk);
		ck_assert(f == 1.5f);
		/* a double as two ints: XDR big-endian halves, raw native */
		ck_assert_int_eq(pvm_upkint(o, 3, 1), PvmOk);
		if (encodings[e] == PvmDataDefault) {
			ck_assert_uint_eq((uint32_t)o[0], bits >> 32);
			ck_assert_uint_eq((uint32_t)o[1], (uint32_t)bits);
		} else {
			ck_assert_uint_eq((uint32_t)o[0], (uint32_t)bits);
			ck_assert_uint_eq((uint32_t)o[1], bits >> 32);
		}
		ck_assert_int_eq(o[2], iv);
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
	}
}
END_TEST

START_TEST(test_string_read_as_bytes_shows_its_length)
{
	static const unsigned char xdr[] = { 0, 0, 0, 4, 'a', 'b', 'c', 0 };
	unsigned char b[8];
	char s[8];
	int v;

	pvm_initsend(PvmDataDefault);
	pvm_pkstr("abc");
	pvm_pkbyte("xyz", 3, 1);
	read_back();
	ck_assert_int_eq(pvm_upkbyte((char *)b, 8, 1), PvmOk);
	ck_assert_mem_eq(b, xdr, 8);
	ck_assert_int_eq(pvm_upkbyte((char *)b, 3, 1), PvmOk);
	ck_assert_mem_eq(b, "xyz", 3);

	pvm_initsend(PvmDataRaw);
	pvm_pkstr("abc");
	read_back();
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	ck_assert_int_eq(v, 4);
	ck_assert_int_eq(pvm_upkbyte((char *)b, 4, 1), PvmOk);
	ck_assert_mem_eq(b, "abc", 4);

	/* bytes read as a string: a length, then what is there */
	pvm_initsend(PvmDataRaw);
	pvm_pkint(&(int){ 2 }, 1, 1);
	pvm_pkbyte("hi", 2, 1);
	read_back();
	memset(s, 0, sizeof(s));
	ck_assert_int_eq(pvm_upkstr(s), PvmOk);
	ck_assert_str_eq(s, "hi");
}
END_TEST

START_TEST(test_strict_string_item_is_not_bytes)
{
	char b[8];

	setenv("COPVM_STRICT_UNPACK", "1", 1);
	pvm_initsend(PvmDataDefault);
	pvm_pkstr("abc");
	pvm_pkbyte("xyz", 3, 1);
	read_back();
	ck_assert_int_eq(pvm_upkbyte(b, 4, 1), PvmBadMsg);
	ck_assert_int_eq(pvm_upkstr(b), PvmOk);
	ck_assert_str_eq(b, "abc");
	ck_assert_int_eq(pvm_upkstr(b), PvmBadMsg);
	ck_assert_int_eq(pvm_upkbyte(b, 3, 1), PvmOk);
	ck_assert_mem_eq(b, "xyz", 3);
}
END_TEST

START_TEST(test_xdr_long_is_stock_sized_and_keeps_its_value)
{
	long v[2] = { 0x1122334455667788L, -5 }, o[2];
	int bytes, iv[2];

	pvm_initsend(PvmDataDefault);
	pvm_pklong(v, 2, 1);
	read_back();
	/* stock's size: 4 bytes a long */
	ck_assert_int_eq(pvm_bufinfo(pvm_getrbuf(), &bytes, NULL, NULL),
			 PvmOk);
	ck_assert_int_eq(bytes, 8);
	/* read as longs, all 64 bits and the sign (stock loses both) */
	ck_assert_int_eq(pvm_upklong(o, 2, 1), PvmOk);
	ck_assert(o[0] == v[0] && o[1] == v[1]);
	/* read as ints, stock's 4 bytes: the low halves */
	pvmi_msg_rewind(pvmi_mid_lookup(pvm_getrbuf()));
	ck_assert_int_eq(pvm_upkint(iv, 2, 1), PvmOk);
	ck_assert_int_eq(iv[0], 0x55667788);
	ck_assert_int_eq(iv[1], -5);
}
END_TEST

START_TEST(test_bad_arguments)
{
	int v[2] = { 0 };

	pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_pkint(v, -1, 1), PvmBadParam);
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	ck_assert_int_eq(pvm_pkint(v, 1, 0), PvmBadParam);
	ck_assert_int_eq(pvm_pkint(v, 1, -2), PvmBadParam);
	ck_assert_int_eq(pvm_pkint(NULL, 1, 1), PvmBadParam);
	ck_assert_int_eq(pvm_pkstr(NULL), PvmBadParam);
	ck_assert_int_eq(pvm_pkint(v, 0, 1), PvmOk);
	ck_assert_uint_eq(smsg()->len, 0);
	read_back();
	ck_assert_int_eq(pvm_upkint(v, -1, 1), PvmBadParam);
	ck_assert_int_eq(pvm_upkint(v, 1, 0), PvmBadParam);
	ck_assert_int_eq(pvm_upkstr(NULL), PvmBadParam);
	ck_assert_int_eq(pvm_upkint(v, 0, 1), PvmOk);
	ck_assert_int_eq(pvmi_pack(smsg(), 99, v, 1, 1), PvmBadParam);
	ck_assert_int_eq(pvmi_unpack(smsg(), -1, v, 1, 1), PvmBadParam);
}
END_TEST

START_TEST(test_no_active_buffer_is_nobuf)
{
	int v = 1;
	char s[4];

	ck_assert_int_eq(pvm_pkint(&v, 1, 1), PvmNoBuf);
	ck_assert_int_eq(pvm_pkstr("x"), PvmNoBuf);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmNoBuf);
	ck_assert_int_eq(pvm_upkstr(s), PvmNoBuf);
	ck_assert_int_eq(pvm_upkmesg(), PvmNoBuf);
	ck_assert_int_eq(pvm_errno, PvmNoBuf);
	/* arguments are checked first */
	ck_assert_int_eq(pvm_pkint(&v, -1, 1), PvmBadParam);
}
END_TEST

/* Bodies that did not come from pvm_pk*: received or hand-built. */

/* Wraps a copy of `b' as a received message and makes it the rbuf. */
static void receive_body(const void *b, size_t n, int enc)
{
	void *copy = pvmi_buf_alloc(n);
	struct pvmi_msg *m;

	memcpy(copy, b, n);
	m = pvmi_msg_from_body(copy, n, enc);
	ck_assert_ptr_nonnull(m);
	pvm_setrbuf(pvmi_mid_register(m));
}

START_TEST(test_unpack_received_xdr_body)
{
	static const unsigned char body[] = {
		0, 0, 0, PVM_INT, 0, 0, 0, 2, 0x80, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff,
		0, 0, 0, PVM_INT, 0, 0, 0, 0,	/* empty items are skipped */
		0, 0, 0, PVM_STR, 0, 0, 0, 2, 'q', 0, 0, 0,
	};
	int o[2];
	char s[4];

	receive_body(body, sizeof(body), PvmDataDefault);
	ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmOk);
	ck_assert_int_eq(o[0], INT_MIN);
	ck_assert_int_eq(o[1], INT_MAX);
	ck_assert_int_eq(pvm_upkstr(s), PvmOk);
	ck_assert_str_eq(s, "q");
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
}
END_TEST

START_TEST(test_truncated_or_corrupt_body_is_badmsg)
{
	static const unsigned char short_item[] = {
		0, 0, 0, PVM_INT, 0, 0, 0, 10, 0, 0, 0, 1,
	};
	static const unsigned char short_hdr[] = { 0, 0, 0, PVM_INT, 0 };
	static const unsigned char bad_type[] = {
		0, 0, 0, 77, 0, 0, 0, 1, 0, 0, 0, 1,
	};
	int o[10];

	receive_body(short_item, sizeof(short_item), PvmDataDefault);
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmBadMsg);
	receive_body(short_hdr, sizeof(short_hdr), PvmDataDefault);
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmBadMsg);
	receive_body(bad_type, sizeof(bad_type), PvmDataDefault);
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmBadMsg);
	receive_body("", 0, PvmDataDefault);
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
	receive_body(short_item, sizeof(short_item), 42);
	ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmBadMsg);
}
END_TEST

/* An item whose header counts more elements than the body holds is
 * refused before anything is copied, whole-item read or not. */
START_TEST(test_whole_item_longer_than_the_body_copies_nothing)
{
	static const unsigned char two_ints_one_there[] = {
		0, 0, 0, PVM_INT, 0, 0, 0, 2, 0, 0, 0, 1,
	};
	int o[2] = { -5, -5 };

	receive_body(two_ints_one_there, sizeof(two_ints_one_there),
		     PvmDataDefault);
	ck_assert_int_eq(pvm_upkint(o, 2, 1), PvmBadMsg);
	ck_assert_int_eq(o[0], -5);
	ck_assert_int_eq(o[1], -5);
}
END_TEST

START_TEST(test_element_split_between_fragments)
{
	struct pvmi_msg *m = pvmi_msg_new(PvmDataRaw);
	double v[2] = { 3.25, -1e300 }, o[2];
	static unsigned char tail[12];
	unsigned char *p;

	/* header and 4 bytes of v[0] owned, the other 12 bytes borrowed */
	p = pvmi_msg_extend(m, 12);
	ck_assert_ptr_nonnull(p);
	memcpy(p, (unsigned char[]){ 0, 0, 0, PVM_DOUBLE, 0, 0, 0, 2 }, 8);
	memcpy(p + 8, v, 4);
	memcpy(tail, (unsigned char *)v + 4, 12);
	ck_assert_int_eq(pvmi_msg_borrow(m, tail, 12), PvmOk);
	ck_assert_int_eq(m->nfrag, 2);
	ck_assert_int_eq(pvmi_unpack(m, PVM_DOUBLE, o, 2, 1), PvmOk);
	ck_assert(o[0] == v[0] && o[1] == v[1]);
	pvmi_msg_free(m);
}
END_TEST

/* PvmDataInPlace keeps the user's memory until the body is read. */

START_TEST(test_inplace_borrows_dense_arrays)
{
	int v[4] = { 1, 2, 3, 4 }, o[4];
	struct pvmi_msg *m;
	unsigned char *flat;
	size_t len;

	pvm_initsend(PvmDataInPlace);
	ck_assert_int_eq(pvm_pkint(v, 4, 1), PvmOk);
	m = smsg();
	ck_assert_int_eq(m->nfrag, 2);
	ck_assert_ptr_eq(m->frags[1].data, (void *)v);
	ck_assert_uint_eq(m->frags[1].cap, 0);
	ck_assert_uint_eq(m->len, 8 + sizeof(v));

	v[2] = 33;		/* seen by a later flatten */
	flat = pvmi_msg_flatten(m, &len);
	ck_assert_uint_eq(len, 8 + sizeof(v));
	ck_assert_mem_eq(flat + 8, v, sizeof(v));
	v[3] = 44;		/* not seen by the copy already made */
	ck_assert_int_eq(((int *)(flat + 8))[3], 4);
	pvmi_buf_free(flat);

	read_back();		/* unpacking reads the user memory too */
	ck_assert_int_eq(pvm_upkint(o, 4, 1), PvmOk);
	ck_assert_int_eq(o[2], 33);
	ck_assert_int_eq(o[3], 44);
}
END_TEST

START_TEST(test_inplace_copies_strided_data_and_strings)
{
	int v[6] = { 1, 0, 2, 0, 3, 0 }, o[3];
	char s[8] = "abc", so[8];

	pvm_initsend(PvmDataInPlace);
	ck_assert_int_eq(pvm_pkint(v, 3, 2), PvmOk);
	/* pvm_pkstr refuses in place, as stock; pvm_packf's %s copies */
	ck_assert_int_eq(pvm_pkstr(s), PvmNotImpl);
	ck_assert_int_eq(pvm_packf("%s", s), PvmOk);
	ck_assert_int_eq(smsg()->nfrag, 1);
	v[2] = 99;
	s[0] = 'z';
	read_back();
	ck_assert_int_eq(pvm_upkint(o, 3, 1), PvmOk);
	ck_assert_int_eq(o[1], 2);
	ck_assert_int_eq(pvm_upkstr(so), PvmOk);
	ck_assert_str_eq(so, "abc");
}
END_TEST

START_TEST(test_inplace_many_items_across_fragments)
{
	int a[3] = { 1, 2, 3 }, b[2] = { 4, 5 }, o[6];
	short sh = 6, sho = 0;
	struct iovec iov[8];

	pvm_initsend(PvmDataInPlace);
	pvm_pkint(a, 3, 1);
	pvm_pkint(b, 2, 1);
	pvm_pkshort(&sh, 1, 1);
	/* header, a, header, b, header, sh */
	ck_assert_int_eq(smsg()->nfrag, 6);
	ck_assert_int_eq(pvmi_msg_iov(smsg(), iov, 8), 6);
	ck_assert_ptr_eq(iov[1].iov_base, (void *)a);
	ck_assert_ptr_eq(iov[3].iov_base, (void *)b);
	ck_assert_ptr_eq(iov[5].iov_base, (void *)&sh);
	ck_assert_int_eq(pvmi_msg_iov(smsg(), iov, 2), 2);
	read_back();
	ck_assert_int_eq(pvm_upkint(o, 5, 1), PvmOk);
	ck_assert_int_eq(o[4], 5);
	ck_assert_int_eq(pvm_upkshort(&sho, 1, 1), PvmOk);
	ck_assert_int_eq(sho, 6);
}
END_TEST

/* Messages inside messages. */

START_TEST(test_pkmesg_upkmesg_roundtrip)
{
	struct pvmminfo mi = { 0 };
	int inner, outer, got, v[3] = { 7, 8, 9 }, o[3], tag, tid, bytes;
	size_t inner_len;
	char s[16];

	for (int e = 0; e < 3; e++) {
		inner = pvm_mkbuf(encodings[e]);
		pvm_setsbuf(inner);
		pvm_pkint(v, 3, 1);
		pvm_packf("%s", "inner");	/* pvm_pkstr: not in place */
		mi.ctx = 5;
		mi.dst = 0x40004;
		mi.wid = 31;
		mi.tag = 77;
		mi.src = 0x40003;
		ck_assert_int_eq(pvm_setminfo(inner, &mi), PvmOk);

		outer = pvm_mkbuf(PvmDataDefault);
		pvm_setsbuf(outer);
		pvm_pkstr("before");
		ck_assert_int_eq(pvm_pkmesg(inner), PvmOk);
		inner_len = pvmi_msg_data_len(pvmi_mid_lookup(inner));
		pvm_pkint(v, 1, 1);
		/* the packed copy does not follow later changes */
		pvm_setsbuf(inner);
		pvm_pkint(v, 1, 1);
		pvm_setsbuf(outer);

		pvm_setrbuf(outer);
		ck_assert_int_eq(pvm_upkstr(s), PvmOk);
		ck_assert_str_eq(s, "before");
		got = pvm_upkmesg();
		ck_assert_int_gt(got, 0);
		ck_assert_int_ne(got, inner);
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmOk);
		ck_assert_int_eq(o[0], 7);
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);

		ck_assert_int_eq(pvm_bufinfo(got, &bytes, &tag, &tid), PvmOk);
		ck_assert_int_eq(tag, 77);
		ck_assert_int_eq(tid, 0x40003);
		ck_assert_int_eq(pvm_getminfo(got, &mi), PvmOk);
		ck_assert_int_eq(mi.ctx, 5);
		ck_assert_int_eq(mi.dst, 0x40004);
		ck_assert_int_eq(mi.wid, 31);
		ck_assert_int_eq(bytes, (int)inner_len);
		/* an in-place body arrives as native data, as stock's */
		ck_assert_int_eq(pvmi_mid_lookup(got)->enc,
				 encodings[e] == PvmDataInPlace ? PvmDataRaw
								: encodings[e]);
		pvm_setrbuf(got);
		memset(o, 0, sizeof(o));
		ck_assert_int_eq(pvm_upkint(o, 3, 1), PvmOk);
		ck_assert_mem_eq(o, v, sizeof(v));
		ck_assert_int_eq(pvm_upkstr(s), PvmOk);
		ck_assert_str_eq(s, "inner");
		ck_assert_int_eq(pvm_upkint(o, 1, 1), PvmNoData);
		pvm_freebuf(got);
		pvm_freebuf(outer);
		pvm_freebuf(inner);
	}
}
END_TEST

START_TEST(test_pkmesg_errors)
{
	int sb, other, v = 1;

	ck_assert_int_eq(pvm_pkmesg(1), PvmNoBuf);
	sb = pvm_initsend(PvmDataDefault);
	other = pvm_mkbuf(PvmDataRaw);
	ck_assert_int_eq(pvm_pkmesg(sb), PvmBadParam);
	ck_assert_int_eq(pvm_pkmesg(0), PvmBadParam);
	ck_assert_int_eq(pvm_pkmesg(-3), PvmBadParam);
	ck_assert_int_eq(pvm_pkmesg(999), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_pkmesgbody(other), PvmMismatch);
	ck_assert_int_eq(pvm_pkmesgbody(sb), PvmBadParam);
	pvm_pkint(&v, 1, 1);
	read_back();
	ck_assert_int_eq(pvm_upkmesg(), PvmBadMsg);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	ck_assert_int_eq(pvm_upkmesg(), PvmNoData);
}
END_TEST

START_TEST(test_pkmesgbody_splices_bodies)
{
	int a = 1, b[2] = { 2, 3 }, o[3];
	int part, main_buf;
	char s[8];

	part = pvm_mkbuf(PvmDataRaw);
	pvm_setsbuf(part);
	pvm_pkint(b, 2, 1);
	pvm_pkstr("end");
	main_buf = pvm_mkbuf(PvmDataInPlace);	/* same native layout */
	pvm_setsbuf(main_buf);
	pvm_pkint(&a, 1, 1);
	ck_assert_int_eq(pvm_pkmesgbody(part), PvmOk);
	read_back();
	ck_assert_int_eq(pvm_upkint(o, 3, 1), PvmOk);
	ck_assert_int_eq(o[0], 1);
	ck_assert_int_eq(o[2], 3);
	ck_assert_int_eq(pvm_upkstr(s), PvmOk);
	ck_assert_str_eq(s, "end");
}
END_TEST

/* pvm_packf() and pvm_unpackf(). */

START_TEST(test_packf_values_roundtrip)
{
	char c;
	short h;
	unsigned short uh;
	int d;
	unsigned int u;
	long l;
	unsigned long ul;
	float f;
	double lf;
	char s[16];

	ck_assert_int_eq(pvm_packf("%+ %c %hd %hu %d %u %ld %lu %f %lf %s",
				   PvmDataDefault, 'A', -3, 65000, INT_MIN,
				   UINT_MAX, LONG_MIN, ULONG_MAX, 1.5, -0.25,
				   "str"), PvmOk);
	ck_assert_int_gt(pvm_getsbuf(), 0);
	read_back();
	ck_assert_int_eq(pvm_unpackf("%c %hd %hu %d %u %ld %lu %f %lf %s", &c, &h,
				     &uh, &d, &u, &l, &ul, &f, &lf, s), PvmOk);
	ck_assert_int_eq(c, 'A');
	ck_assert_int_eq(h, -3);
	ck_assert_uint_eq(uh, 65000);
	ck_assert_int_eq(d, INT_MIN);
	ck_assert_uint_eq(u, UINT_MAX);
	ck_assert_int_eq(l, LONG_MIN);
	ck_assert_uint_eq(ul, ULONG_MAX);
	ck_assert(f == 1.5f);
	ck_assert(lf == -0.25);
	ck_assert_str_eq(s, "str");
}
END_TEST

START_TEST(test_packf_counts_and_strides)
{
	int count = 3, arr[6] = { 1, 2, 3, 4, 5, 6 }, n, o[6];
	double darr[4] = { 1, 2, 3, 4 }, dout[4];
	float cx[4] = { 1, 2, 3, 4 }, cxo[4];
	int sb;

	/* the man page example */
	sb = pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_packf("%+ %d %*d %4lf", PvmDataRaw, count, count,
				   arr, darr), PvmOk);
	ck_assert_int_ne(pvm_getsbuf(), sb);
	ck_assert_int_eq(smsg()->enc, PvmDataRaw);
	ck_assert_int_eq(pvm_packf("%3.2d %.*d %2x", arr, 2, arr + 1, cx),
			 PvmOk);
	read_back();
	ck_assert_int_eq(pvm_unpackf("%d", &n), PvmOk);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(pvm_unpackf("%*d %4lf", n, o, dout), PvmOk);
	ck_assert_mem_eq(o, arr, 3 * sizeof(int));
	ck_assert_mem_eq(dout, darr, sizeof(darr));
	memset(o, 0, sizeof(o));
	ck_assert_int_eq(pvm_unpackf("%3.*d", 2, o), PvmOk);
	ck_assert_int_eq(o[0], 1);
	ck_assert_int_eq(o[2], 3);
	ck_assert_int_eq(o[4], 5);
	ck_assert_int_eq(o[1], 0);
	ck_assert_int_eq(pvm_unpackf("%1d %2x", o, cxo), PvmOk);
	ck_assert_int_eq(o[0], 2);
	ck_assert_mem_eq(cxo, cx, sizeof(cx));
}
END_TEST

START_TEST(test_packf_errors)
{
	int v;

	ck_assert_int_eq(pvm_packf("%d", 1), PvmNoBuf);
	pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_packf("%q", 1), PvmBadParam);
	ck_assert_int_eq(pvm_packf("%.d", 1), PvmBadParam);
	ck_assert_int_eq(pvm_packf("%+", 17), PvmBadParam);
	ck_assert_int_eq(pvm_packf("%d", 5), PvmOk);
	read_back();
	ck_assert_int_eq(pvm_unpackf("%+ %d", 0, &v), PvmBadParam);
	ck_assert_int_eq(pvm_unpackf("%d", &v), PvmOk);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(pvm_unpackf("%d", &v), PvmNoData);
}
END_TEST

static int call_vpackf(const char *fmt, ...)
{
	va_list ap;
	int cc;

	va_start(ap, fmt);
	cc = pvm_vpackf(fmt, ap);
	va_end(ap);
	return cc;
}

static int call_vunpackf(const char *fmt, ...)
{
	va_list ap;
	int cc;

	va_start(ap, fmt);
	cc = pvm_vunpackf(fmt, ap);
	va_end(ap);
	return cc;
}

START_TEST(test_vpackf_vunpackf)
{
	int a = 0;
	long b = 0;

	ck_assert_int_eq(call_vpackf("%+%d%ld", PvmDataRaw, 42, 43L), PvmOk);
	read_back();
	ck_assert_int_eq(call_vunpackf("%d%ld", &a, &b), PvmOk);
	ck_assert_int_eq(a, 42);
	ck_assert_int_eq(b, 43);
}
END_TEST

static Suite *pack_suite(void)
{
	Suite *s = suite_create("pack");
	TCase *tc;

	tc = tcase_create("roundtrip");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_roundtrip_byte);
	tcase_add_test(tc, test_roundtrip_short);
	tcase_add_test(tc, test_roundtrip_ushort);
	tcase_add_test(tc, test_roundtrip_int);
	tcase_add_test(tc, test_roundtrip_uint);
	tcase_add_test(tc, test_roundtrip_long);
	tcase_add_test(tc, test_roundtrip_ulong);
	tcase_add_test(tc, test_roundtrip_float);
	tcase_add_test(tc, test_roundtrip_double);
	tcase_add_test(tc, test_roundtrip_cplx);
	tcase_add_test(tc, test_roundtrip_dcplx);
	tcase_add_test(tc, test_roundtrip_strings);
	tcase_add_test(tc, test_roundtrip_1mib_arrays);
	tcase_add_test(tc, test_xdr_short_sign_crosses_family);
	suite_add_tcase(s, tc);

	tc = tcase_create("layout");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_xdr_layout_int_items);
	tcase_add_test(tc, test_xdr_layout_bytes_and_strings_are_padded);
	tcase_add_test(tc, test_xdr_layout_wide_types);
	tcase_add_test(tc, test_raw_layout_is_native_and_unpadded);
	tcase_add_test(tc, test_strided_item_holds_only_selected_elements);
	suite_add_tcase(s, tc);

	tc = tcase_create("consume");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_one_item_read_in_two_calls);
	tcase_add_test(tc, test_two_items_read_in_one_call);
	tcase_add_test(tc, test_whole_items_read_in_place_keep_the_cursor);
	tcase_add_test(tc, test_signed_and_unsigned_items_merge);
	tcase_add_test(tc, test_unpack_across_items_with_stride);
	tcase_add_test(tc, test_past_the_end_copies_what_is_there_and_is_nodata);
	tcase_add_test(tc, test_strict_past_the_end_is_nodata_and_consumes_nothing);
	tcase_add_test(tc, test_strict_wrong_type_is_badmsg_and_consumes_nothing);
	tcase_add_test(tc, test_wrong_type_reads_the_bytes_as_stock);
	tcase_add_test(tc, test_string_read_as_bytes_shows_its_length);
	tcase_add_test(tc, test_strict_string_item_is_not_bytes);
	tcase_add_test(tc, test_xdr_long_is_stock_sized_and_keeps_its_value);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_no_active_buffer_is_nobuf);
	tcase_add_test(tc, test_unpack_received_xdr_body);
	tcase_add_test(tc, test_truncated_or_corrupt_body_is_badmsg);
	tcase_add_test(tc, test_whole_item_longer_than_the_body_copies_nothing);
	tcase_add_test(tc, test_element_split_between_fragments);
	suite_add_tcase(s, tc);

	tc = tcase_create("inplace");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_inplace_borrows_dense_arrays);
	tcase_add_test(tc, test_inplace_copies_strided_data_and_strings);
	tcase_add_test(tc, test_inplace_many_items_across_fragments);
	suite_add_tcase(s, tc);

	tc = tcase_create("mesg");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_pkmesg_upkmesg_roundtrip);
	tcase_add_test(tc, test_pkmesg_errors);
	tcase_add_test(tc, test_pkmesgbody_splices_bodies);
	suite_add_tcase(s, tc);

	tc = tcase_create("packf");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_packf_values_roundtrip);
	tcase_add_test(tc, test_packf_counts_and_strides);
	tcase_add_test(tc, test_packf_errors);
	tcase_add_test(tc, test_vpackf_vunpackf);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pack_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

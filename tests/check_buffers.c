/*
 * check_buffers.c - unit tests of lib/buffers.c and lib/msg.c: making and
 * freeing buffers, the active send and receive buffers, the header info
 * calls, and the message object underneath (fragments, flattening, ids).
 *
 * Built from the library sources directly, so it needs no daemon.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "pvmi.h"
#include "msg.h"
#include "proto.h"

static void setup(void)
{
	pvmi.autoerr = 0;
}

START_TEST(test_mkbuf_every_encoding)
{
	static const int encs[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };
	int ids[3], i;

	for (i = 0; i < 3; i++) {
		ids[i] = pvm_mkbuf(encs[i]);
		ck_assert_int_gt(ids[i], 0);
		ck_assert_ptr_nonnull(pvmi_mid_lookup(ids[i]));
		ck_assert_int_eq(pvmi_mid_lookup(ids[i])->enc, encs[i]);
		ck_assert_int_eq(pvmi_mid_lookup(ids[i])->mid, ids[i]);
	}
	ck_assert_int_ne(ids[0], ids[1]);
	ck_assert_int_ne(ids[1], ids[2]);
	ck_assert_int_ne(ids[0], ids[2]);
	/* making a buffer does not select it */
	ck_assert_int_eq(pvm_getsbuf(), 0);
	ck_assert_int_eq(pvm_getrbuf(), 0);
	/* PvmDataTrace is accepted, as by stock, and packs XDR */
	i = pvm_mkbuf(PvmDataTrace);
	ck_assert_int_gt(i, 0);
	ck_assert_int_eq(pvmi_mid_lookup(i)->enc, PvmDataDefault);
}
END_TEST

START_TEST(test_mkbuf_bad_encoding_is_badparam)
{
	ck_assert_int_eq(pvm_mkbuf(3), PvmBadParam);
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	ck_assert_int_eq(pvm_mkbuf(-1), PvmBadParam);
	ck_assert_int_eq(pvm_mkbuf(5), PvmBadParam);
	ck_assert_int_eq(pvm_initsend(9), PvmBadParam);
}
END_TEST

START_TEST(test_freebuf)
{
	int a = pvm_mkbuf(PvmDataDefault), b;

	ck_assert_int_eq(pvm_freebuf(a), PvmOk);
	ck_assert_ptr_null(pvmi_mid_lookup(a));
	ck_assert_int_eq(pvm_freebuf(a), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_errno, PvmNoSuchBuf);
	ck_assert_int_eq(pvm_freebuf(999), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_freebuf(-1), PvmBadParam);
	ck_assert_int_eq(pvm_freebuf(0), PvmOk);
	/* a freed id is not handed out again at once */
	b = pvm_mkbuf(PvmDataDefault);
	ck_assert_int_gt(b, 0);
	ck_assert_int_ne(b, a);
}
END_TEST

START_TEST(test_freebuf_of_active_buffers_clears_them)
{
	int s = pvm_initsend(PvmDataDefault), r = pvm_mkbuf(PvmDataRaw);

	pvm_setrbuf(r);
	ck_assert_int_eq(pvm_freebuf(s), PvmOk);
	ck_assert_int_eq(pvm_getsbuf(), 0);
	ck_assert_int_eq(pvm_getrbuf(), r);
	ck_assert_int_eq(pvm_freebuf(r), PvmOk);
	ck_assert_int_eq(pvm_getrbuf(), 0);
	ck_assert_int_eq(pvm_pkint(&s, 1, 1), PvmNoBuf);
	ck_assert_int_eq(pvm_upkint(&s, 1, 1), PvmNoBuf);
}
END_TEST

START_TEST(test_initsend_replaces_send_buffer)
{
	int a, b, v = 1;

	a = pvm_initsend(PvmDataDefault);
	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(pvm_getsbuf(), a);
	pvm_pkint(&v, 1, 1);
	b = pvm_initsend(PvmDataRaw);
	ck_assert_int_gt(b, 0);
	ck_assert_int_ne(a, b);
	ck_assert_int_eq(pvm_getsbuf(), b);
	ck_assert_ptr_null(pvmi_mid_lookup(a));
	ck_assert_int_eq(pvmi_mid_lookup(b)->enc, PvmDataRaw);
	ck_assert_uint_eq(pvmi_mid_lookup(b)->len, 0);
	/* a bad encoding keeps the current buffer */
	ck_assert_int_eq(pvm_initsend(7), PvmBadParam);
	ck_assert_int_eq(pvm_getsbuf(), b);
}
END_TEST

/* An initsend of the active buffer's encoding empties that buffer in
 * place: a new id, the old one gone, nothing of the old content left.
 * A buffer made the receive buffer is left alone. */
START_TEST(test_initsend_same_encoding_renews_in_place)
{
	int a, b, c, v[3] = { 1, 2, 3 }, o = 0;

	a = pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 3, 1);
	b = pvm_initsend(PvmDataDefault);
	ck_assert_int_gt(b, 0);
	ck_assert_int_ne(a, b);
	ck_assert_int_eq(pvm_getsbuf(), b);
	ck_assert_ptr_null(pvmi_mid_lookup(a));
	ck_assert_int_eq(pvm_freebuf(a), PvmNoSuchBuf);
	ck_assert_uint_eq(pvmi_mid_lookup(b)->len, 0);
	ck_assert_int_eq(pvmi_mid_lookup(b)->enc, PvmDataDefault);
	ck_assert_int_eq(pvm_pkint(v + 2, 1, 1), PvmOk);
	/* read back: only the new item */
	ck_assert_int_eq(pvm_setrbuf(b), 0);
	ck_assert_int_eq(pvm_upkint(&o, 1, 1), PvmOk);
	ck_assert_int_eq(o, 3);
	ck_assert_int_eq(pvm_upkint(&o, 1, 1), PvmNoData);
	/* made the receive buffer, b is no longer the send buffer: the
	 * next initsend makes a new one and leaves b as it is */
	c = pvm_initsend(PvmDataDefault);
	ck_assert_int_gt(c, 0);
	ck_assert_int_ne(c, b);
	ck_assert_int_eq(pvm_getrbuf(), b);
	ck_assert_uint_eq(pvmi_mid_lookup(b)->len, 12);
	ck_assert_uint_eq(pvmi_mid_lookup(c)->len, 0);
}
END_TEST

/* The renewal done in place (buffers.c's empty_in_place) leaves nothing
 * of the old message: header fields, cursor, view and cached length as
 * a new buffer's; a body buffer over 64 KiB is not kept. */
START_TEST(test_initsend_renewal_leaves_nothing_behind)
{
	struct pvmminfo mi = { 0 };
	int a, b, bytes = -1, tag = -1, tid = 0, v[3] = { 1, 2, 3 }, o = 0;
	char *big, s[12];
	float f;

	a = pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 3, 1);
	pvm_bufinfo(a, &bytes, NULL, NULL);	/* fills the length cache */
	ck_assert_int_eq(bytes, 12);
	mi.tag = 7;
	mi.wid = 3;
	mi.dst = 9;
	mi.src = 5;
	mi.ctx = 4;
	ck_assert_int_eq(pvm_setminfo(a, &mi), PvmOk);
	pvmi_mid_lookup(a)->crc = 77;
	/* move its cursor, then make it the send buffer again */
	pvm_setrbuf(a);
	ck_assert_int_eq(pvm_upkint(&o, 1, 1), PvmOk);
	pvm_setsbuf(a);
	ck_assert_int_eq(pvm_getrbuf(), 0);
	b = pvm_initsend(PvmDataDefault);
	ck_assert_int_ne(a, b);
	ck_assert_int_eq(pvmi_mid_lookup(b)->nfrag, 1);
	ck_assert_uint_eq(pvmi_mid_lookup(b)->len, 0);
	/* a body as long as the old one, but not as many data bytes */
	ck_assert_int_eq(pvm_pkstr("hello world"), PvmOk);
	ck_assert_uint_eq(pvmi_mid_lookup(b)->len, 20);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, &tag, &tid), PvmOk);
	ck_assert_int_eq(bytes, 16);
	ck_assert_int_eq(tag, 0);
	ck_assert_int_eq(tid, pvmi.mytid > 0 ? pvmi.mytid : -1);
	ck_assert_int_eq(pvm_getminfo(b, &mi), PvmOk);
	ck_assert_int_eq(mi.wid, 0);
	ck_assert_int_eq(mi.dst, 0);
	ck_assert_int_eq(mi.crc, 0);
	ck_assert_int_eq(mi.ctx, pvmi.ctx);
	pvm_setrbuf(b);
	ck_assert_int_eq(pvm_upkstr(s), PvmOk);
	ck_assert_str_eq(s, "hello world");
	/* a view left by a read of another type: pvmi_msg_empty's way */
	pvm_setsbuf(b);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 2, 1);
	a = pvm_getsbuf();
	pvm_setrbuf(a);
	ck_assert_int_eq(pvm_upkfloat(&f, 1, 1), PvmOk);
	ck_assert_ptr_nonnull(pvmi_mid_lookup(a)->rview);
	pvm_setsbuf(a);
	b = pvm_initsend(PvmDataDefault);
	ck_assert_ptr_null(pvmi_mid_lookup(b)->rview);
	ck_assert_int_eq(pvm_pkint(v + 2, 1, 1), PvmOk);
	pvm_setrbuf(b);
	ck_assert_int_eq(pvm_upkint(&o, 1, 1), PvmOk);
	ck_assert_int_eq(o, 3);
	/* a large body buffer is given back, not kept */
	pvm_setsbuf(b);
	big = calloc(1, 100000);
	ck_assert_int_eq(pvm_pkbyte(big, 100000, 1), PvmOk);
	free(big);
	b = pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvmi_mid_lookup(b)->nfrag, 0);
}
END_TEST

/* Renewals one after another, with the cursor of the id table passing
 * its end and with other buffers holding ids: each a fresh id, the old
 * one freed, the table never more than half full, as an initsend that
 * frees and makes a buffer would leave it; an InPlace buffer too. */
START_TEST(test_initsend_renewals_take_fresh_ids_as_a_new_buffer_would)
{
	int held[40], prev, mid, used, i, v = 5;

	prev = pvm_initsend(PvmDataRaw);
	ck_assert_int_gt(prev, 0);
	for (i = 0; i < 40; i++)
		held[i] = pvm_mkbuf(PvmDataDefault);
	used = pvmi_mids.used;
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(pvm_pkint(&v, 1, 1), PvmOk);
		mid = pvm_initsend(PvmDataRaw);
		ck_assert_int_gt(mid, 0);
		ck_assert_int_ne(mid, prev);
		ck_assert_int_eq(pvm_getsbuf(), mid);
		ck_assert_ptr_null(pvmi_mid_lookup(prev));
		ck_assert_ptr_nonnull(pvmi_mid_lookup(mid));
		ck_assert_int_eq(pvmi_mid_lookup(mid)->mid, mid);
		ck_assert_uint_eq(pvmi_mid_lookup(mid)->len, 0);
		ck_assert_int_eq(pvmi_mids.used, used);
		ck_assert_int_le(pvmi_mids.used * 2, pvmi_mids.cap);
		/* the cursor goes on from the new id, as register's does */
		ck_assert_int_gt(pvmi_mids.next, 0);
		prev = mid;
	}
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(pvm_freebuf(held[i]), PvmOk);
	/* InPlace: its own encoding is kept */
	pvm_initsend(PvmDataInPlace);
	ck_assert_int_eq(pvm_pkint(&v, 1, 1), PvmOk);
	prev = pvm_getsbuf();
	mid = pvm_initsend(PvmDataInPlace);
	ck_assert_int_ne(mid, prev);
	ck_assert_int_eq(pvmi_mid_lookup(mid)->enc, PvmDataInPlace);
	ck_assert_uint_eq(pvmi_mid_lookup(mid)->len, 0);
}
END_TEST

START_TEST(test_setsbuf_getsbuf)
{
	int a = pvm_mkbuf(PvmDataDefault), b = pvm_mkbuf(PvmDataDefault);

	ck_assert_int_eq(pvm_setsbuf(a), 0);
	ck_assert_int_eq(pvm_getsbuf(), a);
	ck_assert_int_eq(pvm_setsbuf(b), a);
	ck_assert_int_eq(pvm_setsbuf(999), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_setsbuf(-1), PvmBadParam);
	ck_assert_int_eq(pvm_getsbuf(), b);
	ck_assert_int_eq(pvm_setsbuf(0), b);
	ck_assert_int_eq(pvm_getsbuf(), 0);
	pvm_freebuf(a);
	ck_assert_int_eq(pvm_setsbuf(a), PvmNoSuchBuf);
}
END_TEST

START_TEST(test_setrbuf_getrbuf_keeps_position)
{
	int a, b, v[3] = { 1, 2, 3 }, o = 0;

	a = pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 3, 1);
	b = pvm_mkbuf(PvmDataDefault);
	ck_assert_int_eq(pvm_setrbuf(a), 0);
	ck_assert_int_eq(pvm_getrbuf(), a);
	pvm_upkint(&o, 1, 1);
	ck_assert_int_eq(o, 1);
	ck_assert_int_eq(pvm_setrbuf(b), a);
	ck_assert_int_eq(pvm_setrbuf(a), b);
	/* switching away and back does not rewind, as in stock */
	pvm_upkint(&o, 1, 1);
	ck_assert_int_eq(o, 2);
	ck_assert_int_eq(pvm_setrbuf(999), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_setrbuf(-4), PvmBadParam);
	ck_assert_int_eq(pvm_getrbuf(), a);
	ck_assert_int_eq(pvm_setrbuf(0), a);
	ck_assert_int_eq(pvm_upkint(&o, 1, 1), PvmNoBuf);
}
END_TEST

START_TEST(test_bufinfo)
{
	int b, v[3] = { 1, 2, 3 }, bytes = -1, tag = -1, tid = 0;
	struct pvmminfo mi = { 0 };

	b = pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 3, 1);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, &tag, &tid), PvmOk);
	ck_assert_int_eq(bytes, 12);	/* data only, as stock: no item headers */
	ck_assert_int_eq(tag, 0);
	ck_assert_int_eq(tid, -1);	/* no tid yet, as stock */
	mi.tag = 42;
	mi.src = 0x40005;
	pvm_setminfo(b, &mi);
	ck_assert_int_eq(pvm_bufinfo(b, NULL, &tag, NULL), PvmOk);
	ck_assert_int_eq(tag, 42);
	ck_assert_int_eq(pvm_bufinfo(b, NULL, NULL, &tid), PvmOk);
	ck_assert_int_eq(tid, 0x40005);
	ck_assert_int_eq(pvm_bufinfo(b, NULL, NULL, NULL), PvmOk);
	ck_assert_int_eq(pvm_bufinfo(0, &bytes, &tag, &tid), PvmBadParam);
	ck_assert_int_eq(pvm_bufinfo(-2, &bytes, &tag, &tid), PvmBadParam);
	ck_assert_int_eq(pvm_bufinfo(999, &bytes, &tag, &tid), PvmNoSuchBuf);
	pvm_freebuf(b);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, &tag, &tid), PvmNoSuchBuf);
}
END_TEST

START_TEST(test_bufinfo_counts_packed_bytes_like_stock)
{
	char bytes5[5] = "abcd";
	int b, bytes = -1, v = 7;

	b = pvm_initsend(PvmDataRaw);
	pvm_pkbyte(bytes5, 5, 1);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL, NULL), PvmOk);
	ck_assert_int_eq(bytes, 5);
	pvm_pkint(&v, 1, 1);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL, NULL), PvmOk);
	ck_assert_int_eq(bytes, 9);
	b = pvm_initsend(PvmDataDefault);
	pvm_pkbyte(bytes5, 5, 1);	/* XDR pads bytes to 4 */
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL, NULL), PvmOk);
	ck_assert_int_eq(bytes, 8);
	b = pvm_initsend(PvmDataRaw);
	ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL, NULL), PvmOk);
	ck_assert_int_eq(bytes, 0);
}
END_TEST

/* The bytes stock's pvm_bufinfo reports for `n' elements of `type'
 * packed as one array: native sizes, or XDR's (4-byte shorts and longs,
 * bytes padded to 4). */
static int stock_bytes(int type, int n, int xdr)
{
	static const int native[] = {
		[PVM_BYTE] = 1, [PVM_SHORT] = 2, [PVM_INT] = 4,
		[PVM_FLOAT] = 4, [PVM_CPLX] = 8, [PVM_DOUBLE] = 8,
		[PVM_DCPLX] = 16, [PVM_LONG] = 8, [PVM_USHORT] = 2,
		[PVM_UINT] = 4, [PVM_ULONG] = 8,
	};
	static const int wire[] = {
		[PVM_BYTE] = 1, [PVM_SHORT] = 4, [PVM_INT] = 4,
		[PVM_FLOAT] = 4, [PVM_CPLX] = 8, [PVM_DOUBLE] = 8,
		[PVM_DCPLX] = 16, [PVM_LONG] = 4, [PVM_USHORT] = 4,
		[PVM_UINT] = 4, [PVM_ULONG] = 4,
	};

	if (!xdr)
		return n * native[type];
	if (type == PVM_BYTE)
		return (n + 3) & ~3;
	return n * wire[type];
}

/* Packs `n' elements of `type' from `src' as one array. */
static void pk_one(int type, const void *src, int n)
{
	switch (type) {
	case PVM_BYTE: pvm_pkbyte((char *)src, n, 1); break;
	case PVM_SHORT: pvm_pkshort((short *)src, n, 1); break;
	case PVM_INT: pvm_pkint((int *)src, n, 1); break;
	case PVM_FLOAT: pvm_pkfloat((float *)src, n, 1); break;
	case PVM_CPLX: pvm_pkcplx((float *)src, n, 1); break;
	case PVM_DOUBLE: pvm_pkdouble((double *)src, n, 1); break;
	case PVM_DCPLX: pvm_pkdcplx((double *)src, n, 1); break;
	case PVM_LONG: pvm_pklong((long *)src, n, 1); break;
	case PVM_USHORT: pvm_pkushort((unsigned short *)src, n, 1); break;
	case PVM_UINT: pvm_pkuint((unsigned *)src, n, 1); break;
	case PVM_ULONG: pvm_pkulong((unsigned long *)src, n, 1); break;
	}
}

/* pvm_bufinfo's short way, one array filling the body (a message of one
 * pvm_pk* call), counts what the walk over the items counts: each type
 * in both encodings, a string and two arrays left to the walk. */
START_TEST(test_bufinfo_one_array_counts_like_stock)
{
	static const int types[] = { PVM_BYTE, PVM_SHORT, PVM_INT, PVM_FLOAT,
		PVM_CPLX, PVM_DOUBLE, PVM_DCPLX, PVM_LONG, PVM_USHORT,
		PVM_UINT, PVM_ULONG };
	static const int counts[] = { 1, 3, 5, 8 };
	double src[32] = { 0 };
	int t, k, x, b, bytes;

	for (x = 0; x < 2; x++)
		for (t = 0; t < (int)(sizeof(types) / sizeof(*types)); t++)
			for (k = 0; k < 4; k++) {
				b = pvm_initsend(x ? PvmDataDefault :
						 PvmDataRaw);
				pk_one(types[t], src, counts[k]);
				bytes = -1;
				ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL,
							     NULL), PvmOk);
				ck_assert_msg(bytes == stock_bytes(types[t],
						counts[k], x),
					      "type %d, %d elements, xdr %d: "
					      "%d bytes", types[t], counts[k],
					      x, bytes);
			}
	for (x = 0; x < 2; x++) {
		/* a string: its length as an int, then its bytes */
		b = pvm_initsend(x ? PvmDataDefault : PvmDataRaw);
		pvm_pkstr("abc");
		ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL, NULL), PvmOk);
		ck_assert_int_eq(bytes, 8);
		/* two arrays of a body of one fragment */
		b = pvm_initsend(x ? PvmDataDefault : PvmDataRaw);
		pk_one(PVM_INT, src, 2);
		pk_one(PVM_DOUBLE, src, 1);
		ck_assert_int_eq(pvm_bufinfo(b, &bytes, NULL, NULL), PvmOk);
		ck_assert_int_eq(bytes, 16);
	}
}
END_TEST

START_TEST(test_bufinfo_reports_our_tid)
{
	int b, tid = 0;

	pvmi.mytid = 0x40007;
	b = pvm_mkbuf(PvmDataDefault);
	ck_assert_int_eq(pvm_bufinfo(b, NULL, NULL, &tid), PvmOk);
	ck_assert_int_eq(tid, 0x40007);
}
END_TEST

START_TEST(test_getminfo_setminfo)
{
	struct pvmminfo in = { 111, 3, 4, 5, 666, 777, 0x40001, 0x40002 };
	struct pvmminfo out;
	int a = pvm_mkbuf(PvmDataDefault), b = pvm_mkbuf(PvmDataRaw);
	int c = pvm_mkbuf(PvmDataInPlace), v = 9;

	pvm_setsbuf(a);
	pvm_pkint(&v, 1, 1);
	ck_assert_int_eq(pvm_setminfo(a, &in), PvmOk);
	memset(&out, 0x55, sizeof(out));
	ck_assert_int_eq(pvm_getminfo(a, &out), PvmOk);
	ck_assert_int_eq(out.len, 4);	/* data bytes, not settable */
	ck_assert_int_eq(out.ctx, 3);
	ck_assert_int_eq(out.tag, 4);
	ck_assert_int_eq(out.wid, 5);
	ck_assert_int_eq(out.enc, 0x10000000);	/* not settable */
	ck_assert_int_eq(out.crc, 0);
	ck_assert_int_eq(out.src, 0x40001);
	ck_assert_int_eq(out.dst, 0x40002);
	ck_assert_int_eq(pvm_getminfo(b, &out), PvmOk);
	ck_assert_int_eq(out.enc, PVMI_DSIG);
	ck_assert_int_eq(pvm_getminfo(c, &out), PvmOk);
	ck_assert_int_eq(out.enc, 0x20000000);

	ck_assert_int_eq(pvm_getminfo(a, NULL), PvmBadParam);
	ck_assert_int_eq(pvm_setminfo(a, NULL), PvmBadParam);
	ck_assert_int_eq(pvm_getminfo(0, &out), PvmBadParam);
	ck_assert_int_eq(pvm_getminfo(999, &out), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_setminfo(999, &in), PvmNoSuchBuf);
}
END_TEST

START_TEST(test_many_buffers_have_distinct_ids)
{
	enum { N = 1000 };
	static int ids[N];
	static struct pvmi_msg *msgs[N];
	int i, j;

	for (i = 0; i < N; i++) {
		ids[i] = pvm_mkbuf(PvmDataDefault);
		ck_assert_int_gt(ids[i], 0);
		msgs[i] = pvmi_mid_lookup(ids[i]);
		ck_assert_ptr_nonnull(msgs[i]);
	}
	/* each id still names its own buffer: no id was given twice */
	for (i = 0; i < N; i++)
		ck_assert_ptr_eq(pvmi_mid_lookup(ids[i]), msgs[i]);
	for (i = 0; i < N; i += 2)
		ck_assert_int_eq(pvm_freebuf(ids[i]), PvmOk);
	for (i = 0; i < N; i++) {
		if (i % 2)
			ck_assert_ptr_nonnull(pvmi_mid_lookup(ids[i]));
		else
			ck_assert_ptr_null(pvmi_mid_lookup(ids[i]));
	}
	/* cycling through initsend wraps the id cursor around the table:
	 * new ids never take one of the buffers still alive */
	for (i = 0; i < 5000; i++) {
		j = pvm_initsend(PvmDataDefault);
		ck_assert_int_gt(j, 0);
		ck_assert_ptr_nonnull(pvmi_mid_lookup(j));
	}
	for (i = 1; i < N; i += 2)
		ck_assert_ptr_eq(pvmi_mid_lookup(ids[i]), msgs[i]);
}
END_TEST

START_TEST(test_msg_from_body_and_flatten)
{
	unsigned char *body = pvmi_buf_alloc(6), *flat;
	struct pvmi_msg *m;
	struct iovec iov[2];
	size_t len = 0;

	memcpy(body, "abcdef", 6);
	m = pvmi_msg_from_body(body, 6, PvmDataRaw);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->len, 6);
	ck_assert_int_eq(m->enc, PvmDataRaw);
	ck_assert_int_eq(pvmi_msg_iov(m, iov, 2), 1);
	ck_assert_ptr_eq(iov[0].iov_base, body);
	flat = pvmi_msg_flatten(m, &len);
	ck_assert_uint_eq(len, 6);
	ck_assert_mem_eq(flat, "abcdef", 6);
	pvmi_buf_free(flat);
	pvmi_msg_free(m);

	m = pvmi_msg_from_body(pvmi_buf_alloc(1), 0, PvmDataDefault);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->len, 0);
	ck_assert_int_eq(pvmi_msg_iov(m, iov, 2), 0);
	flat = pvmi_msg_flatten(m, &len);
	ck_assert_ptr_nonnull(flat);
	ck_assert_uint_eq(len, 0);
	pvmi_buf_free(flat);
	pvmi_msg_free(m);
}
END_TEST

START_TEST(test_msg_extend_borrow_trim)
{
	struct pvmi_msg *m = pvmi_msg_new(PvmDataInPlace);
	static const char user[] = "USER";
	unsigned char *p, *flat;
	size_t len;
	int i;

	p = pvmi_msg_extend(m, 3);
	memcpy(p, "abc", 3);
	ck_assert_int_eq(pvmi_msg_borrow(m, user, 4), PvmOk);
	ck_assert_int_eq(pvmi_msg_borrow(m, user, 0), PvmOk);	/* no frag */
	p = pvmi_msg_extend(m, 2);
	memcpy(p, "xy", 2);
	pvmi_msg_trim(m, 1);
	ck_assert_int_eq(m->nfrag, 3);
	ck_assert_uint_eq(m->len, 8);
	flat = pvmi_msg_flatten(m, &len);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(flat, "abcUSERx", 8);
	pvmi_buf_free(flat);
	/* growing one owned fragment keeps what it held */
	for (i = 0; i < 100000; i++)
		*pvmi_msg_extend(m, 1) = (unsigned char)i;
	ck_assert_int_eq(m->nfrag, 3);
	ck_assert_uint_eq(m->len, 8 + 100000);
	ck_assert_int_eq(m->frags[2].data[1 + 99999], (unsigned char)99999);
	pvmi_msg_free(m);	/* the borrowed user memory is not freed */
}
END_TEST

START_TEST(test_mid_register_forget)
{
	struct pvmi_msg *m = pvmi_msg_new(PvmDataDefault);
	int mid = pvmi_mid_register(m);

	ck_assert_int_gt(mid, 0);
	ck_assert_ptr_eq(pvmi_mid_lookup(mid), m);
	ck_assert_ptr_null(pvmi_mid_lookup(0));
	ck_assert_ptr_null(pvmi_mid_lookup(-1));
	ck_assert_ptr_null(pvmi_mid_lookup(1 << 30));
	pvmi_mid_forget(mid);
	ck_assert_ptr_null(pvmi_mid_lookup(mid));
	ck_assert_int_eq(m->mid, 0);
	pvmi_mid_forget(mid);	/* twice is harmless */
	/* freeing a registered message drops its id too */
	mid = pvmi_mid_register(m);
	pvmi_msg_free(m);
	ck_assert_ptr_null(pvmi_mid_lookup(mid));
}
END_TEST

/* pvmi_mid_free: the id forgotten and the body given back; ids that name
 * no buffer are left alone. */
START_TEST(test_mid_free)
{
	struct pvmi_msg *a, *b;
	long live;
	int ma, mb;

	a = pvmi_msg_from_body(pvmi_buf_alloc(8), 8, PvmDataRaw);
	b = pvmi_msg_from_body(pvmi_buf_alloc(8), 8, PvmDataRaw);
	ma = pvmi_mid_register(a);
	mb = pvmi_mid_register(b);
	ck_assert_int_gt(ma, 0);
	ck_assert_int_gt(mb, 0);
	live = pvmi_buf_live();
	pvmi_mid_free(0);
	pvmi_mid_free(-1);
	pvmi_mid_free(1 << 30);
	ck_assert_int_eq(pvmi_buf_live(), live);
	pvmi_mid_free(ma);
	ck_assert_ptr_null(pvmi_mid_lookup(ma));
	ck_assert_int_eq(pvmi_buf_live(), live - 1);
	pvmi_mid_free(ma);		/* twice: nothing more */
	ck_assert_int_eq(pvmi_buf_live(), live - 1);
	ck_assert_ptr_eq(pvmi_mid_lookup(mb), b);
	ck_assert_int_eq(b->mid, mb);
	pvmi_mid_free(mb);
	ck_assert_ptr_null(pvmi_mid_lookup(mb));
	ck_assert_int_eq(pvmi_buf_live(), live - 2);
}
END_TEST

static Suite *buffers_suite(void)
{
	Suite *s = suite_create("buffers");
	TCase *tc;

	tc = tcase_create("api");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_mkbuf_every_encoding);
	tcase_add_test(tc, test_mkbuf_bad_encoding_is_badparam);
	tcase_add_test(tc, test_freebuf);
	tcase_add_test(tc, test_freebuf_of_active_buffers_clears_them);
	tcase_add_test(tc, test_initsend_replaces_send_buffer);
	tcase_add_test(tc, test_initsend_same_encoding_renews_in_place);
	tcase_add_test(tc, test_initsend_renewal_leaves_nothing_behind);
	tcase_add_test(tc,
		test_initsend_renewals_take_fresh_ids_as_a_new_buffer_would);
	tcase_add_test(tc, test_setsbuf_getsbuf);
	tcase_add_test(tc, test_setrbuf_getrbuf_keeps_position);
	tcase_add_test(tc, test_bufinfo);
	tcase_add_test(tc, test_bufinfo_counts_packed_bytes_like_stock);
	tcase_add_test(tc, test_bufinfo_one_array_counts_like_stock);
	tcase_add_test(tc, test_bufinfo_reports_our_tid);
	tcase_add_test(tc, test_getminfo_setminfo);
	tcase_add_test(tc, test_many_buffers_have_distinct_ids);
	suite_add_tcase(s, tc);

	tc = tcase_create("msg");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_msg_from_body_and_flatten);
	tcase_add_test(tc, test_msg_extend_borrow_trim);
	tcase_add_test(tc, test_mid_register_forget);
	tcase_add_test(tc, test_mid_free);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(buffers_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

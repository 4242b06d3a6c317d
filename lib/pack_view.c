/*
 * pack_view.c - unpacking data as another type than it was packed with,
 * the way stock PVM does it.
 *
 * Stock's message body is a plain run of bytes, so an unpack of another
 * type reinterprets them: an int read as a float or as bytes, a double as
 * two ints, a string as its length (an int) then its bytes.  copvm's body
 * is a list of typed items (wire.h), so on a type mismatch the unpack
 * reads instead the bytes stock's body would hold for the items from the
 * cursor on: pvmi_item_view() (pack.c) renders one item that way, kept in
 * the message until read.  Those bytes are the item's own for every type
 * but two: a string is preceded by its length (XDR: big-endian, raw:
 * native), and an XDR long is 4 bytes, its low 32 bits, as stock sends it
 * (read as a long again, copvm's 8 bytes keep sign and value: only a
 * mismatched read sees the 4).  At the end of the body what is there is
 * copied (raw: even part of an element) and consumed, and the call
 * returns PvmNoData, as stock's.  COPVM_STRICT_UNPACK=1 turns this off: a
 * mismatch is then PvmBadMsg (a debugging aid, pack.c).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "pvmi.h"
#include "msg.h"

/* Bytes of one element of `type' in stock's body: XDR sizes (a long is
 * 4) or native ones; complex types count both halves. */
static size_t view_size(int type, int xdr)
{
	switch (type) {
	case PVM_BYTE:
	case PVM_STR:
		return 1;
	case PVM_SHORT:
	case PVM_USHORT:
		return xdr ? 4 : sizeof(short);
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:
		return 4;
	case PVM_CPLX:
	case PVM_DOUBLE:
		return 8;
	case PVM_DCPLX:
		return 16;
	default:		/* PVM_LONG, PVM_ULONG */
		return xdr ? 4 : sizeof(long);
	}
}

int pvmi_strict_unpack(void)
{
	static int strict = -1;
	const char *s;

	if (strict < 0) {
		s = getenv("COPVM_STRICT_UNPACK");
		strict = s && *s && strcmp(s, "0") != 0;
	}
	return strict;
}

/* Reads up to `n' bytes of stock's body at the cursor into `out' (NULL:
 * skips them); returns how many there were.  *cc is set to PvmBadMsg or
 * PvmNoMem if an item cannot be read, and left alone at the end. */
static size_t view_read(struct pvmi_msg *m, unsigned char *out, size_t n,
			int *cc)
{
	size_t got = 0, k;
	int rc;

	while (got < n) {
		if (m->rview_pos >= m->rview_len) {
			pvmi_view_drop(m);
			rc = pvmi_item_view(m, &m->rview, &m->rview_len);
			if (rc != PvmOk) {
				if (rc != PvmNoData)
					*cc = rc;
				break;
			}
			continue;
		}
		k = m->rview_len - m->rview_pos;
		if (k > n - got)
			k = n - got;
		if (out)
			memcpy(out + got, m->rview + m->rview_pos, k);
		m->rview_pos += k;
		got += k;
	}
	return got;
}

static uint32_t be32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t be64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* Converts one element of `type' from stock's XDR bytes `in' to native
 * `out'.  A long read from 4 bytes keeps its sign (stock's does not). */
static void xdr_decode_one(unsigned char *out, const unsigned char *in,
			   int type)
{
	uint32_t w;
	uint64_t d;
	int i;

	switch (type) {
	case PVM_SHORT:
	case PVM_USHORT:
		memcpy(out, &(uint16_t){ (uint16_t)be32_at(in) }, 2);
		break;
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:
	case PVM_CPLX:
		for (i = 0; i < (type == PVM_CPLX ? 2 : 1); i++) {
			w = be32_at(in + 4 * i);
			memcpy(out + 4 * i, &w, 4);
		}
		break;
	case PVM_DOUBLE:
	case PVM_DCPLX:
		for (i = 0; i < (type == PVM_DCPLX ? 2 : 1); i++) {
			d = be64_at(in + 8 * i);
			memcpy(out + 8 * i, &d, 8);
		}
		break;
	case PVM_LONG:
		memcpy(out, &(long){ (int32_t)be32_at(in) }, sizeof(long));
		break;
	default:		/* PVM_ULONG */
		memcpy(out, &(unsigned long){ be32_at(in) }, sizeof(long));
		break;
	}
}

/* Reads bytes (a byte array, or a string's characters) into every
 * `step'-th byte of `out'; XDR skips the pad to 4 after them.  PvmOk,
 * PvmNoData (fewer there: those copied) or the error of view_read(). */
static int view_bytes(struct pvmi_msg *m, unsigned char *out, size_t n,
		      size_t step, int xdr)
{
	size_t i, got;
	int cc = PvmOk;

	if (step == 1) {
		got = view_read(m, out, n, &cc);
	} else {
		for (got = 0; got < n; got++)
			if (!view_read(m, out + got * step, 1, &cc))
				break;
	}
	if (got < n)
		return cc ? cc : PvmNoData;
	i = -n & 3;
	if (xdr && i)
		view_read(m, NULL, i, &cc);
	return cc;
}

int pvmi_view_unpack(struct pvmi_msg *m, int type, unsigned char *out,
		     int count, size_t step, int xdr)
{
	size_t vsz = view_size(type, xdr), got;
	unsigned char e[16];
	uint32_t len;
	int i, cc = PvmOk;

	if (type == PVM_BYTE)
		return view_bytes(m, out, count, step, xdr);
	if (type == PVM_STR) {
		if (view_read(m, e, 4, &cc) < 4)
			return cc ? cc : PvmNoData;
		if (xdr)
			len = be32_at(e);
		else
			memcpy(&len, e, 4);
		return view_bytes(m, out, len, 1, xdr);
	}
	for (i = 0; i < count; i++, out += step) {
		got = view_read(m, e, vsz, &cc);
		if (got < vsz) {
			if (!xdr)	/* stock copies part of an element */
				memcpy(out, e, got);
			return cc ? cc : PvmNoData;
		}
		if (xdr)
			xdr_decode_one(out, e, type);
		else
			memcpy(out, e, vsz);
	}
	return cc;
}

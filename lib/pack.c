/*
 * pack.c - packing typed arrays into message bodies and unpacking them,
 * in the item format of wire.h, and the pvm_pk* / pvm_upk* entry points.
 *
 * An item is an 8-byte big-endian header (type, count) and its elements:
 * XDR (PvmDataDefault) converts them to big-endian wire sizes and pads byte
 * and string items to 4; PvmDataRaw copies native memory; PvmDataInPlace
 * writes only the header and borrows the caller's array as a fragment
 * (dense data only; strided data are copied as with Raw; pvm_pkstr is
 * refused there, as stock).
 *
 * Unpacking reads items of the type family asked for as they are; at the
 * end of the body what was read stays read and the call is PvmNoData, as
 * in stock.  From an item of another type on, pack_view.c reads the bytes
 * stock's body would hold (pvmi_item_view renders an item so).  With
 * COPVM_STRICT_UNPACK=1, unpacking is done in two passes over a copy of
 * the cursor instead: the first checks that enough elements of the right
 * type family follow, the second converts, so a failing call leaves the
 * cursor and the caller's array untouched.  The conversions run over
 * contiguous spans of a fragment, so a dense array costs one memcpy or
 * one byte-swapping loop.
 */
#include <endian.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "pvmi.h"
#include "msg.h"
#include "wire.h"

/* How each data type is stored: native bytes per unit, XDR bytes per
 * unit, units per element (2 for complex), and the type family: signed
 * and unsigned of one width read each other. */
struct tdesc {
	unsigned char usz;
	unsigned char wsz;
	unsigned char upe;
	unsigned char family;
};

static const struct tdesc tdesc[] = {
	[PVM_STR] =	{ 1, 1, 1, PVM_STR },
	[PVM_BYTE] =	{ 1, 1, 1, PVM_BYTE },
	[PVM_SHORT] =	{ sizeof(short), 4, 1, PVM_SHORT },
	[PVM_INT] =	{ sizeof(int), 4, 1, PVM_INT },
	[PVM_FLOAT] =	{ sizeof(float), 4, 1, PVM_FLOAT },
	[PVM_CPLX] =	{ sizeof(float), 4, 2, PVM_CPLX },
	[PVM_DOUBLE] =	{ sizeof(double), 8, 1, PVM_DOUBLE },
	[PVM_DCPLX] =	{ sizeof(double), 8, 2, PVM_DCPLX },
	[PVM_LONG] =	{ sizeof(long), 8, 1, PVM_LONG },
	[PVM_USHORT] =	{ sizeof(short), 4, 1, PVM_SHORT },
	[PVM_UINT] =	{ sizeof(int), 4, 1, PVM_INT },
	[PVM_ULONG] =	{ sizeof(long), 8, 1, PVM_LONG },
	[PVMI_TYPE_MSG] = { 1, 1, 1, PVMI_TYPE_MSG },
};

_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long) == 8 &&
	       sizeof(float) == 4 && sizeof(double) == 8,
	       "the native layout assumes an LP64 host");

/* Bytes of the nine int32 fields that open a PVMI_TYPE_MSG item: enc,
 * tag, ctx, src, body length (at 16), dst, wid, crc and the length
 * stock gives the body (pvmi_msg_data_len); stock's header of an
 * embedded message is as long. */
#define MSG_FIELDS_LEN	36

/* Native bytes of one element of `type'. */
static size_t nat_size(int type)
{
	return (size_t)tdesc[type].usz * tdesc[type].upe;
}

/* Body bytes of one element of `type' in an XDR or native body. */
static size_t wire_size(int type, int xdr)
{
	return (size_t)(xdr ? tdesc[type].wsz : tdesc[type].usz) *
	       tdesc[type].upe;
}

/* Zero bytes that follow an item of `count' elements of `type'. */
static size_t pad_of(int type, uint32_t count, int xdr)
{
	if (xdr && (type == PVM_BYTE || type == PVM_STR))
		return -(size_t)count & 3;
	return 0;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void st32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void st64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Encodes `n' contiguous units of `type' from native `in' to XDR `out'. */
static inline void xdr_enc_run(unsigned char *out, const unsigned char *in,
			       size_t n, int type)
{
	size_t i;
	int16_t s;
	uint16_t us;

	switch (type) {
	case PVM_STR:
	case PVM_BYTE:
		memcpy(out, in, n);
		break;
	case PVM_SHORT:
		for (i = 0; i < n; i++) {
			memcpy(&s, in + 2 * i, 2);
			st32(out + 4 * i, htobe32((uint32_t)(int32_t)s));
		}
		break;
	case PVM_USHORT:
		for (i = 0; i < n; i++) {
			memcpy(&us, in + 2 * i, 2);
			st32(out + 4 * i, htobe32(us));
		}
		break;
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:
	case PVM_CPLX:
		for (i = 0; i < n; i++)
			st32(out + 4 * i, htobe32(ld32(in + 4 * i)));
		break;
	default:		/* the 64-bit types */
		for (i = 0; i < n; i++)
			st64(out + 8 * i, htobe64(ld64(in + 8 * i)));
		break;
	}
}

/* Decodes `n' contiguous units of `type' from XDR `in' to native `out'. */
static inline void xdr_dec_run(unsigned char *out, const unsigned char *in,
			       size_t n, int type)
{
	size_t i;
	uint16_t us;

	switch (type) {
	case PVM_STR:
	case PVM_BYTE:
		memcpy(out, in, n);
		break;
	case PVM_SHORT:
	case PVM_USHORT:
		/* the low half of the int32 is the value, either signedness */
		for (i = 0; i < n; i++) {
			us = (uint16_t)be32toh(ld32(in + 4 * i));
			memcpy(out + 2 * i, &us, 2);
		}
		break;
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:
	case PVM_CPLX:
		for (i = 0; i < n; i++)
			st32(out + 4 * i, be32toh(ld32(in + 4 * i)));
		break;
	default:
		for (i = 0; i < n; i++)
			st64(out + 8 * i, be64toh(ld64(in + 8 * i)));
		break;
	}
}

/* Copies `nel' elements of `esz' bytes, `istep' apart in `in', to
 * `ostep' apart in `out'; one memcpy when both are dense. */
static void copy_elems(unsigned char *out, size_t ostep,
		       const unsigned char *in, size_t istep,
		       size_t nel, size_t esz)
{
	size_t i;

	if (istep == esz && ostep == esz) {
		memcpy(out, in, nel * esz);
		return;
	}
	/* constant sizes let the compiler turn each memcpy into a move */
	switch (esz) {
	case 1:
		for (i = 0; i < nel; i++)
			out[i * ostep] = in[i * istep];
		break;
	case 2:
		for (i = 0; i < nel; i++)
			memcpy(out + i * ostep, in + i * istep, 2);
		break;
	case 4:
		for (i = 0; i < nel; i++)
			memcpy(out + i * ostep, in + i * istep, 4);
		break;
	case 8:
		for (i = 0; i < nel; i++)
			memcpy(out + i * ostep, in + i * istep, 8);
		break;
	default:
		for (i = 0; i < nel; i++)
			memcpy(out + i * ostep, in + i * istep, esz);
		break;
	}
}

/* Writes `nel' elements of `type', `step' bytes apart in `in', to the
 * body bytes at `out'. */
static void encode(unsigned char *out, const unsigned char *in, size_t nel,
		   size_t step, int type, int xdr)
{
	size_t esz = nat_size(type), wsz = wire_size(type, xdr);
	size_t upe = tdesc[type].upe, i;

	if (!xdr) {
		copy_elems(out, esz, in, step, nel, esz);
		return;
	}
	if (step == esz) {
		xdr_enc_run(out, in, nel * upe, type);
		return;
	}
	for (i = 0; i < nel; i++)
		xdr_enc_run(out + i * wsz, in + i * step, upe, type);
}

/* Reads `nel' elements of `type' from the body bytes at `in' into every
 * `step' bytes of `out'. */
static void decode(unsigned char *out, size_t step, const unsigned char *in,
		   size_t nel, int type, int xdr)
{
	size_t esz = nat_size(type), wsz = wire_size(type, xdr);
	size_t upe = tdesc[type].upe, i;

	if (!xdr) {
		copy_elems(out, step, in, esz, nel, esz);
		return;
	}
	if (step == esz) {
		xdr_dec_run(out, in, nel * upe, type);
		return;
	}
	for (i = 0; i < nel; i++)
		xdr_dec_run(out + i * step, in + i * wsz, upe, type);
}

/* Whether a body of encoding `enc' is XDR (1), native (0) or unknown (-1). */
static int enc_is_xdr(int enc)
{
	switch (enc) {
	case PvmDataDefault:
		return 1;
	case PvmDataRaw:
	case PvmDataInPlace:
		return 0;
	default:
		return -1;
	}
}

static void put_hdr(unsigned char *p, uint32_t type, uint32_t count)
{
	st32(p, htobe32(type));
	st32(p + 4, htobe32(count));
}

/* Whether `add' more bytes keep the body within what a frame can carry. */
static int fits(const struct pvmi_msg *m, size_t add)
{
	return add <= PVMI_FRAME_MAX_BODY && m->len + add <= PVMI_FRAME_MAX_BODY;
}

/* Appends `count' elements of PVM type `type' read every `stride'
 * elements from `data'; returns PvmOk or an error code. */
int pvmi_pack(struct pvmi_msg *m, int type, const void *data, int count,
	      int stride)
{
	size_t esz, wsz, nbytes, pad, step;
	unsigned char *p;
	int xdr;

	if (!m)
		return PvmBadParam;
	if (type == PVMI_TYPE_MSG)
		return count == 1 && data ? pvmi_pack_msg(m, data) : PvmBadParam;
	if (type < PVM_STR || type > PVM_ULONG || count < 0 || stride < 1)
		return PvmBadParam;
	if (!count)
		return PvmOk;
	if (!data)
		return PvmBadParam;
	xdr = enc_is_xdr(m->enc);
	if (xdr < 0)
		return PvmBadParam;
	if (type == PVM_STR)
		stride = 1;
	esz = nat_size(type);
	wsz = wire_size(type, xdr);
	step = (size_t)stride * esz;
	nbytes = (size_t)count * wsz;
	pad = pad_of(type, count, xdr);
	if (!fits(m, PVMI_ITEM_HDR_LEN + nbytes + pad))
		return PvmNoMem;

	if (m->enc == PvmDataInPlace && stride == 1 && type != PVM_STR) {
		p = pvmi_msg_extend(m, PVMI_ITEM_HDR_LEN);
		if (!p)
			return PvmNoMem;
		put_hdr(p, type, count);
		if (pvmi_msg_borrow(m, data, nbytes)) {
			pvmi_msg_trim(m, PVMI_ITEM_HDR_LEN);
			return PvmNoMem;
		}
		return PvmOk;
	}

	p = pvmi_msg_extend(m, PVMI_ITEM_HDR_LEN + nbytes + pad);
	if (!p)
		return PvmNoMem;
	put_hdr(p, type, count);
	p += PVMI_ITEM_HDR_LEN;
	encode(p, data, count, step, type, xdr);
	memset(p + nbytes, 0, pad);
	return PvmOk;
}

/* Appends a PVMI_TYPE_MSG item holding `inner'; PvmOk or PvmNoMem. */
int pvmi_pack_msg(struct pvmi_msg *m, const struct pvmi_msg *inner)
{
	size_t pad = -inner->len & 3;
	size_t total = PVMI_ITEM_HDR_LEN + MSG_FIELDS_LEN + inner->len + pad;
	unsigned char *p;
	int i;

	if (!fits(m, total))
		return PvmNoMem;
	p = pvmi_msg_extend(m, total);
	if (!p)
		return PvmNoMem;
	put_hdr(p, PVMI_TYPE_MSG, 1);
	p += PVMI_ITEM_HDR_LEN;
	st32(p, htobe32((uint32_t)inner->enc));
	st32(p + 4, htobe32((uint32_t)inner->tag));
	st32(p + 8, htobe32((uint32_t)inner->ctx));
	st32(p + 12, htobe32((uint32_t)inner->src));
	st32(p + 16, htobe32((uint32_t)inner->len));
	st32(p + 20, htobe32((uint32_t)inner->dst));
	st32(p + 24, htobe32((uint32_t)inner->wid));
	st32(p + 28, htobe32((uint32_t)inner->crc));
	/* only a cache of the inner message changes */
	st32(p + 32, htobe32((uint32_t)pvmi_msg_data_len(
					(struct pvmi_msg *)inner)));
	p += MSG_FIELDS_LEN;
	for (i = 0; i < inner->nfrag; i++) {
		if (inner->frags[i].len)
			memcpy(p, inner->frags[i].data, inner->frags[i].len);
		p += inner->frags[i].len;
	}
	memset(p, 0, pad);
	return PvmOk;
}

/*
 * The unpack cursor.  `type' keeps the item's type in its low byte and,
 * from bit 8, the pad bytes to skip once the item's last element is read
 * (the count needed to work them out is gone by then).
 */
struct cur {
	int frag;
	size_t off;
	uint32_t type;
	uint32_t left;
};

#define CUR_TYPE(c)	((int)((c)->type & 0xff))
#define CUR_PAD(c)	((size_t)((c)->type >> 8))

static void cur_load(const struct pvmi_msg *m, struct cur *c)
{
	c->frag = m->rfrag;
	c->off = m->roff;
	c->type = m->ritem_type;
	c->left = m->ritem_left;
}

static void cur_store(struct pvmi_msg *m, const struct cur *c)
{
	m->rfrag = c->frag;
	m->roff = c->off;
	m->ritem_type = c->type;
	m->ritem_left = c->left;
}

/* Bytes readable at the cursor without crossing a fragment (*p set);
 * 0 at the end of the body. */
static size_t cur_span(const struct pvmi_msg *m, struct cur *c,
		       const unsigned char **p)
{
	while (c->frag < m->nfrag && c->off >= m->frags[c->frag].len) {
		c->frag++;
		c->off = 0;
	}
	if (c->frag >= m->nfrag)
		return 0;
	*p = m->frags[c->frag].data + c->off;
	return m->frags[c->frag].len - c->off;
}

/* Copies `n' bytes at the cursor to `out' (if not NULL) and moves past
 * them; 0, or -1 when the body ends first (the cursor is then spent). */
static int cur_read(const struct pvmi_msg *m, struct cur *c, void *out,
		    size_t n)
{
	unsigned char *o = out;
	const unsigned char *p;
	size_t k;

	while (n) {
		k = cur_span(m, c, &p);
		if (!k)
			return -1;
		if (k > n)
			k = n;
		if (o) {
			memcpy(o, p, k);
			o += k;
		}
		c->off += k;
		n -= k;
	}
	return 0;
}

/* Moves the cursor over `n' bytes; 0, or -1 when the body ends first. */
static int cur_skip(const struct pvmi_msg *m, struct cur *c, size_t n)
{
	return cur_read(m, c, NULL, n);
}

/*
 * Reads the next item header (the cursor must be between items), skipping
 * empty items, and checks that the whole item is in the body.  Returns
 * PvmOk with c->type/c->left set, PvmNoData at the end of the body, or
 * PvmBadMsg for a malformed item.
 */
static int cur_item(const struct pvmi_msg *m, struct cur *c, int xdr)
{
	unsigned char h[PVMI_ITEM_HDR_LEN], f[MSG_FIELDS_LEN];
	const unsigned char *p;
	uint32_t type, count, blen;
	struct cur t;
	size_t size, pad;

	for (;;) {
		if (!cur_span(m, c, &p))
			return PvmNoData;
		if (cur_read(m, c, h, sizeof(h)))
			return PvmBadMsg;
		type = be32toh(ld32(h));
		count = be32toh(ld32(h + 4));
		if (type > PVMI_TYPE_MSG)
			return PvmBadMsg;
		if (type == PVMI_TYPE_MSG) {
			t = *c;
			if (count != 1 || cur_read(m, &t, f, sizeof(f)))
				return PvmBadMsg;
			blen = be32toh(ld32(f + 16));
			pad = -(size_t)blen & 3;
			size = MSG_FIELDS_LEN + (size_t)blen;
		} else {
			pad = pad_of(type, count, xdr);
			size = (size_t)count * wire_size(type, xdr);
		}
		t = *c;
		if (cur_skip(m, &t, size + pad))
			return PvmBadMsg;
		if (count) {
			c->type = type | (uint32_t)pad << 8;
			c->left = count;
			return PvmOk;
		}
		*c = t;
	}
}

size_t pvmi_msg_data_len(struct pvmi_msg *m)
{
	unsigned char h[PVMI_ITEM_HDR_LEN], f[MSG_FIELDS_LEN];
	int xdr = enc_is_xdr(m->enc);
	const unsigned char *p;
	struct cur c = { 0 };
	size_t hdrs = 0, size;
	uint32_t type, count, blen;

	if (m->datalen_at == m->len + 1)
		return m->datalen;
	while (cur_span(m, &c, &p)) {
		if (cur_read(m, &c, h, sizeof(h)))
			break;
		hdrs += sizeof(h);
		type = be32toh(ld32(h));
		count = be32toh(ld32(h + 4));
		if (type > PVMI_TYPE_MSG)
			break;
		if (type == PVMI_TYPE_MSG) {
			struct cur t = c;

			if (cur_read(m, &t, f, sizeof(f)))
				break;
			blen = be32toh(ld32(f + 16));
			size = MSG_FIELDS_LEN + (size_t)blen + (-(size_t)blen & 3);
			/* stock counts its header and the inner data */
			hdrs += size - MSG_FIELDS_LEN -
				(size_t)be32toh(ld32(f + 32));
		} else {
			size = (size_t)count * wire_size(type, xdr) +
			       pad_of(type, count, xdr);
		}
		if (cur_skip(m, &c, size))
			break;
		/* Stock sends a string's length as an int before its bytes;
		 * count those 4 bytes so byte counts match.  Its XDR long
		 * is 4 bytes; ours keeps all 8 (see pvmi_item_view). */
		if (type == PVM_STR)
			hdrs -= 4;
		if (xdr && (type == PVM_LONG || type == PVM_ULONG))
			hdrs += (size_t)count * 4;
	}
	m->datalen = m->len - hdrs;
	m->datalen_at = m->len + 1;
	return m->datalen;
}

/* Reads `k' elements of `type' (all in the current item) into every
 * `step' bytes of `out', converting whole runs within each fragment. */
static void cur_get(const struct pvmi_msg *m, struct cur *c, int type,
		    int xdr, unsigned char *out, size_t step, size_t k)
{
	size_t wsz = wire_size(type, xdr), avail, n;
	unsigned char tmp[16];
	const unsigned char *p;

	while (k) {
		avail = cur_span(m, c, &p);
		n = avail / wsz;
		if (n > k)
			n = k;
		if (n) {
			decode(out, step, p, n, type, xdr);
			c->off += n * wsz;
		} else {
			/* an element split between two fragments */
			cur_read(m, c, tmp, wsz);
			decode(out, step, tmp, 1, type, xdr);
			n = 1;
		}
		out += n * step;
		k -= n;
	}
}

/* The unpack of COPVM_STRICT_UNPACK=1: each item must be of the type
 * family asked for, and a failing call (PvmBadMsg, or PvmNoData at the end
 * of the body) copies and consumes nothing. */
static int unpack_strict(struct pvmi_msg *m, int type, unsigned char *out,
			 int count, size_t step, int xdr)
{
	size_t wsz = wire_size(type, xdr);
	uint32_t k, need;
	struct cur c;
	int cc, pass;

	if (m->rview)
		return PvmBadMsg;	/* left by a non-strict unpack */
	if (type == PVM_STR) {
		cur_load(m, &c);
		if (c.left)
			return PvmBadMsg;	/* inside an item of another type */
		cc = cur_item(m, &c, xdr);
		if (cc)
			return cc;
		if (CUR_TYPE(&c) != PVM_STR)
			return PvmBadMsg;
		cur_read(m, &c, out, c.left);
		cur_skip(m, &c, CUR_PAD(&c));
		c.left = 0;
		cur_store(m, &c);
		return PvmOk;
	}
	/* pass 0 only checks, pass 1 converts */
	for (pass = 0; pass < 2; pass++) {
		cur_load(m, &c);
		for (need = count; need; need -= k) {
			if (!c.left) {
				cc = cur_item(m, &c, xdr);
				if (cc)
					return cc;
			}
			if (tdesc[CUR_TYPE(&c)].family != tdesc[type].family)
				return PvmBadMsg;
			k = need < c.left ? need : c.left;
			if (pass) {
				cur_get(m, &c, type, xdr, out, step, k);
				out += k * step;
			} else {
				cur_skip(m, &c, k * wsz);
			}
			c.left -= k;
			if (!c.left)
				cur_skip(m, &c, CUR_PAD(&c));
		}
	}
	cur_store(m, &c);
	return PvmOk;
}

/*
 * Reads whole runs of items of the type family asked for, as packed;
 * from the first item of another family on (or a view left by an earlier
 * call), pvmi_view_unpack() reads the bytes stock's body would hold.  An
 * XDR byte read that does not end with its item goes that way too: stock
 * pads each byte read to 4 on its own.
 */
static int unpack_items(struct pvmi_msg *m, int type, unsigned char *out,
			int count, size_t step, int xdr)
{
	uint32_t k, need;
	struct cur c;
	int cc;

	for (need = count; need; need -= k) {
		if (m->rview && m->rview_pos < m->rview_len)
			break;
		pvmi_view_drop(m);
		cur_load(m, &c);
		if (!c.left) {
			cc = cur_item(m, &c, xdr);
			if (cc)
				return cc;
		}
		if (tdesc[CUR_TYPE(&c)].family != tdesc[type].family)
			break;
		if (type == PVM_STR) {
			cur_read(m, &c, out, c.left);
			cur_skip(m, &c, CUR_PAD(&c));
			c.left = 0;
			cur_store(m, &c);
			return PvmOk;
		}
		if (xdr && type == PVM_BYTE && c.left != need)
			break;
		k = need < c.left ? need : c.left;
		cur_get(m, &c, type, xdr, out, step, k);
		out += k * step;
		c.left -= k;
		if (!c.left)
			cur_skip(m, &c, CUR_PAD(&c));
		cur_store(m, &c);
	}
	if (!need)
		return PvmOk;
	return pvmi_view_unpack(m, type, out, type == PVM_STR ? 1 : need,
				step, xdr);
}

int pvmi_unpack(struct pvmi_msg *m, int type, void *data, int count,
		int stride)
{
	size_t step;
	int xdr;

	if (!m)
		return PvmBadParam;
	if (type == PVMI_TYPE_MSG)
		return data ? pvmi_unpack_msg(m, data) : PvmBadParam;
	if (type < PVM_STR || type > PVM_ULONG || count < 0 || stride < 1)
		return PvmBadParam;
	xdr = enc_is_xdr(m->enc);
	if (xdr < 0)
		return PvmBadMsg;
	if (type == PVM_STR)
		count = stride = 1;
	if (!count)
		return PvmOk;
	if (!data)
		return PvmBadParam;
	step = (size_t)stride * nat_size(type);
	if (pvmi_strict_unpack())
		return unpack_strict(m, type, data, count, step, xdr);
	return unpack_items(m, type, data, count, step, xdr);
}

int pvmi_item_view(struct pvmi_msg *m, unsigned char **view, size_t *len)
{
	unsigned char f[MSG_FIELDS_LEN], *v, *p;
	int xdr = enc_is_xdr(m->enc), type, cc;
	size_t pre = 0, n, pad, size, i;
	struct cur c, t;

	if (xdr < 0)
		return PvmBadMsg;
	cur_load(m, &c);
	if (!c.left) {
		cc = cur_item(m, &c, xdr);
		if (cc)
			return cc;
		if (CUR_TYPE(&c) == PVM_STR)
			pre = 4;	/* stock's length before the bytes */
	}
	type = CUR_TYPE(&c);
	n = c.left;
	pad = CUR_PAD(&c);
	if (type == PVMI_TYPE_MSG) {
		t = c;
		cur_read(m, &t, f, sizeof(f));
		size = MSG_FIELDS_LEN + (size_t)be32toh(ld32(f + 16));
	} else if (xdr && (type == PVM_LONG || type == PVM_ULONG)) {
		size = n * 4;		/* stock: the low 32 bits */
	} else {
		size = n * wire_size(type, xdr);
	}
	v = malloc(pre + size + pad ? pre + size + pad : 1);
	if (!v)
		return PvmNoMem;
	if (pre && xdr)
		st32(v, htobe32((uint32_t)n));
	else if (pre)
		memcpy(v, &(uint32_t){ (uint32_t)n }, 4);
	p = v + pre;
	if (xdr && (type == PVM_LONG || type == PVM_ULONG)) {
		for (i = 0; i < n; i++) {
			unsigned char e[8];

			cur_read(m, &c, e, 8);
			memcpy(p + 4 * i, e + 4, 4);
		}
		cur_skip(m, &c, pad);
	} else {
		cur_read(m, &c, p, size + pad);
	}
	c.left = 0;
	cur_store(m, &c);
	*view = v;
	*len = pre + size + pad;
	return PvmOk;
}

int pvmi_body_bytes(struct pvmi_msg *m, unsigned char *out, size_t n)
{
	int xdr = enc_is_xdr(m->enc), type;
	struct cur c = { 0 };

	pvmi_msg_rewind(m);
	if (!n)
		return PvmOk;
	/* the common case, one item of pvm_psend: its bytes as they are */
	if (xdr >= 0 && cur_item(m, &c, xdr) == PvmOk) {
		type = CUR_TYPE(&c);
		if (type != PVM_STR && type != PVMI_TYPE_MSG &&
		    !(xdr && (type == PVM_LONG || type == PVM_ULONG)) &&
		    (size_t)c.left * wire_size(type, xdr) + CUR_PAD(&c) >= n)
			return cur_read(m, &c, out, n) ? PvmBadMsg : PvmOk;
	}
	return pvmi_view_unpack(m, PVM_BYTE, out, (int)n, 1, 0);
}

/* Reads a PVMI_TYPE_MSG item into a new, unregistered message (*out). */
int pvmi_unpack_msg(struct pvmi_msg *m, struct pvmi_msg **out)
{
	unsigned char f[MSG_FIELDS_LEN];
	struct pvmi_msg *in;
	unsigned char *body;
	uint32_t blen;
	struct cur c;
	int xdr, enc, cc;

	xdr = enc_is_xdr(m->enc);
	if (xdr < 0)
		return PvmBadMsg;
	if (m->rview && m->rview_pos < m->rview_len)
		return PvmBadMsg;	/* inside data read as another type */
	pvmi_view_drop(m);
	cur_load(m, &c);
	if (c.left)
		return PvmBadMsg;
	cc = cur_item(m, &c, xdr);
	if (cc)
		return cc;
	if (CUR_TYPE(&c) != PVMI_TYPE_MSG)
		return PvmBadMsg;
	cur_read(m, &c, f, sizeof(f));
	enc = (int)be32toh(ld32(f));
	blen = be32toh(ld32(f + 16));
	if (enc_is_xdr(enc) < 0)
		return PvmBadMsg;
	body = pvmi_buf_alloc(blen);
	if (!body)
		return PvmNoMem;
	cur_read(m, &c, body, blen);
	in = pvmi_msg_from_body(body, blen, enc);
	if (!in) {
		pvmi_buf_free(body);
		return PvmNoMem;
	}
	in->tag = (int)be32toh(ld32(f + 4));
	in->ctx = (int)be32toh(ld32(f + 8));
	in->src = (int)be32toh(ld32(f + 12));
	in->dst = (int)be32toh(ld32(f + 20));
	in->wid = (int)be32toh(ld32(f + 24));
	in->crc = (int)be32toh(ld32(f + 28));
	cur_skip(m, &c, CUR_PAD(&c));
	c.left = 0;
	cur_store(m, &c);
	*out = in;
	return PvmOk;
}

/*
 * The public entry points.  Arguments are checked before the buffer, as
 * stock does: pvm_pkint(p, -1, 1) is PvmBadParam even with no buffer.
 */

static int pk(const char *fn, int type, const void *p, int n, int stride)
{
	struct pvmi_msg *m;
	int cc;

	if (n < 0 || stride < 1 || (!p && n))
		return pvmi_error(fn, PvmBadParam);
	m = pvmi_mid_lookup(pvmi_sbuf);
	if (!m)
		return pvmi_error(fn, PvmNoBuf);
	cc = pvmi_pack(m, type, p, n, stride);
	return cc ? pvmi_error(fn, cc) : PvmOk;
}

static int upk(const char *fn, int type, void *p, int n, int stride)
{
	struct pvmi_msg *m;
	int cc;

	if (n < 0 || stride < 1 || (!p && n))
		return pvmi_error(fn, PvmBadParam);
	m = pvmi_mid_lookup(pvmi_rbuf);
	if (!m)
		return pvmi_error(fn, PvmNoBuf);
	cc = pvmi_unpack(m, type, p, n, stride);
	return cc ? pvmi_error(fn, cc) : PvmOk;
}

/*
 * The typed pairs pvm_pk<type> / pvm_upk<type>: pack `n' elements taken
 * every `stride' elements of the array into the active send buffer, or
 * unpack `n' elements from the active receive buffer into every
 * `stride'-th element.  Complex types count (re, im) pairs; longs are 8
 * bytes in XDR, so nothing overflows.  Each returns PvmOk or a negative
 * error code.
 */
#define TYPED_PACK_PAIR(suffix, ctype, code)				\
	PVMI_EXPORT int pvm_pk##suffix(ctype *p, int n, int stride)	\
	{								\
		return pk("pvm_pk" #suffix, code, p, n, stride);	\
	}								\
	PVMI_EXPORT int pvm_upk##suffix(ctype *p, int n, int stride)	\
	{								\
		return upk("pvm_upk" #suffix, code, p, n, stride);	\
	}

TYPED_PACK_PAIR(byte, char, PVM_BYTE)
TYPED_PACK_PAIR(cplx, float, PVM_CPLX)
TYPED_PACK_PAIR(dcplx, double, PVM_DCPLX)
TYPED_PACK_PAIR(double, double, PVM_DOUBLE)
TYPED_PACK_PAIR(float, float, PVM_FLOAT)
TYPED_PACK_PAIR(int, int, PVM_INT)
TYPED_PACK_PAIR(uint, unsigned int, PVM_UINT)
TYPED_PACK_PAIR(long, long, PVM_LONG)
TYPED_PACK_PAIR(ulong, unsigned long, PVM_ULONG)
TYPED_PACK_PAIR(short, short, PVM_SHORT)
TYPED_PACK_PAIR(ushort, unsigned short, PVM_USHORT)

/* Packs the NUL-terminated string `sp'.  Returns PvmOk or a negative
 * error code: PvmBadParam for NULL, PvmNotImpl into a PvmDataInPlace
 * buffer, as stock (pvm_packf's %s does pack there, copied). */
PVMI_EXPORT int pvm_pkstr(char *sp)
{
	struct pvmi_msg *m;
	size_t len;

	if (!sp)
		return pvmi_error("pvm_pkstr", PvmBadParam);
	m = pvmi_mid_lookup(pvmi_sbuf);
	if (m && m->enc == PvmDataInPlace)
		return pvmi_error("pvm_pkstr", PvmNotImpl);
	len = strlen(sp) + 1;
	if (len > INT_MAX)
		return pvmi_error("pvm_pkstr", PvmBadParam);
	return pk("pvm_pkstr", PVM_STR, sp, (int)len, 1);
}

/* Unpacks one string, its NUL included, into `sp' (which must be big
 * enough).  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_upkstr(char *sp)
{
	if (!sp)
		return pvmi_error("pvm_upkstr", PvmBadParam);
	return upk("pvm_upkstr", PVM_STR, sp, 1, 1);
}

/* Checks `bufid' as the message to put into the send buffer; returns
 * the send buffer's message, or NULL with *cc set. */
static struct pvmi_msg *mesg_args(int bufid, struct pvmi_msg **inner,
				  int *cc)
{
	struct pvmi_msg *m;

	if (bufid <= 0 || bufid == pvmi_sbuf) {
		*cc = PvmBadParam;
		return NULL;
	}
	m = pvmi_mid_lookup(pvmi_sbuf);
	if (!m) {
		*cc = PvmNoBuf;
		return NULL;
	}
	*inner = pvmi_mid_lookup(bufid);
	if (!*inner) {
		*cc = PvmNoSuchBuf;
		return NULL;
	}
	return m;
}

/* Packs message `bufid' (header fields and body) as one item of the
 * active send buffer.  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_pkmesg(int bufid)
{
	struct pvmi_msg *m, *inner = NULL;
	int cc;

	m = mesg_args(bufid, &inner, &cc);
	if (!m)
		return pvmi_error("pvm_pkmesg", cc);
	cc = pvmi_pack_msg(m, inner);
	return cc ? pvmi_error("pvm_pkmesg", cc) : PvmOk;
}

/* Appends the body of message `bufid' to the active send buffer, whose
 * encoding must match (Raw and InPlace bodies are alike).  Returns PvmOk
 * or a negative error code. */
PVMI_EXPORT int pvm_pkmesgbody(int bufid)
{
	struct pvmi_msg *m, *inner = NULL;
	unsigned char *p;
	int i, cc;

	m = mesg_args(bufid, &inner, &cc);
	if (!m)
		return pvmi_error("pvm_pkmesgbody", cc);
	if (enc_is_xdr(m->enc) != enc_is_xdr(inner->enc))
		return pvmi_error("pvm_pkmesgbody", PvmMismatch);
	if (!inner->len)
		return PvmOk;
	if (!fits(m, inner->len))
		return pvmi_error("pvm_pkmesgbody", PvmNoMem);
	p = pvmi_msg_extend(m, inner->len);
	if (!p)
		return pvmi_error("pvm_pkmesgbody", PvmNoMem);
	for (i = 0; i < inner->nfrag; i++) {
		if (inner->frags[i].len)
			memcpy(p, inner->frags[i].data, inner->frags[i].len);
		p += inner->frags[i].len;
	}
	return PvmOk;
}

/* Unpacks a message packed by pvm_pkmesg() from the active receive buffer
 * into a new buffer.  Returns the new buffer id or a negative error code. */
PVMI_EXPORT int pvm_upkmesg(void)
{
	struct pvmi_msg *m, *in = NULL;
	int cc;

	m = pvmi_mid_lookup(pvmi_rbuf);
	if (!m)
		return pvmi_error("pvm_upkmesg", PvmNoBuf);
	cc = pvmi_unpack_msg(m, &in);
	if (cc)
		return pvmi_error("pvm_upkmesg", cc);
	cc = pvmi_mid_register(in);
	if (cc < 0) {
		pvmi_msg_free(in);
		return pvmi_error("pvm_upkmesg", cc);
	}
	return cc;
}

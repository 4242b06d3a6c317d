/*
 * pack.c - packing typed arrays into message bodies and unpacking them,
 * in the item format of wire.h.  The element conversions are
 * pack_codec.c's, the pvm_pk* / pvm_upk* entry points pack_api.c's.
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
 * contiguous spans of a fragment.
 */
#include <endian.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "pack_codec.h"
#include "pvmi.h"
#include "msg.h"
#include "wire.h"

/* Bytes of the nine int32 fields that open a PVMI_TYPE_MSG item: enc,
 * tag, ctx, src, body length (at 16), dst, wid, crc and the length
 * stock gives the body (pvmi_msg_data_len); stock's header of an
 * embedded message is as long. */
#define MSG_FIELDS_LEN	36

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
	pvmi_encode(p, data, count, step, type, xdr);
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

/* Appends the body of `inner' to `m' (pvm_pkmesgbody); the encodings
 * must match, Raw and InPlace bodies being alike (msg.h). */
int pvmi_pack_body(struct pvmi_msg *m, const struct pvmi_msg *inner)
{
	unsigned char *p;
	int i;

	if (enc_is_xdr(m->enc) != enc_is_xdr(inner->enc))
		return PvmMismatch;
	if (!inner->len)
		return PvmOk;
	if (!fits(m, inner->len))
		return PvmNoMem;
	p = pvmi_msg_extend(m, inner->len);
	if (!p)
		return PvmNoMem;
	for (i = 0; i < inner->nfrag; i++) {
		if (inner->frags[i].len)
			memcpy(p, inner->frags[i].data, inner->frags[i].len);
		p += inner->frags[i].len;
	}
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

	/* the common case: all within the current fragment */
	if (c->frag < m->nfrag && m->frags[c->frag].len - c->off >= n &&
	    c->off <= m->frags[c->frag].len) {
		if (o)
			memcpy(o, m->frags[c->frag].data + c->off, n);
		c->off += n;
		return 0;
	}
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

/* pvmi_msg_data_len()'s common case, a received message of one array
 * (one pvm_pk* call): one item of a plain type, neither a string nor an
 * XDR long, that fills the body's one fragment exactly.  1 with its
 * length as stock counts it (the body less the item's header) in *len,
 * else 0. */
static inline int one_item_len(const struct pvmi_msg *m, int xdr,
			       size_t *len)
{
	const unsigned char *p;
	uint32_t type, count;

	if (m->nfrag != 1 || m->frags[0].len != m->len ||
	    m->len < PVMI_ITEM_HDR_LEN || xdr < 0)
		return 0;
	p = m->frags[0].data;
	type = be32toh(ld32(p));
	count = be32toh(ld32(p + 4));
	if (type >= PVMI_TYPE_MSG || type == PVM_STR ||
	    (xdr && (type == PVM_LONG || type == PVM_ULONG)) ||
	    (uint64_t)count * wire_size((int)type, xdr) +
	    pad_of((int)type, count, xdr) != m->len - PVMI_ITEM_HDR_LEN)
		return 0;
	*len = m->len - PVMI_ITEM_HDR_LEN;
	return 1;
}

/* pvmi_msg_data_len() past its common cases: the walk over every item
 * of `m' (encoded as `xdr' says). */
static __attribute__((noinline)) size_t data_len_walk(struct pvmi_msg *m,
						      int xdr)
{
	unsigned char h[PVMI_ITEM_HDR_LEN], f[MSG_FIELDS_LEN];
	const unsigned char *p;
	struct cur c = { 0 };
	size_t hdrs = 0, size;
	uint32_t type, count, blen;

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
	return m->len - hdrs;
}

size_t pvmi_msg_data_len(struct pvmi_msg *m)
{
	int xdr = enc_is_xdr(m->enc);
	size_t len;

	if (m->datalen_at == m->len + 1)
		return m->datalen;
	if (!one_item_len(m, xdr, &len))
		len = data_len_walk(m, xdr);
	m->datalen = len;
	m->datalen_at = m->len + 1;
	return len;
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
			pvmi_decode(out, step, p, n, type, xdr);
			c->off += n * wsz;
		} else {
			/* an element split between two fragments */
			cur_read(m, c, tmp, wsz);
			pvmi_decode(out, step, tmp, 1, type, xdr);
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
			if (pvmi_tdesc[CUR_TYPE(&c)].family != pvmi_tdesc[type].family)
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
		if (pvmi_tdesc[CUR_TYPE(&c)].family != pvmi_tdesc[type].family)
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

/*
 * The common unpack, read in place: the cursor between items and no view
 * left, and the next item, whole in the current fragment, of exactly
 * `type' and `count' (not a string).  1 when done, 0 when the general
 * path must take it (nothing moved then).
 */
static int unpack_whole_item(struct pvmi_msg *m, int type, void *out,
			     int count, size_t step, int xdr)
{
	const unsigned char *p;
	size_t size, pad, room;

	if (m->ritem_left || m->rview || m->rfrag >= m->nfrag ||
	    type == PVM_STR)
		return 0;
	if (m->roff > m->frags[m->rfrag].len)
		return 0;
	room = m->frags[m->rfrag].len - m->roff;
	if (room < PVMI_ITEM_HDR_LEN)
		return 0;
	p = m->frags[m->rfrag].data + m->roff;
	if (be32toh(ld32(p)) != (uint32_t)type ||
	    be32toh(ld32(p + 4)) != (uint32_t)count)
		return 0;
	pad = pad_of(type, (uint32_t)count, xdr);
	size = (size_t)count * wire_size(type, xdr);
	if (room - PVMI_ITEM_HDR_LEN < size + pad)
		return 0;
	pvmi_decode(out, step, p + PVMI_ITEM_HDR_LEN, (size_t)count, type,
		    xdr);
	m->roff += PVMI_ITEM_HDR_LEN + size + pad;
	m->ritem_type = (uint32_t)type | (uint32_t)pad << 8;
	return 1;
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
	if (unpack_whole_item(m, type, data, count, step, xdr))
		return PvmOk;
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

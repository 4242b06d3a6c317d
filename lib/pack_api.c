/*
 * pack_api.c - the pvm_pk* / pvm_upk* entry points: pack into the active
 * send buffer, unpack from the active receive buffer, and (un)pack whole
 * messages (pvm_pkmesg, pvm_pkmesgbody, pvm_upkmesg).  Arguments are
 * checked before the buffer, as stock does: pvm_pkint(p, -1, 1) is
 * PvmBadParam even with no buffer.  The work is pack.c's, but for the
 * common case, taken here in one step: a dense array packed into the
 * room left in the last fragment of an XDR or Raw buffer, or unpacked
 * from a whole item of the same type and count at the cursor.  Either
 * writes or reads exactly what pack.c would; anything else goes there.
 */
#include <limits.h>
#include <string.h>

#include "msg.h"
#include "pack_codec.h"
#include "pvmi.h"

static __attribute__((noinline)) int pk(const char *fn, int type,
					const void *p, int n, int stride)
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

static __attribute__((noinline)) int upk(const char *fn, int type, void *p,
					 int n, int stride)
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

/* Copies `n' bytes: a dense byte array of a small message is often a
 * few bytes, where two overlapping moves cost less than memcpy's call. */
static inline void copy_bytes(unsigned char *d, const unsigned char *s,
			      size_t n)
{
	uint64_t a, b;
	uint32_t x, y;

	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		a = ld64(s);
		b = ld64(s + n - 8);
		st64(d, a);
		st64(d + n - 8, b);
	} else if (n >= 4) {
		x = ld32(s);
		y = ld32(s + n - 4);
		st32(d, x);
		st32(d + n - 4, y);
	} else {
		while (n--)
			*d++ = *s++;
	}
}

/* Copies `n' bytes (more than copy_bytes copies inline) and returns
 * PvmOk: the last step of pk_dense and upk_dense, a tail call. */
static __attribute__((noinline)) int copy_out(void *d, const void *s,
					      size_t n)
{
	memcpy(d, s, n);
	return PvmOk;
}

/*
 * pk()'s common case in one step (inlined with a constant `type'): `n'
 * > 0 dense elements into the room of the last, owned fragment of an
 * XDR or Raw send buffer, as pvmi_pack() writes them (InPlace borrows
 * the array instead, so it goes there); pk() takes any other call.
 * Returns what pk() would.
 */
static inline __attribute__((always_inline)) int
pk_dense(const char *fn, int type, const void *p, int n)
{
	struct pvmi_msg *m;
	struct pvmi_frag *f;
	size_t nb, pad, total;
	unsigned char *d;
	int xdr;

	m = pvmi_mid_lookup(pvmi_sbuf);
	if (!m || !m->nfrag)
		return pk(fn, type, p, n, 1);
	if (m->enc == PvmDataDefault)
		xdr = 1;
	else if (m->enc == PvmDataRaw)
		xdr = 0;
	else
		return pk(fn, type, p, n, 1);
	f = &m->frags[m->nfrag - 1];
	nb = type == PVM_BYTE ? (size_t)n : (size_t)n * wire_size(type, xdr);
	pad = pad_of(type, (uint32_t)n, xdr);
	total = PVMI_ITEM_HDR_LEN + nb + pad;
	if (!f->cap || f->cap - f->len < total ||
	    m->len + total > PVMI_FRAME_MAX_BODY)
		return pk(fn, type, p, n, 1);
	d = f->data + f->len;
	/* the lengths first, so that a long copy ends in a tail call */
	f->len += total;
	m->len += total;
	put_hdr(d, (uint32_t)type, (uint32_t)n);
	d += PVMI_ITEM_HDR_LEN;
	if (type != PVM_BYTE) {
		pvmi_encode(d, p, (size_t)n, nat_size(type), type, xdr);
		return PvmOk;
	}
	/* the zero pad first, as a word the bytes then partly cover */
	if (pad)
		st32(d + (nb & ~(size_t)3), 0);
	if (nb > 16)
		return copy_out(d, p, nb);
	copy_bytes(d, p, nb);
	return PvmOk;
}

/*
 * upk()'s common case in one step: the cursor between items with no
 * view left, and the next item, whole in the current fragment, of exactly
 * `type' and `n' > 0 elements, read densely as pvmi_unpack() reads it;
 * upk() takes any other call.  Returns what upk() would.  The item's
 * bounds are checked at once (its end within the fragment: no size_t
 * sum here can wrap), the cursor moved before the copy, so that a long
 * copy ends in a tail call.
 */
static inline __attribute__((always_inline)) int
upk_dense(const char *fn, int type, void *p, int n)
{
	struct pvmi_msg *m;
	struct pvmi_frag *f;
	const unsigned char *s;
	size_t nb, pad, end;
	int xdr;

	m = pvmi_mid_lookup(pvmi_rbuf);
	if (!m || m->ritem_left || m->rview || m->rfrag >= m->nfrag)
		return upk(fn, type, p, n, 1);
	xdr = enc_is_xdr(m->enc);
	if (xdr < 0)
		return upk(fn, type, p, n, 1);
	f = &m->frags[m->rfrag];
	nb = type == PVM_BYTE ? (size_t)n : (size_t)n * wire_size(type, xdr);
	pad = pad_of(type, (uint32_t)n, xdr);
	end = m->roff + PVMI_ITEM_HDR_LEN + nb + pad;
	if (end > f->len)
		return upk(fn, type, p, n, 1);
	s = f->data + m->roff;
	if (be32toh(ld32(s)) != (uint32_t)type ||
	    be32toh(ld32(s + 4)) != (uint32_t)n)
		return upk(fn, type, p, n, 1);
	m->roff = end;
	m->ritem_type = (uint32_t)type | (uint32_t)pad << 8;
	s += PVMI_ITEM_HDR_LEN;
	if (type != PVM_BYTE)
		pvmi_decode(p, nat_size(type), s, (size_t)n, type, xdr);
	else if (nb > 16)
		return copy_out(p, s, nb);
	else
		copy_bytes(p, s, nb);
	return PvmOk;
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
		if (n > 0 && stride == 1 && p)				\
			return pk_dense("pvm_pk" #suffix, code, p, n);	\
		return pk("pvm_pk" #suffix, code, p, n, stride);	\
	}								\
	PVMI_EXPORT int pvm_upk##suffix(ctype *p, int n, int stride)	\
	{								\
		if (n > 0 && stride == 1 && p)				\
			return upk_dense("pvm_upk" #suffix, code, p, n); \
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
	int cc;

	m = mesg_args(bufid, &inner, &cc);
	if (!m)
		return pvmi_error("pvm_pkmesgbody", cc);
	cc = pvmi_pack_body(m, inner);
	return cc ? pvmi_error("pvm_pkmesgbody", cc) : PvmOk;
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

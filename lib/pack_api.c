/*
 * pack_api.c - the pvm_pk* / pvm_upk* entry points: pack into the active
 * send buffer, unpack from the active receive buffer, and (un)pack whole
 * messages (pvm_pkmesg, pvm_pkmesgbody, pvm_upkmesg).  Arguments are
 * checked before the buffer, as stock does: pvm_pkint(p, -1, 1) is
 * PvmBadParam even with no buffer.  The work is pack.c's.
 */
#include <limits.h>
#include <string.h>

#include "msg.h"
#include "pvmi.h"

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

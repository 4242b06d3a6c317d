/*
 * buffers.c - the public face of message buffers: creating and freeing
 * them, choosing the active send and receive buffers, and reading or
 * setting their header fields.
 *
 * A buffer id names a struct pvmi_msg through the table in msg.c.  The
 * active buffers are just ids (pvmi_sbuf, pvmi_rbuf); freeing a buffer
 * that is active clears the matching id.  Selecting a receive buffer does
 * not rewind it, as in stock PVM: a task may switch away and come back to
 * finish unpacking.
 */
#include "pvmi.h"
#include "msg.h"
#include "proto.h"

/* Encoding codes pvm_getminfo() reports, as stock does: XDR, the host's
 * data signature for native data, and a code of its own for in-place. */
#define MINFO_ENC_XDR		0x10000000
#define MINFO_ENC_INPLACE	0x20000000

/* Registers empty message `m' as a buffer of ours (our tid, the current
 * context); returns its id, or PvmNoMem with `m' freed. */
static int register_buf(struct pvmi_msg *m)
{
	int mid;

	m->src = pvmi.mytid > 0 ? pvmi.mytid : -1;
	m->ctx = pvmi.ctx;
	mid = pvmi_mid_register(m);
	if (mid < 0)
		pvmi_msg_free(m);
	return mid;
}

/* Makes and registers a buffer of encoding `enc' (already checked);
 * returns its id or PvmNoMem. */
static int make_buf(int enc)
{
	struct pvmi_msg *m = pvmi_msg_new(enc);

	return m ? register_buf(m) : PvmNoMem;
}

/* Maps a user's encoding to the one stored in the message, or -1 when it
 * is not one pvm_mkbuf() accepts.  PvmDataTrace bodies are plain XDR. */
static int check_enc(int enc)
{
	switch (enc) {
	case PvmDataDefault:
	case PvmDataTrace:
		return PvmDataDefault;
	case PvmDataRaw:
	case PvmDataInPlace:
		return enc;
	default:
		return -1;
	}
}

/* Creates an empty buffer packed with encoding `enc'.
 * Returns its id (> 0) or a negative error code. */
PVMI_EXPORT int pvm_mkbuf(int enc)
{
	int mid;

	enc = check_enc(enc);
	if (enc < 0)
		return pvmi_error("pvm_mkbuf", PvmBadParam);
	mid = make_buf(enc);
	return mid < 0 ? pvmi_error("pvm_mkbuf", mid) : mid;
}

/* Frees buffer `mid' (0 is accepted and does nothing), clearing the
 * active send or receive buffer if it was one.  Returns PvmOk or an error. */
PVMI_EXPORT int pvm_freebuf(int mid)
{
	struct pvmi_msg *m;

	if (mid < 0)
		return pvmi_error("pvm_freebuf", PvmBadParam);
	if (!mid)
		return PvmOk;
	m = pvmi_mid_lookup(mid);
	if (!m)
		return pvmi_error("pvm_freebuf", PvmNoSuchBuf);
	if (pvmi_sbuf == mid)
		pvmi_sbuf = 0;
	if (pvmi_rbuf == mid)
		pvmi_rbuf = 0;
	pvmi_mid_retire(mid);	/* a small body serves the next frame */
	return PvmOk;
}

/* Makes `mid' the receive buffer, freeing the one it replaces (msg.h). */
void pvmi_rbuf_replace(int mid)
{
	int old = pvmi_rbuf;

	pvmi_rbuf = mid;
	/* the send buffer is never freed here (pvm_setsbuf() detaches it) */
	if (old > 0 && old != mid && old != pvmi_sbuf)
		pvmi_mid_retire(old);	/* its body serves the next */
}

/* pvm_initsend past its common case (below), with `enc' as the user
 * gave it: a bad encoding, no send buffer or one of another encoding, or
 * a renewal that takes more than pvmi_msg_renew's case. */
static __attribute__((noinline)) int initsend_slow(int enc)
{
	struct pvmi_msg *m;
	int mid;

	enc = check_enc(enc);
	if (enc < 0) {
		/* stock reports it twice: its pvm_mkbuf, then itself */
		pvmi_error("pvm_mkbuf", PvmBadParam);
		return pvmi_error("pvm_initsend", PvmBadParam);
	}
	/* the send buffer of this encoding emptied and registered under a
	 * new id all the same (it is never also the receive buffer: each
	 * setter clears the other); when no id can be had, it is freed, as
	 * stock's initsend frees it */
	m = pvmi_mid_lookup(pvmi_sbuf);
	if (m && m->enc == enc) {
		pvmi_mid_forget(pvmi_sbuf);
		pvmi_sbuf = 0;
		pvmi_msg_empty(m);
		mid = register_buf(m);
		if (mid > 0) {
			pvmi_sbuf = mid;
			return mid;
		}
	}
	/* make the new buffer first, so a failure keeps the old one */
	mid = make_buf(enc);
	if (mid < 0)
		return pvmi_error("pvm_initsend", mid);
	if (pvmi_sbuf)
		pvm_freebuf(pvmi_sbuf);
	pvmi_sbuf = mid;
	return mid;
}

/* Replaces the active send buffer with a new one of encoding `enc'.
 * Returns the new buffer's id or a negative error code.  The common
 * case: the active send buffer, of encoding `enc', emptied in place and
 * registered under a new id, as a new buffer would be; its object and
 * its first body buffer serve the next message without going through
 * the pools. */
PVMI_EXPORT int pvm_initsend(int enc)
{
	struct pvmi_msg *m = pvmi_mid_lookup(pvmi_sbuf);
	int mid;

	/* check_enc(enc) == enc: Default, Raw or InPlace (0, 1, 2) */
	if (m && m->enc == enc && (unsigned)enc <= PvmDataInPlace &&
	    (mid = pvmi_msg_renew(m, pvmi.mytid > 0 ? pvmi.mytid : -1,
				  pvmi.ctx)) > 0) {
		pvmi_sbuf = mid;
		return mid;
	}
	return initsend_slow(enc);
}

/* Returns the id of the active send buffer, 0 if there is none. */
PVMI_EXPORT int pvm_getsbuf(void)
{
	return pvmi_sbuf;
}

/* Returns the id of the active receive buffer, 0 if there is none. */
PVMI_EXPORT int pvm_getrbuf(void)
{
	return pvmi_rbuf;
}

/* Checks `mid' as an argument of pvm_set[sr]buf(): 0 or a live buffer. */
static int check_set(int mid)
{
	if (mid < 0)
		return PvmBadParam;
	if (mid && !pvmi_mid_lookup(mid))
		return PvmNoSuchBuf;
	return PvmOk;
}

/* Makes `mid' the active send buffer (0: none).  The active receive
 * buffer given as the send buffer leaves the receive side, as in stock
 * (pvm_getrbuf() is then 0), so the next receive does not free it: this
 * is how a task forwards the message it received.
 * Returns the previous one's id (0 if none) or a negative error code. */
PVMI_EXPORT int pvm_setsbuf(int mid)
{
	int old = pvmi_sbuf, cc = check_set(mid);

	if (cc)
		return pvmi_error("pvm_setsbuf", cc);
	if (mid && pvmi_rbuf == mid)
		pvmi_rbuf = 0;
	pvmi_sbuf = mid;
	return old;
}

/* Makes `mid' the active receive buffer (0: none), without rewinding it;
 * the active send buffer given here leaves the send side, as in stock.
 * Returns the previous one's id (0 if none) or a negative error code. */
PVMI_EXPORT int pvm_setrbuf(int mid)
{
	int old = pvmi_rbuf, cc = check_set(mid);

	if (cc)
		return pvmi_error("pvm_setrbuf", cc);
	if (mid && pvmi_sbuf == mid)
		pvmi_sbuf = 0;
	pvmi_rbuf = mid;
	return old;
}

/* Looks up `mid' for the info calls; NULL with *cc set when it is not a
 * buffer id (PvmBadParam) or names no buffer (PvmNoSuchBuf). */
static struct pvmi_msg *info_lookup(int mid, int *cc)
{
	struct pvmi_msg *m;

	if (mid <= 0) {
		*cc = PvmBadParam;
		return NULL;
	}
	m = pvmi_mid_lookup(mid);
	if (!m)
		*cc = PvmNoSuchBuf;
	return m;
}

/* Reports the body length, tag and source tid of buffer `mid'; any of the
 * out pointers may be NULL.  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_bufinfo(int mid, int *bytes, int *tag, int *tid)
{
	struct pvmi_msg *m;
	int cc;

	m = info_lookup(mid, &cc);
	if (!m)
		return pvmi_error("pvm_bufinfo", cc);
	if (bytes)
		*bytes = (int)pvmi_msg_data_len(m);
	if (tag)
		*tag = m->tag;
	if (tid)
		*tid = m->src;
	return PvmOk;
}

/* Fills `mi' with the header fields of buffer `mid'.
 * Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_getminfo(int mid, struct pvmminfo *mi)
{
	struct pvmi_msg *m;
	int cc;

	if (!mi)
		return pvmi_error("pvm_getminfo", PvmBadParam);
	m = info_lookup(mid, &cc);
	if (!m)
		return pvmi_error("pvm_getminfo", cc);
	mi->len = (int)pvmi_msg_data_len(m);
	mi->ctx = m->ctx;
	mi->tag = m->tag;
	mi->wid = m->wid;
	switch (m->enc) {
	case PvmDataDefault:
		mi->enc = MINFO_ENC_XDR;
		break;
	case PvmDataInPlace:
		mi->enc = MINFO_ENC_INPLACE;
		break;
	default:
		mi->enc = PVMI_DSIG;
		break;
	}
	mi->crc = m->crc;
	mi->src = m->src;
	mi->dst = m->dst;
	return PvmOk;
}

/* Sets the ctx, tag, wid, src and dst of buffer `mid' from `mi' (the
 * other fields are ignored).  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_setminfo(int mid, struct pvmminfo *mi)
{
	struct pvmi_msg *m;
	int cc;

	if (!mi)
		return pvmi_error("pvm_setminfo", PvmBadParam);
	m = info_lookup(mid, &cc);
	if (!m)
		return pvmi_error("pvm_setminfo", cc);
	m->ctx = mi->ctx;
	m->tag = mi->tag;
	m->wid = mi->wid;
	m->src = mi->src;
	m->dst = mi->dst;
	return PvmOk;
}

/*
 * msg.c - message objects and the table that maps buffer ids to them.
 *
 * A body is a list of fragments.  Owned fragments come from bufcache.c
 * (the one owner of body memory) and grow
 * geometrically as items are packed (within a buffer's size class
 * without moving); borrowed fragments (PvmDataInPlace)
 * point at the caller's memory and are only read when the body is
 * flattened or handed to writev().  The buffer-id table hands out ids from
 * a cursor that moves forward, so a freed id is not given out again until
 * the cursor wraps: a stale id then fails with PvmNoSuchBuf instead of
 * silently naming a newer buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "bufheap.h"
#include "pvmi.h"
#include "msg.h"
#include "wire.h"

#define FRAG_MIN_CAP	1024	/* first allocation of an owned fragment */
#define MID_MIN_CAP	64	/* first size of the buffer-id table */
/* With VCC on (bufcache.h), freed message objects are kept, with their
 * fragment arrays, up to this many, so that a message in steady state
 * costs no malloc; idle, they are few and small, and stay. */
#define MSG_SPARE_MAX	32
/* The largest body buffer an emptied message keeps (pvmi_msg_empty). */
#define MSG_KEEP_MAX	(64UL << 10)

int pvmi_sbuf;
int pvmi_rbuf;

/* The buffer-id table (msg.h). */
struct pvmi_mids pvmi_mids = { .next = 1 };

/* Freed message objects kept for reuse (VCC), chained through next. */
static struct pvmi_msg *spare;
static int nspare;
/* The last receive buffer retired (pvmi_mid_retire), unregistered, with
 * its one body buffer, for the next frame that arrives: its body serves
 * the frame (pvmi_msg_rx_body), then its object the message
 * (kept_obj, pvmi_msg_from_body).  A steady exchange then takes
 * nothing from the pools. */
static struct pvmi_msg *kept, *kept_obj;

/* Makes a kept message object empty again, its fragment array kept: each
 * field by name rather than a memset of the whole object, which showed
 * as the hot spot of a small message (a `rep stos' per message).  A new
 * field of struct pvmi_msg must be cleared here too.  msg_reset_rest():
 * all but those a frame's header gives (pvmi_msg_from_frame). */
static inline void msg_reset_rest(struct pvmi_msg *m)
{
	m->mid = 0;
	m->crc = 0;
	m->nfrag = 0;
	m->len = 0;
	m->rfrag = 0;
	m->roff = 0;
	m->ritem_type = 0;
	m->ritem_left = 0;
	m->rview = NULL;
	m->rview_len = 0;
	m->rview_pos = 0;
	m->next = NULL;
	m->seq = 0;
	m->datalen = 0;
	m->datalen_at = 0;
	m->lend = NULL;
}

/* msg_reset_rest() and the fields a frame's header gives. */
static inline void msg_reset(struct pvmi_msg *m)
{
	m->tag = 0;
	m->ctx = 0;
	m->src = 0;
	m->dst = 0;
	m->wid = 0;
	msg_reset_rest(m);
}
#ifdef __LP64__
/* Fails the build when a field is added, until msg_reset() clears it. */
_Static_assert(sizeof(struct pvmi_msg) == 144,
	       "struct pvmi_msg changed: clear the new field in msg_reset(), "
	       "then update this size");
#endif

/* A spare message object emptied, or a new one: pvmi_msg_new() inline
 * for the receive path (pvmi_msg_from_body). */
static inline struct pvmi_msg *msg_get(int enc)
{
	struct pvmi_msg *m = spare;

	if (m) {
		spare = m->next;
		nspare--;
		msg_reset(m);
	} else if (!(m = calloc(1, sizeof(*m)))) {
		return NULL;
	}
	m->enc = enc;
	return m;
}

/* Creates an empty message with encoding `enc'; NULL when out of memory. */
struct pvmi_msg *pvmi_msg_new(int enc)
{
	return msg_get(enc);
}

/* Drops the unpack view of `m' (msg.h). */
void pvmi_view_drop(struct pvmi_msg *m)
{
	if (!m->rview)		/* the common case, without free()'s call */
		return;
	free(m->rview);
	m->rview = NULL;
	m->rview_len = 0;
	m->rview_pos = 0;
}

/* Frees unregistered message `m': its owned fragments given back, the
 * object kept as a spare (VCC) or freed. */
/* Gives back the lent body `m' reads, if any (struct pvmi_lend). */
static inline void msg_end_lend(struct pvmi_msg *m)
{
	struct pvmi_lend *l = m->lend;

	if (l) {
		m->lend = NULL;
		l->m = NULL;
		l->end(l);
	}
}

static inline void msg_release(struct pvmi_msg *m)
{
	int i;

	msg_end_lend(m);
	pvmi_view_drop(m);
	for (i = 0; i < m->nfrag; i++)
		if (m->frags[i].cap)
			pvmi_buf_free(m->frags[i].data);
	if (nspare < MSG_SPARE_MAX && pvmi_vcc_enabled()) {
		m->next = spare;
		spare = m;
		nspare++;
		return;
	}
	free(m->frags);
	free(m);
}

/* msg_release() out of line, for the callers whose common case has no
 * call. */
static __attribute__((noinline)) void msg_free_unregistered(struct pvmi_msg *m)
{
	msg_release(m);
}

/* Frees a message and its owned fragments.  A message still registered is
 * unregistered first, so its id cannot name freed memory. */
void pvmi_msg_free(struct pvmi_msg *m)
{
	if (!m)
		return;
	if (m->mid > 0 && pvmi_mid_lookup(m->mid) == m)
		pvmi_mid_forget(m->mid);
	msg_release(m);
}

/* pvmi_msg_empty() past its common case: a view, several fragments, a
 * borrowed or a large body. */
static __attribute__((noinline)) void msg_empty_slow(struct pvmi_msg *m)
{
	struct pvmi_frag keep = { NULL, 0, 0 };
	int enc = m->enc, i;

	msg_end_lend(m);
	pvmi_view_drop(m);
	for (i = 0; i < m->nfrag; i++) {
		if (!m->frags[i].cap)
			continue;
		if (!keep.cap && m->frags[i].cap <= MSG_KEEP_MAX)
			keep = m->frags[i];
		else
			pvmi_buf_free(m->frags[i].data);
	}
	msg_reset(m);
	m->enc = enc;
	if (keep.cap) {
		keep.len = 0;
		m->frags[0] = keep;
		m->nfrag = 1;
	}
}

/* Empties message `m' for packing again (msg.h): its fields cleared but
 * the encoding, its fragments given back but the first owned one when it
 * is small, kept empty for the next pack. */
void pvmi_msg_empty(struct pvmi_msg *m)
{
	struct pvmi_frag *f = m->frags;
	int enc = m->enc;

	if (m->nfrag != 1 || !f->cap || f->cap > MSG_KEEP_MAX || m->rview) {
		msg_empty_slow(m);
		return;
	}
	/* a small message's common case (pvm_initsend's): its one body
	 * kept where it is, no view, nothing to give back */
	msg_reset(m);
	m->enc = enc;
	f->len = 0;
	m->nfrag = 1;
}

/* pvm_initsend's common case in one step (msg.h): message `m',
 * registered (under m->mid), with one small body buffer of its own and
 * no view, emptied as pvmi_msg_empty() empties it and moved to the id
 * pvmi_mid_register() would give it after pvmi_mid_forget() of its own:
 * the cursor's slot, when it is free.  Its new id, or 0 with nothing
 * done when any of that does not hold. */
int pvmi_msg_renew(struct pvmi_msg *m, int src, int ctx)
{
	struct pvmi_mids *t = &pvmi_mids;
	struct pvmi_frag *f = m->frags;
	int i = t->next;

	/* f->cap from 1 to MSG_KEEP_MAX, in one unsigned compare; the
	 * table's half-full bound holds as it is, one id out, one in */
	if (m->nfrag != 1 || f->cap - 1 >= MSG_KEEP_MAX || m->rview ||
	    i >= t->cap || t->tab[i])
		return 0;
	t->tab[m->mid] = NULL;	/* `used' stays: one out, one in */
	t->tab[i] = m;
	t->next = i + 1;
	/* emptied as a kept object is, the encoding and the one body
	 * buffer kept, then what register_buf() would set */
	msg_reset(m);
	m->mid = i;
	m->ctx = ctx;
	m->src = src;
	m->nfrag = 1;
	f->len = 0;
	return i;
}

/* Makes room for `k' more fragments in m->frags; PvmOk or PvmNoMem. */
static int frags_reserve(struct pvmi_msg *m, int k)
{
	struct pvmi_frag *f;
	int cap;

	if (m->nfrag + k <= m->fragcap)
		return PvmOk;
	cap = m->fragcap ? m->fragcap * 2 : 4;
	while (cap < m->nfrag + k)
		cap *= 2;
	f = realloc(m->frags, cap * sizeof(*f));
	if (!f)
		return PvmNoMem;
	m->frags = f;
	m->fragcap = cap;
	return PvmOk;
}

/* Wraps a received body (from pvmi_buf_alloc, ownership taken) as a
 * message. */
struct pvmi_msg *pvmi_msg_from_body(void *body, size_t len, int enc)
{
	/* in place is a way of sending: the body that arrives is native
	 * data, and pvm_getminfo() says so, as stock's does */
	struct pvmi_msg *m = kept_obj;

	if (m) {
		kept_obj = NULL;
		msg_reset(m);
		m->enc = enc == PvmDataInPlace ? PvmDataRaw : enc;
	} else if (!(m = msg_get(enc == PvmDataInPlace ? PvmDataRaw : enc))) {
		return NULL;
	}
	if (!len) {
		/* cap 0 would mark it borrowed and leak it */
		pvmi_buf_free(body);
		return m;
	}
	if (!m->fragcap && frags_reserve(m, 1)) {
		pvmi_msg_free(m);
		return NULL;
	}
	m->frags[0].data = body;
	m->frags[0].len = len;
	m->frags[0].cap = len;
	m->nfrag = 1;
	m->len = len;
	return m;
}

/* Gives `m' the source, destination, tag, context and wait id of user
 * frame `f'. */
static inline void msg_from_header(struct pvmi_msg *m,
				   const struct pvmi_frame *f)
{
	m->src = f->src;
	m->dst = f->dst;
	m->tag = f->tag;
	m->ctx = f->ctx;
	m->wid = f->wid;
}

/* Wraps the body of user frame `f' as a message with the frame's source,
 * destination, tag, context and wait id (msg.h): the kept object's
 * common case emptied and filled in one pass.  NULL when out of memory. */
struct pvmi_msg *pvmi_msg_from_frame(void *body, const struct pvmi_frame *f)
{
	struct pvmi_msg *m = kept_obj;

	if (m && f->len && m->fragcap) {
		kept_obj = NULL;
		msg_reset_rest(m);
		m->enc = f->enc == PvmDataInPlace ? PvmDataRaw : f->enc;
		m->frags[0].data = body;
		m->frags[0].len = f->len;
		m->frags[0].cap = f->len;
		m->nfrag = 1;
		m->len = f->len;
	} else if (!(m = pvmi_msg_from_body(body, f->len, f->enc))) {
		return NULL;
	}
	msg_from_header(m, f);
	return m;
}

/* A message of a body read where a transport holds it (msg.h). */
struct pvmi_msg *pvmi_msg_from_lent(unsigned char *body,
				    const struct pvmi_frame *f,
				    struct pvmi_lend *lend)
{
	struct pvmi_msg *m = msg_get(f->enc == PvmDataInPlace ? PvmDataRaw :
							       f->enc);

	if (!m)
		return NULL;
	if (!m->fragcap && frags_reserve(m, 1)) {
		msg_release(m);
		return NULL;
	}
	m->frags[0].data = body;
	m->frags[0].len = f->len;
	m->frags[0].cap = 0;
	m->nfrag = 1;
	m->len = f->len;
	msg_from_header(m, f);
	m->lend = lend;
	lend->m = m;
	return m;
}

/* Makes the lent body of `m' a copy of its own (msg.h). */
int pvmi_msg_unlend(struct pvmi_msg *m, int must)
{
	struct pvmi_frag *f = &m->frags[0];
	unsigned char *copy;
	int rc = 0;

	if (!m->lend)
		return 0;
	copy = pvmi_buf_alloc(f->len);
	if (copy) {
		memcpy(copy, f->data, f->len);
		f->cap = f->len;
	} else if (!must) {
		return -1;
	} else {	/* the lent bytes go: the message is left empty */
		m->len -= f->len;
		f->len = 0;
		rc = -1;
	}
	f->data = copy;
	m->lend->m = NULL;
	m->lend = NULL;
	return rc;
}

/* Makes the lent body of `m' its own and gives it back (msg.h). */
int pvmi_msg_own(struct pvmi_msg *m)
{
	struct pvmi_lend *l = m->lend;

	if (!l)
		return 0;
	if (pvmi_msg_unlend(m, 0))
		return -1;
	l->end(l);
	return 0;
}

/* Appends `n' writable bytes to the body and returns where they start;
 * NULL when out of memory, leaving the message unchanged. */
unsigned char *pvmi_msg_extend(struct pvmi_msg *m, size_t n)
{
	struct pvmi_frag *f = m->nfrag ? &m->frags[m->nfrag - 1] : NULL;
	unsigned char *p;
	size_t cap;

	if (f && f->cap) {
		if (f->cap - f->len < n &&
		    pvmi_buf_cap(f->data) - f->len >= n) {
			f->cap = pvmi_buf_cap(f->data);
		} else if (f->cap - f->len < n) {
			cap = f->cap * 2;
			if (cap < f->len + n)
				cap = f->len + n;
			p = pvmi_buf_realloc(f->data, cap);
			if (!p)
				return NULL;
			f->data = p;
			f->cap = cap;
		}
	} else {
		if (frags_reserve(m, 1))
			return NULL;
		cap = n > FRAG_MIN_CAP ? n : FRAG_MIN_CAP;
		p = pvmi_buf_alloc(cap);
		if (!p)
			return NULL;
		f = &m->frags[m->nfrag++];
		f->data = p;
		f->len = 0;
		f->cap = cap;
	}
	p = f->data + f->len;
	f->len += n;
	m->len += n;
	return p;
}

/* Appends a fragment that points at the caller's memory; PvmOk or
 * PvmNoMem. */
int pvmi_msg_borrow(struct pvmi_msg *m, const void *p, size_t n)
{
	struct pvmi_frag *f;

	if (!n)
		return PvmOk;
	if (frags_reserve(m, 1))
		return PvmNoMem;
	f = &m->frags[m->nfrag++];
	f->data = (unsigned char *)p;
	f->len = n;
	f->cap = 0;
	m->len += n;
	return PvmOk;
}

/* Drops the last `n' bytes written by pvmi_msg_extend(). */
void pvmi_msg_trim(struct pvmi_msg *m, size_t n)
{
	struct pvmi_frag *f;

	if (!m->nfrag)
		return;
	f = &m->frags[m->nfrag - 1];
	if (n > f->len)
		n = f->len;
	f->len -= n;
	m->len -= n;
}

/* Fills up to `max' iovecs with the non-empty fragments of the body;
 * returns the count used (fewer than the fragments if `max' is short). */
int pvmi_msg_iov(const struct pvmi_msg *m, struct iovec *iov, int max)
{
	int i, n = 0;

	for (i = 0; i < m->nfrag && n < max; i++) {
		if (!m->frags[i].len)
			continue;
		iov[n].iov_base = m->frags[i].data;
		iov[n].iov_len = m->frags[i].len;
		n++;
	}
	return n;
}

/* Copies the whole body, borrowed fragments included, into one body
 * buffer (*len set); NULL on allocation failure. */
unsigned char *pvmi_msg_flatten(const struct pvmi_msg *m, size_t *len)
{
	unsigned char *buf = pvmi_buf_alloc(m->len);
	size_t off = 0;
	int i;

	if (!buf)
		return NULL;
	for (i = 0; i < m->nfrag; i++) {
		if (m->frags[i].len)
			memcpy(buf + off, m->frags[i].data, m->frags[i].len);
		off += m->frags[i].len;
	}
	if (len)
		*len = off;
	return buf;
}

/* pvmi_mid_register() past its common case (msg.h): the table grows,
 * or the cursor's slot is taken.  The id, or PvmNoMem. */
int pvmi_mid_register_slow(struct pvmi_msg *m)
{
	struct pvmi_mids *t = &pvmi_mids;
	struct pvmi_msg **tab;
	int cap, i;

	/* keep the table at most half full so the forward scan stays short */
	if (!t->cap || (t->used + 1) * 2 > t->cap) {
		cap = t->cap ? t->cap * 2 : MID_MIN_CAP;
		tab = realloc(t->tab, cap * sizeof(*tab));
		if (!tab)
			return PvmNoMem;
		/* slot 0 too, the first time: pvmi_mid_lookup relies on it */
		memset(tab + t->cap, 0, (cap - t->cap) * sizeof(*tab));
		t->tab = tab;
		t->cap = cap;
	}
	for (i = t->next; i < t->cap && t->tab[i]; i++)
		;
	if (i >= t->cap)
		for (i = 1; t->tab[i]; i++)
			;
	t->tab[i] = m;
	t->used++;
	t->next = i + 1;
	m->mid = i;
	return i;
}

/* Unregisters buffer `mid' and returns its message; NULL when no buffer
 * has that id. */
static inline struct pvmi_msg *mid_take(int mid)
{
	struct pvmi_msg *m;

	if (!(m = pvmi_mid_lookup(mid)))
		return NULL;
	pvmi_mids.tab[mid] = NULL;
	pvmi_mids.used--;
	m->mid = 0;
	return m;
}

/* Unregisters buffer `mid' and frees its message; nothing when no
 * buffer has that id (msg.h). */
void pvmi_mid_free(int mid)
{
	struct pvmi_msg *m = mid_take(mid);

	if (m)
		msg_release(m);
}

/* Frees buffer `mid' as pvmi_mid_free does, but keeps its message whole
 * when it has one small body buffer, of its own (no loan, bufheap.h),
 * and none is kept yet (VCC on); nothing when no buffer has that id. */
void pvmi_mid_retire(int mid)
{
	struct pvmi_msg *m = mid_take(mid);

	if (!m)
		return;
	if (kept || m->nfrag != 1 || !m->frags[0].cap ||
	    m->frags[0].cap > MSG_KEEP_MAX || m->rview || pvmi_loans_live) {
		msg_free_unregistered(m);
		return;
	}
	kept = m;
	if (pvmi_vcc_enabled())
		return;
	m = kept;	/* read again: nothing kept across the call */
	kept = NULL;
	msg_free_unregistered(m);
}

/* pvmi_msg_rx_body() past its common case: no kept message, a body too
 * small for `len' bytes (its real capacity looked up first), an empty
 * frame, or a spare object still held. */
static __attribute__((noinline)) unsigned char *rx_body_slow(size_t len)
{
	struct pvmi_msg *k = kept;
	struct pvmi_frag *f;

	if (!k || !len)
		return pvmi_buf_alloc(len);
	f = &k->frags[0];
	/* a received body's cap is its length: the buffer may hold more */
	if (len > (f->cap = pvmi_buf_cap(f->data)))
		return pvmi_buf_alloc(len);
	if (kept_obj)		/* one spare object is enough */
		msg_release(kept_obj);
	kept_obj = NULL;
	return pvmi_msg_rx_body(len);
}

/* A body buffer of at least `len' bytes for a frame that arrives: the
 * kept message's when it is large enough, else a new one (msg.h).  NULL
 * when out of memory. */
unsigned char *pvmi_msg_rx_body(size_t len)
{
	struct pvmi_msg *k = kept;

	/* the common case, without a call: the kept body has the room */
	if (!k || !len || len > k->frags[0].cap || kept_obj)
		return rx_body_slow(len);
	kept = NULL;
	kept_obj = k;
	k->nfrag = 0;
	return k->frags[0].data;
}

/* Gives back the message pvmi_mid_retire() kept (msg.h). */
void pvmi_msg_rx_drop(void)
{
	if (kept)
		msg_release(kept);
	if (kept_obj)
		msg_release(kept_obj);
	kept = kept_obj = NULL;
}

/* Unregisters `mid' without freeing the message. */
void pvmi_mid_forget(int mid)
{
	struct pvmi_msg *m = pvmi_mid_lookup(mid);

	if (!m)
		return;
	m->mid = 0;
	pvmi_mids.tab[mid] = NULL;
	pvmi_mids.used--;
}

/*
 * msg.h - message buffers: the object behind every PVM buffer id.
 *
 * A message body is a list of fragments.  Packing appends to the last
 * owned fragment (growing it geometrically); PvmDataInPlace packing adds
 * a fragment that points at the caller's memory, read only at send time.
 * A received message is one fragment: a body buffer, or a body lent by
 * a peer of this host and read in its heap (bufheap.h), which bufcache.c
 * gives back when the fragment is freed and never lets a pack write
 * into, or a body read in a ring record (struct pvmi_lend below, cap 0).  Unpacking walks the items (wire.h) with a cursor
 * that may stop inside an item.
 */
#ifndef COPVM_MSG_H
#define COPVM_MSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct pvmi_frag {
	unsigned char *data;
	size_t len;
	size_t cap;		/* 0 for a fragment that borrows user memory,
				 * or a lent body */
};

struct pvmi_msg;
/* A received body read where its transport holds it, rather than copied
 * out (a record of a shared-memory ring, transport/shm_keep.c): the
 * message's first fragment, of cap 0.  The message gives it back through
 * end() when it lets go of that fragment (freed or emptied), and clears
 * `m' first; until then `m' names the message. */
struct pvmi_lend {
	void (*end)(struct pvmi_lend *l);
	struct pvmi_msg *m;
};

/* A field added here must also be cleared by msg_reset() (msg.c), which
 * empties a kept object for reuse; a size check there fails the build
 * until it is. */
struct pvmi_msg {
	int mid;		/* buffer id, > 0 while registered */
	int enc;		/* PvmDataDefault, PvmDataRaw or PvmDataInPlace */
	int tag;		/* set by send or on receipt */
	int ctx;
	int src;
	int dst;
	int wid;		/* pvmminfo wait id, kept for pvm_setminfo */
	int crc;
	struct pvmi_frag *frags;
	int nfrag;
	int fragcap;
	size_t len;		/* body bytes over all fragments */
	/* unpack cursor */
	int rfrag;		/* fragment index */
	size_t roff;		/* offset in that fragment */
	uint32_t ritem_type;	/* type of the item being read */
	uint32_t ritem_left;	/* elements of it not yet read; 0 = at header */
	/* An unpack of another type than packed reads the bytes stock's
	 * body would hold (pack_view.c): the rest of the current item as
	 * such bytes, malloc()ed, and how far they have been read.  NULL
	 * while unpacking follows the items. */
	unsigned char *rview;
	size_t rview_len;
	size_t rview_pos;
	struct pvmi_msg *next;	/* receive-queue link, owned by recv.c */
	uint64_t seq;		/* arrival order, owned by recv.c */
	size_t datalen;		/* cache of pvmi_msg_data_len() ... */
	size_t datalen_at;	/* ... valid while len == datalen_at - 1 */
	struct pvmi_lend *lend;	/* its first fragment is lent, or NULL */
};

/* Creates an empty message with encoding `enc'; NULL when out of memory. */
struct pvmi_msg *pvmi_msg_new(int enc);
/* Frees a message and its owned fragments (not its registration). */
void pvmi_msg_free(struct pvmi_msg *m);
/* Empties a message for packing again, its encoding kept and its id
 * forgotten by the caller; its first owned body buffer, when small, is
 * kept for the next pack (pvm_initsend). */
void pvmi_msg_empty(struct pvmi_msg *m);
/* pvm_initsend's common case: message `m', registered, emptied as
 * pvmi_msg_empty() does, its source and context set to `src' and `ctx',
 * under the id pvmi_mid_forget() then pvmi_mid_register() would give it.
 * The new id, or 0 with `m' untouched when that takes more than the
 * common case (then empty and register it the long way). */
int pvmi_msg_renew(struct pvmi_msg *m, int src, int ctx);
/* Wraps a received body (from pvmi_buf_alloc, bufcache.h; ownership
 * taken) as a message. */
struct pvmi_msg *pvmi_msg_from_body(void *body, size_t len, int enc);
struct pvmi_frame;
/* As pvmi_msg_from_body() for the body of user frame `f', the message's
 * src, dst, tag, ctx and wid taken from `f'; NULL when out of memory. */
struct pvmi_msg *pvmi_msg_from_frame(void *body, const struct pvmi_frame *f);
/* As pvmi_msg_from_frame() for a body read where a transport holds it:
 * the message's first fragment, of cap 0, until it gives `lend' back
 * (struct pvmi_lend).  NULL when out of memory (nothing taken). */
struct pvmi_msg *pvmi_msg_from_lent(unsigned char *body,
				    const struct pvmi_frame *f,
				    struct pvmi_lend *lend);
/* Gives message `m', which reads a lent body, a copy of it of its own,
 * and detaches the lend without ending it (its transport frees what it
 * lent).  0, or -1 when out of memory: `m' then still reads the lent
 * body, unless `must' (the lender's memory goes), which empties it. */
int pvmi_msg_unlend(struct pvmi_msg *m, int must);
/* As pvmi_msg_unlend(m, 0), and gives the lent body back to its lender
 * (the lend's end()), for a caller that is not the lender: 0, or -1
 * when out of memory (`m' then still reads the lent body). */
int pvmi_msg_own(struct pvmi_msg *m);
/* Fills up to `max' iovecs with the body; returns the count used. */
int pvmi_msg_iov(const struct pvmi_msg *m, struct iovec *iov, int max);
/* Copies the whole body into one buffer of bufcache.h (*len set; give
 * it back with pvmi_buf_free); NULL on allocation failure. */
unsigned char *pvmi_msg_flatten(const struct pvmi_msg *m, size_t *len);

/* The buffer-id table (msg.c): tab[i] is the message of id i, NULL for
 * a free id; tab[0] is always NULL.  Ids are handed out from `next'
 * forward, so that a freed id is not given again until the cursor wraps;
 * the table is kept at most half full (`used' of `cap' slots).  Read
 * here, inline: every pack, unpack, send and receive looks an id up.
 * Hidden, as defined: read without the GOT. */
struct pvmi_mids {
	struct pvmi_msg **tab;
	int cap;
	int used;
	int next;
};
extern struct pvmi_mids pvmi_mids __attribute__((visibility("hidden")));

/* pvmi_mid_register() past its common case: the table grows, or the
 * cursor's slot is taken.  The id, or PvmNoMem. */
int pvmi_mid_register_slow(struct pvmi_msg *m);

/* Registers `m' under a new buffer id; returns it or PvmNoMem. */
static inline int pvmi_mid_register(struct pvmi_msg *m)
{
	struct pvmi_mids *t = &pvmi_mids;
	int i = t->next;

	/* the common case: what the slow path would find at once, the
	 * table left at most half full and the slot at the cursor free */
	if (i < t->cap && !t->tab[i] && (t->used + 1) * 2 <= t->cap) {
		t->tab[i] = m;
		t->used++;
		t->next = i + 1;
		m->mid = i;
		return i;
	}
	return pvmi_mid_register_slow(m);
}

/* Returns the message of buffer id `mid', or NULL if none: one unsigned
 * compare covers mid <= 0 too, slot 0 being always empty. */
static inline struct pvmi_msg *pvmi_mid_lookup(int mid)
{
	if ((unsigned)mid >= (unsigned)pvmi_mids.cap)
		return NULL;
	return pvmi_mids.tab[mid];
}
/* Unregisters `mid' without freeing the message. */
void pvmi_mid_forget(int mid);
/* Unregisters buffer `mid' and frees its message (pvm_freebuf without
 * its checks); nothing when no buffer has that id. */
void pvmi_mid_free(int mid);
/* pvmi_mid_free() of a receive buffer that keeps its small body buffer
 * for the next frame that arrives (pvmi_msg_rx_body). */
void pvmi_mid_retire(int mid);
/* A body buffer of at least `len' bytes for an arriving frame, as
 * pvmi_buf_alloc's (the one pvmi_mid_retire kept when it fits); NULL
 * when out of memory.  pvmi_msg_rx_drop gives the kept one back. */
unsigned char *pvmi_msg_rx_body(size_t len);
void pvmi_msg_rx_drop(void);

/* Body bytes that are data rather than item headers: what pvm_bufinfo
 * reports, so n packed bytes measure n bytes as in stock PVM. */
size_t pvmi_msg_data_len(struct pvmi_msg *m);

/* Appends `count' elements of PVM type `type' read every `stride'
 * elements from `data'; returns PvmOk or an error code. */
int pvmi_pack(struct pvmi_msg *m, int type, const void *data, int count,
	      int stride);
/* Reads `count' elements of `type' into every `stride'-th slot of `data'.
 * As in stock, data of another type is reinterpreted (pack_view.c), and
 * at the end of the body what is there is copied and consumed.  Returns
 * PvmOk, PvmNoData (the body ended first) or PvmBadMsg (malformed body;
 * with COPVM_STRICT_UNPACK=1, also a wrong type, and then nothing is
 * copied or consumed). */
int pvmi_unpack(struct pvmi_msg *m, int type, void *data, int count,
		int stride);

/* Moves the unpack cursor past the rest of the current item (or the next
 * item) and returns, in malloc()ed *view (*len bytes), the bytes stock's
 * body would hold for it.  PvmOk, PvmNoData, PvmBadMsg or PvmNoMem. */
int pvmi_item_view(struct pvmi_msg *m, unsigned char **view, size_t *len);
/* Unpacks as pvmi_unpack() does, reading the stock bytes of the items
 * (pvmi_item_view) from the cursor on: the path of a type mismatch. */
int pvmi_view_unpack(struct pvmi_msg *m, int type, unsigned char *out,
		     int count, size_t step, int xdr);
/* Copies the first `n' bytes stock's body of `m' would hold (no more
 * than pvmi_msg_data_len(m)) into `out', as pvm_precv does; the unpack
 * cursor is left anywhere.  PvmOk, PvmBadMsg or PvmNoMem. */
int pvmi_body_bytes(struct pvmi_msg *m, unsigned char *out, size_t n);
/* Drops the view of `m' (rewinding or freeing the message). */
void pvmi_view_drop(struct pvmi_msg *m);

/* Rewinds the unpack cursor to the start of the body.  Inline: every
 * receive does it. */
static inline void pvmi_msg_rewind(struct pvmi_msg *m)
{
	m->rfrag = 0;
	m->roff = 0;
	m->ritem_type = 0;
	m->ritem_left = 0;
	if (m->rview)
		pvmi_view_drop(m);
}
/* Whether COPVM_STRICT_UNPACK=1 asks for type-checked unpacking. */
int pvmi_strict_unpack(void);

/* Library-wide buffer state: the buffer ids of the active send and
 * receive buffers, 0 if none (hidden, as defined: read without the GOT). */
extern int pvmi_sbuf __attribute__((visibility("hidden")));
extern int pvmi_rbuf __attribute__((visibility("hidden")));

/* Makes registered buffer `mid' the receive buffer and frees the one it
 * replaces, as a receive does. */
void pvmi_rbuf_replace(int mid);

/*
 * Additions for the pack module and its users (pack.c, packf.c).
 */

/* Appends `n' writable bytes to the body, at the end of the last owned
 * fragment (a new one after a borrowed fragment); returns where to write
 * them, or NULL when out of memory (the message is then unchanged). */
unsigned char *pvmi_msg_extend(struct pvmi_msg *m, size_t n);
/* Appends a fragment that points at `n' bytes of the caller's memory,
 * read when the body is sent or flattened; PvmOk or PvmNoMem. */
int pvmi_msg_borrow(struct pvmi_msg *m, const void *p, size_t n);
/* Drops the last `n' bytes written by pvmi_msg_extend(), to undo a
 * partly built item.  They must all sit in the last fragment. */
void pvmi_msg_trim(struct pvmi_msg *m, size_t n);

/* Appends a PVMI_TYPE_MSG item holding `inner' (its header fields and a
 * copy of its body); PvmOk or PvmNoMem.  pvmi_pack(m, PVMI_TYPE_MSG,
 * inner, 1, 1) does the same. */
int pvmi_pack_msg(struct pvmi_msg *m, const struct pvmi_msg *inner);
/* Appends the body of `inner' to `m' as it is (pvm_pkmesgbody).  PvmOk,
 * PvmMismatch (XDR and native bodies) or PvmNoMem. */
int pvmi_pack_body(struct pvmi_msg *m, const struct pvmi_msg *inner);
/* Reads a PVMI_TYPE_MSG item into a new, unregistered message (*out);
 * PvmOk, PvmNoData, PvmBadMsg or PvmNoMem.  pvmi_unpack(m, PVMI_TYPE_MSG,
 * &out, 1, 1) does the same. */
int pvmi_unpack_msg(struct pvmi_msg *m, struct pvmi_msg **out);
/* For PVM_STR, pvmi_pack() takes the string's length including its NUL
 * as `count' (stride ignored) and pvmi_unpack() reads one whole string
 * item into `data' (count and stride ignored). */

/* pvm_packf()/pvm_unpackf() with a va_list, as stock exports them. */
int pvm_vpackf(const char *fmt, va_list ap);
int pvm_vunpackf(const char *fmt, va_list ap);

#endif /* COPVM_MSG_H */

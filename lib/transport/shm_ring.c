/*
 * shm_ring.c - the data path of the shared-memory ring: publishing
 * records (header last), taking them, chunking long messages,
 * single-copy offers.  The protocol and the layout are in shm_ring.h;
 * setting a ring up and down in shm_ring_setup.c; the waits, the
 * doorbell and the consumer's looks in shm_ring_wait.c; the segment's
 * making and checking in shm_seg.c.
 *
 * Memory orders: a record's seq is stored with release after its payload
 * and other fields, and loaded with acquire; tail is stored with release
 * after the payload was copied out, and loaded with acquire before the
 * space is reused.  The armed handshake needs a full barrier on both
 * sides (a store then a load of another word, which release/acquire do
 * not order).  The consumer pays its side not at every whole record but
 * every SHM_FREE_CHECK_EVERY of them and when it catches up (free_record).
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "shm_layout.h"
#include "shm_ring_impl.h"

#define REC_BYTES	((uint32_t)sizeof(struct shm_rec))
#define PART_BYTES	((uint32_t)sizeof(struct shm_rec_part))
#define WHOLE		(SHM_REC_FIRST | SHM_REC_LAST)

/* A record's header as the consumer checks and uses it: the part field
 * filled in (total = len, offset 0) for a whole message's record. */
struct rec_view {
	uint32_t len;
	uint32_t tag;
	uint32_t flags;
	uint64_t total;
	uint64_t offset;
};

/* The bytes before the payload of a record with `flags': the header, and
 * the part field unless it is a whole message's record. */
static uint32_t head_bytes(uint32_t flags)
{
	return flags == WHOLE ? REC_BYTES : REC_BYTES + PART_BYTES;
}

/* The ring bytes a record of `len' payload bytes with `flags' takes. */
static uint32_t rec_bytes(uint32_t len, uint32_t flags)
{
	return (head_bytes(flags) + len + SHM_RING_REC_ALIGN - 1) &
	       ~(uint32_t)(SHM_RING_REC_ALIGN - 1);
}

static uint32_t next_seq(uint32_t seq)
{
	return seq + 1 + (seq == UINT32_MAX);	/* 0 is never one */
}

/* ---- the producer ---- */

/* Room for a record of `need' bytes plus the cleared slot after it,
 * after the consumer's tail as last read. */
static int room_seen(const struct shm_ring *r, uint32_t need)
{
	return (r->mask + 1) - (r->pos - r->other) >= need + REC_BYTES;
}

/* Room for a record of `need' bytes (the tail read again if need be), or
 * the consumer gone: the wait is over. */
static int room_or_closed(struct shm_ring *r, uint32_t need)
{
	if (room_seen(r, need))
		return 1;
	r->other = load_acquire(&r->hdr->tail);
	if (room_seen(r, need))
		return 1;
	return load_acquire(&r->hdr->consumer_closed) != 0;
}

/* Copies `len' bytes into the ring at byte `pos' (masked), in two parts
 * when they run past the end. */
static void ring_copy_in(struct shm_ring *r, uint32_t pos, const void *src,
			 uint32_t len)
{
	uint32_t at = pos & r->mask, first = r->mask + 1 - at;

	if (first > len)
		first = len;
	memcpy(r->data + at, src, first);
	if (len > first)
		memcpy(r->data, (const unsigned char *)src + first,
		       len - first);
}

/* The bytes of the `cnt' pieces of `iov' in `*len'; -1 for a piece
 * with bytes and no address, or a bad count. */
static int iov_total(const struct iovec *iov, int cnt, size_t *len)
{
	int i;

	*len = 0;
	if (cnt < 0 || (cnt && !iov))
		return -1;
	for (i = 0; i < cnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return -1;
		*len += iov[i].iov_len;
	}
	return 0;
}

/* Makes record `rec' at the producer's position visible, its payload
 * (`len' bytes) and part field written, and wakes an armed consumer. */
static inline void publish(struct shm_ring *r, struct shm_rec *rec,
			   uint32_t tag, uint32_t flags, uint32_t len)
{
	uint32_t size = rec_bytes(len, flags);
	struct shm_rec *after;

	rec->len = len;
	rec->tag = tag;
	rec->flags = flags;
	/* the slot after ours may hold stale bytes from an earlier lap: it
	 * must read as "no record" before ours is visible */
	after = (struct shm_rec *)(r->data + ((r->pos + size) & r->mask));
	store_relaxed(&after->seq, 0);
	store_release(&rec->seq, r->seq);
	r->seq = next_seq(r->seq);
	r->pos += size;
	store_release(&r->hdr->head, r->pos);
	shmr_wake_if_armed(r, &r->hdr->cons_armed);
}

/* Publishes one record whose payload is the `cnt' pieces of `iov'
 * (`len' bytes in all); room was checked. */
static void put_record_v(struct shm_ring *r, uint32_t tag, uint32_t flags,
			 uint64_t total, uint64_t offset,
			 const struct iovec *iov, int cnt, uint32_t len)
{
	struct shm_rec *rec = (struct shm_rec *)(r->data + (r->pos & r->mask));
	struct shm_rec_part *part = (struct shm_rec_part *)(rec + 1);
	uint32_t at = r->pos + head_bytes(flags);
	int i;

	for (i = 0; i < cnt; i++) {
		if (!iov[i].iov_len)
			continue;
		ring_copy_in(r, at, iov[i].iov_base, (uint32_t)iov[i].iov_len);
		at += (uint32_t)iov[i].iov_len;
	}
	if (flags != WHOLE) {
		part->total = total;
		part->offset = offset;
	}
	publish(r, rec, tag, flags, len);
}

/* Publishes one record of `len' bytes at `src'; room was checked. */
static void put_record(struct shm_ring *r, uint32_t tag, uint32_t flags,
		       uint64_t total, uint64_t offset, const void *src,
		       uint32_t len)
{
	struct iovec v = { (void *)src, len };

	put_record_v(r, tag, flags, total, offset, &v, 1, len);
}

/* Waits for room for `need' bytes; 0, or -EPIPE when the consumer is
 * closed or gone, or the wait's error. */
static int wait_room(struct shm_ring *r, uint32_t need, long timeout_ns)
{
	int rc;

	/* the common case, room already seen, without the wait's call */
	if (room_seen(r, need) && !load_acquire(&r->hdr->consumer_closed))
		return 0;
	rc = shmr_wait_until(r, room_or_closed, need, &r->hdr->prod_armed,
			     timeout_ns,
			     timeout_ns >= 0 && r->doorbell_ends_wait);

	if (rc == -ECONNRESET ||
	    load_acquire(&r->hdr->consumer_closed) != 0)
		return -EPIPE;
	return rc;
}

/* The consumer has freed every byte before ring position `at' (or is
 * gone): a single-copy record there has been answered. */
static int consumed_or_closed(struct shm_ring *r, uint32_t at)
{
	r->other = load_acquire(&r->hdr->tail);
	if ((int32_t)(r->other - at) >= 0)
		return 1;
	return load_acquire(&r->hdr->consumer_closed) != 0;
}

/* Offers the message as one single-copy record and waits for the
 * consumer's answer.  0 (read), -EOPNOTSUPP (refused: send it in
 * chunks), or -EPIPE and the waits' errors. */
static int send_single_copy(struct shm_ring *r, uint32_t tag,
			    const void *buf, size_t len, long timeout_ns)
{
	struct shm_single_copy d = { (uintptr_t)buf, len };
	uint32_t at;
	int rc;

	rc = wait_room(r, rec_bytes(sizeof(d), SHM_REC_SINGLE_COPY),
		       timeout_ns);
	if (rc < 0)
		return rc;
	store_relaxed(&r->hdr->single_copy_status, EINPROGRESS);
	put_record(r, tag, SHM_REC_FIRST | SHM_REC_LAST | SHM_REC_SINGLE_COPY,
		   len, 0, &d, sizeof(d));
	at = r->pos;
	/* the buffer must stay ours to read until the answer: no timeout */
	rc = shmr_wait_until(r, consumed_or_closed, at, &r->hdr->prod_armed,
			SHM_WAIT_FOREVER, 0);
	if ((int32_t)(load_acquire(&r->hdr->tail) - at) < 0)
		return -EPIPE;
	if (load_relaxed(&r->hdr->single_copy_status) == 0) {
		r->single_copies++;
		return 0;
	}
	(void)rc;
	r->single_copy_off = 1;
	return -EOPNOTSUPP;
}

int shm_ring_offer_copy(struct shm_ring *r, uint32_t tag, const void *buf,
			size_t len)
{
	struct shm_single_copy d = { (uintptr_t)buf, len };

	if (!r || !r->hdr || !r->producer || !buf || r->copy_at)
		return -EINVAL;
	if (r->single_copy_off)
		return -EOPNOTSUPP;
	if (load_acquire(&r->hdr->consumer_closed))
		return -EPIPE;
	if (!room_or_closed(r, rec_bytes(sizeof(d), SHM_REC_SINGLE_COPY)))
		return -EAGAIN;
	if (load_acquire(&r->hdr->consumer_closed))
		return -EPIPE;
	store_relaxed(&r->hdr->single_copy_status, EINPROGRESS);
	put_record(r, tag, SHM_REC_FIRST | SHM_REC_LAST | SHM_REC_SINGLE_COPY,
		   len, 0, &d, sizeof(d));
	r->copy_at = r->pos;
	return 0;
}

int shm_ring_copy_answer(struct shm_ring *r, long timeout_ns)
{
	uint32_t at;
	int rc;

	if (!r || !r->hdr || !r->producer || !r->copy_at)
		return -EINVAL;
	at = r->copy_at;
	rc = shmr_wait_until(r, consumed_or_closed, at, &r->hdr->prod_armed,
			timeout_ns, timeout_ns >= 0 && r->doorbell_ends_wait);
	if (rc == -EAGAIN || rc == -ETIMEDOUT)
		return 0;
	if ((int32_t)(load_acquire(&r->hdr->tail) - at) < 0)
		return -EPIPE;	/* closed or dead before the answer */
	r->copy_at = 0;
	if (load_relaxed(&r->hdr->single_copy_status) == 0) {
		r->single_copies++;
		return 1;
	}
	r->single_copy_off = 1;
	return -EOPNOTSUPP;
}

int shm_ring_send(struct shm_ring *r, uint32_t tag, const void *buf,
		  size_t len, long timeout_ns)
{
	const unsigned char *p = buf;
	uint32_t flags = SHM_REC_FIRST, part;
	uint64_t off = 0;
	int rc;

	if (!r || !r->hdr || !r->producer || (len && !buf))
		return -EINVAL;
	if (load_acquire(&r->hdr->consumer_closed))
		return -EPIPE;
	if (r->single_copy_min && len >= r->single_copy_min &&
	    !r->single_copy_off) {
		rc = send_single_copy(r, tag, buf, len, timeout_ns);
		if (rc != -EOPNOTSUPP)
			return rc;
		/* refused and answered: the ring is free to go on */
		timeout_ns = SHM_WAIT_FOREVER;
	}
	for (;;) {
		part = len - off > r->chunk ? r->chunk : (uint32_t)(len - off);
		if (off + part == len)
			flags |= SHM_REC_LAST;
		rc = wait_room(r, rec_bytes(part, flags),
			       off ? SHM_WAIT_FOREVER : timeout_ns);
		if (rc < 0)
			return rc;
		put_record(r, tag, flags, len, off, p + off, part);
		off += part;
		if (flags & SHM_REC_LAST)
			return 0;
		flags = 0;
	}
}

int shm_ring_sendv(struct shm_ring *r, uint32_t tag, const struct iovec *iov,
		   int cnt, long timeout_ns)
{
	size_t len;
	int rc;

	if (!r || !r->hdr || !r->producer || iov_total(iov, cnt, &len) < 0)
		return -EINVAL;
	if (len > r->chunk)
		return -EMSGSIZE;
	if (load_acquire(&r->hdr->consumer_closed))
		return -EPIPE;
	rc = wait_room(r, rec_bytes((uint32_t)len, WHOLE), timeout_ns);
	if (rc < 0)
		return rc;
	put_record_v(r, tag, WHOLE, len, 0, iov, cnt,
		     (uint32_t)len);
	return 0;
}

/* shm_ring_send2()'s payload when it runs past the end of the ring:
 * apart, so that the usual case keeps its registers. */
static __attribute__((noinline)) void copy_in2(struct shm_ring *r,
					       uint32_t at, const void *a,
					       uint32_t alen, const void *b,
					       uint32_t blen)
{
	if (alen)
		ring_copy_in(r, at, a, alen);
	if (blen)
		ring_copy_in(r, at + alen, b, blen);
}

int shm_ring_put2(struct shm_ring *r, uint32_t tag, const void *a,
		  uint32_t alen, const void *b, uint32_t blen)
{
	uint32_t len = alen + blen, size, at, pos = r->pos, mask = r->mask;
	unsigned char *data = r->data;
	struct shm_rec *rec;

	/* wait_room() without a wait: the tail is read again only when
	 * the room last seen is short */
	size = rec_bytes(len, WHOLE);
	if (!room_seen(r, size) && !room_or_closed(r, size))
		return -EAGAIN;
	if (load_acquire(&r->hdr->consumer_closed))
		return -EPIPE;
	at = (pos & mask) + REC_BYTES;
	rec = (struct shm_rec *)(data + at - REC_BYTES);
	if (at + len <= mask + 1) {	/* the payload does not wrap */
		shm_copy_short(data + at, a, alen);
		shm_copy_short(data + at + alen, b, blen);
	} else {
		copy_in2(r, at, a, alen, b, blen);
	}
	publish(r, rec, tag, WHOLE, len);
	return 0;
}

int shm_ring_send2(struct shm_ring *r, uint32_t tag, const void *a,
		   uint32_t alen, const void *b, uint32_t blen)
{
	if (!r || !r->hdr || !r->producer || (alen && !a) || (blen && !b))
		return -EINVAL;
	if (alen > r->chunk || blen > r->chunk - alen)
		return -EMSGSIZE;
	return shm_ring_put2(r, tag, a, alen, b, blen);
}

/* ---- the consumer ---- */

/* Waits for the next record; it, or NULL with the error in `*err':
 * -EPIPE (producer closed, ring drained), -ECONNRESET (producer died,
 * ring drained), or the wait's error. */
static struct shm_rec *wait_record(struct shm_ring *r, long timeout_ns,
				   int *err)
{
	struct shm_rec *rec = shmr_front(r);
	int rc;

	if (rec)		/* the common case, without the wait's call */
		return rec;
	if (timeout_ns == 0 && !load_acquire(&r->hdr->producer_closed)) {
		*err = -EAGAIN;	/* the wait's answer, without its call */
		return NULL;
	}
	shmr_caught_up(r);
	rc = shmr_wait_until(r, shmr_record_or_closed, 0, &r->hdr->cons_armed,
			timeout_ns, 0);
	rec = shmr_front(r);
	if (rec)
		return rec;
	*err = rc < 0 ? rc : -EPIPE;
	return NULL;
}

/* A record the producer could have written: bounds first, since the
 * peer's memory is input. */
static int record_valid(const struct shm_ring *r, const struct rec_view *rec)
{
	uint32_t len = rec->len, flags = rec->flags;
	uint64_t total = rec->total, off = rec->offset;

	if (flags == WHOLE)	/* total = len, offset 0: all that is left */
		return len <= r->chunk;
	if (flags & SHM_REC_SINGLE_COPY)
		return flags == (SHM_REC_FIRST | SHM_REC_LAST |
				 SHM_REC_SINGLE_COPY) &&
		       len == sizeof(struct shm_single_copy) && off == 0;
	if (len > r->chunk || (flags & ~(SHM_REC_FIRST | SHM_REC_LAST)))
		return 0;
	if (off > total || total - off < len)
		return 0;
	if ((flags & SHM_REC_FIRST) && off != 0)
		return 0;
	if ((flags & SHM_REC_LAST) && off + len != total)
		return 0;
	return 1;
}

static inline void ring_copy_out(struct shm_ring *r, uint32_t pos,
				 void *dst, uint32_t len)
{
	uint32_t at = pos & r->mask, first = r->mask + 1 - at;

	if (first > len)
		first = len;
	memcpy(dst, r->data + at, first);
	if (len > first)
		memcpy((unsigned char *)dst + first, r->data, len - first);
}

/* Frees the space of the front record `h', the tail published at once;
 * the producer is looked at (shmr_producer_check, whose fence is the
 * largest cost left on a small message's way) after a chunk, a single
 * copy or SHM_FREE_CHECK_EVERY whole records, and as shmr_caught_up
 * says. */
static void free_record(struct shm_ring *r, const struct rec_view *h)
{
	if (h->flags == WHOLE) {	/* the one way to free it (shm_ring.h) */
		shm_ring_drop_whole(r, h->len);
		return;
	}
	r->pos += rec_bytes(h->len, h->flags);
	r->seq = next_seq(r->seq);
	store_release(&r->hdr->tail, shm_ring_tail_now(r));
	shmr_producer_check(r);
}

/* shm_ring_let_go() of any record kept (shm_ring.h). */
void shmr_let_go_any(struct shm_ring *r, uint32_t at)
{
	int i, n;

	for (i = 0; i < r->nkept && r->kept_at[i] != at; i++)
		;
	if (i == r->nkept || !r->kept_live[i])
		return;
	r->kept_live[i] = 0;
	if (i)			/* an older one holds the tail */
		return;
	for (n = 0; n < r->nkept && !r->kept_live[n]; n++)
		;
	for (i = n; i < r->nkept; i++) {	/* at most SHM_RING_KEEPS */
		r->kept_at[i - n] = r->kept_at[i];
		r->kept_live[i - n] = r->kept_live[i];
	}
	r->nkept -= n;
	store_release(&r->hdr->tail, shm_ring_tail_now(r));
	if (++r->unchecked >= SHM_FREE_CHECK_EVERY)
		shmr_producer_check(r);
}

/* A copy of the front record's header and part field, so that what is
 * checked is what is used whatever the peer writes meanwhile. */
static void snapshot(const struct shm_rec *rec, struct rec_view *copy)
{
	const struct shm_rec_part *part = (const struct shm_rec_part *)(rec + 1);

	copy->len = load_relaxed(&rec->len);
	copy->tag = load_relaxed(&rec->tag);
	copy->flags = load_relaxed(&rec->flags);
	if (copy->flags == WHOLE) {
		copy->total = copy->len;
		copy->offset = 0;
	} else {
		copy->total = load_relaxed(&part->total);
		copy->offset = load_relaxed(&part->offset);
	}
}

/* The front record, waited for up to `timeout_ns' and checked (a
 * message's first), in `h': 0, or shm_ring_peek's errors. */
static inline int look_front(struct shm_ring *r, long timeout_ns,
			     struct rec_view *h)
{
	struct shm_rec *rec = shmr_front(r);
	int err = 0;

	if (!rec) {
		if (timeout_ns == 0 && !load_acquire(&r->hdr->producer_closed))
			return -EAGAIN;	/* wait_record's, without its call */
		if (!(rec = wait_record(r, timeout_ns, &err)))
			return err < 0 ? err : -EPIPE;	/* it sets one */
	}
	snapshot(rec, h);
	if (!record_valid(r, h) || !(h->flags & SHM_REC_FIRST))
		return -EPROTO;
	/* The next record's line, last written by the producer: whoever
	 * takes this one looks there next, a miss on the way back to the
	 * program unless it is on its way now. */
	__builtin_prefetch(r->data + ((r->pos + rec_bytes(h->len, h->flags)) &
				      r->mask));
	return 0;
}

/* Reads the producer's buffer named by the single-copy record at the
 * front into `dst' (`total' bytes) and answers it.  0, -EOPNOTSUPP
 * (refused or unreadable: the same message follows in chunks), or
 * -ECONNRESET when the producer is gone. */
static int take_single_copy(struct shm_ring *r, const struct rec_view *h,
			    void *dst)
{
	struct shm_single_copy d;
	struct iovec mine, theirs;
	uint64_t total = h->total;
	uint32_t status = 0;
	ssize_t n;

	ring_copy_out(r, r->pos + head_bytes(h->flags), &d, sizeof(d));
	if (!r->single_copy_min || d.len != total) {
		status = EOPNOTSUPP;
	} else if (total) {
		mine.iov_base = dst;
		mine.iov_len = total;
		theirs.iov_base = (void *)(uintptr_t)d.addr;
		theirs.iov_len = total;
		n = process_vm_readv(r->peer_pid, &mine, 1, &theirs, 1, 0);
		if (n != (ssize_t)total)
			status = n < 0 ? (uint32_t)errno : EFAULT;
	}
	if (status && !shm_ring_peer_alive(r))
		return -ECONNRESET;
	/* the answer before the tail: the producer reads it after */
	store_relaxed(&r->hdr->single_copy_status, status);
	free_record(r, h);
	return status ? -EOPNOTSUPP : 0;
}

ssize_t shm_ring_take_copy(struct shm_ring *r, void *buf, size_t cap)
{
	struct rec_view h;
	int rc;

	if (!r || !r->hdr || r->producer || (cap && !buf))
		return -EINVAL;
	rc = look_front(r, SHM_NO_WAIT, &h);
	if (rc)
		return rc;
	if (!(h.flags & SHM_REC_SINGLE_COPY))
		return -EPROTO;
	if (h.total > cap)
		return -EMSGSIZE;
	rc = take_single_copy(r, &h, buf);
	return rc < 0 ? rc : (ssize_t)h.total;
}

int shm_ring_peek(struct shm_ring *r, struct shm_msg_info *info,
		  long timeout_ns)
{
	struct rec_view h;
	int rc;

	if (!r || !r->hdr || r->producer || !info)
		return -EINVAL;
	if (!(rc = look_front(r, timeout_ns, &h))) {
		info->tag = h.tag;
		info->len = h.total;
	}
	return rc;
}

ssize_t shm_ring_recv(struct shm_ring *r, uint32_t *tag, void *buf,
		      size_t cap, long timeout_ns)
{
	unsigned char *p = buf;
	struct shm_rec *rec;
	struct rec_view first, h;
	uint64_t got = 0;
	int err = 0, rc;

	if (!r || !r->hdr || r->producer || (cap && !buf))
		return -EINVAL;
	rc = look_front(r, timeout_ns, &first);
	if (rc)
		return rc;
	if (first.total > cap)
		return -EMSGSIZE;
	if (first.flags & SHM_REC_SINGLE_COPY) {
		rc = take_single_copy(r, &first, p);
		if (rc == -EOPNOTSUPP) {
			/* the producer sends it again in chunks */
			rc = look_front(r, SHM_WAIT_FOREVER, &h);
			if (rc)
				return rc == -EPIPE ? -ECONNRESET : rc;
			if ((h.flags & SHM_REC_SINGLE_COPY) ||
			    h.total != first.total || h.tag != first.tag)
				return -EPROTO;
			first = h;
		} else {
			if (rc < 0)
				return rc;
			if (tag)
				*tag = first.tag;
			return (ssize_t)first.total;
		}
	}
	h = first;
	for (;;) {
		if (!record_valid(r, &h) || h.offset != got ||
		    h.total != first.total || h.tag != first.tag ||
		    (got && (h.flags & SHM_REC_FIRST)))
			return -EPROTO;
		if (h.len)
			ring_copy_out(r, r->pos + head_bytes(h.flags), p + got,
				      h.len);
		free_record(r, &h);
		got += h.len;
		if (h.flags & SHM_REC_LAST)
			break;
		/* the rest of a started message: a producer gone now left
		 * it torn, and it is not delivered */
		rec = wait_record(r, SHM_WAIT_FOREVER, &err);
		if (!rec)
			return err == -EPIPE ? -ECONNRESET : err;
		snapshot(rec, &h);
	}
	if (tag)
		*tag = first.tag;
	return (ssize_t)first.total;
}

ssize_t shm_ring_recvv(struct shm_ring *r, uint32_t *tag,
		       const struct iovec *iov, int cnt, long timeout_ns)
{
	struct rec_view h;
	uint32_t at, k;
	size_t cap;
	int i, rc;

	if (!r || !r->hdr || r->producer || iov_total(iov, cnt, &cap) < 0)
		return -EINVAL;
	rc = look_front(r, timeout_ns, &h);
	if (rc)
		return rc;
	if (h.flags & SHM_REC_SINGLE_COPY)
		return -EPROTO;
	if (!(h.flags & SHM_REC_LAST) || h.total > cap)
		return -EMSGSIZE;
	at = r->pos + head_bytes(h.flags);
	for (i = 0, k = h.len; i < cnt && k; i++) {
		uint32_t n = iov[i].iov_len < k ? (uint32_t)iov[i].iov_len : k;

		if (n)
			ring_copy_out(r, at, iov[i].iov_base, n);
		at += n;
		k -= n;
	}
	free_record(r, &h);
	if (tag)
		*tag = h.tag;
	return (ssize_t)h.total;
}

int shm_ring_front(struct shm_ring *r, struct shm_front *f)
{
	struct rec_view h;
	int rc;

	if (!r || !r->hdr || r->producer || !f)
		return -EINVAL;
	if (!(rc = look_front(r, SHM_NO_WAIT, &h))) {
		f->tag = h.tag;
		f->len = h.total;
		f->pos = r->pos;
		f->rec_len = h.len;
		f->flags = h.flags;
	}
	return rc;
}

ssize_t shm_ring_take_front(struct shm_ring *r, const struct shm_front *f,
			    void *head, size_t head_len, void *rest)
{
	struct rec_view h;
	uint32_t at, n;

	if (!r || !r->hdr || r->producer || !f || f->pos != r->pos ||
	    (head_len && !head) || (f->len > head_len && !rest))
		return -EINVAL;
	if (f->flags & SHM_REC_SINGLE_COPY)
		return -EPROTO;
	if (!(f->flags & SHM_REC_LAST))
		return -EMSGSIZE;
	n = f->rec_len < head_len ? f->rec_len : (uint32_t)head_len;
	at = r->pos + head_bytes(f->flags);
	if ((at & r->mask) + f->rec_len <= r->mask + 1) {
		/* the common case: the payload does not wrap */
		memcpy(head, r->data + (at & r->mask), n);
		if (f->rec_len > n)
			memcpy(rest, r->data + (at & r->mask) + n,
			       f->rec_len - n);
	} else {
		ring_copy_out(r, at, head, n);
		if (f->rec_len > n)
			ring_copy_out(r, at + n, rest, f->rec_len - n);
	}
	h.len = f->rec_len;
	h.flags = f->flags;
	free_record(r, &h);
	return (ssize_t)f->len;
}

/* shm_ring_front_in_place() past shm_ring_whole_front's case: another
 * record, one that wraps, or the producer's close. */
static __attribute__((noinline)) int front_in_place(struct shm_ring *r,
		struct shm_front *f, const unsigned char **payload)
{
	struct rec_view h;
	uint32_t at;
	int rc;

	if ((rc = look_front(r, SHM_NO_WAIT, &h)))
		return rc;
	f->tag = h.tag;
	f->len = h.total;
	f->pos = r->pos;
	f->rec_len = h.len;
	f->flags = h.flags;
	/* a whole message in one piece: read where it lies */
	at = (r->pos + REC_BYTES) & r->mask;
	if (h.flags == WHOLE && at + h.len <= r->mask + 1)
		*payload = r->data + at;
	return 0;
}

int shm_ring_front_in_place(struct shm_ring *r, struct shm_front *f,
			    const unsigned char **payload)
{
	uint32_t tag, len;
	int rc = shm_ring_whole_front(r, payload, &tag, &len);

	if (rc <= 0) {
		*payload = NULL;
		/* none waiting, the common end of a take: no frame for the
		 * rest */
		return rc == 0 ? -EAGAIN : front_in_place(r, f, payload);
	}
	/* a whole message in one piece: look_front's checks, made there */
	f->tag = tag;
	f->len = len;
	f->pos = r->pos;
	f->rec_len = len;
	f->flags = WHOLE;
	return 0;
}

void shm_ring_drop_front(struct shm_ring *r, const struct shm_front *f)
{
	struct rec_view h;

	h.len = f->rec_len;
	h.flags = f->flags;
	free_record(r, &h);
}

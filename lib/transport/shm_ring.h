/*
 * shm_ring.h - a one-way single-producer/single-consumer message ring in a
 * shared-memory segment, for the same-host fast path between two tasks
 * (issue 11, docs/shm.md).  A pair of tasks uses two rings, one per
 * direction; each ring is created by its producer and attached by its
 * consumer.
 *
 * The segment is a memfd, sized and then sealed against shrinking and
 * growing (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), so that a peer can
 * never make our mapping fault; it can be passed over the task's Unix
 * socket with SCM_RIGHTS.  The memory goes away with the last fd and
 * mapping: a dead peer leaks nothing.
 *
 * Layout of the segment (all integers in host order, offsets in bytes):
 *
 *   0     identity line: magic "copvmshm" (u64), version (u32), header
 *         bytes (u32, 4096), ring bytes (u32, a power of two), chunk
 *         bytes (u32, the largest payload of one record), producer pid,
 *         consumer pid (set once by the attach), producer closed,
 *         consumer closed.  Written at setup and at close only.
 *   64    head: bytes ever published by the producer (u32, wraps).
 *   128   tail: bytes ever consumed by the consumer (u32, wraps).
 *   192   cons_armed: the consumer is about to block for data.
 *   256   prod_armed: the producer is about to block for space.
 *   320   single_copy_status: the consumer's answer to the last
 *         single-copy record (0, or an errno).
 *   4096  the ring: `ring bytes' of records.
 *
 * Each of head, tail and the two armed flags has its own cache line: the
 * producer writes head, the consumer tail, and neither line moves unless
 * the other side reads it.
 *
 * A record is a 16-byte header, for every record but a whole message's
 * a 16-byte part field, then its payload, the whole rounded up to a
 * cache line (64 bytes); a header never straddles the end of the ring, a
 * payload may (it is copied in two parts).  Header: seq (u32, the
 * record's number, 1, 2, ... skipping 0), len (u32, payload bytes of
 * this record), tag (u32, opaque to the ring, the caller's), flags (u32:
 * FIRST, LAST, SINGLE_COPY).  Part: total (u64, the bytes of the whole
 * message), offset (u64, where this record's payload sits in it).  A
 * message of up to chunk bytes is one record with FIRST|LAST and no part
 * field (total = len, offset 0), so that a message of up to 48 bytes,
 * the library's 32-byte frame header and a 16-byte body, is one line; a
 * longer one is a run of chunks, FIRST on the first, LAST on the last.
 *
 * Publication: the producer copies the payload, writes the header's other
 * fields, clears the seq of the slot right after the record (free space,
 * so the consumer can never mistake old payload bytes there for a
 * header), and only then stores seq with release semantics.  The
 * consumer polls the seq of the slot at its tail with acquire semantics;
 * when it is the next expected number the whole record is there.  One
 * cache line moves per small message.  The producer keeps 16 bytes free
 * for that cleared slot.  A producer that dies part way leaves at worst
 * a record whose seq was never stored: the consumer never sees it.
 *
 * Single copy (optional, both sides opt in with shm_ring_set_single_copy):
 * a message of at least the producer's threshold goes as one record with
 * FIRST|LAST|SINGLE_COPY whose payload is {address, length} of the
 * producer's buffer, and total the message's length.  The consumer reads
 * the buffer straight into the caller's with process_vm_readv, writes 0
 * or an errno to single_copy_status, and frees the record (tail, with
 * release).  The producer waits for the tail to pass the record, so its
 * buffer stays valid throughout; on a non-zero status (no permission, a
 * consumer that did not opt in) it sends the same message again in
 * chunks and stops offering single copies on this ring.
 *
 * Waiting (the UCX scheme): a side that would block first sets its armed
 * flag, issues a full barrier, re-checks the ring, and only then sleeps
 * in poll() on its wake fd (an eventfd) and on the peer's pidfd.  The
 * other side, after publishing (head or tail), issues a full barrier and
 * looks at the flag; only if it is set does it clear it and write the
 * sleeper's eventfd.  Either the sleeper's re-check sees the data or the
 * publisher sees the flag: no lost wake-up.  A spinning peer costs the
 * publisher one barrier and one read of a cache line that does not move,
 * never a system call.  An eventfd, not a futex, because a task waits on
 * many peers and on its sockets at once: one eventfd per task can sit in
 * the same poll() set as the sockets, a futex word cannot.
 *
 * A peer's end: close sets the side's closed flag and writes the peer's
 * wake fd.  A peer's death shows on its pidfd (pidfd_open; on kernels
 * without it, kill(pid, 0) every 100 ms of a block).  The consumer first
 * drains every complete message, then gets -EPIPE (closed) or
 * -ECONNRESET (died, also when it died in the middle of a chunked
 * message, whose chunks are then thrown away).  A producer gets -EPIPE
 * when the consumer closed or died.
 *
 * Everything returns 0 or a positive count on success, a negative errno
 * on failure.  Nothing is allocated after setup: struct shm_ring is the
 * caller's, and the receive buffer is the caller's too.  No callbacks.
 * One thread per side at a time.
 */
#ifndef COPVM_SHM_RING_H
#define COPVM_SHM_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "shm_layout.h"

/* "copvmshm" read as a little-endian u64 */
#define SHM_RING_MAGIC		0x6d68736d766f7063ULL
#define SHM_RING_VERSION	2	/* 2: 16-byte headers, line-aligned */
#define SHM_RING_HEADER_BYTES	4096
#define SHM_RING_REC_ALIGN	64
#define SHM_RING_MIN_BYTES	4096
#define SHM_RING_MAX_BYTES	(1U << 30)
/* Default ring size and chunk size (shm_ring_create with 0). */
#define SHM_RING_DEFAULT_BYTES	(256U << 10)

/* Record flags. */
#define SHM_REC_FIRST		1U
#define SHM_REC_LAST		2U
#define SHM_REC_SINGLE_COPY	4U

/* The ring bytes of a whole message's record of `len' payload bytes:
 * its header and payload, rounded up to a line. */
#define SHM_WHOLE_REC_BYTES(len)					\
	(((uint32_t)sizeof(struct shm_rec) + (len) +			\
	  SHM_RING_REC_ALIGN - 1) & ~(uint32_t)(SHM_RING_REC_ALIGN - 1))

/* Timeouts of the blocking calls, in ns. */
#define SHM_WAIT_FOREVER	(-1L)
#define SHM_NO_WAIT		0L

/* Records a consumer keeps in place at most (shm_ring_keep_whole). */
#define SHM_RING_KEEPS		4

/* The default spin before blocking, ns (as lib/wait.c's LIN bound). */
#define SHM_RING_DEFAULT_SPIN_NS	40000L

struct shm_ring_hdr;

/* One side of one ring, owned by the caller; fields are private. */
struct shm_ring {
	struct shm_ring_hdr *hdr;	/* the mapping */
	unsigned char *data;		/* the ring inside it */
	size_t map_bytes;
	uint32_t mask;			/* ring bytes - 1 */
	uint32_t chunk;			/* largest payload of a record */
	uint32_t pos;			/* our head (producer) or tail */
	uint32_t seq;			/* next record number */
	uint32_t other;			/* producer: last tail seen */
	int producer;			/* 1 on the producer's side */
	int memfd;			/* the segment; -1 once given away */
	int wake_fd;			/* our eventfd (not owned) */
	int peer_wake_fd;		/* the peer's eventfd (not owned) */
	pid_t peer_pid;
	int peer_pidfd;			/* owned; -1 when not opened */
	long spin_ns;
	uint64_t wakes_sent;		/* eventfd writes we made */
	uint64_t blocks;		/* times we slept in poll() */
	size_t single_copy_min;		/* 0: off; producer: from */
	int single_copy_off;		/* producer: the consumer refused */
	uint64_t single_copies;		/* messages sent single-copy */
	uint32_t copy_at;		/* producer: end of the pending
					 * offer_copy record, 0: none */
	int doorbell_ends_wait;		/* see shm_ring_set_doorbell_ends_wait */
	uint32_t unchecked;		/* consumer: whole records freed since
					 * it last looked for a waiting
					 * producer (shm_ring.c) */
	/* consumer: the places of the records kept in place (taken but
	 * still read there: shm_ring_keep_whole), oldest first, and
	 * whether each is still kept; the tail published stops at the
	 * oldest one still kept */
	uint32_t kept_at[SHM_RING_KEEPS];
	uint8_t kept_live[SHM_RING_KEEPS];
	int nkept;
};

/* What the next message is, from shm_ring_peek. */
struct shm_msg_info {
	uint32_t tag;
	uint64_t len;
};

/* Creates a sealed memfd segment with a ring of `ring_bytes' (0: the
 * default; a power of two) and maps it as its producer; 0 or -errno. */
int shm_ring_create(struct shm_ring *r, uint32_t ring_bytes);
/* Checks segment `memfd' (magic, version, sizes, seals) and maps it as
 * its consumer; takes a dup of the fd.  0, -EPROTO, -EINVAL, -EBUSY. */
int shm_ring_attach(struct shm_ring *r, int memfd);
/* The segment's fd, to pass to the consumer (still owned by `r'). */
int shm_ring_fd(const struct shm_ring *r);
/* Closes the segment's fd, keeping the mapping (after it was passed on,
 * so that the memory goes with the last mapping). */
void shm_ring_drop_fd(struct shm_ring *r);
/* Sets our eventfd (our sleeps) and the peer's (its wake-ups); either
 * may be -1 (no blocking / peer never blocks).  Opens the peer's pidfd
 * from the pid in the header when known.  0 or -errno. */
int shm_ring_connect(struct shm_ring *r, int wake_fd, int peer_wake_fd);
/* Sets how long a wait spins before it blocks, ns (0: block at once);
 * the caller takes it from the coscheduling model. */
void shm_ring_set_spin(struct shm_ring *r, long spin_ns);
/* Producer: with `on', a wake-up of our eventfd that brings no room ends
 * a timed wait for room with -EAGAIN.  The eventfd serves all of a
 * task's rings, so the wake-up may be input the caller must read before
 * the room can come.  Off by default. */
void shm_ring_set_doorbell_ends_wait(struct shm_ring *r, int on);
/* Producer: messages of `min_bytes' or more go single-copy (0: never).
 * Consumer: non-zero accepts single-copy records (0: refuses them, and
 * the producer falls back to chunks).  Off by default. */
void shm_ring_set_single_copy(struct shm_ring *r, size_t min_bytes);
/* Marks our side closed, wakes the peer, unmaps, closes our fds. */
void shm_ring_close(struct shm_ring *r);
/* Unmaps and closes without marking the side closed (a forked child
 * letting go of its parent's ring). */
void shm_ring_forget(struct shm_ring *r);

/* Sends `len' bytes with `tag', in chunks when longer than one record.
 * `timeout_ns' bounds the wait for room for the first record (0: none,
 * -EAGAIN); once a chunked message has started it is finished.
 * 0, -EAGAIN, -ETIMEDOUT, -EPIPE, -EINVAL. */
int shm_ring_send(struct shm_ring *r, uint32_t tag, const void *buf,
		  size_t len, long timeout_ns);
/* Sends the `cnt' pieces of `iov' as one message of one record (at most
 * the chunk's bytes in all: -EMSGSIZE), gathered straight into the ring;
 * never single copy.  Waits as shm_ring_send.  0, -EAGAIN, -ETIMEDOUT,
 * -EPIPE, -EMSGSIZE, -EINVAL. */
int shm_ring_sendv(struct shm_ring *r, uint32_t tag, const struct iovec *iov,
		   int cnt, long timeout_ns);
/* Sends `alen' bytes at `a' then `blen' at `b' as one message of one
 * record, without waiting: a small frame's header and body in one go.
 * 0, -EAGAIN (no room now), -EPIPE, -EMSGSIZE (over one chunk), -EINVAL. */
int shm_ring_send2(struct shm_ring *r, uint32_t tag, const void *a,
		   uint32_t alen, const void *b, uint32_t blen);
/* shm_ring_send2() for a caller that has checked its arguments: our
 * producing end of an open ring, `a' and `b' set when their lengths are
 * not 0, alen + blen within one chunk.  0, -EAGAIN (no room now), -EPIPE. */
int shm_ring_put2(struct shm_ring *r, uint32_t tag, const void *a,
		  uint32_t alen, const void *b, uint32_t blen);
/* Receives the next message, which must be one record (a longer one, or
 * one longer than the `cnt' pieces of `iov' hold, is left in the ring:
 * -EMSGSIZE; a single-copy one is -EPROTO), scattered over `iov' in
 * order; returns its length.  Waits and errors as shm_ring_recv. */
ssize_t shm_ring_recvv(struct shm_ring *r, uint32_t *tag,
		       const struct iovec *iov, int cnt, long timeout_ns);
/* Tells the next message's tag and length without taking it, waiting
 * up to `timeout_ns' for it.  0, -EAGAIN, -ETIMEDOUT, -EPIPE,
 * -ECONNRESET, -EPROTO. */
int shm_ring_peek(struct shm_ring *r, struct shm_msg_info *info,
		  long timeout_ns);
/* Receives the next message into `buf' (`cap' bytes, the caller's),
 * waiting up to `timeout_ns' for its start; returns its length.  A
 * message longer than `cap' is left in the ring (-EMSGSIZE).  Errors as
 * shm_ring_peek. */
ssize_t shm_ring_recv(struct shm_ring *r, uint32_t *tag, void *buf,
		      size_t cap, long timeout_ns);
/* Single copy in two steps, for a caller that must not wait for the
 * consumer's answer (both sides opted in with shm_ring_set_single_copy).
 * Producer: shm_ring_offer_copy publishes the record naming `buf' (which
 * must stay valid until the answer) and returns 0, -EAGAIN (no room; try
 * again), -EPIPE or -EINVAL; shm_ring_copy_answer then waits up to
 * `timeout_ns' for the answer: 1 (read), 0 (not yet), -EOPNOTSUPP
 * (refused: send the bytes another way; later offers are refused too)
 * or -EPIPE (the consumer is gone). */
int shm_ring_offer_copy(struct shm_ring *r, uint32_t tag, const void *buf,
			size_t len);
int shm_ring_copy_answer(struct shm_ring *r, long timeout_ns);
/* Consumer: takes the single-copy record at the front into `buf' (`cap'
 * bytes) and answers it; never waits.  The length, -EOPNOTSUPP (refused
 * or unreadable: the producer sends the bytes another way), -EAGAIN (no
 * record), -ECONNRESET (the producer is gone), -EMSGSIZE or -EPROTO (the
 * front record is not a single-copy one). */
ssize_t shm_ring_take_copy(struct shm_ring *r, void *buf, size_t cap);
/* Non-zero when a record is waiting (consumer; no system call).  Finding
 * none, it wakes a producer waiting for the room of records taken since
 * the last look (shm_ring.c, free_record). */
int shm_ring_readable(struct shm_ring *r);
/* For a caller that blocks in its own poll() (many rings and sockets,
 * one eventfd): raises the consumer's armed flag and looks again.  1
 * when a record or the producer's close is already there (do not
 * block; the flag is lowered), 0 when the caller may now block on the
 * eventfd given to the producer; -EINVAL on a producer's side. */
int shm_ring_arm(struct shm_ring *r);
/* Lowers the armed flag after the caller's poll() returned. */
void shm_ring_disarm(struct shm_ring *r);

/* The front record as shm_ring_front checked it, for
 * shm_ring_take_front: `tag' and `len' (the message's bytes, as
 * shm_msg_info's) are the caller's to read, the rest private. */
struct shm_front {
	uint32_t tag;
	uint64_t len;
	uint32_t pos;			/* the record's place (the tail) */
	uint32_t rec_len;		/* its payload bytes */
	uint32_t flags;
};
/* Consumer: shm_ring_peek with no wait, the record's checked header
 * kept in `f', so that shm_ring_take_front need not check it again.
 * 0, -EAGAIN, -EPIPE, -ECONNRESET, -EPROTO, -EINVAL. */
int shm_ring_front(struct shm_ring *r, struct shm_front *f);
/* Consumer: takes the message `f' describes, which must still be at
 * the front (-EINVAL otherwise): its first `head_len' bytes (or fewer)
 * into `head', the rest, f->len - head_len bytes, into `rest'.  Refused
 * as shm_ring_recvv refuses it, the record left: -EPROTO single copy,
 * -EMSGSIZE not one record.  Returns its length. */
ssize_t shm_ring_take_front(struct shm_ring *r, const struct shm_front *f,
			    void *head, size_t head_len, void *rest);
/* Consumer: shm_ring_front, and when the front record is a whole
 * message of one record lying in one piece, its payload in place in
 * *payload (else NULL: take it with shm_ring_take_front).  The caller
 * copies what it reads out of the ring once (a faulty peer could still
 * write there) and then frees the record with shm_ring_drop_front. */
int shm_ring_front_in_place(struct shm_ring *r, struct shm_front *f,
			    const unsigned char **payload);
/* Consumer: frees the record `f' that shm_ring_front_in_place gave in
 * place, still the front one. */
void shm_ring_drop_front(struct shm_ring *r, const struct shm_front *f);

/*
 * The consumer's common case inline, for a transport that takes a small
 * message on every round trip (transport/shm.c): what
 * shm_ring_front_in_place() and shm_ring_drop_front() do with a whole
 * message of one record lying in one piece, without their calls.
 */

/* Whole records the consumer frees before it looks whether the producer
 * waits for room (shm_ring.c, free_record). */
#define SHM_FREE_CHECK_EVERY	16

/* shm_ring_wait.c: wakes the producer if it waits for room or for a
 * single-copy answer (a full fence, then its flag); resets `unchecked'. */
void shmr_producer_check(struct shm_ring *r);

/* Copies `n' bytes from `src' to `dst' (not overlapping): a short copy
 * as two possibly overlapping moves of a power of two, a long one by
 * memcpy.  A small frame's header and body go this way into the ring
 * (the producer, shm_ring.c) and its body out of it (transport/shm.c),
 * without a call into the C library each. */
static inline void shm_copy_short(unsigned char *dst,
				  const unsigned char *src, uint32_t n)
{
	/* a frame's header (16 to 32 bytes) first, then a small body */
	if (n >= 16) {
		if (n <= 32) {
			memcpy(dst, src, 16);
			memcpy(dst + n - 16, src + n - 16, 16);
		} else if (n <= 64) {
			memcpy(dst, src, 32);
			memcpy(dst + n - 32, src + n - 32, 32);
		} else {
			memcpy(dst, src, n);
		}
	} else if (n >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else {
		while (n--)
			*dst++ = *src++;
	}
}

/* Consumer: 1 when the front record is a whole message of one record
 * lying in one piece, its payload in place in *payload, its tag and
 * length in *tag and *len: shm_ring_front_in_place's answer, which the
 * caller copies out once and frees with shm_ring_drop_whole.  0 when no
 * record waits and the producer has not closed (its -EAGAIN); -1 for
 * anything else: ask shm_ring_front_in_place. */
static inline int shm_ring_whole_front(const struct shm_ring *r,
				       const unsigned char **payload,
				       uint32_t *tag, uint32_t *len)
{
	const struct shm_rec *rec =
		(const struct shm_rec *)(r->data + (r->pos & r->mask));
	uint32_t n, at;

	if (__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE) != r->seq)
		return __atomic_load_n(&r->hdr->producer_closed,
				       __ATOMIC_ACQUIRE) ? -1 : 0;
	n = __atomic_load_n(&rec->len, __ATOMIC_RELAXED);
	at = (r->pos + (uint32_t)sizeof(*rec)) & r->mask;
	if (__atomic_load_n(&rec->flags, __ATOMIC_RELAXED) !=
	    (SHM_REC_FIRST | SHM_REC_LAST) || n > r->chunk ||
	    at + n > r->mask + 1)
		return -1;
	*tag = __atomic_load_n(&rec->tag, __ATOMIC_RELAXED);
	*len = n;
	*payload = r->data + at;
	/* the next record's line, last written by the producer: a miss on
	 * the way back to the program unless it is on its way now */
	__builtin_prefetch(r->data + ((r->pos + SHM_WHOLE_REC_BYTES(n)) &
				      r->mask));
	return 1;
}

/* Consumer: the tail to publish: the place of the oldest record still
 * kept in place, else all that was taken. */
static inline uint32_t shm_ring_tail_now(const struct shm_ring *r)
{
	return r->nkept ? r->kept_at[0] : r->pos;
}

/* Consumer: frees the front record, a whole message of `len' bytes that
 * shm_ring_whole_front gave (as free_record does, shm_ring.c). */
static inline void shm_ring_drop_whole(struct shm_ring *r, uint32_t len)
{
	r->pos += SHM_WHOLE_REC_BYTES(len);
	r->seq = r->seq + 1 + (r->seq == UINT32_MAX);	/* 0 is never one */
	__atomic_store_n(&r->hdr->tail, shm_ring_tail_now(r),
			 __ATOMIC_RELEASE);
	if (++r->unchecked >= SHM_FREE_CHECK_EVERY)
		shmr_producer_check(r);
}

/* Consumer: takes the front record, a whole message of `len' bytes that
 * shm_ring_whole_front gave, but keeps it in place: the records after it
 * are read on, while its bytes, and theirs, stay the consumer's until
 * shm_ring_let_go.  The caller keeps a peer's record for as short a time
 * as it can: the producer has that much less room meanwhile.  The
 * record's place in *at and 0, or -1 (nothing done) when SHM_RING_KEEPS
 * records are kept already. */
static inline int shm_ring_keep_whole(struct shm_ring *r, uint32_t len,
				      uint32_t *at)
{
	if (r->nkept == SHM_RING_KEEPS)
		return -1;
	*at = r->pos;
	r->kept_at[r->nkept] = r->pos;
	r->kept_live[r->nkept++] = 1;
	r->pos += SHM_WHOLE_REC_BYTES(len);
	r->seq = r->seq + 1 + (r->seq == UINT32_MAX);
	return 0;
}

/* Consumer: the bytes from the oldest record kept in place to the next
 * record to take (0 when none is kept). */
static inline uint32_t shm_ring_kept_span(const struct shm_ring *r)
{
	return r->nkept ? r->pos - r->kept_at[0] : 0;
}

/* shm_ring_let_go() past its common case (shm_ring.c): frees the record
 * kept at `at' among several kept, or does nothing for another `at'. */
void shmr_let_go_any(struct shm_ring *r, uint32_t at);

/* Consumer: frees the record kept at `at' (shm_ring_keep_whole); the
 * tail moves once no older record is kept.  Nothing for another `at'.
 * Inline, the common case: the one record kept (the oldest kept is
 * always still kept: the ones let go before it are dropped with it). */
static inline void shm_ring_let_go(struct shm_ring *r, uint32_t at)
{
	if (r->nkept != 1 || r->kept_at[0] != at) {
		shmr_let_go_any(r, at);
		return;
	}
	r->nkept = 0;
	__atomic_store_n(&r->hdr->tail, r->pos, __ATOMIC_RELEASE);
	if (++r->unchecked >= SHM_FREE_CHECK_EVERY)
		shmr_producer_check(r);
}

/* 1 when the peer process still exists, 0 when it is gone. */
int shm_ring_peer_alive(struct shm_ring *r);
/* The peer's pidfd (readable once it has exited) or -1, for the
 * caller's own poll() set. */
int shm_ring_peer_fd(const struct shm_ring *r);
/* The peer's pid, once known (the producer learns it at the consumer's
 * attach); 0 before. */
pid_t shm_ring_peer_pid(struct shm_ring *r);

/* ---- inside lib/transport (shm_seg.c) ---- */

/* Makes the sealed memfd of a segment with a ring of `ring_bytes' and
 * writes its header; the fd or -errno. */
int shm_seg_make(uint32_t ring_bytes);
/* Validates segment `fd' and maps it; the mapping in `*hdr', its size in
 * `*bytes'.  0, -EPROTO (not a ring, other version), -EINVAL (sizes,
 * seals, truncated), or -errno of the mapping. */
int shm_seg_map(int fd, struct shm_ring_hdr **hdr, size_t *bytes);
/* Opens a pidfd of `pid', or -errno (-ENOSYS on old kernels). */
int shm_seg_pidfd(pid_t pid);

#endif /* COPVM_SHM_RING_H */

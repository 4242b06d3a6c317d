/*
 * transport/shm.c - same-host circuits whose frames go through a
 * shared-memory ring (shm_ring.h), with the unix socket kept as the
 * control and liveness channel and as the fallback.
 *
 * A circuit opens, is accepted and starts exactly as a unix one, and
 * moves onto a ring by a handshake on the socket (shm_setup.c).  This
 * file is the data path: the frames on the socket before the switch
 * (stream.c), in the ring after it, and the waits.
 *
 * Frames in the ring: a frame that fits one record goes whole (header
 * and body, one record: REC_WHOLE), its header without the magic and
 * the length, which the record vouches for, so that a message of up to
 * 20 body bytes (8 bytes packed) is one cache line of the ring, record
 * header included; a larger one goes as its header
 * (REC_HEAD) then pieces of its body (REC_BODY) of at most one record
 * each, received straight into the body buffer (pvmi_buf_alloc).  Each
 * record is complete or invisible (the ring publishes its header last),
 * so no call here ever waits for the rest of a message, and a sender
 * that dies part way leaves a body that is freed, never handed on.
 *
 * A sender learns that its receiver closed from the ring (-EPIPE), and
 * that it died from the socket's end, which it looks at every 10 ms of
 * sending at most, and for small frames only every 16th record (between
 * those looks a few frames may go into the dead ring, as they would go
 * into a dead socket's buffer).
 *
 * Waiting: the pipe's wait fd (p->fd) stays the socket.  The task has
 * one wake eventfd (pvmi_shm_wake_fd, the table's wait_fd) for all its
 * rings; conn.c polls it.  Before the pump blocks it arms every ring it
 * reads (arm()); a sender writes the eventfd only when the ring is
 * armed, so a spinning receiver costs it no system call.  A sender
 * whose ring is full waits up to ROOM_WAIT_NS for room (spinning for
 * the budget its owner passes down through the sink, spin_ns, then
 * sleeping on the eventfd and the reader's pidfd) and then returns 0,
 * so conn.c reads its own input in between: two tasks sending large
 * messages to each other cannot deadlock.  While it waits, its own
 * receiving rings are armed too, and input for it ends the wait at
 * once: the peer may be waiting for that input to be read before it
 * reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "be.h"
#include "bufcache.h"
#include "bufheap.h"
#include "cosched_page.h"
#include "msg.h"
#include "transport/shm_pipe.h"
#include "transport/stream.h"

static int frame_sink(void *arg, const struct pvmi_frame *f,
		      unsigned char *body);
static long gate_sink(void *arg, const unsigned char *data, size_t len);
static int paused_sink(void *arg);

/* What a receiving pipe's stream hands its frames to: RING frames are
 * ours, the rest the owner's. */
static const struct pvmi_pipe_sink shm_sink = {
	.frame = frame_sink,
	.gate = gate_sink,
	.paused = paused_sink,
};

/* The pipe's state, made on first use; NULL when out of memory. */
static struct shm_pipe *state(struct pvmi_pipe *p)
{
	struct shm_pipe *s = p->priv;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->peer_wake = -1;
	s->mode = pvmi_shm_enabled() ? S_PROBE : S_SOCKET;
	p->priv = s;
	return s;
}

/* ---- the receiver ---- */


/* Non-zero once frames come from the ring rather than the socket. */
static int ring_on(const struct shm_pipe *s)
{
	return s->have_ring && !s->draining;
}

static int frame_sink(void *arg, const struct pvmi_frame *f,
		      unsigned char *body)
{
	struct pvmi_pipe *p = arg;
	struct shm_pipe *s = p->priv;

	if (f->kind != PVMI_KIND_RING)
		return s->up->frame(s->up_arg, f, body);
	pvmi_buf_free(body);
	if (f->tag != SWITCH_TAG)
		return pvmi_shm_take_ring(p, s);
	if (!s->draining)
		return -1;
	s->draining = 0;
	return 0;
}

static long gate_sink(void *arg, const unsigned char *data, size_t len)
{
	struct pvmi_pipe *p = arg;
	struct shm_pipe *s = p->priv;

	return s->up->gate ? s->up->gate(s->up_arg, data, len) : -1;
}

/* Hands the frame put together in `s' to the owner. */
static int deliver(struct shm_pipe *s, unsigned char *body)
{
	s->body = NULL;
	s->got = 0;
	s->batch_msgs++;
	s->batch_bytes += s->f.len;
	return s->up->frame(s->up_arg, &s->f, body) < 0 ? -EPROTO : 0;
}

/* Takes the REC_LEND record at the front, `fr': its frame, whose body
 * stays in the sender's heap, held as a loan (bufheap.h).  1, or a
 * negative errno. */
static int take_lent(struct shm_pipe *s, const struct shm_front *fr)
{
	unsigned char hdr[PVMI_FRAME_HDR_LEN], *body;
	struct pvmi_heap_ref ref;
	ssize_t n;

	if (s->body || !s->heap || fr->len != sizeof(hdr) + sizeof(ref))
		return -EPROTO;
	n = shm_ring_take_front(&s->ring, fr, hdr, sizeof(hdr), &ref);
	if (n != (ssize_t)fr->len)
		return n < 0 ? (int)n : -EPROTO;
	if (pvmi_frame_decode(hdr, &s->f) || s->f.len != ref.len)
		return -EPROTO;
	body = pvmi_loan_take(s->heap, &ref);
	if (!body)
		return -EPROTO;
	return deliver(s, body) ? -EPROTO : 1;
}

/* take_whole() of a body of KEEP_MIN bytes or more, read in the ring
 * (shm_keep.c): its record kept, its message reading it there.  Only the
 * first frame a progress call takes: a ping-pong's, which a receive
 * waits for.  A stream's others wait in the receive queue, so they are
 * copied as before: kept, they would hold the ring, and their copies out
 * would take bodies beyond the batch the pools are sized for.  1 when
 * taken so, 0 when it is to be copied out as usual (not the first, no
 * keep free, a header the usual way refuses, or an owner that does not
 * take it lent), or a negative errno. */
static __attribute__((noinline)) int take_kept(struct shm_pipe *s,
					       const unsigned char *pl,
					       uint32_t len)
{
	uint32_t blen = len - WHOLE_HDR_LEN;
	unsigned char *body = (unsigned char *)pl + WHOLE_HDR_LEN;
	struct shm_keep *k;

	if (s->batch_msgs || !s->up->frame_lent ||
	    pvmi_frame_decode_tail(pl, blen, &s->f) ||
	    !(k = pvmi_shm_keep_slot(s)) ||
	    shm_ring_keep_whole(&s->ring, len, &k->at))
		return 0;
	s->batch_msgs++;
	s->batch_bytes += blen;
	if (s->up->frame_lent(s->up_arg, &s->f, body, &k->lend) > 0)
		return 1;
	/* declined: copied out after all, then freed */
	s->batch_msgs--;
	s->batch_bytes -= blen;
	body = pvmi_msg_rx_body(blen);
	if (body)
		shm_copy_short(body, pl + WHOLE_HDR_LEN, blen);
	shm_ring_let_go(&s->ring, k->at);
	if (!body)
		return -ENOMEM;
	return deliver(s, body) ? -EPROTO : 1;
}

/* ring_take()'s common case: the REC_WHOLE record of `len' bytes at
 * `pl', in place at the front of the ring, checked as ring_take checks
 * it; its header decoded, its body copied out once (or read in place,
 * take_kept), the record freed and the frame delivered.  1, or a
 * negative errno. */
static inline int take_whole(struct shm_pipe *s, const unsigned char *pl,
			     uint32_t len)
{
	uint32_t blen = len - WHOLE_HDR_LEN;
	unsigned char *body;
	int rc;

	if (blen >= KEEP_MIN && (rc = take_kept(s, pl, len)) != 0)
		return rc;

	/* the body straight into its buffer: the last receive buffer's,
	 * when the program let it go */
	body = pvmi_msg_rx_body(blen);
	if (!body)
		return -ENOMEM;
	rc = pvmi_frame_decode_tail(pl, blen, &s->f);
	shm_copy_short(body, pl + WHOLE_HDR_LEN, blen);
	shm_ring_drop_whole(&s->ring, len);
	if (rc) {
		pvmi_buf_free(body);
		return -EPROTO;
	}
	return deliver(s, body) ? -EPROTO : 1;
}

/* ring_take() past its common cases: takes the record at the front,
 * whatever it is; 1 when one was taken, 0 when none is waiting, or a
 * negative errno. */
static __attribute__((noinline)) int take_record(struct shm_pipe *s)
{
	struct shm_front info;
	unsigned char hdr[PVMI_FRAME_HDR_LEN], *body;
	const unsigned char *pl;
	uint32_t tag, blen;
	ssize_t n;
	int rc;

	/* a producer may wait for the tail past any other record: the
	 * bodies kept in place are copied out first (shm_keep.c) */
	if (s->ring.nkept)
		pvmi_shm_keeps_out(s, 0);
	/* the record checked once: the take below uses what was checked */
	rc = shm_ring_front_in_place(&s->ring, &info, &pl);
	if (rc == -EAGAIN)
		return 0;
	if (rc < 0)
		return rc;
	/* every record we send is one ring record: a longer one would make
	 * shm_ring_recv wait for the rest, on a peer that may be stuck */
	if (info.len > s->ring.chunk && info.tag != REC_COPY)
		return -EPROTO;
	switch (info.tag) {
	case REC_WHOLE:
		if (s->body || info.len < WHOLE_HDR_LEN ||
		    info.len > WHOLE_MAX)
			return -EPROTO;
		/* the header apart, the body straight into its buffer: the
		 * last receive buffer's, when the program let it go */
		blen = info.len - WHOLE_HDR_LEN;
		body = pvmi_msg_rx_body(blen);
		if (!body)
			return -ENOMEM;
		if (pl) {	/* in one piece: read where it lies */
			rc = pvmi_frame_decode_tail(pl, blen, &s->f);
			memcpy(body, pl + WHOLE_HDR_LEN, blen);
			shm_ring_drop_front(&s->ring, &info);
		} else {
			n = shm_ring_take_front(&s->ring, &info,
						hdr + WHOLE_SKIP,
						WHOLE_HDR_LEN, body);
			if (n != (ssize_t)info.len) {
				pvmi_buf_free(body);
				return n < 0 ? (int)n : -EPROTO;
			}
			rc = pvmi_frame_decode_tail(hdr + WHOLE_SKIP, blen,
						    &s->f);
		}
		if (rc) {
			pvmi_buf_free(body);
			return -EPROTO;
		}
		return deliver(s, body) ? -EPROTO : 1;
	case REC_HEAD:
		if (s->body || info.len != PVMI_FRAME_HDR_LEN)
			return -EPROTO;
		n = shm_ring_recv(&s->ring, &tag, hdr, sizeof(hdr), 0);
		if (n != PVMI_FRAME_HDR_LEN || pvmi_frame_decode(hdr, &s->f))
			return n < 0 ? (int)n : -EPROTO;
		body = pvmi_buf_body_start(s->f.len, 0);	/* grows */
		if (!body)
			return -ENOMEM;
		if (s->f.len == 0)
			return deliver(s, body) ? -EPROTO : 1;
		s->body = body;
		s->got = 0;
		return 1;
	case REC_LEND:
		return take_lent(s, &info);
	case REC_COPY:
		if (!s->body || s->got || info.len != s->f.len)
			return -EPROTO;
		/* the whole body is there, in the sender: room for all of
		 * it (the body was started at its eager size) */
		body = pvmi_buf_body_room(s->body, 0, s->f.len, s->f.len);
		if (!body)
			return -ENOMEM;
		s->body = body;
		n = shm_ring_take_copy(&s->ring, s->body, s->f.len);
		if (n == -EOPNOTSUPP)
			return 1;	/* the pieces follow */
		if (n != (ssize_t)s->f.len)
			return n < 0 ? (int)n : -EPROTO;
		s->got = n;
		return deliver(s, s->body) ? -EPROTO : 1;
	case REC_BODY:
		if (!s->body || info.len == 0 ||
		    info.len > s->f.len - s->got)
			return -EPROTO;
		body = pvmi_buf_body_room(s->body, s->got, info.len, s->f.len);
		if (!body)
			return -ENOMEM;
		s->body = body;
		n = shm_ring_recv(&s->ring, &tag, s->body + s->got,
				  info.len, 0);
		if (n != (ssize_t)info.len)
			return n < 0 ? (int)n : -EPROTO;
		s->got += n;
		if (s->got == s->f.len)
			return deliver(s, s->body) ? -EPROTO : 1;
		return 1;
	}
	return -EPROTO;
}

/* Takes one record of the ring; 1 when one was taken, 0 when none is
 * waiting, or a negative errno.  The common cases inline: nothing
 * there, or a small frame whole in one record that lies in one piece. */
static inline int ring_take(struct shm_pipe *s)
{
	const unsigned char *pl;
	uint32_t tag, len;
	int rc;

	rc = shm_ring_whole_front(&s->ring, &pl, &tag, &len);
	if (rc == 0)
		return 0;
	/* kept bodies hold back no more than a quarter of the ring */
	if (s->ring.nkept &&
	    shm_ring_kept_span(&s->ring) > (s->ring.mask + 1) / 4)
		pvmi_shm_keeps_out(s, 0);
	if (rc > 0 && tag == REC_WHOLE && !s->body &&
	    len >= WHOLE_HDR_LEN && len <= WHOLE_MAX)
		return take_whole(s, pl, len);
	return take_record(s);
}

/* Whether the owner of pipe `arg' takes no more frames for now. */
static int paused_sink(void *arg)
{
	struct shm_pipe *s = state(arg);

	return s && s->up && s->up->paused && s->up->paused(s->up_arg);
}

/* The messages, and their bodies' bytes, that one progress call takes
 * out of the ring at most, so that a stream's buffers go round the
 * buffer pools (bufcache.c): those keep 16 buffers per class up to
 * 64 KiB, and 4 above, of which the task's send and receive buffers may
 * hold one each, leaving three 64 KiB bodies.  The rest wait in the
 * ring, which holds them for nothing, where each message taken holds a
 * body buffer and a message object in the receive queue.  A stream taken
 * a ringful at a time (up to 16,384 one-line records) outgrew the pools
 * and cost three heap allocations and 1.5-5x the time per message
 * (docs/results/msg_breakdown.md, "A stream").  The bound applies only
 * once the receive under way has its match (the sink's `sated'), so that
 * a probe still sees a message behind any number of others. */
#define BATCH_MSGS	PVMI_LOOK_MSGS	/* stream.h: the streams' bound too */
#define BATCH_BYTES	PVMI_LOOK_BYTES

/* Whether the owner of pipe `arg' already holds what its receive under
 * way waits for. */
static int sated_sink(void *arg)
{
	struct shm_pipe *s = state(arg);

	return s && s->up && s->up->sated && s->up->sated(s->up_arg);
}

/* After the switch: the ring's records, then the socket's end. */
static int ring_progress(struct pvmi_pipe *p, struct shm_pipe *s, int any)
{
	unsigned char c;
	ssize_t n;
	int rc;

	if (s->armed) {
		shm_ring_disarm(&s->ring);
		s->armed = 0;
	}
	s->batch_msgs = 0;
	s->batch_bytes = 0;
	while ((rc = ring_take(s)) > 0) {
		any = 1;
		/* paused_sink()'s question, `s->up' known to be there */
		if (s->up->paused && s->up->paused(s->up_arg))
			break;	/* the rest waits in the ring */
		if ((s->batch_msgs >= BATCH_MSGS ||
		     s->batch_bytes >= BATCH_BYTES) && sated_sink(p))
			break;	/* likewise, the receive having its match */
	}
	if (rc == -ECONNRESET)
		return -EPIPE;
	if (rc < 0)
		return rc;
	if (any)
		return 1;
	/* nothing in the ring: called for the socket, which now only ends */
	n = recv(p->fd, &c, 1, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -EPIPE;
	return n > 0 ? -EPROTO : 0;
}

static int shm_progress(struct pvmi_pipe *p)
{
	struct shm_pipe *s = state(p);
	int rc;

	if (!s)
		return -ENOMEM;
	if (!s->up) {
		s->up = p->sink;
		s->up_arg = p->arg;
		p->sink = &shm_sink;
		p->arg = p;
	}
	if (ring_on(s))
		return ring_progress(p, s, 0);
	rc = pvmi_stream_progress(p);
	if (!ring_on(s))
		return rc;
	/* the switch happened in this read */
	if (rc < 0 && rc != -EPIPE)
		return rc;
	return ring_progress(p, s, rc != 0);
}

static int shm_poll_ready(struct pvmi_pipe *p)
{
	struct shm_pipe *s = p->priv;

	return s && ring_on(s) && shm_ring_readable(&s->ring);
}

static int shm_arm(struct pvmi_pipe *p, int on)
{
	struct shm_pipe *s = p->priv;

	if (!s || !ring_on(s) || s->ring.producer)
		return 0;
	if (!on) {
		if (s->armed)
			shm_ring_disarm(&s->ring);
		s->armed = 0;
		return 0;
	}
	if (shm_ring_arm(&s->ring))
		return 1;
	s->armed = 1;
	return 0;
}

/* ---- the sender ---- */





/* Bytes of `tx' not yet sent. */
static size_t tx_left(const struct pvmi_tx *tx)
{
	size_t n = 0;
	int i;

	for (i = tx->next; i < tx->count; i++)
		n += tx->iov[i].iov_len;
	return n;
}

/* Marks `n' bytes of `tx' sent. */
static void tx_advance(struct pvmi_tx *tx, size_t n)
{
	while (tx->next < tx->count) {
		struct iovec *v = tx->iov + tx->next;

		if (n < v->iov_len) {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= n;
			return;
		}
		n -= v->iov_len;
		tx->next++;
	}
}

/* Arms the rings of every reader whose owner takes input now (on), or
 * disarms those it armed; 1 when one of them has input already. */
static int arm_readers(int on)
{
	struct shm_pipe *r;
	int any = 0;

	for (r = pvmi_shm_readers; r; r = r->next_reader) {
		if (!on) {
			if (r->room_armed)
				shm_arm(r->pipe, 0);
			r->room_armed = 0;
		} else if (!paused_sink(r->pipe)) {
			if (r->armed)	/* by pvm_nrecv: left so */
				any |= shm_poll_ready(r->pipe);
			else
				any |= shm_arm(r->pipe, 1);
			r->room_armed = r->armed;
		}
	}
	return any;
}

/* How long a send on `p' may spin for room: the budget its owner
 * passes down through the sink (transport.h), else the ring's default. */
static long spin_budget(struct pvmi_pipe *p, struct shm_pipe *s)
{
	const struct pvmi_pipe_sink *up = s->up ? s->up : p->sink;
	void *arg = s->up ? s->up_arg : p->arg;

	if (!up || !up->spin_ns)
		return SHM_RING_DEFAULT_SPIN_NS;
	return up->spin_ns(arg, SHM_RING_DEFAULT_SPIN_NS);
}

/* One record, the `cnt' pieces of `iov', into the ring of `p', waiting
 * a little for room: 1 sent, 0 no room yet (or input to read first), or
 * a negative errno. */
static int ring_putv(struct pvmi_pipe *p, struct shm_pipe *s, uint32_t tag,
		     const struct iovec *iov, int cnt)
{
	int rc = shm_ring_sendv(&s->ring, tag, iov, cnt, SHM_NO_WAIT);

	if (rc == -EAGAIN) {
		shm_ring_set_spin(&s->ring, spin_budget(p, s));
		if (!arm_readers(1))
			rc = shm_ring_sendv(&s->ring, tag, iov, cnt,
					    ROOM_WAIT_NS);
		arm_readers(0);
	}
	if (rc == -ETIMEDOUT || rc == -EAGAIN)
		return 0;
	if (rc == -ECONNRESET)
		return -EPIPE;
	return rc < 0 ? rc : 1;
}

/* ring_putv() of the `len' bytes at `buf'. */
static int ring_put(struct pvmi_pipe *p, struct shm_pipe *s, uint32_t tag,
		    const void *buf, size_t len)
{
	struct iovec v = { (void *)buf, len };

	return ring_putv(p, s, tag, &v, 1);
}

/* Sends frame `tx', not begun, as a REC_LEND record when its body is
 * one block of our export heap that the receiver maps: 1 sent, 0 no room
 * yet, a negative errno, or -EOPNOTSUPP when it is not to be lent. */
static int ring_lend(struct pvmi_pipe *p, struct shm_pipe *s,
		     struct pvmi_tx *tx)
{
	struct pvmi_heap_ref ref;
	struct iovec v[2];
	int rc;

	if (!s->lend || tx->next != 0 || tx->count != 2 ||
	    tx->iov[0].iov_len != PVMI_FRAME_HDR_LEN ||
	    pvmi_heap_lend(tx->iov[1].iov_base, tx->iov[1].iov_len,
			   shm_ring_peer_pid(&s->ring), p, LEND_CAP, &ref))
		return -EOPNOTSUPP;
	v[0] = tx->iov[0];
	v[1].iov_base = &ref;
	v[1].iov_len = sizeof(ref);
	rc = ring_putv(p, s, REC_LEND, v, 2);
	if (rc != 1) {
		pvmi_heap_unlend(&ref);
		return rc;
	}
	tx->next = tx->count;
	return 1;
}

/* Moves frame `tx' into the ring as far as there is room. */
static int ring_send(struct pvmi_pipe *p, struct shm_pipe *s,
		     struct pvmi_tx *tx)
{
	size_t left = tx_left(tx), piece;
	struct iovec *v;
	int rc;

	if (tx->next == 0 && tx->iov[0].iov_len == PVMI_FRAME_HDR_LEN &&
	    left - WHOLE_SKIP <= WHOLE_MAX &&
	    left - WHOLE_SKIP <= s->ring.chunk) {
		/* a whole frame in one record, gathered into the ring, the
		 * header's magic and length left out */
		struct iovec hdr = tx->iov[0];

		tx->iov[0].iov_base = (unsigned char *)hdr.iov_base + WHOLE_SKIP;
		tx->iov[0].iov_len = WHOLE_HDR_LEN;
		rc = ring_putv(p, s, REC_WHOLE, tx->iov, tx->count);
		tx->iov[0] = hdr;
		if (rc == 1)
			tx->next = tx->count;
		return rc;
	}
	if (tx->next == 0 && left > WHOLE_MAX) {
		rc = ring_lend(p, s, tx);
		if (rc != -EOPNOTSUPP)
			return rc;
	}
	if (s->copying) {
		/* the receiver reads the body: wait a little for its answer */
		rc = shm_ring_copy_answer(&s->ring, ROOM_WAIT_NS);
		if (rc == 0)
			return 0;
		s->copying = 0;
		if (rc == 1) {
			tx->next = tx->count;
			return 1;
		}
		if (rc != -EOPNOTSUPP)
			return rc == -ECONNRESET ? -EPIPE : rc;
		/* refused (not permitted, say): the body goes in pieces */
	}
	while (tx->next < tx->count) {
		v = tx->iov + tx->next;
		if (tx->next == 1 && tx->count == 2 && s->copy_min &&
		    v->iov_len >= s->copy_min && !s->ring.single_copy_off) {
			rc = shm_ring_offer_copy(&s->ring, REC_COPY, v->iov_base,
						 v->iov_len);
			if (rc == -EAGAIN)
				return 0;
			if (rc == 0) {
				s->copying = 1;
				return ring_send(p, s, tx);
			}
			if (rc != -EOPNOTSUPP)
				return rc;
		}
		if (v->iov_len == 0) {
			tx->next++;
			continue;
		}
		if (tx->next == 0) {
			/* the header: one record, never split */
			rc = ring_put(p, s, REC_HEAD, v->iov_base, v->iov_len);
			piece = v->iov_len;
		} else {
			piece = v->iov_len < s->ring.chunk ? v->iov_len :
							     s->ring.chunk;
			rc = ring_put(p, s, REC_BODY, v->iov_base, piece);
		}
		if (rc != 1)
			return rc;
		tx_advance(tx, piece);
	}
	return 1;
}

/* Non-zero when the receiver's end of the socket is gone; looked at
 * no more than every LIVENESS_NS (a coarse clock read otherwise), since
 * a receiver that died leaves its ring open and never full at first. */
static int receiver_gone(struct pvmi_pipe *p, struct shm_pipe *s)
{
	long now = shm_coarse_ns();
	char c;
	ssize_t n;

	if (now - s->checked < LIVENESS_NS)
		return 0;
	s->checked = now;
	n = recv(p->fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			  errno != EINTR);
}

static int shm_send(struct pvmi_pipe *p, struct pvmi_tx *tx)
{
	struct shm_pipe *s = state(p);
	int rc;

	if (!s)
		return -ENOMEM;
	if (s->mode == S_PROBE && !s->mid)
		pvmi_shm_greeting(p, s);
	if (s->mode == S_ANSWER && !s->mid)
		pvmi_shm_read_answer(p, s);
	if ((s->mode == S_OFFER || s->mode == S_SWITCH) && !s->mid) {
		rc = pvmi_shm_send_ring_frame(p, s);
		if (rc <= 0 && s->offer_sent)
			return rc;	/* finish the RING frame first */
		if (rc < 0)
			return rc;
	}
	if (s->mode == S_RING) {
		if (tx->next == 0 && receiver_gone(p, s))
			return -EPIPE;
		return ring_send(p, s, tx);
	}
	rc = pvmi_stream_send(p, tx);
	s->mid = rc == 0;
	return rc;
}

/* Small frames (send_whole) look whether the receiver is gone when the
 * ring's next record number is a multiple of this (a power of two). */
#define LIVENESS_RECS	16

/* The table's send_whole: a frame that fits one record goes as one
 * REC_WHOLE record, as ring_send() would send it, without its layers:
 * only on the ring, between frames, and when there is room now. */
static int shm_send_whole(struct pvmi_pipe *p, const unsigned char *hdr,
			  const void *body, size_t len)
{
	struct shm_pipe *s = p->priv;
	int rc;

	if (!s || s->mode != S_RING || s->copying ||
	    len > WHOLE_MAX - WHOLE_HDR_LEN ||
	    len > s->ring.chunk - WHOLE_HDR_LEN)
		return 0;
	/* the liveness look's clock read, at every 16th record only: a
	 * small frame costs less than the read */
	if (!(s->ring.seq & (LIVENESS_RECS - 1)) && receiver_gone(p, s))
		return -EPIPE;
	/* in the ring state the ring is our producing end, open, and the
	 * record fits a chunk: shm_ring_send2 without its checks */
	rc = shm_ring_put2(&s->ring, REC_WHOLE, hdr + WHOLE_SKIP,
			   WHOLE_HDR_LEN, body, (uint32_t)len);
	if (rc == -EAGAIN)
		return 0;
	return rc < 0 ? rc : 1;
}

static void shm_close(struct pvmi_pipe *p)
{
	struct shm_pipe *s = p->priv;

	if (p->fd >= 0)
		pvmi_shm_stash_drop(p->fd);
	if (s) {
		struct shm_pipe **r = &pvmi_shm_readers;

		while (*r && *r != s)
			r = &(*r)->next_reader;
		if (*r)
			*r = s->next_reader;
		if (s->have_ring)	/* before the ring goes */
			pvmi_shm_keeps_out(s, 1);
		/* a fork closing its parent's circuits leaves the rings be */
		if (s->have_ring && s->pid == getpid())
			shm_ring_close(&s->ring);
		else if (s->have_ring)
			shm_ring_forget(&s->ring);
		if (s->peer_wake >= 0)
			close(s->peer_wake);
		pvmi_loan_unmap(s->heap);
		pvmi_buf_free(s->body);
		free(s);
		p->priv = NULL;
	}
	pvmi_stream_close(p);
}


const struct pvmi_transport pvmi_transport_shm = {
	.name = "shm",
	.reach = PVMI_REACH_HOST,
	.xport = COSCHED_XPORT_SHM,
	.probe = pvmi_shm_probe,
	.wait_fd = pvmi_shm_wake_fd,
	.woken = pvmi_shm_woken,
	.release = pvmi_shm_release,
	.accepted = pvmi_shm_accepted,
	/* opened, listened and accepted with unix's calls (conn_unix.c) */
	.send = shm_send,
	.send_whole = shm_send_whole,
	.progress = shm_progress,
	.poll_ready = shm_poll_ready,
	.arm = shm_arm,
	.close = shm_close,
	.writev = pvmi_sock_writev,
	.read = pvmi_shm_sock_read,
};

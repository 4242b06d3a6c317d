/*
 * transport/stream.c - frames over a nonblocking byte stream: the send,
 * progress and close of every stream transport (unix.c, tcp.c), which
 * differ only in how they open circuits.
 *
 * Incoming bytes are staged in a buffer and parsed into frames; a body
 * larger than what is staged is read in place into its own buffer, which
 * grows as the bytes arrive past PVMI_BODY_EAGER (bufcache.h).  While
 * the pipe is gated (a handshake under way) the staged bytes go to the
 * sink's gate instead, and those after the handshake are framed.  A send
 * writes the header and the body's iovecs with writev, as far as the
 * socket takes them, and resumes where it stopped.  Progress reads until
 * the socket is empty, or until the sink says it is paused.
 *
 * One look takes at most the batch of shm.c's rings (PVMI_LOOK_MSGS
 * messages or PVMI_LOOK_BYTES of their bodies) once the receive under
 * way has its match (the sink's `sated'): 64 KiB staged hold up to about
 * 1,500 small frames, and a receiver that queued them all outgrew the
 * buffer pools.  The frames past the bound stay staged, where poll()
 * cannot see them: the pipe's poll_ready (pvmi_stream_ready) reports
 * them, and the next look parses them before it reads.  Before the
 * match, and when no receive is under way, a look takes everything.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bufcache.h"
#include "transport/stream.h"

/* What one look has handed on so far, against its bound. */
struct look {
	int bounded;		/* stop at the bound once the sink is sated */
	unsigned msgs;
	size_t bytes;
};

/* Hands a complete frame to the sink, which takes `body', and counts it
 * in look `lk'.  0, or -EPROTO when the sink refused the frame. */
static int deliver(struct pvmi_pipe *p, unsigned char *body, struct look *lk)
{
	lk->msgs++;
	lk->bytes += p->f.len;
	return p->sink->frame(p->arg, &p->f, body) < 0 ? -EPROTO : 0;
}

/* Whether look `lk' has reached its bound: the batch taken, and the
 * owner holding what its receive under way waits for (transport.h). */
static int look_done(const struct pvmi_pipe *p, const struct look *lk)
{
	return lk->bounded &&
	       (lk->msgs >= PVMI_LOOK_MSGS || lk->bytes >= PVMI_LOOK_BYTES) &&
	       p->sink->sated && p->sink->sated(p->arg);
}

/* Moves the staged bytes not yet parsed to the front of the buffer, so
 * that the next read has its whole free end. */
static void compact(struct pvmi_pipe *p)
{
	if (p->rxhead == p->rxtail) {
		p->rxhead = p->rxtail = 0;
	} else if (p->rxhead > 0) {
		memmove(p->rx, p->rx + p->rxhead, p->rxtail - p->rxhead);
		p->rxtail -= p->rxhead;
		p->rxhead = 0;
	}
}

/* Parses the complete frames in the staging buffer, up to the bound of
 * look `lk'.  A partial large body moves to p->body to be read in place.
 * 0 when none is left, 1 when frames stay staged (the bound), or a
 * negative errno. */
static int parse_staged(struct pvmi_pipe *p, struct look *lk)
{
	for (;;) {
		size_t avail = p->rxtail - p->rxhead;
		unsigned char *body;

		if (avail < PVMI_FRAME_HDR_LEN)
			break;
		if (look_done(p, lk))
			return 1;	/* the rest: pvmi_stream_ready() */
		if (pvmi_frame_decode(p->rx + p->rxhead, &p->f))
			return -EPROTO;
		avail -= PVMI_FRAME_HDR_LEN;
		body = pvmi_buf_body_start(p->f.len, avail);
		if (!body)
			return -ENOMEM;
		p->rxhead += PVMI_FRAME_HDR_LEN;
		if (avail >= p->f.len) {
			memcpy(body, p->rx + p->rxhead, p->f.len);
			p->rxhead += p->f.len;
			if (deliver(p, body, lk))
				return -EPROTO;
			continue;
		}
		memcpy(body, p->rx + p->rxhead, avail);
		p->body = body;
		p->got = avail;
		p->rxhead = p->rxtail = 0;
		return 0;
	}
	compact(p);
	return 0;
}

/* Handles newly staged bytes: the gate's first, then frames, within
 * look `lk'.  What parse_staged() returns. */
static int staged(struct pvmi_pipe *p, struct look *lk)
{
	long used;

	if (p->gated) {
		used = p->sink->gate(p->arg, p->rx + p->rxhead,
				     p->rxtail - p->rxhead);
		if (used < 0)
			return -EPROTO;
		p->rxhead += used;
	}
	return p->gated ? 0 : parse_staged(p, lk);
}

/* Whether a complete frame waits in the staging buffer of `p' (a look
 * stopped at its bound before it): progress() would hand it on without
 * a read.  No system call (stream.h). */
int pvmi_stream_ready(struct pvmi_pipe *p)
{
	size_t avail = p->rxtail - p->rxhead;
	struct pvmi_frame f;

	if (p->gated || p->body || avail < PVMI_FRAME_HDR_LEN)
		return 0;
	if (pvmi_frame_decode(p->rx + p->rxhead, &f))
		return 1;	/* progress() reports it */
	return avail - PVMI_FRAME_HDR_LEN >= f.len;
}

/* Where the next bytes of pipe `p' go: the body being read in place, or
 * the free end of the staging buffer (stream.h).  0, or -ENOMEM. */
int pvmi_stream_target(struct pvmi_pipe *p, unsigned char **buf, size_t *len)
{
	if (!p->rx && !(p->rx = malloc(PVMI_STREAM_RX)))
		return -ENOMEM;
	if (p->body) {
		/* the body grows as it arrives (bufcache.h) */
		unsigned char *b = pvmi_buf_body_room(p->body, p->got,
						      PVMI_STREAM_RX, p->f.len);

		if (!b)
			return -ENOMEM;
		p->body = b;
		*buf = p->body + p->got;
		*len = p->f.len - p->got;
		if (*len > pvmi_buf_cap(b) - p->got)
			*len = pvmi_buf_cap(b) - p->got;
	} else {
		*buf = p->rx + p->rxtail;
		*len = PVMI_STREAM_RX - p->rxtail;
	}
	return 0;
}

/* `n' bytes were placed where pvmi_stream_target() said, within look
 * `lk': 0, 1 when frames stay staged at its bound, or a negative errno. */
static int took(struct pvmi_pipe *p, size_t n, struct look *lk)
{
	if (p->body) {
		p->got += n;
		if (p->got == p->f.len) {
			unsigned char *b = p->body;

			p->body = NULL;
			if (deliver(p, b, lk))
				return -EPROTO;
			return look_done(p, lk);
		}
		return 0;
	}
	p->rxtail += n;
	return staged(p, lk);
}

/* `n' bytes were placed where pvmi_stream_target() said: hands on every
 * frame they complete, with no bound (stream.h).  0 or a negative
 * errno. */
int pvmi_stream_took(struct pvmi_pipe *p, size_t n)
{
	struct look lk = { 0 };

	return took(p, n, &lk);
}

/* Reads what is waiting and hands on complete frames, up to one look's
 * bound; frames an earlier look left staged go first (stream.h). */
int pvmi_stream_progress(struct pvmi_pipe *p)
{
	struct look lk = { .bounded = 1 };
	int any = 0, rc;
	ssize_t n;

	if (p->rxtail > p->rxhead && !p->gated) {
		/* what a look stopped at its bound left staged goes first */
		rc = parse_staged(p, &lk);
		if (rc != 0)
			return rc < 0 ? rc : 1;
		any = lk.msgs > 0;
		if (any && p->sink->paused && p->sink->paused(p->arg))
			return any;
	}
	for (;;) {
		unsigned char *buf;
		size_t want;

		rc = pvmi_stream_target(p, &buf, &want);
		if (rc < 0)
			return rc;
		n = p->tp->read(p->fd, buf, want);
		if (n > 0) {
			any = 1;
			rc = took(p, n, &lk);
			if (rc != 0)
				return rc < 0 ? rc : 1;
			if (p->sink->paused && p->sink->paused(p->arg))
				return any;
		}
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return any;
			return -errno;
		}
		if ((size_t)n < want)
			return any;
	}
}

/* Counts `n' more bytes of `tx' as written (stream.h). */
void pvmi_tx_advance(struct pvmi_tx *tx, size_t n)
{
	struct iovec *iov = tx->iov;

	while (n > 0 && tx->next < tx->count) {
		struct iovec *v = iov + tx->next;

		if (n >= v->iov_len) {
			n -= v->iov_len;
			tx->next++;
		} else {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= n;
			n = 0;
		}
	}
	while (tx->next < tx->count && iov[tx->next].iov_len == 0)
		tx->next++;
}

/* Writes as much of `tx' as the stream takes now (stream.h). */
int pvmi_stream_send(struct pvmi_pipe *p, struct pvmi_tx *tx)
{
	struct iovec *iov = tx->iov;

	while (tx->next < tx->count) {
		int left = tx->count - tx->next;
		ssize_t n = p->tp->writev(p->fd, iov + tx->next,
					  left > 1024 ? 1024 : left);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		pvmi_tx_advance(tx, n);
	}
	return 1;
}

/* Frees the pipe's buffers and closes its fd (stream.h). */
void pvmi_stream_close(struct pvmi_pipe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->rx);
	pvmi_buf_free(p->body);
	p->rx = NULL;
	p->body = NULL;
}

/*
 * transport/shm.c - same-host circuits whose frames go through a
 * shared-memory ring (shm_ring.h), with the unix socket kept as the
 * control and liveness channel and as the fallback.
 *
 * A circuit opens, is accepted and starts exactly as a unix one.  Then:
 *   1. The receiver (accepting side) writes its greeting on the socket:
 *      an invitation carrying its wake eventfd (SCM_RIGHTS) when rings
 *      are on here, else a refusal.  A sender that does not use rings
 *      never reads it (the bytes stay unread in its socket buffer).
 *   2. The sender, at a frame boundary, looks for the greeting without
 *      blocking.  On an invitation it creates its ring (it is the ring's
 *      producer), and sends a PVMI_KIND_RING frame with the segment's
 *      memfd and its own wake eventfd attached (the offer).  Frames
 *      still go on the socket.  A refusal, no greeting after PROBE_SENDS
 *      sends (an old peer), or any setup failure (memfd, seals,
 *      eventfd) leaves the circuit on the socket, silently.
 *   3. The receiver, reading socket frames as stream.c does, maps the
 *      offered ring and answers yes on the socket, or no when it cannot
 *      (mmap, fd or size limits; the circuit then stays on the socket).
 *   4. The sender reads the answer at a frame boundary.  On yes it sends
 *      a second RING frame (the switch), and every frame after that one
 *      goes through the ring; on no it lets its ring go.  The receiver
 *      reads the socket until the switch and from then on only the
 *      ring, so order is kept; the socket's end (EOF) then only tells
 *      that the sender is gone.
 *
 * Frames in the ring: a frame that fits one record goes whole (header
 * and body, one record: REC_WHOLE); a larger one goes as its header
 * (REC_HEAD) then pieces of its body (REC_BODY) of at most one record
 * each, received straight into the body buffer (pvmi_buf_alloc).  Each
 * record is complete or invisible (the ring publishes its header last),
 * so no call here ever waits for the rest of a message, and a sender
 * that dies part way leaves a body that is freed, never handed on.
 *
 * A sender learns that its receiver closed from the ring (-EPIPE), and
 * that it died from the socket's end, which it looks at every 10 ms of
 * sending at most (between those looks a few frames may go into the dead
 * ring, as they would go into a dead socket's buffer).
 *
 * Waiting: the pipe's wait fd (p->fd) stays the socket.  The task has
 * one wake eventfd (pvmi_shm_wake_fd) for all its rings; conn_unix.c
 * polls it.  Before the pump blocks it arms every ring it reads (arm());
 * a sender writes the eventfd only when the ring is armed, so a spinning
 * receiver costs it no system call.  A sender whose ring is full waits
 * up to ROOM_WAIT_NS for room (spinning for the coscheduling model's
 * bound, then sleeping on the eventfd and the reader's pidfd) and then
 * returns 0, so conn.c reads its own input in between: two tasks sending
 * large messages to each other cannot deadlock.  While it waits, its own
 * receiving rings are armed too, and input for it ends the wait at once:
 * the peer may be waiting for that input to be read before it reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bufcache.h"
#include "cosched/cosched.h"
#include "transport/shm_ring.h"
#include "transport/transport.h"

/* The receiver's greeting: 8 bytes, the invitation with one fd. */
#define GREET_LEN	8
static const char greet_yes[GREET_LEN] = "copvmR+1";
static const char greet_no[GREET_LEN] = "copvmR-1";
/* The receiver's answer to the RING frame: mapped, or could not map. */
static const char answer_yes[GREET_LEN] = "copvmA+1";
static const char answer_no[GREET_LEN] = "copvmA-1";
/* The RING frame's tag: SHM_RING_VERSION offers the ring, SWITCH_TAG
 * (after a yes) says that the frames after it are in the ring. */
#define SWITCH_TAG	0

/* Sends without a greeting before a sender stops looking (old peer). */
#define PROBE_SENDS	256
/* Ring bytes of one circuit (one direction). */
#define RING_BYTES	(1U << 20)
/* Largest frame sent as one record (header and body together). */
#define WHOLE_MAX	(16U << 10)
/* How long one send() waits for room before it lets conn.c pump. */
#define ROOM_WAIT_NS	1000000L
/* How often a sender looks whether its receiver's socket ended. */
#define LIVENESS_NS	10000000L

/* Smallest body sent single-copy when COPVM_SHM_SINGLECOPY is on. */
#define COPY_MIN	(64U << 10)

/* Record tags: what a record of the ring holds.  REC_COPY names the
 * sender's body buffer, which the receiver reads with process_vm_readv
 * (single copy); refused, the body follows as REC_BODY pieces. */
enum { REC_WHOLE = 1, REC_HEAD = 2, REC_BODY = 3, REC_COPY = 4 };

enum sender_mode {
	S_PROBE,	/* no greeting read yet: frames on the socket */
	S_SOCKET,	/* refused or failed: the socket for good */
	S_OFFER,	/* ring made, the RING frame not (all) sent yet */
	S_ANSWER,	/* offer sent, no answer read yet: the socket */
	S_SWITCH,	/* mapped: the switch frame not (all) sent yet */
	S_RING,		/* frames through the ring */
};

/* A pipe's own state (p->priv). */
struct shm_pipe {
	struct shm_ring ring;
	int have_ring;
	pid_t pid;			/* the process that set the ring up */
	int peer_wake;			/* the peer's eventfd, or -1 */
	/* sender */
	int mode;			/* enum sender_mode */
	int probes;
	int mid;			/* a socket frame partly written */
	long checked;			/* when receiver_gone() last looked */
	size_t copy_min;		/* bodies from this go single-copy,
					 * 0: never */
	int copying;			/* a REC_COPY waits for its answer */
	unsigned char offer[PVMI_FRAME_HDR_LEN];
	size_t offer_sent;
	/* receiver */
	const struct pvmi_pipe_sink *up;	/* the owner's sink */
	void *up_arg;
	int armed;
	int draining;			/* mapped; socket frames until the
					 * switch frame */
	struct pvmi_frame f;		/* frame being put together */
	unsigned char *body;
	size_t got;
	unsigned char *stage;		/* one REC_WHOLE record */
	struct pvmi_pipe *pipe;		/* ours, while on the readers list */
	int room_armed;			/* armed by arm_readers() */
	struct shm_pipe *next_reader;
};

/* Receiving pipes with a ring.  A sender waiting for room arms them, so
 * that input for this task ends the wait too: the peer it waits for may
 * be waiting for us to read (two tasks exchanging large messages). */
static struct shm_pipe *readers;

/* fds that came with socket bytes, kept until the RING frame is read. */
#define STASH_MAX	32
static struct {
	int sock, fds[2], n;
} stash[STASH_MAX];

static int wake_fd = -1;
static pid_t wake_pid;		/* the process wake_fd belongs to */

/* Non-zero unless COPVM_SHM=0 (transport.h); read once per process. */
int pvmi_shm_enabled(void)
{
	static int on = -1;
	static pid_t on_pid;
	const char *e;

	if (on < 0 || on_pid != getpid()) {
		/* read again in a fork, which may have set its own */
		e = getenv("COPVM_SHM");
		on = !(e && e[0] == '0' && e[1] == '\0');
		on_pid = getpid();
	}
	return on;
}

/* The test hook COPVM_SHM_FAULT (docs/shm.md): "map" makes this task
 * fail to map every ring offered to it, "create" to make its own, as
 * when mmap, memfd_create or a size limit refuses.  Read per process. */
static int shm_fault(const char *what)
{
	const char *e = getenv("COPVM_SHM_FAULT");

	return e && !strcmp(e, what);
}

/* Smallest body to send single-copy, 0 for never: COPVM_SHM_SINGLECOPY
 * "1" on, "0" off, unset the default (docs/shm.md). */
static size_t copy_min(void)
{
	const char *e = getenv("COPVM_SHM_SINGLECOPY");

	if (e && !strcmp(e, "1"))
		return COPY_MIN;
	return 0;
}

/* This task's wake eventfd, made on first use (transport.h). */
int pvmi_shm_wake_fd(void)
{
	pid_t me = getpid();

	if (wake_fd >= 0 && wake_pid != me) {
		/* a fork of a task: the parent's doorbell is not ours */
		close(wake_fd);
		wake_fd = -1;
	}
	if (wake_fd < 0) {
		wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		wake_pid = me;
	}
	return wake_fd;
}

/* Closes the wake eventfd when the task leaves (transport.h). */
void pvmi_shm_wake_release(void)
{
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
}

/* Empties the wake eventfd once poll() found it readable (transport.h). */
void pvmi_shm_wake_clear(void)
{
	uint64_t n;

	if (wake_fd >= 0 && read(wake_fd, &n, sizeof(n)) < 0)
		(void)n;
}

/* Writes `len' bytes and, when `fd' >= 0, that fd with them. */
static ssize_t send_with_fds(int sock, const void *buf, size_t len,
			     const int *fds, int nfd)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	if (nfd > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Reads up to `len' bytes; fds that come along go to fds[] (up to 2,
 * the rest closed) and their count to *nfd. */
static ssize_t recv_with_fds(int sock, void *buf, size_t len, int *fds,
			     int *nfd)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	ssize_t n;
	int i, k, *in;

	*nfd = 0;
	do
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		in = (int *)CMSG_DATA(c);
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			if (*nfd < 2)
				fds[(*nfd)++] = in[i];
			else
				close(in[i]);
		}
	}
	return n;
}

/* Says ring or no ring to a newly accepted circuit (transport.h). */
void pvmi_shm_greet(int fd, int offer)
{
	int w = offer ? pvmi_shm_wake_fd() : -1;

	if (w >= 0)
		send_with_fds(fd, greet_yes, GREET_LEN, &w, 1);
	else
		send_with_fds(fd, greet_no, GREET_LEN, NULL, 0);
}

static void stash_drop(int sock)
{
	int i, j;

	for (i = 0; i < STASH_MAX; i++) {
		if (stash[i].n && stash[i].sock == sock) {
			for (j = 0; j < stash[i].n; j++)
				close(stash[i].fds[j]);
			stash[i].n = 0;
		}
	}
}

/* Keeps the fds that came with socket `fd''s bytes for its RING frame
 * (closes them when the stash is full). */
static void stash_keep(int fd, const int *fds, int nfd)
{
	int i;

	stash_drop(fd);
	for (i = 0; i < STASH_MAX && stash[i].n; i++)
		;
	if (i == STASH_MAX) {
		while (nfd)
			close(fds[--nfd]);
		return;
	}
	stash[i].sock = fd;
	stash[i].n = nfd;
	memcpy(stash[i].fds, fds, nfd * sizeof(*fds));
}

/* The socket read of a receiving pipe: keeps the fds of a RING frame.
 * The kernel ends a read at the bytes that carried fds; it reads on
 * then, so that a short read still means the socket is empty, as
 * stream.c takes it: else the frames behind the RING frame would wait
 * for the next poll, behind a notify the daemon sent after them. */
static ssize_t shm_sock_read(int fd, void *buf, size_t len)
{
	int fds[2], nfd;
	ssize_t n = recv_with_fds(fd, buf, len, fds, &nfd), more;

	if (nfd == 0)
		return n;
	stash_keep(fd, fds, nfd);
	if (n > 0 && (size_t)n < len) {
		more = shm_sock_read(fd, (char *)buf + n, len - n);
		if (more > 0)
			n += more;
	}
	return n;
}

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

/* Maps the ring a RING frame brought and answers the sender: yes (it
 * then sends the switch frame), or no when the ring cannot be mapped or
 * its fds did not come (the circuit stays on the socket).  0, or -1
 * when the offer breaks the protocol (the pipe ends). */
static int take_ring(struct pvmi_pipe *p, struct shm_pipe *s)
{
	int i, rc;

	if (s->have_ring)
		return -1;
	for (i = 0; i < STASH_MAX; i++)
		if (stash[i].n == 2 && stash[i].sock == p->fd)
			break;
	if (i == STASH_MAX) {
		/* the fds were lost (no room in the stash, fd limit) */
		send_with_fds(p->fd, answer_no, GREET_LEN, NULL, 0);
		return 0;
	}
	if (!s->stage)
		s->stage = malloc(WHOLE_MAX);
	if (!s->stage)
		rc = -ENOMEM;
	else if (shm_fault("map"))
		rc = -ENOMEM;
	else
		rc = shm_ring_attach(&s->ring, stash[i].fds[0]);
	close(stash[i].fds[0]);
	stash[i].n = 0;
	if (rc < 0) {
		close(stash[i].fds[1]);
		send_with_fds(p->fd, answer_no, GREET_LEN, NULL, 0);
		return 0;
	}
	s->peer_wake = stash[i].fds[1];
	s->have_ring = 1;
	s->draining = 1;
	s->pipe = p;
	s->next_reader = readers;
	readers = s;
	s->pid = getpid();
	shm_ring_connect(&s->ring, pvmi_shm_wake_fd(), s->peer_wake);
	shm_ring_set_spin(&s->ring, 0);
	/* read single-copy offers unless the test hook says refuse */
	shm_ring_set_single_copy(&s->ring, shm_fault("copy") ? 0 : 1);
	/* The 8 bytes always fit (nothing else goes this way).  A failure
	 * means the sender is gone: it never switches, and what it sent is
	 * still to be read from the socket. */
	send_with_fds(p->fd, answer_yes, GREET_LEN, NULL, 0);
	return 0;
}

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
		return take_ring(p, s);
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
	return s->up->frame(s->up_arg, &s->f, body) < 0 ? -EPROTO : 0;
}

/* Takes one record of the ring; 1 when one was taken, 0 when none is
 * waiting, or a negative errno. */
static int ring_take(struct shm_pipe *s)
{
	struct shm_msg_info info;
	unsigned char hdr[PVMI_FRAME_HDR_LEN], *body;
	uint32_t tag;
	ssize_t n;
	int rc;

	rc = shm_ring_peek(&s->ring, &info, SHM_NO_WAIT);
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
		if (s->body || info.len < PVMI_FRAME_HDR_LEN ||
		    info.len > WHOLE_MAX)
			return -EPROTO;
		n = shm_ring_recv(&s->ring, &tag, s->stage, WHOLE_MAX, 0);
		if (n != (ssize_t)info.len ||
		    pvmi_frame_decode(s->stage, &s->f) ||
		    s->f.len != n - PVMI_FRAME_HDR_LEN)
			return n < 0 ? (int)n : -EPROTO;
		body = pvmi_buf_alloc(s->f.len);
		if (!body)
			return -ENOMEM;
		memcpy(body, s->stage + PVMI_FRAME_HDR_LEN, s->f.len);
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

/* Whether the owner of pipe `arg' takes no more frames for now. */
static int paused_sink(void *arg)
{
	struct shm_pipe *s = state(arg);

	return s && s->up && s->up->paused && s->up->paused(s->up_arg);
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
	while ((rc = ring_take(s)) > 0) {
		any = 1;
		if (paused_sink(p))
			break;	/* the rest waits in the ring */
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

/* Makes the ring after an invitation that brought the peer's eventfd;
 * 0, or -1 (the circuit stays on the socket). */
static int make_ring(struct shm_pipe *s, int peer_wake)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC,
				.kind = PVMI_KIND_RING,
				.tag = SHM_RING_VERSION };

	if (pvmi_shm_wake_fd() < 0 || shm_fault("create") ||
	    shm_ring_create(&s->ring, RING_BYTES))
		return -1;
	s->have_ring = 1;
	s->pid = getpid();
	s->peer_wake = peer_wake;
	s->copy_min = copy_min();
	shm_ring_connect(&s->ring, pvmi_shm_wake_fd(), peer_wake);
	shm_ring_set_doorbell_ends_wait(&s->ring, 1);
	pvmi_frame_encode(&f, s->offer);
	s->offer_sent = 0;
	return 0;
}

/* Looks for the receiver's greeting (sender, at a frame boundary). */
static void probe(struct pvmi_pipe *p, struct shm_pipe *s)
{
	char g[GREET_LEN];
	int fds[2], nfd;
	ssize_t n = recv_with_fds(p->fd, g, GREET_LEN, fds, &nfd);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		if (++s->probes >= PROBE_SENDS)
			s->mode = S_SOCKET;
		return;
	}
	s->mode = S_SOCKET;
	if (n == GREET_LEN && !memcmp(g, greet_yes, GREET_LEN) &&
	    nfd == 1 && !make_ring(s, fds[0])) {
		s->mode = S_OFFER;
		return;
	}
	while (nfd)
		close(fds[--nfd]);
}

/* Sends (the rest of) a RING frame, the offer with the ring's fds or
 * the switch; 1 once it is all sent, 0 when the socket is full, or a
 * negative errno. */
static int send_ring_frame(struct pvmi_pipe *p, struct shm_pipe *s)
{
	int fds[2] = { shm_ring_fd(&s->ring), pvmi_shm_wake_fd() };
	int nfd = s->mode == S_OFFER && !s->offer_sent ? 2 : 0;
	ssize_t n;

	while (s->offer_sent < PVMI_FRAME_HDR_LEN) {
		n = send_with_fds(p->fd, s->offer + s->offer_sent,
				  PVMI_FRAME_HDR_LEN - s->offer_sent, fds, nfd);
		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 :
									-errno;
		s->offer_sent += n;
		nfd = 0;
	}
	if (s->mode == S_OFFER) {
		s->mode = S_ANSWER;
	} else {
		/* the receiver holds the segment now: the memory goes with
		 * the last mapping */
		shm_ring_drop_fd(&s->ring);
		s->mode = S_RING;
	}
	return 1;
}

/* Looks for the receiver's answer to the offer (at a frame boundary):
 * yes starts the switch, no lets the ring go and keeps the socket. */
static void read_answer(struct pvmi_pipe *p, struct shm_pipe *s)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC,
				.kind = PVMI_KIND_RING, .tag = SWITCH_TAG };
	char a[GREET_LEN];
	int fds[2], nfd;
	ssize_t n = recv_with_fds(p->fd, a, GREET_LEN, fds, &nfd);

	while (nfd)
		close(fds[--nfd]);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n == GREET_LEN && !memcmp(a, answer_yes, GREET_LEN)) {
		pvmi_frame_encode(&f, s->offer);
		s->offer_sent = 0;
		s->mode = S_SWITCH;
		return;
	}
	/* no, or the socket ended: the ring is not used */
	shm_ring_close(&s->ring);
	s->have_ring = 0;
	s->mode = S_SOCKET;
}

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

	for (r = readers; r; r = r->next_reader) {
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

/* One record into the ring, waiting a little for room: 1 sent, 0 no
 * room yet (or input to read first), or a negative errno. */
static int ring_put(struct shm_pipe *s, uint32_t tag, const void *buf,
		    size_t len)
{
	int rc = shm_ring_send(&s->ring, tag, buf, len, SHM_NO_WAIT);

	if (rc == -EAGAIN) {
		long spin = pvmi_cosched_spin_ns(SHM_RING_DEFAULT_SPIN_NS);

		shm_ring_set_spin(&s->ring, spin);
		if (!arm_readers(1))
			rc = shm_ring_send(&s->ring, tag, buf, len,
					   ROOM_WAIT_NS);
		arm_readers(0);
	}
	if (rc == -ETIMEDOUT || rc == -EAGAIN)
		return 0;
	if (rc == -ECONNRESET)
		return -EPIPE;
	return rc < 0 ? rc : 1;
}

/* Moves frame `tx' into the ring as far as there is room. */
static int ring_send(struct shm_pipe *s, struct pvmi_tx *tx)
{
	size_t left = tx_left(tx), piece, off;
	struct iovec *v;
	int rc, i;

	if (tx->next == 0 && tx->iov[0].iov_len == PVMI_FRAME_HDR_LEN &&
	    left <= WHOLE_MAX && left <= s->ring.chunk) {
		/* a whole frame in one record */
		unsigned char stage[WHOLE_MAX];

		for (i = 0, off = 0; i < tx->count; i++) {
			memcpy(stage + off, tx->iov[i].iov_base,
			       tx->iov[i].iov_len);
			off += tx->iov[i].iov_len;
		}
		rc = ring_put(s, REC_WHOLE, stage, left);
		if (rc == 1)
			tx->next = tx->count;
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
				return ring_send(s, tx);
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
			rc = ring_put(s, REC_HEAD, v->iov_base, v->iov_len);
			piece = v->iov_len;
		} else {
			piece = v->iov_len < s->ring.chunk ? v->iov_len :
							     s->ring.chunk;
			rc = ring_put(s, REC_BODY, v->iov_base, piece);
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
	struct timespec ts;
	long now;
	char c;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = ts.tv_sec * 1000000000L + ts.tv_nsec;
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
		probe(p, s);
	if (s->mode == S_ANSWER && !s->mid)
		read_answer(p, s);
	if ((s->mode == S_OFFER || s->mode == S_SWITCH) && !s->mid) {
		rc = send_ring_frame(p, s);
		if (rc <= 0 && s->offer_sent)
			return rc;	/* finish the RING frame first */
		if (rc < 0)
			return rc;
	}
	if (s->mode == S_RING) {
		if (tx->next == 0 && receiver_gone(p, s))
			return -EPIPE;
		return ring_send(s, tx);
	}
	rc = pvmi_stream_send(p, tx);
	s->mid = rc == 0;
	return rc;
}

static void shm_close(struct pvmi_pipe *p)
{
	struct shm_pipe *s = p->priv;

	if (p->fd >= 0)
		stash_drop(p->fd);
	if (s) {
		struct shm_pipe **r = &readers;

		while (*r && *r != s)
			r = &(*r)->next_reader;
		if (*r)
			*r = s->next_reader;
		/* a fork closing its parent's circuits leaves the rings be */
		if (s->have_ring && s->pid == getpid())
			shm_ring_close(&s->ring);
		else if (s->have_ring)
			shm_ring_forget(&s->ring);
		if (s->peer_wake >= 0)
			close(s->peer_wake);
		pvmi_buf_free(s->body);
		free(s->stage);
		free(s);
		p->priv = NULL;
	}
	pvmi_stream_close(p);
}

const struct pvmi_transport pvmi_transport_shm = {
	.name = "shm",
	/* opened, listened and accepted with unix's calls (conn_unix.c) */
	.send = shm_send,
	.progress = shm_progress,
	.poll_ready = shm_poll_ready,
	.arm = shm_arm,
	.close = shm_close,
	.writev = pvmi_sock_writev,
	.read = shm_sock_read,
};

/*
 * transport/shm_setup.c - how a same-host circuit of the shm transport
 * moves onto a shared-memory ring (the data path is shm.c's): the
 * process's switches and wake eventfd, the fds that travel over the
 * socket, and the handshake.
 *
 * A circuit opens, is accepted and starts exactly as a unix one.  Then:
 *   1. The receiver (accepting side) writes its greeting on the socket:
 *      an invitation carrying its wake eventfd (SCM_RIGHTS) when rings
 *      are on here, else a refusal.  A sender that does not use rings
 *      never reads it (the bytes stay unread in its socket buffer).
 *   2. The sender, at a frame boundary, looks for the greeting without
 *      blocking.  On an invitation it creates its ring (it is the ring's
 *      producer), and sends a PVMI_KIND_RING frame with the segment's
 *      memfd, its own wake eventfd and, unless lending is off, its
 *      export heap's memfd (bufheap.h) attached (the offer).  Frames
 *      still go on the socket.  Without a greeting yet, the sender looks
 *      again before each of its first PROBE_SENDS frames, then at most
 *      every PROBE_EVERY_NS (a receiver that starts late, an old peer
 *      that never greets).  A refusal or any setup failure (memfd,
 *      seals, eventfd) leaves the circuit on the socket, silently.
 *   3. The receiver, reading socket frames as stream.c does, maps the
 *      offered ring and answers yes on the socket, or no when it cannot
 *      (mmap, fd or size limits; the circuit then stays on the socket).
 *      Its yes says whether it mapped the heap too: only then does the
 *      sender lend it bodies (REC_LEND).
 *   4. The sender reads the answer at a frame boundary.  On yes it sends
 *      a second RING frame (the switch), and every frame after that one
 *      goes through the ring; on no it lets its ring go.  The receiver
 *      reads the socket until the switch and from then on only the
 *      ring, so order is kept; the socket's end (EOF) then only tells
 *      that the sender is gone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bufheap.h"
#include "transport/shm_pipe.h"
#include "transport/stream.h"

/* The receiver's greeting: 8 bytes, the invitation with one fd. */
#define GREET_LEN	8
static const char greet_yes[GREET_LEN] = "copvmR+1";
static const char greet_no[GREET_LEN] = "copvmR-1";
/* The receiver's answer to the RING frame: mapped (with the sender's
 * heap, or without), or could not map. */
static const char answer_yes[GREET_LEN] = "copvmA+1";
static const char answer_lend[GREET_LEN] = "copvmA+2";
static const char answer_no[GREET_LEN] = "copvmA-1";
/* fds that came with socket bytes, kept until the RING frame is read. */
#define STASH_MAX	32
#define OFFER_FDS	3	/* the ring, the wake eventfd, the heap */
static struct {
	int sock, fds[OFFER_FDS], n;
} stash[STASH_MAX];

static int wake_fd = -1;
static pid_t wake_pid;		/* the process wake_fd belongs to */

/* Non-zero unless COPVM_SHM=0; read once per process (and again in a
 * fork). */
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

/* This task's wake eventfd (every ring it reads or writes rings it when
 * the task armed itself), made on first use; -1 when it cannot be made.
 * It is the transport's wait_fd (transport.h). */
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

/* Closes the wake eventfd once no ring uses it (the task left): the
 * transport's release (transport.h). */
void pvmi_shm_release(void)
{
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	pvmi_heap_release();
}

/* Empties the wake eventfd once poll() found it readable: the
 * transport's woken (transport.h). */
void pvmi_shm_woken(void)
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
		char buf[CMSG_SPACE(OFFER_FDS * sizeof(int))];
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

/* Reads up to `len' bytes; fds that come along go to fds[] (up to
 * OFFER_FDS, the rest closed) and their count to *nfd. */
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
			if (*nfd < OFFER_FDS)
				fds[(*nfd)++] = in[i];
			else
				close(in[i]);
		}
	}
	return n;
}

/* The receiver's first word on accepted same-host circuit `fd': an
 * invitation to use a ring (with this task's wake fd) when shm carries
 * it and the ring can work here, else a refusal (transport.h,
 * accepted).  Never blocks. */
void pvmi_shm_accepted(int fd, const struct pvmi_transport *carrier)
{
	int w = carrier == &pvmi_transport_shm ? pvmi_shm_wake_fd() : -1;

	if (w >= 0)
		send_with_fds(fd, greet_yes, GREET_LEN, &w, 1);
	else
		send_with_fds(fd, greet_no, GREET_LEN, NULL, 0);
}

void pvmi_shm_stash_drop(int sock)
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

	pvmi_shm_stash_drop(fd);
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
ssize_t pvmi_shm_sock_read(int fd, void *buf, size_t len)
{
	int fds[OFFER_FDS], nfd;
	ssize_t n = recv_with_fds(fd, buf, len, fds, &nfd), more;

	if (nfd == 0)
		return n;
	stash_keep(fd, fds, nfd);
	if (n > 0 && (size_t)n < len) {
		more = pvmi_shm_sock_read(fd, (char *)buf + n, len - n);
		if (more > 0)
			n += more;
	}
	return n;
}

/* Maps the ring a RING frame brought and answers the sender: yes (it
 * then sends the switch frame), or no when the ring cannot be mapped or
 * its fds did not come (the circuit stays on the socket).  0, or -1
 * when the offer breaks the protocol (the pipe ends). */
int pvmi_shm_take_ring(struct pvmi_pipe *p, struct shm_pipe *s)
{
	int i, rc;

	if (s->have_ring)
		return -1;
	for (i = 0; i < STASH_MAX; i++)
		if (stash[i].n >= 2 && stash[i].sock == p->fd)
			break;
	if (i == STASH_MAX) {
		/* the fds were lost (no room in the stash, fd limit) */
		send_with_fds(p->fd, answer_no, GREET_LEN, NULL, 0);
		return 0;
	}
	if (shm_fault("map"))
		rc = -ENOMEM;
	else
		rc = shm_ring_attach(&s->ring, stash[i].fds[0]);
	close(stash[i].fds[0]);
	if (rc == 0 && stash[i].n == 3 && !shm_fault("heap"))
		s->heap = pvmi_loan_map(stash[i].fds[2]);
	if (stash[i].n == 3)
		close(stash[i].fds[2]);
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
	s->next_reader = pvmi_shm_readers;
	pvmi_shm_readers = s;
	s->pid = getpid();
	shm_ring_connect(&s->ring, pvmi_shm_wake_fd(), s->peer_wake);
	shm_ring_set_spin(&s->ring, 0);
	/* read single-copy offers unless the test hook says refuse */
	shm_ring_set_single_copy(&s->ring, shm_fault("copy") ? 0 : 1);
	/* The 8 bytes always fit (nothing else goes this way).  A failure
	 * means the sender is gone: it never switches, and what it sent is
	 * still to be read from the socket. */
	send_with_fds(p->fd, s->heap ? answer_lend : answer_yes, GREET_LEN,
		      NULL, 0);
	return 0;
}

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
void pvmi_shm_greeting(struct pvmi_pipe *p, struct shm_pipe *s)
{
	char g[GREET_LEN];
	int fds[OFFER_FDS], nfd;
	ssize_t n;
	long now = 0;

	if (s->probes >= PROBE_SENDS) {
		now = shm_coarse_ns();
		if (now - s->probed < PROBE_EVERY_NS)
			return;
	}
	n = recv_with_fds(p->fd, g, GREET_LEN, fds, &nfd);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		s->probes++;
		s->probed = now;
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
int pvmi_shm_send_ring_frame(struct pvmi_pipe *p, struct shm_pipe *s)
{
	int fds[OFFER_FDS] = { shm_ring_fd(&s->ring), pvmi_shm_wake_fd(),
			       pvmi_heap_fd() };
	int nfd = s->mode == S_OFFER && !s->offer_sent ?
			  (fds[2] >= 0 ? 3 : 2) : 0;
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
void pvmi_shm_read_answer(struct pvmi_pipe *p, struct shm_pipe *s)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC,
				.kind = PVMI_KIND_RING, .tag = SWITCH_TAG };
	char a[GREET_LEN];
	int fds[OFFER_FDS], nfd;
	ssize_t n = recv_with_fds(p->fd, a, GREET_LEN, fds, &nfd);

	while (nfd)
		close(fds[--nfd]);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n == GREET_LEN && (!memcmp(a, answer_yes, GREET_LEN) ||
				!memcmp(a, answer_lend, GREET_LEN))) {
		s->lend = !memcmp(a, answer_lend, GREET_LEN);
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

/* Rings unless COPVM_SHM=0; with `setup', only if the wake eventfd
 * can be made too (transport.h, probe). */
int pvmi_shm_probe(int setup)
{
	return pvmi_shm_enabled() && (!setup || pvmi_shm_wake_fd() >= 0);
}

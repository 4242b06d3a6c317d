/*
 * transport/uring.c - tcp.c's circuits (tasks of other hosts) with their
 * frames sent and received through io_uring, one ring per process shared
 * by every such pipe.
 *
 * The ring is used by default, when it works here ("auto", or COPVM_URING
 * unset); COPVM_URING=0 forces plain sockets (tcp.c), and COPVM_URING=1
 * asks for the ring with a word on stderr if it cannot be had.  The ring
 * is set up at the first circuit, and only if it works here:
 * io_uring_setup may be refused (ENOSYS on an
 * old kernel, EPERM under kernel.io_uring_disabled or a seccomp filter,
 * EINVAL for flags it does not know), the kernel must keep completions it
 * cannot queue (FEAT_NODROP) and read a request's arguments at submission
 * (FEAT_SUBMIT_STABLE), must know sendmsg and cancel, and a no-op
 * must go round.  Otherwise the probe says no, circuits use plain
 * sockets (tcp.c, the next transport registry.c has for them) and
 * nobody hears of it, unless COPVM_URING=1 asked for the ring.  The
 * circuits' sockets are registered as fixed files when the kernel lets us
 * (saves a file lookup per request).
 *
 * What goes through the ring is the sending; receiving is stream.c's,
 * on the socket, as for tcp.c.  Measured between two namespace hosts
 * (docs/results/uring.md, session 9; a raw program with no PVM, 8-byte
 * round trips): a recv in the ring costs 1.3 us more than a nonblocking
 * recv() on the socket (the poll callback, the task work and the
 * completion), and a multishot recv with provided buffers no less; a
 * lone send costs 0.4 us more in the ring than a sendmsg.  The ring is
 * cheaper only when one system call carries several requests, or when a
 * send must wait for room.  So:
 *   - send() with nothing of ours in the ring tries one sendmsg on the
 *     socket (stream.c); what the socket did not take goes into the ring
 *     as one IORING_OP_SENDMSG with MSG_WAITALL, which the kernel
 *     finishes as room comes, with no further call of ours.  send() then
 *     returns 0, and the caller's body stays lent to the kernel until a
 *     later send() reaps the completion (transport.h).
 *   - queue() and submit() batch the sends of a multicast (route.c's
 *     pvmi_route_mcast, conn.c's pvmi_link_send_many): queue() prepares
 *     a pipe's sendmsg in the submission queue without entering the
 *     kernel, and submit() hands everything queued, on every pipe, to
 *     the kernel in one io_uring_enter; each send() after it then only
 *     reaps.
 * The ring is made with DEFER_TASKRUN (and SINGLE_ISSUER, TASKRUN_FLAG;
 * a kernel before 6.1 refuses them, and gets a plain ring): the work that
 * finishes a send which had to wait for room runs when this task next
 * looks, not by interrupting it.  The kernel raises IORING_SQ_TASKRUN
 * when work waits, and reap() then enters the kernel
 * (io_uring_get_events) before it reaps.
 * Only the task that made the ring submits to it: a forked child makes
 * its own (mark_foreign), and PVM calls are not made from threads.
 * Completions are reaped from the shared completion queue with no system
 * call (reap(), which conn.c's pump runs first in every round
 * through the table's prepare).
 *
 * Waiting: the pipe's wait fd is the socket; the ring's fd, readable
 * while completions wait, is the table's wait_fd, polled by conn.c, and a
 * sender waiting for its send also polls the socket for room.  Nothing
 * here spins.
 *
 * Closing a pipe with a send in the kernel (its peer died, the task
 * leaves) cancels it and waits for its completion before the pipe's
 * state goes; a send the kernel cannot cancel is ended by shutting the
 * socket down.  A forked child never touches its
 * parent's ring (a pthread_atfork handler marks it foreign): it forgets
 * it when its links close and makes its own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <liburing.h>

#include "cosched_page.h"
#include "transport/stream.h"
#include "transport/uring.h"

#define RING_SQ		256	/* submission queue entries */
#define RING_CQ		4096	/* completion queue: 2 per pipe, and more */
#define FIXED_SLOTS	256	/* sockets registered as fixed files */
#define SEND_IOV_MAX	1024	/* iovecs per sendmsg */

/* A pipe's send in the ring: at most one at a time. */
struct uring_op {
	int busy;		/* queued or in the kernel, not reaped (a
				 * zero-copy send: until its notification) */
	int done;		/* reaped, `res' not looked at yet */
	int res;		/* the completion's result */
	int zc;			/* a zero-copy send */
};

/* A pipe's own state (p->priv). */
struct uring_pipe {
	struct uring_op tx;
	int slot;		/* fixed-file index, -1: the plain fd */
	struct msghdr mh;
};

static struct io_uring ring;
static int state;		/* 0: not tried, 1: up, -1: refused */
static int foreign;		/* we are a fork: the ring is the parent's */
static int mode = -1;		/* COPVM_URING: -1 unread, 0 off ("0"), 1 on
				 * ("1"), 2 auto (unset, "auto", the rest) */
static int npipes;
static unsigned long submits;	/* io_uring_enter calls that submitted */
static size_t zc_min;		/* COPVM_URING_ZC: frames of at least this
				 * many bytes go zero-copy; 0: never */
static unsigned long zc_sends;	/* zero-copy sends submitted */
static int have_fixed;
static unsigned char slot_used[FIXED_SLOTS];
static int atfork_done;

/* The ring is ours to use (set up, and not inherited through fork). */
static int ours(void)
{
	return state == 1 && !foreign;
}

static void mark_foreign(void)
{
	if (state == 1)
		foreign = 1;
}

/* Non-zero when every operation used here is known to the kernel. */
static int ops_known(void)
{
	struct io_uring_probe *pr = io_uring_get_probe_ring(&ring);
	int ok;

	if (!pr)
		return 0;
	ok = io_uring_opcode_supported(pr, IORING_OP_SENDMSG) &&
	     io_uring_opcode_supported(pr, IORING_OP_ASYNC_CANCEL) &&
	     io_uring_opcode_supported(pr, IORING_OP_NOP);
	io_uring_free_probe(pr);
	return ok;
}

/* Non-zero when the kernel has IORING_OP_SENDMSG_ZC (6.1 on). */
static int zc_known(void)
{
	struct io_uring_probe *pr = io_uring_get_probe_ring(&ring);
	int ok;

	if (!pr)
		return 0;
	ok = io_uring_opcode_supported(pr, IORING_OP_SENDMSG_ZC);
	io_uring_free_probe(pr);
	return ok;
}

/* A no-op there and back: io_uring_enter is allowed too. */
static int nop_round(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct io_uring_cqe *cqe;
	int r;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data(sqe, NULL);
	r = io_uring_submit_and_wait(&ring, 1);
	if (r < 0)
		return r;
	r = io_uring_peek_cqe(&ring, &cqe);
	if (r < 0)
		return r;
	r = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	return r;
}

/* Sets the ring up; 0, or the negative errno that refused it. */
static int setup(void)
{
	struct io_uring_params par;
	int r;

	if (!atfork_done) {
		if (pthread_atfork(NULL, NULL, mark_foreign) != 0)
			return -ENOMEM;
		atfork_done = 1;
	}
	memset(&par, 0, sizeof(par));
	par.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP |
		    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		    IORING_SETUP_TASKRUN_FLAG;
	par.cq_entries = RING_CQ;
	r = io_uring_queue_init_params(RING_SQ, &ring, &par);
	if (r == -EINVAL) {	/* before 6.1: a plain ring */
		memset(&par, 0, sizeof(par));
		par.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
		par.cq_entries = RING_CQ;
		r = io_uring_queue_init_params(RING_SQ, &ring, &par);
	}
	if (r < 0)
		return r;
	if (zc_min && !zc_known())
		zc_min = 0;		/* before 6.1: copied sends only */
	if (!(par.features & IORING_FEAT_NODROP) ||
	    !(par.features & IORING_FEAT_SUBMIT_STABLE) || !ops_known())
		r = -EINVAL;
	else
		r = nop_round();
	if (r < 0) {
		io_uring_queue_exit(&ring);
		return r;
	}
	have_fixed = io_uring_register_files_sparse(&ring, FIXED_SLOTS) == 0;
	memset(slot_used, 0, sizeof(slot_used));
	io_uring_register_ring_fd(&ring);	/* a saving, not a need */
	foreign = 0;
	return 0;
}

static void uring_release(void);

/* Reads COPVM_URING and COPVM_URING_ZC, once per process. */
static void read_mode(void)
{
	const char *e;

	if (mode >= 0)
		return;
	e = getenv("COPVM_URING");
	if (e && strcmp(e, "0") == 0)
		mode = 0;
	else
		mode = e && strcmp(e, "1") == 0 ? 1 : 2;
	e = getenv("COPVM_URING_ZC");
	zc_min = e ? (size_t)strtoull(e, NULL, 0) : 0;
}

/* Whether TCP circuits use the ring (transport.h, probe): COPVM_URING is
 * not 0 (unset means "auto") and, with `set_up', this process's ring
 * could be set up (tried once per process and after release).  A
 * refusal (ENOSYS, EPERM, EINVAL, a missing operation) is silent unless
 * COPVM_URING=1 asked for the ring. */
static int uring_probe(int set_up)
{
	int r;

	read_mode();
	if (mode == 0)
		return 0;
	if (!set_up)
		return 1;
	if (foreign)
		uring_release();
	if (state == 0) {
		r = setup();
		state = r == 0 ? 1 : -1;
		if (r < 0 && mode == 1)
			fprintf(stderr, "libpvm [pid%d]: COPVM_URING=1 but "
				"io_uring cannot be used here (%s): plain "
				"sockets\n", (int)getpid(), strerror(-r));
	}
	return state == 1;
}

/* The ring's fd, readable while completions wait, or -1 when there is
 * no ring of ours (transport.h, wait_fd). */
static int uring_fd(void)
{
	return ours() ? ring.ring_fd : -1;
}

/* Moves every waiting completion to the pipe it belongs to; no system
 * call.  Returns how many it moved. */
static int reap(void)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	if (!ours())
		return 0;
	/* deferred work (see the top) waits to post its completions */
	if (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN)
		io_uring_get_events(&ring);
	io_uring_for_each_cqe(&ring, head, cqe) {
		struct uring_op *op = io_uring_cqe_get_data(cqe);

		n++;
		if (!op)
			continue;	/* a cancel's own completion */
		if (!(cqe->flags & IORING_CQE_F_NOTIF))
			op->res = cqe->res;
		if (cqe->flags & IORING_CQE_F_MORE)
			continue;	/* zero-copy: the buffers are still
					 * the kernel's until the notification */
		op->busy = 0;
		op->done = 1;
	}
	if (n)
		io_uring_cq_advance(&ring, n);
	return (int)n;
}

/* Tears the ring down once no pipe uses it (transport.h, release); a
 * forked child forgets its parent's ring the same way. */
static void uring_release(void)
{
	if (state != 1 || (!foreign && npipes > 0))
		return;
	io_uring_queue_exit(&ring);	/* a fork's: only its mappings */
	state = 0;
	foreign = 0;
	npipes = 0;
}

/* Hands every queued request to the kernel; 0 or a negative errno. */
static int flush(void)
{
	int r, tries = 0;

	while (io_uring_sq_ready(&ring) > 0) {
		r = io_uring_submit(&ring);
		submits++;
		if (r >= 0)
			continue;
		if ((r != -EINTR && r != -EBUSY && r != -EAGAIN) ||
		    ++tries > 100)
			return r;
		reap();	/* -EBUSY: completions to take */
	}
	return 0;
}

/* A free submission entry, submitting what is queued if need be. */
static struct io_uring_sqe *sqe_get(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe && flush() == 0)
		sqe = io_uring_get_sqe(&ring);
	return sqe;
}

/* Aims `sqe' at the socket of `p': its fixed slot or its fd. */
static void aim(struct io_uring_sqe *sqe, const struct uring_pipe *u)
{
	if (u->slot >= 0) {
		sqe->fd = u->slot;
		sqe->flags |= IOSQE_FIXED_FILE;
	}
}

/* Registers the socket of `p' as a fixed file, if there is room. */
static void fix_file(struct pvmi_pipe *p, struct uring_pipe *u)
{
	int i;

	if (!have_fixed)
		return;
	for (i = 0; i < FIXED_SLOTS; i++) {
		if (slot_used[i])
			continue;
		if (io_uring_register_files_update(&ring, i, &p->fd, 1) == 1) {
			slot_used[i] = 1;
			u->slot = i;
		}
		return;
	}
}

/* The state of pipe `p', made on first use; NULL when out of memory. */
static struct uring_pipe *state_of(struct pvmi_pipe *p)
{
	struct uring_pipe *u = p->priv;

	if (u)
		return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->slot = -1;
	fix_file(p, u);
	p->priv = u;
	npipes++;
	return u;
}

/* Submits what is queued and takes the completions; 0 or < 0. */
static int kick(void)
{
	int rc = flush();

	reap();
	return rc;
}

/* The kernel would not pin a zero-copy send's pages (ENOMEM: the
 * user's RLIMIT_MEMLOCK, which pinned pages count against; ENOBUFS: the
 * socket's option memory): this process copies its sends from now on. */
static void zc_refused(int res)
{
	zc_min = 0;
	fprintf(stderr, "libpvm [pid%d]: COPVM_URING_ZC: zero-copy send "
		"refused (%s): copied sends from now on\n", (int)getpid(),
		strerror(-res));
}

/* Non-zero when what is left of `tx' is long enough to go zero-copy. */
static int zero_copy(const struct pvmi_tx *tx)
{
	size_t left = 0;
	int i;

	if (!zc_min)
		return 0;
	for (i = tx->next; i < tx->count && left < zc_min; i++)
		left += tx->iov[i].iov_len;
	return left >= zc_min;
}

/* Queues a sendmsg of what is left of `tx' on `p'; 0 or -EBUSY. */
static int queue_send(struct pvmi_pipe *p, struct uring_pipe *u,
		      struct pvmi_tx *tx)
{
	struct io_uring_sqe *sqe = sqe_get();
	int left = tx->count - tx->next;

	if (!sqe)
		return -EBUSY;		/* the ring refuses work */
	memset(&u->mh, 0, sizeof(u->mh));
	u->mh.msg_iov = tx->iov + tx->next;
	u->mh.msg_iovlen = left > SEND_IOV_MAX ? SEND_IOV_MAX : left;
	u->tx.zc = zero_copy(tx);
	if (u->tx.zc) {
		io_uring_prep_sendmsg_zc(sqe, p->fd, &u->mh,
					 MSG_NOSIGNAL | MSG_WAITALL);
		zc_sends++;
	} else {
		io_uring_prep_sendmsg(sqe, p->fd, &u->mh,
				      MSG_NOSIGNAL | MSG_WAITALL);
	}
	aim(sqe, u);
	io_uring_sqe_set_data(sqe, &u->tx);
	u->tx.busy = 1;
	return 0;
}

/* Sends as much of `tx' as the ring takes now (transport.h, send). */
static int uring_send(struct pvmi_pipe *p, struct pvmi_tx *tx)
{
	struct uring_pipe *u;
	int rc, res;

	if (!ours())
		return -EPIPE;
	u = state_of(p);
	if (!u)
		return -ENOMEM;
	reap();
	for (;;) {
		if (u->tx.done) {
			u->tx.done = 0;
			res = u->tx.res;
			if (res > 0)
				pvmi_tx_advance(tx, res);
			else if (res == -EAGAIN || res == -EINTR)
				return 0;	/* full: wait for POLLOUT */
			else if (u->tx.zc && (res == -ENOMEM || res == -ENOBUFS))
				zc_refused(res);	/* nothing went: copy it */
			else
				return res < 0 ? res : -EPIPE;
		}
		if (tx->next >= tx->count)
			return 1;
		if (!u->tx.busy && io_uring_sq_ready(&ring) == 0 &&
		    !zero_copy(tx)) {
			/* alone: one sendmsg costs less than the ring */
			rc = pvmi_stream_send(p, tx);
			if (rc != 0)
				return rc;
		}
		if (!u->tx.busy && (rc = queue_send(p, u, tx)) < 0)
			return rc;
		rc = kick();
		if (rc < 0)
			return rc;
		if (!u->tx.done)
			return 0;	/* in the kernel: reaped later */
	}
}

/* Queues frame `tx' on `p' for the next submission, with no system
 * call (transport.h, queue); 0 once queued, else as send(). */
static int uring_queue(struct pvmi_pipe *p, struct pvmi_tx *tx)
{
	struct uring_pipe *u;

	if (!ours())
		return -EPIPE;
	u = state_of(p);
	if (!u)
		return -ENOMEM;
	if (u->tx.busy || u->tx.done || tx->next >= tx->count)
		return uring_send(p, tx);	/* not a fresh frame */
	return queue_send(p, u, tx);
}

/* Hands everything queued to the kernel (transport.h, submit). */
static int uring_submit(void)
{
	if (!ours())
		return -EPIPE;
	return flush();
}

/* io_uring_enter calls that submitted requests, since the process
 * started (uring.h; tests and benchmarks count them). */
unsigned long pvmi_uring_submits(void)
{
	return submits;
}

/* Zero-copy sends this process submitted (uring.h; tests count
 * them). */
unsigned long pvmi_uring_zc_sends(void)
{
	return zc_sends;
}

/* Asks the kernel to give up request `op'. */
static void cancel(struct uring_op *op)
{
	struct io_uring_sqe *sqe;

	if (!op->busy || !(sqe = sqe_get()))
		return;
	io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)op, 0);
	io_uring_sqe_set_data(sqe, NULL);
}

/* Ends the send of `u' before the pipe goes; 0, or -1 when the kernel
 * would not give it back (the caller then leaks `u', which the
 * completion would write, rather than free it). */
static int settle(struct uring_pipe *u, int fd)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
	struct io_uring_cqe *cqe;
	int r, waits = 0;

	reap();
	cancel(&u->tx);
	while (u->tx.busy) {
		if (flush() < 0)
			return -1;
		r = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
		reap();
		if (r == -ETIME) {
			if (++waits == 1)
				shutdown(fd, SHUT_RDWR);
			else if (waits > 50)
				return -1;
		} else if (r < 0 && r != -EINTR) {
			return -1;
		}
	}
	return 0;
}

/* Ends the pipe's requests, frees its state and closes its socket
 * (transport.h, close). */
static void uring_close(struct pvmi_pipe *p)
{
	struct uring_pipe *u = p->priv;
	int none = -1;

	if (u) {
		if (ours() && settle(u, p->fd) < 0)
			u = NULL;	/* its completion may still come: the
					 * kernel only reads our buffers, but
					 * it writes `u' (leaked) */
		if (u && ours() && u->slot >= 0 &&
		    io_uring_register_files_update(&ring, u->slot, &none,
						   1) == 1)
			slot_used[u->slot] = 0;
		free(u);
		p->priv = NULL;
		npipes--;
	}
	pvmi_stream_close(p);
}

/* A pump round starts: the completions go to their pipes; 1 when there
 * were some (transport.h, prepare: a send's completion is waited for
 * with the socket's POLLOUT, which may not come while the peer reads
 * nothing, so the round must not block once it is off the ring). */
static int uring_prepare(void)
{
	return reap() > 0;
}

/* The ring's fd was readable: its completions go to their pipes
 * (transport.h, woken). */
static void uring_woken(void)
{
	reap();
}

const struct pvmi_transport pvmi_transport_uring = {
	.name = "uring",
	.reach = PVMI_REACH_NET,
	.xport = COSCHED_XPORT_URING,
	.probe = uring_probe,
	.wait_fd = uring_fd,
	.prepare = uring_prepare,
	.woken = uring_woken,
	.release = uring_release,
	.open = NULL,
	.connect = pvmi_tcp_connect,
	.listen = pvmi_tcp_listen,
	.port = pvmi_tcp_port,
	.accept = pvmi_tcp_accept,
	.unlisten = pvmi_tcp_unlisten,
	.send = uring_send,
	.queue = uring_queue,
	.submit = uring_submit,
	.progress = pvmi_stream_progress,
	.poll_ready = pvmi_stream_ready,
	.arm = NULL,
	.close = uring_close,
	.writev = pvmi_sock_writev,
	.read = pvmi_sock_read,
};

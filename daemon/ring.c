/*
 * ring.c - the daemon's writes of one loop turn, to several connections,
 * handed to the kernel in one system call through io_uring.
 *
 * The daemon writes a connection's queue at the end of the turn in which
 * it was queued (conn.c).  When two or more connections have output then,
 * and COPVM_URING=1 asked for the ring, each gets one IORING_OP_SENDMSG
 * with MSG_DONTWAIT, and all of them go in with one io_uring_enter, which
 * also waits for their completions.  MSG_DONTWAIT makes the kernel finish
 * every request inside that call: a socket without room answers -EAGAIN
 * rather than waiting, exactly as writev() on the nonblocking socket
 * would, and conn.c then waits for EPOLLOUT as before.  No request
 * outlives the call, so nothing the kernel reads can be freed under it.
 *
 * The ring is set up at the first batch and only if it works (the same
 * refusals as the library's, lib/transport/uring.c: ENOSYS, EPERM,
 * EINVAL); otherwise, and unless COPVM_URING=1, the daemon writes with
 * writev() alone.  Measured: docs/results/uring.md, session 9.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <liburing.h>

#include "pvmd.h"

#define RING_ENTRIES	64

static struct io_uring ring;
static int state;		/* 0: not tried, 1: up, -1: not to be used */
static unsigned long batches;	/* io_uring_enter calls made for batches */

/* Sets the ring up once; 1 when it may be used. */
int pvmd_ring_usable(void)
{
	const char *e;
	int r;

	if (state != 0)
		return state == 1;
	e = getenv("COPVM_URING");
	if (!e || strcmp(e, "1") != 0) {
		state = -1;
		return 0;
	}
	r = io_uring_queue_init(RING_ENTRIES, &ring, 0);
	if (r < 0) {
		pvmd_log("COPVM_URING=1 but io_uring cannot be used here "
			 "(%s): the links are written with writev", strerror(-r));
		state = -1;
		return 0;
	}
	state = 1;
	return 1;
}

/* Writes each of w[0..n) without blocking, in one system call; every
 * w[i].res is set: bytes written, or a negative errno (-EAGAIN: the
 * socket took nothing now, or the entry was not submitted). */
void pvmd_ring_writev(struct pvmd_write *w, int n)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int i, queued = 0, r;

	for (i = 0; i < n; i++) {
		w[i].res = -EAGAIN;
		if (queued == RING_ENTRIES || !(sqe = io_uring_get_sqe(&ring)))
			continue;	/* conn.c's writev writes it */
		memset(&w[i].mh, 0, sizeof(w[i].mh));
		w[i].mh.msg_iov = w[i].iov;
		w[i].mh.msg_iovlen = (size_t)w[i].iovcnt;
		io_uring_prep_sendmsg(sqe, w[i].fd, &w[i].mh,
				      MSG_DONTWAIT | MSG_NOSIGNAL);
		io_uring_sqe_set_data(sqe, &w[i]);
		queued++;
	}
	if (queued == 0)
		return;
	batches++;
	r = io_uring_submit_and_wait(&ring, (unsigned)queued);
	if (r < 0) {		/* none went in: writev writes them all */
		io_uring_for_each_cqe(&ring, head, cqe)
			seen++;
		io_uring_cq_advance(&ring, seen);
		return;
	}
	/* what was not submitted (r < queued) stays -EAGAIN; the
	 * submitted ones have all completed (MSG_DONTWAIT) */
	while (seen < (unsigned)r) {
		if (io_uring_wait_cqe(&ring, &cqe) < 0)
			break;
		((struct pvmd_write *)io_uring_cqe_get_data(cqe))->res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		seen++;
	}
}

/* Batches written through the ring since the daemon started (its
 * debug log and tests read it). */
unsigned long pvmd_ring_batches(void)
{
	return batches;
}

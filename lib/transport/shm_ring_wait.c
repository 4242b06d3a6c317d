/*
 * shm_ring_wait.c - the doorbell and the waits of the shared-memory ring
 * (its data path is shm_ring.c's): the spin-then-block wait with the
 * armed flags, the eventfd that wakes a sleeper, the ends of a peer (its
 * pidfd, or kill(0) without one), and the consumer's looks: a spin's
 * (shm_ring_readable), a caller's arming before its own poll(), and the
 * deferred look for a producer waiting for room.  The armed handshake
 * needs a full barrier on both sides: a store, then a load of another
 * word.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "shm_layout.h"
#include "shm_ring_impl.h"

/* Without a pidfd, how often a block looks whether the peer exists. */
#define LIVENESS_SLICE_NS	100000000L
/* Polls of the ring between two looks at the clock while spinning. */
#define SPIN_POLLS_PER_CLOCK	16

/* Learns the peer's pid from the header (the producer learns it at the
 * consumer's attach) and opens its pidfd. */
void shmr_learn_peer(struct shm_ring *r)
{
	int fd;

	if (r->peer_pid == 0 && r->producer)
		r->peer_pid = load_acquire(&r->hdr->consumer_pid);
	if (r->peer_pid > 0 && r->peer_pidfd < 0) {
		fd = shm_seg_pidfd(r->peer_pid);
		if (fd >= 0)
			r->peer_pidfd = fd;
	}
}

/* Rings eventfd `fd' (-1: nobody to ring). */
void shmr_write_wake(int fd)
{
	uint64_t one = 1;
	ssize_t n;

	if (fd < 0)
		return;
	/* EAGAIN (counter full) means the sleeper is being woken anyway */
	do
		n = write(fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
}

int shm_ring_peer_alive(struct shm_ring *r)
{
	struct pollfd p;

	if (!r || !r->hdr)
		return 0;
	shmr_learn_peer(r);
	if (r->peer_pidfd >= 0) {
		p.fd = r->peer_pidfd;
		p.events = POLLIN;
		return poll(&p, 1, 0) == 1 ? 0 : 1;
	}
	if (r->peer_pid > 0 && kill(r->peer_pid, 0) < 0 && errno == ESRCH)
		return 0;
	return 1;
}

int shm_ring_peer_fd(const struct shm_ring *r)
{
	return r ? r->peer_pidfd : -1;
}

pid_t shm_ring_peer_pid(struct shm_ring *r)
{
	if (r->peer_pid == 0 && r->producer)
		r->peer_pid = load_acquire(&r->hdr->consumer_pid);
	return r->peer_pid;
}

/* ---- waiting ---- */

/* Sleeps in poll() on our eventfd and the peer's pidfd until a wake-up,
 * the peer's death or `deadline' (-1: none).  1 after a wake-up on our
 * eventfd, else 0, -ETIMEDOUT, or -ECONNRESET when the peer is gone. */
static int block(struct shm_ring *r, long deadline)
{
	struct pollfd p[2];
	struct timespec ts, *tsp = NULL;
	long slice = -1, t;
	uint64_t count;
	int n = 0, wake = -1, peer = -1, rc, rang = 0;

	shmr_learn_peer(r);
	if (r->wake_fd >= 0) {
		wake = n;
		p[n].fd = r->wake_fd;
		p[n++].events = POLLIN;
	}
	if (r->peer_pidfd >= 0) {
		peer = n;
		p[n].fd = r->peer_pidfd;
		p[n++].events = POLLIN;
	} else {
		slice = LIVENESS_SLICE_NS;
	}
	/* without our own eventfd no one can wake us: nap briefly */
	if (wake < 0)
		slice = 1000000L;
	t = now_ns();
	if (deadline >= 0) {
		if (t >= deadline)
			return -ETIMEDOUT;
		if (slice < 0 || deadline - t < slice)
			slice = deadline - t;
	}
	if (slice >= 0) {
		ts.tv_sec = slice / 1000000000L;
		ts.tv_nsec = slice % 1000000000L;
		tsp = &ts;
	}
	r->blocks++;
	rc = ppoll(p, (nfds_t)n, tsp, NULL);
	if (rc < 0 && errno != EINTR)
		return -errno;
	if (wake >= 0 && rc > 0 && (p[wake].revents & POLLIN)) {
		/* a doorbell: whoever reads it looks at everything again */
		if (read(r->wake_fd, &count, sizeof(count)) < 0)
			(void)count;
		rang = 1;
	}
	if (peer >= 0 && rc > 0 && (p[peer].revents & POLLIN))
		return -ECONNRESET;
	if (peer < 0 && r->peer_pid > 0 && kill(r->peer_pid, 0) < 0 &&
	    errno == ESRCH)
		return -ECONNRESET;
	if (deadline >= 0 && now_ns() >= deadline)
		return -ETIMEDOUT;
	return rang;
}

/* Waits until `ready' holds: spins for the spin bound, then arms, checks
 * again, and blocks.  0, -EAGAIN (`timeout_ns' 0, or a wake-up that did
 * not make it hold when `doorbell_ends'), -ETIMEDOUT, or -ECONNRESET
 * once the peer is gone and `ready' still does not hold. */
int shmr_wait_until(struct shm_ring *r, shmr_ready_fn ready, uint32_t arg,
		    uint32_t *armed, long timeout_ns, int doorbell_ends)
{
	long start, deadline, end, t;
	unsigned int n = 0;
	int rc;

	if (ready(r, arg))
		return 0;
	if (timeout_ns == 0)
		return -EAGAIN;
	start = now_ns();
	deadline = timeout_ns < 0 ? -1 : start + timeout_ns;
	if (r->spin_ns > 0) {
		end = start + r->spin_ns;
		for (;;) {
			cpu_relax();
			if (ready(r, arg))
				return 0;
			if (++n % SPIN_POLLS_PER_CLOCK)
				continue;
			t = now_ns();
			if (t >= end || (deadline >= 0 && t >= deadline))
				break;
		}
	}
	for (;;) {
		store_relaxed(armed, 1);
		full_barrier();
		if (ready(r, arg)) {
			store_relaxed(armed, 0);
			return 0;
		}
		rc = block(r, deadline);
		store_relaxed(armed, 0);
		/* what was published before the peer died is still taken */
		if (ready(r, arg))
			return 0;
		if (rc < 0)
			return rc;
		if (rc > 0 && doorbell_ends)
			return -EAGAIN;
	}
}

/* ---- the consumer's looks ---- */

void shmr_producer_check(struct shm_ring *r)
{
	r->unchecked = 0;
	shmr_wake_if_armed(r, &r->hdr->prod_armed);
}

/* Lines of a record's payload fetched ahead when it is first seen. */
#define PREFETCH_LINES	3

int shm_ring_readable(struct shm_ring *r)
{
	const struct shm_rec *rec;
	uint32_t len, at, i;

	if (!r || !r->hdr || r->producer)
		return 0;
	if (!(rec = shmr_front(r))) {
		shmr_caught_up(r);
		return 0;
	}
	/* The record is seen by a spin, whose caller takes it a little
	 * later: its payload's lines, still in the producer's cache, start
	 * on their way now rather than one after the other at the copy.
	 * Only a hint: `len' is read again, and checked, at the take. */
	len = load_relaxed(&rec->len);
	at = r->pos + (uint32_t)sizeof(*rec);
	for (i = 0; i < PREFETCH_LINES && i * 64 < len; i++)
		__builtin_prefetch(r->data + ((at + i * 64) & r->mask));
	return 1;
}

int shm_ring_arm(struct shm_ring *r)
{
	if (!r || !r->hdr || r->producer)
		return -EINVAL;
	shmr_caught_up(r);
	store_relaxed(&r->hdr->cons_armed, 1);
	full_barrier();
	if (shmr_record_or_closed(r, 0)) {
		store_relaxed(&r->hdr->cons_armed, 0);
		return 1;
	}
	return 0;
}

void shm_ring_disarm(struct shm_ring *r)
{
	if (r && r->hdr && !r->producer)
		store_relaxed(&r->hdr->cons_armed, 0);
}

/*
 * shm_ring_impl.h - what the two files of the ring share (private to
 * shm_ring.c and shm_ring_wait.c): the memory-order helpers, the clock,
 * and the doorbell and the wait that the data path calls.
 */
#ifndef COPVM_SHM_RING_IMPL_H
#define COPVM_SHM_RING_IMPL_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "shm_layout.h"
#include "shm_ring.h"

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	do { } while (0)
#endif

#define load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define load_relaxed(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define store_relaxed(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define full_barrier()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

/* The monotonic clock in ns. */
static inline long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The record at the consumer's tail when it is the next one, else NULL. */
static inline struct shm_rec *shmr_front(const struct shm_ring *r)
{
	struct shm_rec *rec = (struct shm_rec *)(r->data + (r->pos & r->mask));

	return load_acquire(&rec->seq) == r->seq ? rec : NULL;
}

/* A consumer's wait is over: a record, or the producer's close. */
static inline int shmr_record_or_closed(struct shm_ring *r, uint32_t unused)
{
	(void)unused;
	return shmr_front(r) != NULL ||
	       load_acquire(&r->hdr->producer_closed) != 0;
}

/* shmr_producer_check() (shm_ring.h) is called after a chunk or a
 * single-copy record, every few whole ones, and when the consumer has
 * caught up (shm_ring.c, free_record). */
/* The consumer has caught up (found the ring empty, arms, waits): the
 * look deferred by the records it took since the last one. */
static inline void shmr_caught_up(struct shm_ring *r)
{
	if (r->unchecked)
		shmr_producer_check(r);
}

/* Whether what a wait is for holds now (`arg': its argument). */
typedef int (*shmr_ready_fn)(struct shm_ring *r, uint32_t arg);

/* shm_ring_wait.c: learns the peer's pid from the header (the producer
 * learns it at the consumer's attach) and opens its pidfd. */
void shmr_learn_peer(struct shm_ring *r);
/* shm_ring_wait.c: rings eventfd `fd' (-1: nobody); never blocks. */
void shmr_write_wake(int fd);
/* After our side moved (a record published, space freed): wakes the
 * peer if, and only if, it armed itself (`armed').  Inline: the data
 * path runs it at every record, and enters shm_ring_wait.c only to
 * ring. */
static inline void shmr_wake_if_armed(struct shm_ring *r, uint32_t *armed)
{
	full_barrier();
	if (load_relaxed(armed) &&
	    __atomic_exchange_n(armed, 0, __ATOMIC_ACQ_REL)) {
		shmr_write_wake(r->peer_wake_fd);
		r->wakes_sent++;
	}
}
/* shm_ring_wait.c: waits until `ready' holds: spins for the ring's spin
 * bound, then arms `armed', checks again, and blocks on the eventfd and
 * the peer's pidfd.  0, -EAGAIN (`timeout_ns' 0, or a wake-up that did
 * not make it hold when `doorbell_ends'), -ETIMEDOUT, or -ECONNRESET
 * once the peer is gone and `ready' still does not hold. */
int shmr_wait_until(struct shm_ring *r, shmr_ready_fn ready, uint32_t arg,
		    uint32_t *armed, long timeout_ns, int doorbell_ends);

#endif /* COPVM_SHM_RING_IMPL_H */

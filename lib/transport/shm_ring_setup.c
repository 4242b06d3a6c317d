/*
 * shm_ring_setup.c - a shared-memory ring's life: made (shm_seg.c makes
 * its segment) or attached, connected to the two doorbells, tuned, and
 * closed or forgotten.  The data path is shm_ring.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm_layout.h"
#include "shm_ring_impl.h"

/* Clears `r' to a ring that is not set up: no memory, no fds. */
static void ring_reset(struct shm_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->memfd = -1;
	r->wake_fd = -1;
	r->peer_wake_fd = -1;
	r->peer_pidfd = -1;
	r->spin_ns = SHM_RING_DEFAULT_SPIN_NS;
}

/* Points `r' at the mapped segment `h' (`bytes' long, memfd `fd') as its
 * producer or consumer, at the position its side left. */
static void ring_bind(struct shm_ring *r, struct shm_ring_hdr *h,
		      size_t bytes, int fd, int producer)
{
	r->hdr = h;
	r->data = (unsigned char *)h + SHM_RING_HEADER_BYTES;
	r->map_bytes = bytes;
	/* copies: what the peer writes into the header later cannot move
	 * our bounds */
	r->mask = h->ring_bytes - 1;
	r->chunk = h->chunk_bytes - (uint32_t)sizeof(struct shm_rec) -
		   (uint32_t)sizeof(struct shm_rec_part);
	r->memfd = fd;
	r->producer = producer;
	r->seq = 1;
	r->pos = producer ? load_acquire(&h->head) : load_acquire(&h->tail);
	r->other = load_acquire(&h->tail);
}

int shm_ring_create(struct shm_ring *r, uint32_t ring_bytes)
{
	struct shm_ring_hdr *h;
	size_t bytes;
	int fd, rc;

	if (!r)
		return -EINVAL;
	ring_reset(r);
	fd = shm_seg_make(ring_bytes ? ring_bytes : SHM_RING_DEFAULT_BYTES);
	if (fd < 0)
		return fd;
	rc = shm_seg_map(fd, &h, &bytes);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	ring_bind(r, h, bytes, fd, 1);
	return 0;
}

int shm_ring_attach(struct shm_ring *r, int memfd)
{
	struct shm_ring_hdr *h;
	int32_t nobody = 0;
	size_t bytes;
	int fd, rc;

	if (!r)
		return -EINVAL;
	ring_reset(r);
	if (memfd < 0)
		return -EBADF;
	rc = shm_seg_map(memfd, &h, &bytes);
	if (rc < 0)
		return rc;
	if (!__atomic_compare_exchange_n(&h->consumer_pid, &nobody, getpid(),
					 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(h, bytes);
		return -EBUSY;
	}
	fd = fcntl(memfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		store_release(&h->consumer_pid, 0);
		munmap(h, bytes);
		return rc;
	}
	ring_bind(r, h, bytes, fd, 0);
	r->peer_pid = h->producer_pid;
	return 0;
}

int shm_ring_fd(const struct shm_ring *r)
{
	return r && r->hdr ? r->memfd : -EBADF;
}

void shm_ring_drop_fd(struct shm_ring *r)
{
	if (r && r->memfd >= 0) {
		close(r->memfd);
		r->memfd = -1;
	}
}

int shm_ring_connect(struct shm_ring *r, int wake_fd, int peer_wake_fd)
{
	if (!r || !r->hdr)
		return -EINVAL;
	r->wake_fd = wake_fd;
	r->peer_wake_fd = peer_wake_fd;
	shmr_learn_peer(r);
	return 0;
}

void shm_ring_set_spin(struct shm_ring *r, long spin_ns)
{
	if (r)
		r->spin_ns = spin_ns < 0 ? 0 : spin_ns;
}

void shm_ring_set_doorbell_ends_wait(struct shm_ring *r, int on)
{
	if (r)
		r->doorbell_ends_wait = on != 0;
}

void shm_ring_set_single_copy(struct shm_ring *r, size_t min_bytes)
{
	if (r)
		r->single_copy_min = min_bytes;
}

static void ring_release(struct shm_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_bytes);
	if (r->memfd >= 0)
		close(r->memfd);
	if (r->peer_pidfd >= 0)
		close(r->peer_pidfd);
	ring_reset(r);
}

void shm_ring_close(struct shm_ring *r)
{
	if (!r || !r->hdr)
		return;
	store_release(r->producer ? &r->hdr->producer_closed :
				    &r->hdr->consumer_closed, 1);
	full_barrier();
	shmr_write_wake(r->peer_wake_fd);
	ring_release(r);
}

void shm_ring_forget(struct shm_ring *r)
{
	if (r && r->hdr)
		ring_release(r);
}

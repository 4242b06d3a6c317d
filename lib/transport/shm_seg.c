/*
 * shm_seg.c - the segment under a shared-memory ring: making the sealed
 * memfd and writing its header, and checking a segment handed to us
 * before mapping it (a peer's fd is input like any other: a wrong magic,
 * version or size, or a file that could still shrink under our mapping,
 * is refused, never mapped).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shm_layout.h"
#include "shm_ring.h"

#define REQUIRED_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

static int is_power_of_two(uint32_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

/* The chunk size for a ring: a quarter, so a few chunks are in flight
 * while the consumer copies, and at least one record always fits. */
static uint32_t chunk_for(uint32_t ring_bytes)
{
	return ring_bytes / 4;
}

int shm_seg_make(uint32_t ring_bytes)
{
	struct shm_ring_hdr *h;
	size_t bytes;
	int fd, err;

	if (!is_power_of_two(ring_bytes) || ring_bytes < SHM_RING_MIN_BYTES ||
	    ring_bytes > SHM_RING_MAX_BYTES)
		return -EINVAL;
	bytes = (size_t)SHM_RING_HEADER_BYTES + ring_bytes;
	fd = memfd_create("copvm-shm-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)bytes) < 0 ||
	    fcntl(fd, F_ADD_SEALS, REQUIRED_SEALS) < 0)
		goto fail;
	h = mmap(NULL, SHM_RING_HEADER_BYTES, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		goto fail;
	h->version = SHM_RING_VERSION;
	h->header_bytes = SHM_RING_HEADER_BYTES;
	h->ring_bytes = ring_bytes;
	h->chunk_bytes = chunk_for(ring_bytes);
	h->producer_pid = getpid();
	/* the magic last: a half-written header is never a ring */
	__atomic_store_n(&h->magic, SHM_RING_MAGIC, __ATOMIC_RELEASE);
	munmap(h, SHM_RING_HEADER_BYTES);
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/* Checks the identity line read from the file; 0 or -errno. */
static int check_identity(const struct shm_ring_hdr *h, off_t file_bytes)
{
	if (h->magic != SHM_RING_MAGIC || h->version != SHM_RING_VERSION)
		return -EPROTO;
	if (h->header_bytes != SHM_RING_HEADER_BYTES ||
	    !is_power_of_two(h->ring_bytes) ||
	    h->ring_bytes < SHM_RING_MIN_BYTES ||
	    h->ring_bytes > SHM_RING_MAX_BYTES ||
	    h->chunk_bytes != chunk_for(h->ring_bytes))
		return -EINVAL;
	if (file_bytes != (off_t)h->header_bytes + h->ring_bytes)
		return -EINVAL;
	return 0;
}

int shm_seg_map(int fd, struct shm_ring_hdr **hdr, size_t *bytes)
{
	struct shm_ring_hdr id;
	struct stat st;
	void *m;
	int seals, r;

	if (fd < 0)
		return -EBADF;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(id))
		return -EINVAL;
	/* without these seals the peer could shrink the file and make our
	 * every access to the ring a SIGBUS */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & REQUIRED_SEALS) != REQUIRED_SEALS)
		return -EINVAL;
	if (pread(fd, &id, sizeof(id), 0) != (ssize_t)sizeof(id))
		return -EINVAL;
	r = check_identity(&id, st.st_size);
	if (r < 0)
		return r;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	/* the mapping, not the copy, is what we use from now on */
	r = check_identity(m, st.st_size);
	if (r < 0) {
		munmap(m, (size_t)st.st_size);
		return r;
	}
	*hdr = m;
	*bytes = (size_t)st.st_size;
	return 0;
}

int shm_seg_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd;

	if (pid <= 0)
		return -EINVAL;
	fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -errno;
	(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return (int)fd;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

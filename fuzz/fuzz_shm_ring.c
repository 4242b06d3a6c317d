/*
 * fuzz_shm_ring.c - libFuzzer target for the shared-memory ring's reader
 * (lib/transport/shm_ring.c, shm_seg.c): a consumer attached to a
 * segment whose contents a hostile or broken producer wrote.
 *
 * The harness makes a real sealed segment with a 4 KiB ring
 * (shm_seg_make), then lets the input write it: byte 0 holds flags (bit
 * 0: accept single-copy records; bit 1: overwrite the identity line
 * too), then come the header words the producer owns (head, the
 * producer-closed flag, the armed flags, and with bit 1 the identity
 * line), then the ring's bytes.  The consumer attaches with
 * shm_ring_attach and reads with shm_ring_peek and shm_ring_recv, never
 * waiting, until the ring reports empty or an error.  The producer is
 * a process that has exited (see dead_producer()).  Nothing it reads
 * may reach outside the mapping or the caller's buffer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport/shm_ring.h"
#include "transport/shm_layout.h"

int shm_seg_make(uint32_t ring_bytes);

#define RING_BYTES	4096u

/* A pid that was ours and has exited: the producer of every segment
 * here.  With a live producer a torn chunked message would make
 * shm_ring_recv wait for its rest forever, by design (shm_ring.h); a
 * dead one ends that wait with -ECONNRESET. */
static pid_t dead_producer(void)
{
	static pid_t pid;

	if (!pid) {
		pid = fork();
		if (pid < 0)
			abort();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	return pid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shm_ring r;
	struct shm_msg_info info;
	unsigned char buf[2 * RING_BYTES];
	uint32_t tag;
	size_t n;
	int fd, rc, i;

	if (size < 1)
		return 0;
	fd = shm_seg_make(RING_BYTES);
	if (fd < 0)
		abort();
	if (data[0] & 2) {
		/* the identity line, less the pids (a real pid would let
		 * the reader signal or wait on some other process) */
		n = size - 1 < 40 ? size - 1 : 40;
		if (n > 24)
			n = 24;
		pwrite(fd, data + 1, n, 0);
		data += n;
		size -= n;
	}
	/* head, producer_closed, cons_armed, prod_armed */
	if (size >= 1 + 16) {
		uint32_t w[4];

		memcpy(w, data + 1, sizeof(w));
		pwrite(fd, &w[0], 4, offsetof(struct shm_ring_hdr, head));
		pwrite(fd, &w[1], 4,
		       offsetof(struct shm_ring_hdr, producer_closed));
		pwrite(fd, &w[2], 4, offsetof(struct shm_ring_hdr, cons_armed));
		pwrite(fd, &w[3], 4, offsetof(struct shm_ring_hdr, prod_armed));
		n = size - 17 < RING_BYTES ? size - 17 : RING_BYTES;
		pwrite(fd, data + 17, n, SHM_RING_HEADER_BYTES);
	}
	{
		int32_t pid = dead_producer();

		pwrite(fd, &pid, 4, offsetof(struct shm_ring_hdr, producer_pid));
	}
	rc = shm_ring_attach(&r, fd);
	close(fd);
	if (rc < 0)
		return 0;
	shm_ring_set_spin(&r, 0);
	shm_ring_set_single_copy(&r, data[0] & 1);
	for (i = 0; i < 64; i++) {
		rc = shm_ring_peek(&r, &info, SHM_NO_WAIT);
		if (rc < 0)
			break;
		(void)shm_ring_readable(&r);
		if (shm_ring_recv(&r, &tag, buf, sizeof(buf), SHM_NO_WAIT) < 0 &&
		    shm_ring_recv(&r, &tag, buf, 16, SHM_NO_WAIT) < 0)
			break;
	}
	shm_ring_close(&r);
	return 0;
}

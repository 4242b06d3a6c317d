/*
 * shm_layout.h - the bytes of a shared-memory ring segment and of a
 * record header, as described in shm_ring.h; shared by shm_seg.c,
 * shm_ring.c and the tests that forge bad segments.
 */
#ifndef COPVM_SHM_LAYOUT_H
#define COPVM_SHM_LAYOUT_H

#include <stdint.h>

#define SHM_CACHE_LINE	64

struct shm_ring_hdr {
	/* identity line: written at setup (pids: attach) and close */
	uint64_t magic;
	uint32_t version;
	uint32_t header_bytes;
	uint32_t ring_bytes;
	uint32_t chunk_bytes;
	int32_t producer_pid;
	int32_t consumer_pid;
	uint32_t producer_closed;
	uint32_t consumer_closed;
	unsigned char pad0[SHM_CACHE_LINE - 40];
	/* the producer's line */
	uint32_t head;
	unsigned char pad1[SHM_CACHE_LINE - 4];
	/* the consumer's line */
	uint32_t tail;
	unsigned char pad2[SHM_CACHE_LINE - 4];
	/* set by the consumer before it blocks, cleared by a waker */
	uint32_t cons_armed;
	unsigned char pad3[SHM_CACHE_LINE - 4];
	/* set by the producer before it blocks, cleared by a waker */
	uint32_t prod_armed;
	unsigned char pad4[SHM_CACHE_LINE - 4];
	/* the consumer's answer to the last single-copy record: 0 (read),
	 * or the errno that makes the producer send it again in chunks */
	uint32_t single_copy_status;
	unsigned char pad5[SHM_CACHE_LINE - 4];
};

struct shm_rec {
	uint32_t seq;		/* stored last, with release */
	uint32_t len;
	uint32_t tag;
	uint32_t flags;
};

/* Right after the header of every record but a whole message's (flags
 * FIRST|LAST alone): where its payload sits in the message. */
struct shm_rec_part {
	uint64_t total;
	uint64_t offset;
};

_Static_assert(sizeof(struct shm_ring_hdr) == 6 * SHM_CACHE_LINE,
	       "header lines");
_Static_assert(sizeof(struct shm_rec) == 16, "record header");
_Static_assert(sizeof(struct shm_rec_part) == 16, "record part");

/* Offsets of the identity fields, for tests that forge segments. */
#define SHM_OFF_MAGIC		0
#define SHM_OFF_VERSION		8
#define SHM_OFF_HEADER_BYTES	12
#define SHM_OFF_RING_BYTES	16
#define SHM_OFF_CHUNK_BYTES	20

/* The payload of a single-copy record: where the producer's buffer is. */
struct shm_single_copy {
	uint64_t addr;
	uint64_t len;
};

#endif /* COPVM_SHM_LAYOUT_H */

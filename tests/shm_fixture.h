/*
 * shm_fixture.h - helpers of the shared-memory ring's tests
 * (check_shm_ring.c, check_shm_ring_ends.c): see shm_fixture.c.
 */
#ifndef COPVM_SHM_FIXTURE_H
#define COPVM_SHM_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport/shm_ring.h"

#define MIB	(1024 * 1024)

/* The producer's body in the child: its exit status (0: all well). */
typedef int (*producer_fn)(struct shm_ring *p, void *arg);

struct pair {
	pid_t pid;		/* the producer */
	int cons_wake, prod_wake;
	int sock;
};

/* The expected byte `i' of message `n'. */
unsigned char pattern(uint32_t n, size_t i);
/* Fills `buf' with message `n' of `len' bytes. */
void fill(unsigned char *buf, uint32_t n, size_t len);
/* 1 when `buf' holds message `n' of `len' bytes. */
int intact(const unsigned char *buf, uint32_t n, size_t len);
/* Passes `fd' over Unix socket `sock' (SCM_RIGHTS); exits on failure. */
void send_fd(int sock, int fd);
/* The fd passed over `sock', or -1. */
int recv_fd(int sock);
/* Forks a producer that makes a ring of `ring_bytes', hands the memfd
 * over a socket, spins `spin_ns' and runs `body'; attaches `c' to it as
 * the consumer. */
void fork_producer(struct pair *pr, struct shm_ring *c, uint32_t ring_bytes,
		   long spin_ns, producer_fn body, void *arg);
/* Waits for the producer; its exit status, or 128 + signal. */
int reap(struct pair *pr);
/* A producer and a consumer in this one process, on one ring. */
void local_pair(struct shm_ring *p, struct shm_ring *c, uint32_t ring_bytes);

#endif /* COPVM_SHM_FIXTURE_H */

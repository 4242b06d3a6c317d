/*
 * shm_keep.c - bodies read in the ring (issue 26): the body of a whole
 * frame of KEEP_MIN bytes or more is not copied out of the ring.  Its
 * record is kept in place (shm_ring_keep_whole) and its message reads it
 * there, as a lent first fragment (struct pvmi_lend, msg.h), until the
 * message lets go of it: then the record is freed (shm_ring_let_go).
 * A receive then copies such a body once, into the program's memory, and
 * a task that sends the received buffer on copies it from ring to ring.
 *
 * The producer has the kept records' room back only when they are freed,
 * so a program that keeps a received buffer must not stop the traffic
 * behind it.  The bodies a pipe lends are copied out, and their records
 * freed, whenever:
 *   - they hold back more than a quarter of the ring (shm.c, ring_take):
 *     the producer then always has room for its largest record once the
 *     consumer has read the rest;
 *   - the pipe takes any other record than a small whole frame (chunks,
 *     single-copy and lent records), whose producer may wait for the tail;
 *   - the ring goes (shm_close);
 *   - the process forks (the handler below, in the parent, before the
 *     fork): a child must not read records its parent frees.
 * A send of a lent message that may wait, and so read input meanwhile,
 * first gives the message its own copy (route.c): only the short way
 * (route.c's send_fast), which never waits, copies from the ring.
 */
#include <pthread.h>

#include "transport/shm_pipe.h"

/* Receiving pipes with a ring (shm_pipe.h): here, so that the fork
 * handler below walks them without importing from shm.c. */
struct shm_pipe *pvmi_shm_readers;

/* The lend's end (msg.h): the message let go of the body. */
static void keep_end(struct pvmi_lend *l)
{
	struct shm_keep *k = (struct shm_keep *)l;

	shm_ring_let_go(&k->s->ring, k->at);
}

/* Before a fork, in the parent: every body lent is copied out. */
static void fork_prepare(void)
{
	struct shm_pipe *s;

	for (s = pvmi_shm_readers; s; s = s->next_reader)
		pvmi_shm_keeps_out(s, 0);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static int fork_rc = -1;

static void fork_register(void)
{
	fork_rc = pthread_atfork(fork_prepare, NULL, NULL) ? -1 : 0;
}

/* Copies out the bodies pipe `s' lends and frees their records
 * (shm_pipe.h). */
void pvmi_shm_keeps_out(struct shm_pipe *s, int must)
{
	struct shm_keep *k;
	int i;

	for (i = 0; i < SHM_RING_KEEPS; i++) {
		k = &s->keeps[i];
		if (!k->lend.m)
			continue;
		if (pvmi_msg_unlend(k->lend.m, must) == 0 || must)
			shm_ring_let_go(&s->ring, k->at);
	}
}

/* A free keep of pipe `s' (shm_pipe.h). */
struct shm_keep *pvmi_shm_keep_slot(struct shm_pipe *s)
{
	int i;

	pthread_once(&fork_once, fork_register);
	if (fork_rc)
		return NULL;
	for (i = 0; i < SHM_RING_KEEPS; i++) {
		if (s->keeps[i].lend.m)
			continue;
		s->keeps[i].s = s;
		s->keeps[i].lend.end = keep_end;
		return &s->keeps[i];
	}
	return NULL;
}

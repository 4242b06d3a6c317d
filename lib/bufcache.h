/*
 * bufcache.h - the one owner of message body memory (bufcache.c).
 *
 * Every buffer that holds a message body, or a part of one, comes from
 * here and goes back here: the fragments a pack appends to, a flattened
 * copy, a body read off a circuit (transport/stream.c) and handed up to
 * a message or a daemon reply.  Ownership moves with the pointer; who
 * holds it last gives it back with pvmi_buf_free().  Given-back buffers
 * are pooled by size class and reused (VCC; bounds and the idle shrink
 * are described at the top of bufcache.c).  A body lent by a peer's
 * export heap (bufheap.h) passes through these calls too: freeing it
 * gives the loan back, and it has no room beyond its length.
 */
#ifndef COPVM_BUFCACHE_H
#define COPVM_BUFCACHE_H

#include <stddef.h>

/* A body buffer of at least `n' bytes (n may be 0); NULL when out of
 * memory. */
void *pvmi_buf_alloc(size_t n);
/* How many freed buffers a pool of one class up to 64 KiB keeps.  A
 * reader that moves at most this many messages out of its pipes before
 * the program takes them recycles their buffers without malloc. */
#define PVMI_BUF_POOL_MAX	16

/* Resizes body buffer `p' (NULL: a new one) to `n' bytes, keeping its
 * contents; NULL when out of memory, `p' then being left as it was. */
void *pvmi_buf_realloc(void *p, size_t n);
/* Gives body buffer `p' back; NULL is ignored. */
void pvmi_buf_free(void *p);

/* A frame's declared length is only a claim until its bytes arrive (issue
 * 15: a crafted header declaring 1 GiB, then nothing): the body buffer of
 * a frame longer than PVMI_BODY_EAGER starts at that size and grows
 * (doubling, never past the declared length) as its bytes arrive. */
#define PVMI_BODY_EAGER		(4UL << 20)
/* The first body buffer of a frame of `len' bytes, `have' of them at
 * hand; NULL when out of memory. */
void *pvmi_buf_body_start(size_t len, size_t have);
/* Makes body `p' of a `len'-byte frame, `got' bytes filled, hold `want'
 * more (within `len'); the buffer, maybe moved, or NULL when out of
 * memory (`p' then left as it was). */
void *pvmi_buf_body_room(void *p, size_t got, size_t want, size_t len);

/* Body buffers handed out and not given back. */
long pvmi_buf_live(void);
/* Body buffers handed out since the process started (a realloc of an
 * existing buffer does not count). */
unsigned long pvmi_buf_allocs(void);

/* Body buffers that came from the heap rather than from a pool. */
unsigned long pvmi_buf_heap_allocs(void);
/* Usable bytes of body buffer `p' (at least what was asked for). */
size_t pvmi_buf_cap(void *p);

/* 1 when virtual circuit caching is on (COPVM_VCC not 0): the pools here,
 * the message objects kept by msg.c, the prebuilt headers of route.c. */
int pvmi_vcc_enabled(void);
/* For tests: sets the switch and the idle interval in ms (<= 0: the
 * default), and empties the pools. */
void pvmi_bufcache_setup(int on, long idle_ms);
/* Empties every pool into the heap. */
void pvmi_bufcache_trim(void);
/* Bytes held in the pools now. */
long pvmi_bufcache_bytes(void);

#endif /* COPVM_BUFCACHE_H */

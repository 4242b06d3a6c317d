/*
 * bufcache.c - the one owner of message body memory.
 *
 * Today a body buffer is a plain heap block and this file counts them;
 * being the single place they come from and go back to is what lets the
 * cached packet buffers of issue 11 (per-destination pools with prebuilt
 * headers, reused without malloc/free, shrunk when idle) replace the heap
 * later without touching the message layer.  Those pools are not built:
 * nothing is cached yet.
 *
 * The counters are atomic, so a buffer may be freed on another thread
 * than the one that made it.
 */
#include <stdlib.h>

#include "bufcache.h"

static long live;
static unsigned long allocs;

/* A body buffer of at least `n' bytes (bufcache.h). */
void *pvmi_buf_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p) {
		__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
	}
	return p;
}

/* Resizes body buffer `p', or makes one (bufcache.h). */
void *pvmi_buf_realloc(void *p, size_t n)
{
	if (!p)
		return pvmi_buf_alloc(n);
	return realloc(p, n ? n : 1);
}

/* Gives body buffer `p' back (bufcache.h). */
void pvmi_buf_free(void *p)
{
	if (!p)
		return;
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	free(p);
}

/* Body buffers not given back (bufcache.h). */
long pvmi_buf_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

/* Body buffers handed out so far (bufcache.h). */
unsigned long pvmi_buf_allocs(void)
{
	return __atomic_load_n(&allocs, __ATOMIC_RELAXED);
}

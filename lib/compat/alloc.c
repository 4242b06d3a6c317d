/*
 * alloc.c - stock's allocation exports.  Stock routes its allocations
 * through a checking allocator (i_malloc and friends); copvm's are plain
 * malloc wrappers, so memory from either family may be released by the
 * other.  pvm_alloc and pvm_realloc log a line when memory runs out.
 */
#include <stdio.h>
#include <stdlib.h>

#include "compat/log.h"
#include "pvmi.h"

/* Allocates `n' bytes (at least one, so NULL always means failure).
 * Returns the block or NULL. */
PVMI_EXPORT char *i_malloc(unsigned n)
{
	return malloc(n ? n : 1);
}

/* Frees a block from i_malloc()/i_realloc(); NULL is ignored.
 * Always returns 0. */
PVMI_EXPORT int i_free(char *p)
{
	free(p);
	return 0;
}

/* Resizes block `p' (NULL: a new block) to `n' bytes.
 * Returns the block or NULL, leaving `p' intact on failure. */
PVMI_EXPORT char *i_realloc(char *p, unsigned n)
{
	if (!p)
		return i_malloc(n);
	return realloc(p, n ? n : 1);
}

/* Would print the checking allocator's heap; copvm keeps no such heap.
 * Prints nothing and returns 0. */
PVMI_EXPORT int i_dump(int how)
{
	return 0;
}

/* Called by stock's allocator on a corrupt heap: reports and aborts.
 * Does not return. */
PVMI_EXPORT void i_choke(void)
{
	fputs("libpvm: heap corruption detected, aborting\n", stderr);
	abort();
}

/* Allocates `n' bytes, logging a line when memory is exhausted.
 * Returns the block or NULL. */
PVMI_EXPORT char *pvm_alloc(unsigned n)
{
	char *p = i_malloc(n);

	if (!p)
		pvmlogprintf("pvm_alloc(): no memory for %u bytes\n", n);
	return p;
}

/* Resizes a pvm_alloc() block, logging a line on failure.
 * Returns the block or NULL (the old block then stays valid). */
PVMI_EXPORT char *pvm_realloc(char *p, unsigned n)
{
	char *q = i_realloc(p, n);

	if (!q)
		pvmlogprintf("pvm_realloc(): no memory for %u bytes\n", n);
	return q;
}

/* Releases a pvm_alloc() block.
 * Always returns 0. */
PVMI_EXPORT int pvm_free(char *p)
{
	return i_free(p);
}

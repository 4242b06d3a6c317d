/*
 * contexts.c - the message contexts this daemon hands out
 * (pvm_newcontext, pvm_freecontext).
 *
 * A context looks like a tid of this host (dtid | n, n counting up from 1
 * and wrapping at PVMI_TID_LOCAL_MASK, skipping numbers in use), so
 * contexts stay unique across hosts.  Each belongs to the task that asked
 * for it and goes when it is freed or its owner leaves.  The contexts in
 * use are kept in a hash table by number, so a new one, or a freed one,
 * costs the same however many are allocated (issue 15: the cost grew
 * with their number).
 */
#include <stdlib.h>

#include "pvmd.h"

#define CTX_BUCKETS	4096	/* a power of two */

struct ctx_ent {
	struct ctx_ent *next;
	int ctx;
	int owner;
};

static struct ctx_ent *buckets[CTX_BUCKETS];
static int next_ctx = 1;

static struct ctx_ent **bucket_of(int ctx)
{
	return &buckets[(unsigned)ctx & (CTX_BUCKETS - 1)];
}

static int in_use(int ctx)
{
	struct ctx_ent *e;

	for (e = *bucket_of(ctx); e; e = e->next)
		if (e->ctx == ctx)
			return 1;
	return 0;
}

/* Allocates a context for `owner' (pvmd.h). */
int pvmd_ctx_new(int owner)
{
	struct ctx_ent *e, **b;
	int i, ctx;

	for (i = 0; i < PVMI_TID_LOCAL_MASK; i++) {
		ctx = pvmd.dtid | next_ctx;
		if (++next_ctx > PVMI_TID_LOCAL_MASK)
			next_ctx = 1;
		if (in_use(ctx))
			continue;
		e = malloc(sizeof(*e));
		if (!e)
			return PvmNoMem;
		b = bucket_of(ctx);
		e->ctx = ctx;
		e->owner = owner;
		e->next = *b;
		*b = e;
		return ctx;
	}
	return PvmOutOfRes;
}

/* Frees context `ctx' (pvmd.h). */
int pvmd_ctx_free(int ctx)
{
	struct ctx_ent **pp, *e;

	for (pp = bucket_of(ctx); (e = *pp); pp = &e->next) {
		if (e->ctx == ctx) {
			*pp = e->next;
			free(e);
			return PvmOk;
		}
	}
	return PvmNotFound;
}

/* Frees every context of task `owner' (pvmd.h). */
void pvmd_ctx_free_owner(int owner)
{
	struct ctx_ent **pp, *e;
	int i;

	for (i = 0; i < CTX_BUCKETS; i++) {
		for (pp = &buckets[i]; (e = *pp);) {
			if (e->owner == owner) {
				*pp = e->next;
				free(e);
			} else {
				pp = &e->next;
			}
		}
	}
}

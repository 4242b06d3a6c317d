/*
 * gs_db.c - the group server's table: groups, members, instance
 * numbers, and the barriers and freezes in progress.
 *
 * A group is made by its first join and goes with its last member.  A
 * member's instance is the lowest one free when it joins; a leave or an
 * exit frees it.  A barrier (or freeze) opens with its first arrival,
 * whose count (-1: the group's size at that moment) every later arrival
 * must repeat (or pass -1 when that is the group's size), else it gets
 * PvmMismatch and is not counted.  It completes when that many members
 * have arrived, and the server releases them all with one multicast.
 *
 * A member that leaves or dies while a barrier of its dynamic group is
 * open no longer counts as arrived.  If the barrier needed every member
 * there was, its count drops to the number left, so the others are
 * released once every remaining member has arrived instead of waiting
 * forever; a barrier waiting for fewer members, or for members still to
 * join, keeps its count.
 * A static (frozen) group that loses a member is broken, as the
 * pvm_freezegroup man page describes: its waiters are released with
 * PvmNoGroup and later barriers get the same.
 */
#include <stdlib.h>
#include <string.h>

#include "gs.h"
#include "pvm3.h"

#define NBUCKETS	256

static struct gs_group *buckets[NBUCKETS];

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % NBUCKETS;
}

struct gs_group *gs_find(const char *name)
{
	struct gs_group *g;

	for (g = buckets[hash(name)]; g; g = g->next)
		if (!strcmp(g->name, name))
			return g;
	return NULL;
}

int gs_inst_of(const struct gs_group *g, int tid)
{
	int i;

	if (tid <= 0)
		return -1;
	for (i = 0; i < g->nslots; i++)
		if (g->slots[i] == tid)
			return i;
	return -1;
}

static struct gs_group *create(const char *name)
{
	struct gs_group *g = calloc(1, sizeof(*g));
	unsigned h = hash(name);

	if (!g || !(g->name = strdup(name))) {
		free(g);
		return NULL;
	}
	g->next = buckets[h];
	buckets[h] = g;
	return g;
}

static void destroy(struct gs_group *g)
{
	struct gs_group **pp = &buckets[hash(g->name)];

	while (*pp && *pp != g)
		pp = &(*pp)->next;
	if (*pp)
		*pp = g->next;
	free(g->name);
	free(g->slots);
	free(g->barrier.w);
	free(g->freeze.w);
	free(g->watchers);
	free(g);
}

/* Grows an int array to hold at least `need' elements. */
static int grow(int **a, int *cap, int need)
{
	int ncap = *cap ? *cap : 8, *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*a, (size_t)ncap * sizeof(int));
	if (!n)
		return -1;
	memset(n + *cap, 0, (size_t)(ncap - *cap) * sizeof(int));
	*a = n;
	*cap = ncap;
	return 0;
}

int gs_join(const char *name, int tid)
{
	struct gs_group *g = gs_find(name);
	int i;

	if (!g && !(g = create(name)))
		return PvmNoMem;
	if (g->frozen)
		return PvmNotInGroup;	/* stock's answer for a static group */
	if (gs_inst_of(g, tid) >= 0)
		return PvmDupGroup;
	for (i = 0; i < g->nslots && g->slots[i]; i++)
		;
	if (i == g->nslots) {
		if (grow(&g->slots, &g->cap, i + 1) < 0) {
			if (g->nmembers == 0)
				destroy(g);
			return PvmNoMem;
		}
		g->nslots++;
	}
	g->slots[i] = tid;
	g->nmembers++;
	gs_send_inval(g, tid);
	return i;
}

/* Drops `tid' from the waiters of `s'. */
static void withdraw(struct gs_sync *s, int tid)
{
	int i;

	for (i = 0; i < s->n; i++) {
		if (s->w[i].tid == tid) {
			s->w[i] = s->w[--s->n];
			return;
		}
	}
}

/* Releases the waiters of `s' once enough have arrived. */
static void settle(struct gs_group *g, struct gs_sync *s)
{
	if (s->n == 0 || s->n < s->need)
		return;
	if (s == &g->freeze) {
		/* Copies fetched before are not marked static: refetch. */
		gs_send_inval(g, 0);
		g->frozen = 1;
		gs_send_release(g, s, g->nmembers, 1);
	} else {
		gs_send_release(g, s, PvmOk, 0);
	}
}

/* Member at `inst' leaves (died: it exited without leaving). */
static void depart(struct gs_group *g, int inst, int died)
{
	int tid = g->slots[inst];

	g->slots[inst] = 0;
	while (g->nslots > 0 && g->slots[g->nslots - 1] == 0)
		g->nslots--;
	g->nmembers--;
	/* Lower only counts this member was needed for. */
	if (g->barrier.n && g->barrier.need == g->nmembers + 1)
		g->barrier.need = g->nmembers;
	if (g->freeze.n && g->freeze.need == g->nmembers + 1)
		g->freeze.need = g->nmembers;
	withdraw(&g->barrier, tid);
	withdraw(&g->freeze, tid);
	if (g->nmembers == 0) {
		gs_send_inval(g, died ? 0 : tid);
		destroy(g);
		return;
	}
	if (g->frozen) {
		/* Copies of a static group are kept as they were. */
		g->broken = 1;
		if (g->barrier.n)
			gs_send_release(g, &g->barrier, PvmNoGroup, 0);
		return;
	}
	gs_send_inval(g, died ? 0 : tid);
	settle(g, &g->barrier);
	settle(g, &g->freeze);
}

int gs_leave(const char *name, int tid)
{
	struct gs_group *g = gs_find(name);
	int inst;

	if (!g)
		return PvmNoGroup;
	inst = gs_inst_of(g, tid);
	if (inst < 0)
		return PvmNotInGroup;
	depart(g, inst, 0);
	return PvmOk;
}

void gs_task_gone(int tid)
{
	struct gs_group *g, *next;
	int b, inst, i;

	for (b = 0; b < NBUCKETS; b++) {
		for (g = buckets[b]; g; g = next) {
			next = g->next;
			for (i = 0; i < g->nwatch; i++)
				if (g->watchers[i] == tid)
					g->watchers[i--] = g->watchers[--g->nwatch];
			inst = gs_inst_of(g, tid);
			if (inst >= 0)
				depart(g, inst, 1);
		}
	}
}

/* The checks and bookkeeping barriers and freezes share. */
static int arrive(struct gs_group *g, struct gs_sync *s, int tid,
		  int serial, int count)
{
	int i, value = count == -1 ? g->nmembers : count;

	if (value < 1)
		return PvmBadParam;
	if (s->n == 0) {
		s->given = count;
		s->need = value;
	} else if (count != s->given && value != s->need) {
		return PvmMismatch;
	}
	for (i = 0; i < s->n; i++) {
		if (s->w[i].tid == tid) {
			/* Called again after giving up waiting. */
			s->w[i].serial = serial;
			return PvmOk;
		}
	}
	if (s->n == s->cap) {
		int ncap = s->cap ? 2 * s->cap : 8;
		struct gs_waiter *w = realloc(s->w, ncap * sizeof(*w));

		if (!w)
			return PvmNoMem;
		s->w = w;
		s->cap = ncap;
	}
	s->w[s->n].tid = tid;
	s->w[s->n].serial = serial;
	s->n++;
	settle(g, s);
	return PvmOk;
}

int gs_barrier(const char *name, int tid, int serial, int count)
{
	struct gs_group *g = gs_find(name);

	if (!g)
		return PvmNoGroup;
	if (gs_inst_of(g, tid) < 0)
		return PvmNotInGroup;
	if (g->broken)
		return PvmNoGroup;
	return arrive(g, &g->barrier, tid, serial, count);
}

int gs_freeze(const char *name, int tid, int serial, int size)
{
	struct gs_group *g = gs_find(name);

	if (!g)
		return PvmNoGroup;
	if (gs_inst_of(g, tid) < 0)
		return PvmNotInGroup;
	if (g->frozen)
		return PvmDupGroup;
	return arrive(g, &g->freeze, tid, serial, size);
}

int gs_watch(struct gs_group *g, int tid)
{
	int i;

	for (i = 0; i < g->nwatch; i++)
		if (g->watchers[i] == tid)
			return PvmOk;
	if (grow(&g->watchers, &g->wcap, g->nwatch + 1) < 0)
		return PvmNoMem;
	g->watchers[g->nwatch++] = tid;
	return PvmOk;
}

static void dump_sync(FILE *f, const char *what, const struct gs_sync *s)
{
	int i;

	if (s->n == 0)
		return;
	fprintf(f, "  %s: %d of %d arrived:", what, s->n, s->need);
	for (i = 0; i < s->n; i++)
		fprintf(f, " t%x", (unsigned)s->w[i].tid);
	fprintf(f, "\n");
}

void gs_dump(FILE *f, int mytid)
{
	struct gs_group *g;
	int b, i, n = 0;

	for (b = 0; b < NBUCKETS; b++)
		for (g = buckets[b]; g; g = g->next)
			n++;
	fprintf(f, "pvmgs t%x: %d group%s\n", (unsigned)mytid, n,
		n == 1 ? "" : "s");
	for (b = 0; b < NBUCKETS; b++) {
		for (g = buckets[b]; g; g = g->next) {
			fprintf(f, "group \"%s\": %d member%s%s%s\n", g->name,
				g->nmembers, g->nmembers == 1 ? "" : "s",
				g->frozen ? ", static" : "",
				g->broken ? ", broken" : "");
			for (i = 0; i < g->nslots; i++)
				if (g->slots[i])
					fprintf(f, "  %d t%x\n", i,
						(unsigned)g->slots[i]);
			dump_sync(f, "barrier", &g->barrier);
			dump_sync(f, "freeze", &g->freeze);
		}
	}
	fflush(f);
}

/*
 * gs.h - internals of the group server pvmgs: the group table (gs_db.c)
 * and the messages the table asks the server loop to send (pvmgs.c).
 */
#ifndef COPVM_GS_H
#define COPVM_GS_H

#include <stdio.h>

/* A task blocked in pvm_barrier or pvm_freezegroup: the request's serial
 * goes back with the release so the task knows it is its answer. */
struct gs_waiter {
	int tid;
	int serial;
};

/* A barrier or freeze in progress: n tasks have arrived and it completes
 * at `need'.  `given' is the count the first arrival passed (-1 or n);
 * `need' starts as its value and may drop when members go (gs_db.c).
 * n == 0 means none is in progress and the counts mean nothing. */
struct gs_sync {
	int given;
	int need;
	int n, cap;
	struct gs_waiter *w;
};

struct gs_group {
	struct gs_group *next;		/* hash chain */
	char *name;
	int *slots;			/* tid by instance, 0 = free */
	int nslots, cap;
	int nmembers;
	int frozen;			/* static since pvm_freezegroup */
	int broken;			/* static and a member left or died */
	struct gs_sync barrier;
	struct gs_sync freeze;
	int *watchers;			/* tasks holding a copy of slots */
	int nwatch, wcap;
};

/* The group called `name', or NULL. */
struct gs_group *gs_find(const char *name);
/* Instance of `tid' in `g', or -1. */
int gs_inst_of(const struct gs_group *g, int tid);

/* Adds `tid' to group `name' (made if new) at the lowest free instance;
 * returns it, or PvmDupGroup, PvmNotInGroup (frozen group), PvmNoMem. */
int gs_join(const char *name, int tid);
/* Takes `tid' out of group `name'; PvmOk, PvmNoGroup or PvmNotInGroup. */
int gs_leave(const char *name, int tid);
/* Takes a task that exited out of every group and every pending sync. */
void gs_task_gone(int tid);

/* Records task `tid' (request `serial') arriving at a barrier of `count'
 * (-1: the group's size now) of group `name'.  PvmOk when it now waits
 * (or was released at once), else the error to answer right away:
 * PvmNoGroup, PvmNotInGroup, PvmMismatch, PvmBadParam, PvmNoMem. */
int gs_barrier(const char *name, int tid, int serial, int count);
/* The same for pvm_freezegroup(name, size); PvmDupGroup when the group
 * is static already.  Completion makes the group static. */
int gs_freeze(const char *name, int tid, int serial, int size);
/* Adds `tid' to the tasks told when `g' changes; PvmOk or PvmNoMem. */
int gs_watch(struct gs_group *g, int tid);

/* Prints every group, its members and pending syncs on `f'. */
void gs_dump(FILE *f, int mytid);

/* Provided by pvmgs.c.  Tells every waiter of `s' the outcome `status',
 * with the member table when `table' is set, and empties `s'. */
void gs_send_release(struct gs_group *g, struct gs_sync *s, int status,
		     int table);
/* Tells the watchers of `g' but `except' that their copy is stale and
 * forgets them. */
void gs_send_inval(struct gs_group *g, int except);

#endif /* COPVM_GS_H */

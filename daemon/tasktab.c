/*
 * tasktab.c - the task table and task ids.
 *
 * Tids of this host are dtid | n with n counting up from 1 and wrapping
 * at PVMI_TID_LOCAL_MASK, skipping tids in use, so a tid is reused only
 * after the whole space went round.  The table is sorted by tid.  It is a
 * leaf that every module reads: it calls nothing above it, and tells the
 * coscheduling modules of a task entering (or a spawn's task leaving
 * unstarted) through the hooks wiring.c gives it.  Registration, exit
 * and the task leaving for good are tasks.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "pvmd.h"

static struct pvmd_task *tasks;		/* sorted by tid */
static int ntasks;
static int next_local = 1;

static const struct pvmd_task_hooks *hooks;

/* Gives the table the functions it calls when a task enters or is
 * discarded (wiring.c, before anything else runs). */
void pvmd_task_set_hooks(const struct pvmd_task_hooks *h)
{
	hooks = h;
}

/* Returns the task with tid `tid', or NULL. */
struct pvmd_task *pvmd_task_find(int tid)
{
	struct pvmd_task *t;

	for (t = tasks; t && t->tid <= tid; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

/* Returns a task whose process is `pid', or NULL. */
struct pvmd_task *pvmd_task_by_pid(pid_t pid)
{
	struct pvmd_task *t;

	if (pid <= 0)
		return NULL;
	for (t = tasks; t; t = t->next)
		if (t->pid == pid)
			return t;
	return NULL;
}

/* First task of the table (sorted by tid), for iteration via ->next. */
struct pvmd_task *pvmd_task_first(void)
{
	return tasks;
}

/* Number of tasks in the table. */
int pvmd_task_count(void)
{
	return ntasks;
}

static int alloc_tid(void)
{
	int i, tid;

	for (i = 0; i < PVMI_TID_LOCAL_MASK; i++) {
		tid = pvmd.dtid | next_local;
		if (++next_local > PVMI_TID_LOCAL_MASK)
			next_local = 1;
		if (!pvmd_task_find(tid))
			return tid;
	}
	return 0;
}

/* Creates a task under a fresh tid; NULL when out of tids or memory. */
struct pvmd_task *pvmd_task_new(pid_t pid, const char *aout, int flags)
{
	struct pvmd_task *t, **pp;
	int tid = alloc_tid();

	if (!tid) {
		pvmd_log("out of task ids");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->aout = strdup(aout ? aout : "");
	if (!t->aout) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->pid = pid;
	t->flags = flags;
	for (pp = &tasks; *pp && (*pp)->tid < tid; pp = &(*pp)->next)
		;
	t->next = *pp;
	*pp = t;
	ntasks++;
	hooks->added();
	return t;
}

/* Takes `t' out of the table (tasks.c, when it is gone). */
void pvmd_task_unlink(struct pvmd_task *t)
{
	struct pvmd_task **pp;

	for (pp = &tasks; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			ntasks--;
			return;
		}
	}
}

static void free_held(struct pvmd_task *t)
{
	struct pvmd_held *h;

	while ((h = t->held)) {
		t->held = h->next;
		free(h);
	}
	t->held_tail = NULL;
}

/* Frees what `t' holds and `t' itself, once it is out of the table. */
void pvmd_task_free(struct pvmd_task *t)
{
	free_held(t);
	free(t->aout);
	free(t->sibs);
	free(t);
}

/* Keeps a message for a task that has not registered yet. */
int pvmd_task_hold(struct pvmd_task *t, const struct pvmi_frame *f,
		   const void *body, size_t len)
{
	struct pvmd_held *h = malloc(sizeof(*h) + len);

	if (!h)
		return -1;
	h->next = NULL;
	h->f = *f;
	h->len = len;
	if (len)
		memcpy(h->body, body, len);
	if (!t->held_tail)
		t->held_tail = &t->held;
	*t->held_tail = h;
	t->held_tail = &h->next;
	return 0;
}

/* Builds the path of a task's socket into `buf'; 0, or -1 if too long
 * for a sockaddr_un. */
int pvmd_task_sockpath(int tid, char *buf, size_t size)
{
	struct sockaddr_un sa;
	int n;

	n = snprintf(buf, size, "%s/" PVMI_TASK_SOCK_FMT, pvmd.sessdir,
		     (unsigned)tid);
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof(sa.sun_path))
		return -1;
	return 0;
}

/* Removes the socket of task `tid' (it is gone). */
void pvmd_task_unlink_sock(int tid)
{
	char path[4200];

	if (pvmd_task_sockpath(tid, path, sizeof(path)) == 0 &&
	    unlink(path) < 0 && errno != ENOENT)
		pvmd_log("cannot remove %s: %s", path, strerror(errno));
}

/* Frees a task that never ran (spawn failure), with no side effects. */
void pvmd_task_discard(struct pvmd_task *t)
{
	pvmd_task_unlink(t);
	hooks->discarded(t->tid);
	pvmd_task_free(t);
}

/* Unlinks the sockets of every task still in the table (at exit). */
void pvmd_task_unlink_all(void)
{
	struct pvmd_task *t;

	for (t = tasks; t; t = t->next)
		pvmd_task_unlink_sock(t->tid);
}

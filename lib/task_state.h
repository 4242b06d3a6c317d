/*
 * task_state.h - the task's identity and options (struct pvmi_state, one
 * instance per process), whether this process is the enrolled one
 * (task_state.c), and the shape of a task's tid.  A leaf: every part
 * of libpvm3 may read it; task.c and the option calls write it.
 */
#ifndef COPVM_TASK_STATE_H
#define COPVM_TASK_STATE_H

#include <sys/types.h>

#include "proto.h"
#include "pvm3.h"

/* The task's identity and options; one instance per process. */
struct pvmi_state {
	int mytid;		/* 0 until attached to the daemon */
	int ptid;		/* parent's tid, or PvmNoParent */
	int dtid;		/* our daemon's tid */
	int ctx;		/* current context */
	int autoerr;		/* PvmAutoErr: 0 off, 1 print, 2 print+exit */
	int debugmask;
	int route;		/* PvmRoute value */
	int fragsize;
	int resvtids;
	int showtids;
	int polltype;
	int polltime;
	int noreset;
	int outtid, outcode, outctx;		/* for our children */
	int trctid, trccode, trcctx;		/* for our children */
	int selfouttid, selfoutcode, selfoutctx; /* given by our parent */
	int selftrctid, selftrccode, selftrcctx;
	int *sibs;		/* siblings as given to one pvm_spawn */
	int nsibs;
	int pid;		/* pid recorded at attach time */
	int enrolled;		/* enrolled, by us or the process we forked
				 * from (pid says which) */
};

/* The library's globals are declared hidden, as they are defined
 * (-fvisibility=hidden): read directly, not through the GOT. */
#define PVMI_HIDDEN __attribute__((visibility("hidden")))

extern struct pvmi_state pvmi PVMI_HIDDEN;

/* How to leave the machine (pvm_exit), for the parts below task.c that
 * must (errors.c under PvmAutoErr 2); set by task.c, NULL before. */
extern int (*pvmi_leave)(void) PVMI_HIDDEN;

/* This process's pid; a system call only the first time and after a
 * fork (glibc does not cache getpid()). */
pid_t pvmi_self_pid(void);

/* Non-zero when this process is the one that enrolled (a forked child
 * of an enrolled task is not). */
int pvmi_attached(void);

/* Non-zero only while pvmi_attached() is known true without asking:
 * set by pvmi_note_attached(1), cleared by pvmi_note_attached(0) and
 * in the child of a fork.  Zero says nothing (ask pvmi_attached()). */
extern int pvmi_here PVMI_HIDDEN;

/* Notes that this process has just enrolled (1) or left (0), for
 * pvmi_here; a 1 counts only when a fork is sure to clear it. */
void pvmi_note_attached(int on);

/* PvmOk when `tid' has the shape of a task id (positive, with a host
 * part and a task part), else PvmBadParam.  Inline: the probe asks it
 * of every message received. */
static inline int pvmi_check_task_tid(int tid)
{
	if (tid <= 0 || PVMI_TID_LOCAL(tid) == 0 || PVMI_TID_HOST(tid) == 0)
		return PvmBadParam;
	return PvmOk;
}

#endif /* COPVM_TASK_STATE_H */

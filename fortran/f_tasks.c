/*
 * f_tasks.c - Fortran binding: enrolment, spawning, signals, task lists,
 * notification and output collection.
 *
 * C routines that return an array (pvm_siblings, pvm_tasks) have Fortran
 * forms that return one element per call.  pvmfsiblings reads the sibling
 * list by index; pvmftasks keeps a snapshot of the task list and hands out
 * one task per call, taking a new snapshot once the whole list has been
 * returned or when called with ntask = -1, as PVM 3.4.6's binding does.
 */
#include <stdio.h>
#include "fpvm.h"

/* pvmfmytid(tid): enrols the task if needed; tid gets its task id (or
 * an error code). */
FPVM_EXPORT void pvmfmytid_(int *tid)
{
	*tid = pvm_mytid();
}

/* pvmfparent(tid): the tid of the task that spawned this one, or
 * PvmNoParent. */
FPVM_EXPORT void pvmfparent_(int *tid)
{
	*tid = pvm_parent();
}

/* pvmfexit(info): leaves the virtual machine; the process goes on (it
 * should stop soon after). */
FPVM_EXPORT void pvmfexit_(int *info)
{
	*info = pvm_exit();
}

/* pvmfspawn(task, flag, where, ntask, tids, numt): starts ntask copies of
 * task; where '*' (or anything starting with '*') means anywhere. */
FPVM_EXPORT void pvmfspawn_(char *task, int *flag, char *where, int *ntask,
			    int *tids, int *numt, size_t tasklen,
			    size_t wherelen)
{
	char ctask[FPVM_NAMELEN + 1];
	char cwhere[FPVM_NAMELEN + 1];

	if (fpvmi_fstr_in(ctask, sizeof(ctask), task, tasklen)) {
		*numt = PvmBadParam;
		return;
	}
	/* "*" is the Fortran spelling of "no particular host"; like PVM
	 * 3.4.6, pass an empty name rather than NULL */
	if (wherelen > 0 && where[0] == '*')
		cwhere[0] = '\0';
	else if (fpvmi_fstr_in(cwhere, sizeof(cwhere), where, wherelen)) {
		*numt = PvmBadParam;
		return;
	}
	*numt = pvm_spawn(ctask, NULL, *flag, cwhere, *ntask, tids);
}

/* pvmfkill(tid, info): kills task tid (not the caller: use pvmfexit and
 * stop for that). */
FPVM_EXPORT void pvmfkill_(int *tid, int *info)
{
	*info = pvm_kill(*tid);
}

/* pvmfsendsig(tid, signum, info): sends Unix signal signum to task tid.
 * info is 0 or an error code. */
FPVM_EXPORT void pvmfsendsig_(int *tid, int *signum, int *info)
{
	*info = pvm_sendsig(*tid, *signum);
}

/* pvmfpstat(tid, status): PvmOk if task tid runs, PvmNoTask if not, or
 * another error code. */
FPVM_EXPORT void pvmfpstat_(int *tid, int *status)
{
	*status = pvm_pstat(*tid);
}

/* pvmfsiblings(ntids, index, sibling): ntids gets the number of tasks
 * spawned together with this one, sibling the tid at index (0-based), or
 * PvmNoTask if index is out of range (negative included, as in 3.4.6). */
FPVM_EXPORT void pvmfsiblings_(int *ntids, int *index, int *sibling)
{
	int *tids = NULL;
	int n = pvm_siblings(&tids);

	if (ntids)
		*ntids = n;
	if (!index || !sibling)
		return;
	if (*index < 0 || *index >= n || !tids)
		*sibling = PvmNoTask;
	else
		*sibling = tids[*index];
}

/* The task list pvmftasks hands out: taken by pvm_tasks, valid until the
 * next pvm_tasks call. */
static struct {
	struct pvmtaskinfo *list;
	int count;		/* 0: no snapshot, take one */
	int next;		/* index of the task to return next */
} tasks_snap;

/* pvmftasks(where, ntask, tid, ptid, dtid, flag, aout, info): one task
 * per call out of pvm_tasks(where); info is 1 when a task is returned, an
 * error code otherwise.  ntask = -1 on entry restarts the list. */
FPVM_EXPORT void pvmftasks_(int *where, int *ntask, int *tid, int *ptid,
			    int *dtid, int *flag, char *aout, int *info,
			    size_t aoutlen)
{
	struct pvmtaskinfo *t;

	if (ntask && *ntask == -1)
		tasks_snap.count = 0;
	if (tasks_snap.count == 0) {
		int n = 0, rc = pvm_tasks(where ? *where : 0, &n,
					  &tasks_snap.list);

		if (rc < 0) {
			*info = rc;
			return;
		}
		tasks_snap.count = n;
		tasks_snap.next = 0;
		if (n <= 0) {
			if (ntask)
				*ntask = 0;
			*info = PvmOk;
			tasks_snap.count = 0;
			return;
		}
	}
	t = &tasks_snap.list[tasks_snap.next];
	if (ntask)
		*ntask = tasks_snap.count;
	if (tid)
		*tid = t->ti_tid;
	if (ptid)
		*ptid = t->ti_ptid;
	if (dtid)
		*dtid = t->ti_host;
	if (flag)
		*flag = t->ti_flag;
	if (aout)
		fpvmi_fstr_out(aout, aoutlen, t->ti_a_out);
	*info = 1;
	/* after the last task, the next call takes a fresh snapshot */
	if (++tasks_snap.next >= tasks_snap.count)
		tasks_snap.count = 0;
}

/* pvmftidtohost(tid, dtid): the tid of the pvmd on task tid's host (the
 * man page calls it pvmftidtoh; the library symbol is this one). */
FPVM_EXPORT void pvmftidtohost_(int *tid, int *dtid)
{
	*dtid = pvm_tidtohost(*tid);
}

/* pvmfnotify(what, msgtag, cnt, tids, info): asks for a message tagged
 * msgtag when one of the cnt tasks or hosts in tids exits (or a host is
 * added, with what = PVMHOSTADD). */
FPVM_EXPORT void pvmfnotify_(int *what, int *msgtag, int *cnt, int *tids,
			     int *info)
{
	*info = pvm_notify(*what, *msgtag, *cnt, tids);
}

/* pvmfcatchout(onoff, info): non-zero onoff copies the output of tasks
 * spawned from now on to this task's standard output; 0 stops that. */
FPVM_EXPORT void pvmfcatchout_(int *onoff, int *info)
{
	*info = pvm_catchout(*onoff ? stdout : NULL);
}

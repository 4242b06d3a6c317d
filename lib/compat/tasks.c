/*
 * tasks.c - stock's task-level entry points: enrolling and leaving with
 * stock's globals kept up to date (pvmbeatask, pvmendtask), naming the
 * task before it enrols, and the console's reset (the tasks that asked
 * to survive it, and the kill of the others).
 */
#include <stdlib.h>
#include <string.h>

#include "compat/compat.h"
#include "proto.h"
#include "pvmi.h"
#include "task.h"

/* Enrols the caller if it is not yet (as any PVM call does) and publishes
 * its identity in stock's globals.  Returns 0 or a negative error code. */
PVMI_EXPORT int pvmbeatask(void)
{
	int rc = pvmi_attach();

	pvmi_compat_sync();
	return rc;
}

/* Leaves the virtual machine as pvm_exit() does and resets stock's
 * globals.  Returns 0. */
PVMI_EXPORT int pvmendtask(void)
{
	pvm_exit();
	pvmi_compat_sync();
	return 0;
}

/* Names the task before it enrols (in pvmmytaskname).  Returns 0, or
 * PvmBadParam (NULL), PvmExists (already enrolled) or PvmNoMem. */
PVMI_EXPORT int pvmsettaskname(char *name)
{
	char *copy;

	if (!name)
		return pvmi_error("pvmsettaskname", PvmBadParam);
	if (pvmi_attached())
		return pvmi_error("pvmsettaskname", PvmExists);
	copy = strdup(name);
	if (!copy)
		return pvmi_error("pvmsettaskname", PvmNoMem);
	free(pvmmytaskname);
	pvmmytaskname = copy;
	return 0;
}

/* Points *tids (valid until the next call) at the *ntids tasks that asked
 * to survive a reset.  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_getnoresets(int **tids, int *ntids)
{
	/* They are the owners of entries in mailbox class PVMNORESETCLASS,
	 * which is how pvm_setopt(PvmNoReset) registers a task. */
	static int *list;
	static int cap;
	struct pvmmboxinfo *cl;
	int ncl, i, j, k, n = 0, rc;

	rc = pvm_getmboxinfo(PVMNORESETCLASS, &ncl, &cl);
	if (rc < 0)
		return rc;
	for (i = 0; i < ncl; i++) {
		if (strcmp(cl[i].mi_name, PVMNORESETCLASS))
			continue;
		if (n + cl[i].mi_nentries > cap) {
			int *grown = realloc(list, (n + cl[i].mi_nentries) *
						   sizeof(*list));

			if (!grown)
				return pvmi_error("pvm_getnoresets", PvmNoMem);
			list = grown;
			cap = n + cl[i].mi_nentries;
		}
		for (j = 0; j < cl[i].mi_nentries; j++) {
			int tid = cl[i].mi_owners[j];

			for (k = 0; k < n && list[k] != tid; k++)
				;
			if (tid > 0 && k == n)
				list[n++] = tid;
		}
	}
	if (tids)
		*tids = list;
	if (ntids)
		*ntids = n;
	return PvmOk;
}

/* The console's "reset": with `killtasks', kills all tasks but `mytid', the
 * caller and pvm_getnoresets()'s.  Returns 0 or pvm_tasks()' error. */
PVMI_EXPORT int pvmreset(int mytid, int killtasks, char *class, int index)
{
	/* Stock also has the pvmd wipe mailbox class `class' from `index'
	 * on; copvm's pvmd has no such request, so the mailbox stays. */
	struct pvmtaskinfo *ti;
	int *keep = NULL, nkeep = 0, ntask, i, k, rc;

	if (!killtasks)
		return 0;
	rc = pvm_tasks(0, &ntask, &ti);
	if (rc < 0)
		return rc;
	if (pvm_getnoresets(&keep, &nkeep) < 0)
		nkeep = 0;
	for (i = 0; i < ntask; i++) {
		int tid = ti[i].ti_tid;

		if (tid <= 0 || !PVMI_TID_LOCAL(tid) || tid == mytid ||
		    tid == pvmi.mytid)
			continue;
		for (k = 0; k < nkeep && keep[k] != tid; k++)
			;
		if (k == nkeep)
			pvm_kill(tid);
	}
	return 0;
}

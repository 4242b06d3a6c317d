/*
 * task_hooks.c - the registry of what each part of libpvm3 does when the
 * task enrols, forks, exits or has left (task_hooks.h).  Parts register
 * from their constructors, before main(); task.c runs the hooks of an
 * event at that moment.  A fixed table: registering allocates nothing
 * and cannot fail but by overflow, which a unit test would show.
 */
#include <stddef.h>

#include "task_hooks.h"

static void (*hooks[PVMI_TASK_NEVENTS][PVMI_TASK_HOOKS_MAX])(void);
static int nhooks[PVMI_TASK_NEVENTS];

/* Adds `fn' to the hooks of `event' (task_hooks.h). */
int pvmi_task_hook(enum pvmi_task_event event, void (*fn)(void))
{
	if ((unsigned)event >= PVMI_TASK_NEVENTS || !fn ||
	    nhooks[event] == PVMI_TASK_HOOKS_MAX)
		return -1;
	hooks[event][nhooks[event]++] = fn;
	return 0;
}

/* Runs the hooks of `event' (task_hooks.h). */
void pvmi_task_hooks_run(enum pvmi_task_event event)
{
	int i;

	if ((unsigned)event >= PVMI_TASK_NEVENTS)
		return;
	for (i = 0; i < nhooks[event]; i++)
		hooks[event][i]();
}

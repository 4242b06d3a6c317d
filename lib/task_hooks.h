/*
 * task_hooks.h - what the parts of libpvm3 do when the task joins or
 * leaves the machine (task_hooks.c).  A part that keeps per-enrolment
 * state (queues, indications, stock's globals) registers its own reset
 * here, usually from a constructor, so that task.c, which runs the
 * hooks, names none of the parts above it.
 */
#ifndef COPVM_TASK_HOOKS_H
#define COPVM_TASK_HOOKS_H

/* The moments task.c runs hooks at. */
enum pvmi_task_event {
	PVMI_TASK_ENROLLING,	/* about to contact the daemon (every
				 * enrolment, after a fork too) */
	PVMI_TASK_ENROLLED,	/* enrolled: the state holds our tid */
	PVMI_TASK_FORKED,	/* a forked child of an enrolled task is
				 * about to enrol on its own: its parent's
				 * circuits are closed already */
	PVMI_TASK_EXITING,	/* pvm_exit, before the task leaves */
	PVMI_TASK_LEFT,		/* left: circuits closed, state cleared */
	PVMI_TASK_NEVENTS
};

/* Most hooks one event takes. */
#define PVMI_TASK_HOOKS_MAX	8

/* Registers `fn' to run at `event', after the hooks registered before it
 * (hooks of one event must not depend on their order).  Returns 0, or
 * -1 for a bad event or a full table (nothing registered). */
int pvmi_task_hook(enum pvmi_task_event event, void (*fn)(void));

/* Runs the hooks of `event' in the order they were registered. */
void pvmi_task_hooks_run(enum pvmi_task_event event);

#endif /* COPVM_TASK_HOOKS_H */

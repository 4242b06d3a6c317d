/*
 * task_state.c - the task's state: its identity and options (struct
 * pvmi_state), whether this process is the enrolled one, and how to
 * leave the machine.  task.c fills it in when it enrols and clears it
 * when it leaves; the option calls change the options.  It calls nothing
 * of the library, so every part may read it, and the pack and buffer
 * modules work on their own with it and errors.c alone.
 *
 * Every API call asks whether this process is the one that enrolled.
 * glibc does not cache getpid(), so the pid is kept here and forgotten
 * in a forked child by a pthread_atfork handler: the question costs no
 * system call on the message path.
 */
#include <pthread.h>
#include <unistd.h>

#include "proto.h"
#include "pvmi.h"

struct pvmi_state pvmi = {
	.mytid = 0,
	.ptid = PvmNoParent,
	.ctx = PvmBaseContext,
	.autoerr = 1,
	.route = PvmAllowDirect,
	.fragsize = 4080,	/* what stock reports on x86-64 Linux */
	.showtids = 1,
	.polltype = PvmPollConstant,
};

int (*pvmi_leave)(void);

static pid_t known_pid;		/* 0: not known (or forked since) */
static int atfork_set;
int pvmi_here;

/* In the child of a fork: another pid, and not the enrolled process. */
static void forget_pid(void)
{
	known_pid = 0;
	pvmi_here = 0;
}

/* This process's pid, cached until a fork (task_state.h). */
pid_t pvmi_self_pid(void)
{
	if (!atfork_set && pthread_atfork(NULL, NULL, forget_pid) == 0)
		atfork_set = 1;
	if (!atfork_set)
		return getpid();
	if (!known_pid)
		known_pid = getpid();
	return known_pid;
}

/* Whether this process is the enrolled one (task_state.h). */
int pvmi_attached(void)
{
	return pvmi.enrolled && pvmi.pid == pvmi_self_pid();
}

/* Notes an enrolment or a leaving for pvmi_here (task_state.h); without
 * the fork handler a forked child could not clear it, so it stays 0. */
void pvmi_note_attached(int on)
{
	pvmi_here = on && atfork_set && pvmi_attached();
}

/*
 * cosched.c - the console's `cosched' command: the coscheduling state of
 * the tasks on the console's host, and `cosched set', which asks tasks to
 * change their model, P or interval.  It is copvm-cosched run inside the
 * console (common/cosched_cmd.c): it reads the tasks' pages in the run
 * directory, not the daemon, so it shows this host only.  Unlike the rest
 * of the console it is copvm's own: stock's console has no such command.
 */
#include <stdio.h>

#include "pvm3.h"
#include "console.h"
#include "cosched_cmd.h"

/* cosched [-r] | cosched set [TID|all] key=value...: as copvm-cosched,
 * with messages on stdout like the console's other commands. */
int con_cmd_cosched(int argc, char **argv)
{
	const char *host = NULL;
	int dtid;

	/* Name the host as conf does; gethostname if pvmd does not say. */
	dtid = pvm_tidtohost(con_mytid);
	if (dtid > 0)
		host = con_host_name(dtid);
	return csr_cmd(argc, argv, "cosched", host, stdout, stdout) ? -1 : 0;
}

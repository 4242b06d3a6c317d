/*
 * cosched.c - the console's `cosched' command: the coscheduling state of
 * the tasks on the console's host, `cosched -a', the same for every task
 * of the virtual machine, and `cosched set', which asks tasks to change
 * their model, P or interval.  Without -a it is copvm-cosched run inside
 * the console (common/cosched_cmd.c): it reads the pages of this host's
 * tasks in the run directory.  With -a the daemons gather every host's
 * (copvm_cosched_gather), and it prints copvm-cosched top's table once
 * (common/cosched_snap.c).  Unlike the rest of the console it is copvm's
 * own: stock's console has no such command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copvm.h"
#include "pvm3.h"
#include "console.h"
#include "cosched_cmd.h"
#include "cosched_snap.h"

/* cosched -a: one table of every task of the machine. */
static int whole_machine(void)
{
	struct csr_snap s = { 0 };
	char *text;
	int rc = copvm_cosched_gather(0, &text);

	if (rc < 0) {
		printf("cosched: %s\n", pvm_strerror(rc));
		return -1;
	}
	csr_snap_parse(&s, text);
	free(text);
	csr_snap_print(stdout, &s, NULL, 0);
	csr_snap_free(&s);
	return 0;
}

/* cosched [-r | -a] | cosched set [TID|all] key=value...: as
 * copvm-cosched (and -a as its top, once), with messages on stdout like
 * the console's other commands. */
int con_cmd_cosched(int argc, char **argv)
{
	const char *host = NULL;
	int dtid;

	if (argc == 2 && strcmp(argv[1], "-a") == 0)
		return whole_machine();
	/* Name the host as conf does; gethostname if pvmd does not say. */
	dtid = pvm_tidtohost(con_mytid);
	if (dtid > 0)
		host = con_host_name(dtid);
	return csr_cmd(argc, argv, "cosched", host, stdout, stdout) ? -1 : 0;
}

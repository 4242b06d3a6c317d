/*
 * cosched_cmd.h - the `cosched' command shared by the copvm-cosched tool
 * and the console: the table of this host's coscheduled tasks, its raw
 * key=value form, and `set', which asks tasks to change their model, P
 * or interval.  The callers only choose where the output goes.
 */
#ifndef COPVM_COSCHED_CMD_H
#define COPVM_COSCHED_CMD_H

#include <stdio.h>

#include "cosched_read.h"

/* Exit statuses of csr_cmd. */
#define CSR_EXIT_OK	0
#define CSR_EXIT_FAIL	1	/* no run directory, no tasks, no such tid */
#define CSR_EXIT_USAGE	2	/* bad arguments or values */

/* Runs the command with words argv[1..argc-1] (argv[0] is ignored):
 * none or -r shows the tasks, "set [TID|all] key=value..." writes a
 * request, -h/--help prints the usage.  `prog' prefixes the messages,
 * which go to `err'; `host' names this host in the node summary (NULL:
 * gethostname).  Returns a CSR_EXIT_* status. */
int csr_cmd(int argc, char **argv, const char *prog, const char *host,
	    FILE *out, FILE *err);

/* Prints the table (raw 0) or the key=value lines (raw 1) of the pages
 * of `l' and the node summary of `host'. */
void csr_print(FILE *out, const struct csr_list *l, const char *host, int raw);

/* The usage text of csr_cmd, each line prefixed by `prog'. */
void csr_usage(FILE *out, const char *prog);

#endif /* COPVM_COSCHED_CMD_H */

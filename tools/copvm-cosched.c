/*
 * copvm-cosched.c - the one-shot observability tool of coscheduling: shows
 * the coscheduling state of this host's PVM tasks (model, P, interval,
 * frequency, boost, backend, counts, peers, and the node's boosts and CPU
 * budget), raw for scripts with -r, and writes requests to change a
 * task's model, P or interval (`set').  It reads the tasks' pages in the
 * run directory and needs no daemon; the work is in common/cosched_cmd.c,
 * which the console's `cosched' command shares.  See copvm-cosched(1).
 */
#include <stdio.h>

#include "cosched_cmd.h"

int main(int argc, char **argv)
{
	return csr_cmd(argc, argv, "copvm-cosched", NULL, stdout, stderr);
}

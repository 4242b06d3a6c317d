/*
 * copvm-cosched.c - the one-shot observability tool of coscheduling: shows
 * the coscheduling state of this host's PVM tasks (model, P, interval,
 * frequency, boost, backend, counts, peers, and the node's boosts and CPU
 * budget), raw for scripts with -r, and writes requests to change a
 * task's model, P or interval (`set').  It reads the tasks' pages in the
 * run directory and needs no daemon; the work is in common/cosched_cmd.c,
 * which the console's `cosched' command shares.  `plot TRACE' draws a
 * boost trace as a picture: it runs copvm-trace-plot, installed in the
 * package's libexec directory ($COPVM_PKGLIBEXECDIR overrides it, for
 * the build tree).  `top' is the live view of every task of the virtual
 * machine (cosched_top.c); only it talks to pvmd.  See copvm-cosched(1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cosched_cmd.h"
#include "cosched_top.h"

#ifndef COPVM_PKGLIBEXECDIR
#define COPVM_PKGLIBEXECDIR "/usr/local/libexec/copvm"
#endif

/* `copvm-cosched plot ARGS': becomes copvm-trace-plot ARGS. */
static int plot(char **argv)
{
	const char *dir = getenv("COPVM_PKGLIBEXECDIR");
	char path[4096];

	if (!dir || !*dir)
		dir = COPVM_PKGLIBEXECDIR;
	snprintf(path, sizeof(path), "%s/copvm-trace-plot", dir);
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "copvm-cosched: plot: %s: %s\n", path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "plot") == 0)
		return plot(argv + 1);
	if (argc >= 2 && strcmp(argv[1], "top") == 0)
		return cosched_top(argc - 1, argv + 1);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		csr_usage(stdout, "copvm-cosched");
		fputs("       copvm-cosched top [-b] [-d SECONDS] [-n COUNT]"
		      "   the live view of the machine\n"
		      "       copvm-cosched plot [-n] [-o OUT.png] [-t TITLE]"
		      " TRACE...\n", stdout);
		return 0;
	}
	return csr_cmd(argc, argv, "copvm-cosched", NULL, stdout, stderr);
}

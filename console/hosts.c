/*
 * hosts.c - commands about the virtual machine as a whole: conf, add,
 * delete, mstat, halt, quit, id, version; and the host table lookups
 * the other commands use.
 *
 * Output formats are stock's console's, column for column, since
 * scripts and people read them: conf's table, add's per-host task ids
 * or error texts under a HOST/DTID header, delete's per-host status
 * under HOST/STATUS, mstat's "name  ok".  The host table is asked for
 * afresh each time (pvm_config), as hosts come and go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "console.h"

/* The current host table, or NULL (pvm_config has printed why). */
static struct pvmhostinfo *hosts(int *nhost)
{
	struct pvmhostinfo *hi;
	int narch;

	if (pvm_config(nhost, &narch, &hi) < 0)
		return NULL;
	return hi;
}

const char *con_host_name(int dtid)
{
	struct pvmhostinfo *hi;
	int n, i;

	hi = hosts(&n);
	for (i = 0; hi && i < n; i++)
		if (hi[i].hi_tid == dtid)
			return hi[i].hi_name;
	return NULL;
}

int con_host_tid(const char *name)
{
	struct pvmhostinfo *hi;
	int n, i;

	hi = hosts(&n);
	for (i = 0; hi && i < n; i++)
		if (!strcmp(hi[i].hi_name, name))
			return hi[i].hi_tid;
	return 0;
}

int con_is_arch(const char *arch)
{
	struct pvmhostinfo *hi;
	int n, i;

	hi = hosts(&n);
	for (i = 0; hi && i < n; i++)
		if (!strcmp(hi[i].hi_arch, arch))
			return 1;
	return 0;
}

/* conf: the hosts of the machine. */
int con_cmd_conf(int argc, char **argv)
{
	struct pvmhostinfo *hi;
	int nhost, narch, i;

	if (pvm_config(&nhost, &narch, &hi) < 0)
		return -1;
	printf("%d host%s, %d data format%s\n", nhost, nhost == 1 ? "" : "s",
	       narch, narch == 1 ? "" : "s");
	printf("%24s %8s %8s %7s %10s\n", "HOST", "DTID", "ARCH", "SPEED",
	       "DSIG");
	for (i = 0; i < nhost; i++)
		printf("%24s %8x %8s%8d 0x%08x\n", hi[i].hi_name, hi[i].hi_tid,
		       hi[i].hi_arch, hi[i].hi_speed, hi[i].hi_dsig);
	return 0;
}

/* Runs pvm_addhosts or pvm_delhosts on the arguments; fills results. */
static int hosts_call(int (*fn)(char **, int, int *), int argc, char **argv,
		      int **results)
{
	int n = argc - 1, rc;

	*results = malloc(n * sizeof(**results));
	if (!*results) {
		perror(argv[0]);
		return -1;
	}
	rc = fn(argv + 1, n, *results);
	if (rc < 0) {
		/* The library has said why; no per-host results came. */
		free(*results);
		*results = NULL;
		return -1;
	}
	printf("%d successful\n", rc);
	return rc;
}

/* add host...: grow the machine; one line per host. */
int con_cmd_add(int argc, char **argv)
{
	int *res, i;

	if (hosts_call(pvm_addhosts, argc, argv, &res) < 0)
		return -1;
	printf("%24s %8s\n", "HOST", "DTID");
	for (i = 0; i < argc - 1; i++) {
		if (res[i] >= 0)
			printf("%24s %8x\n", argv[i + 1], res[i]);
		else
			printf("%24s %s\n", argv[i + 1], con_errtext(res[i]));
	}
	free(res);
	return 0;
}

/* delete host...: shrink the machine; one line per host. */
int con_cmd_delete(int argc, char **argv)
{
	int *res, i;

	if (hosts_call(pvm_delhosts, argc, argv, &res) < 0)
		return -1;
	printf("%24s  %s\n", "HOST", "STATUS");
	for (i = 0; i < argc - 1; i++)
		printf("%24s  %s\n", argv[i + 1],
		       res[i] >= 0 ? "deleted" : con_errtext(res[i]));
	free(res);
	return 0;
}

/* mstat host...: whether each host is up. */
int con_cmd_mstat(int argc, char **argv)
{
	int i, rc;

	for (i = 1; i < argc; i++) {
		rc = pvm_mstat(argv[i]);
		printf("%24s  %s\n", argv[i], rc < 0 ? con_errtext(rc) : "ok");
	}
	return 0;
}

void con_hosts_added(void)
{
	int n = 0;

	if (pvm_upkint(&n, 1, 1) < 0 || n <= 0)
		return;
	printf("Console: %d new host%s added\n", n, n == 1 ? "" : "s");
}

/* halt: end the virtual machine, and with it the console. */
int con_cmd_halt(int argc, char **argv)
{
	if (pvm_halt() < 0)
		return -1;
	con_exit(CON_HALTED);
}

/* quit: leave; the machine and its tasks carry on. */
int con_cmd_quit(int argc, char **argv)
{
	con_exit(CON_QUIT);
}

/* id: the console's task id. */
int con_cmd_id(int argc, char **argv)
{
	printf("t%x\n", con_mytid);
	return 0;
}

/* version: the version of libpvm3 (not of the console). */
int con_cmd_version(int argc, char **argv)
{
	printf("%s\n", pvm_version());
	return 0;
}

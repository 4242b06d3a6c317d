/*
 * pvmhosts - the benchmark harness's hands on a virtual machine: add
 * hosts, wait for them, list them, halt the machine.  It uses the PVM API
 * only (pvm_addhosts, pvm_config, pvm_halt), so the one binary drives
 * stock PVM (Debian's libpvm3.so.3 first on LD_LIBRARY_PATH) and copvm
 * alike, and the harness needs neither console.
 *
 * usage: pvmhosts add HOST...	add the hosts; a host already in the
 *				machine counts as added
 *	  pvmhosts wait N SECS	wait until the machine has N hosts
 *	  pvmhosts list		print the hosts, one per line
 *	  pvmhosts halt		halt the machine (daemons and tasks)
 * Exit status: 0 on success; 1 when PVM cannot be reached; 2 when a host
 * could not be added (each failure is printed with its PVM error code and
 * name on stderr, e.g. "node2: -24 PvmNotImpl"), or did not appear in
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"

static const struct {
	int code;
	const char *name;
} errnames[] = {
	{ PvmBadParam, "PvmBadParam" }, { PvmNoHost, "PvmNoHost" },
	{ PvmNoFile, "PvmNoFile" }, { PvmDenied, "PvmDenied" },
	{ PvmNoMem, "PvmNoMem" }, { PvmSysErr, "PvmSysErr" },
	{ PvmHostFail, "PvmHostFail" }, { PvmNotImpl, "PvmNotImpl" },
	{ PvmDSysErr, "PvmDSysErr" }, { PvmBadVersion, "PvmBadVersion" },
	{ PvmOutOfRes, "PvmOutOfRes" }, { PvmDupHost, "PvmDupHost" },
	{ PvmCantStart, "PvmCantStart" }, { PvmAlready, "PvmAlready" },
	{ PvmIPLoopback, "PvmIPLoopback" },
};

static const char *errname(int code)
{
	size_t i;

	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].code == code)
			return errnames[i].name;
	return "error";
}

static int nhosts(void)
{
	struct pvmhostinfo *hi;
	int n, narch;

	return pvm_config(&n, &narch, &hi) < 0 ? -1 : n;
}

static int add(int argc, char **argv)
{
	int *infos = calloc((size_t)argc, sizeof(int)), rc, i, bad = 0;

	if (infos == NULL)
		return 1;
	rc = pvm_addhosts(argv, argc, infos);
	if (rc < 0 && rc != PvmDupHost) {
		fprintf(stderr, "pvm_addhosts: %d %s\n", rc, errname(rc));
		bad = 1;
	}
	for (i = 0; i < argc; i++) {
		if (infos[i] >= 0 || infos[i] == PvmDupHost)
			continue;
		fprintf(stderr, "%s: %d %s\n", argv[i], infos[i], errname(infos[i]));
		bad = 1;
	}
	free(infos);
	return bad ? 2 : 0;
}

static int wait_hosts(int want, double secs)
{
	int n = -1, i;

	for (i = 0; i <= (int)(secs * 10); i++) {
		n = nhosts();
		if (n >= want)
			return 0;
		usleep(100000);
	}
	fprintf(stderr, "pvmhosts: %d of %d hosts after %.0f s\n", n, want, secs);
	return 2;
}

static int list(void)
{
	struct pvmhostinfo *hi;
	int n, narch, i;

	if (pvm_config(&n, &narch, &hi) < 0)
		return 1;
	for (i = 0; i < n; i++)
		printf("%s %x %s\n", hi[i].hi_name, hi[i].hi_tid, hi[i].hi_arch);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: pvmhosts add HOST... | wait N SECS | list | halt\n");
		return 1;
	}
	if (pvm_mytid() < 0)
		return 1;
	if (strcmp(argv[1], "add") == 0 && argc > 2) {
		rc = add(argc - 2, argv + 2);
	} else if (strcmp(argv[1], "wait") == 0 && argc == 4) {
		rc = wait_hosts(atoi(argv[2]), atof(argv[3]));
	} else if (strcmp(argv[1], "list") == 0) {
		rc = list();
	} else if (strcmp(argv[1], "halt") == 0) {
		/* The daemon kills this task too; nothing comes back. */
		pvm_halt();
		return 0;
	} else {
		fprintf(stderr, "pvmhosts: unknown command %s\n", argv[1]);
		rc = 1;
	}
	pvm_exit();
	return rc;
}

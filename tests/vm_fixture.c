/*
 * vm_fixture.c - see vm_fixture.h.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#ifndef PVMD_PATH
#error "PVMD_PATH must name the built daemon"
#endif

static char tmpdir[256];
static char homedir[256];

void vm_fixture_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/copvm-test-XXXXXX");
	snprintf(homedir, sizeof(homedir), "/tmp/copvm-home-XXXXXX");
	if (!mkdtemp(tmpdir) || !mkdtemp(homedir)) {
		perror("mkdtemp");
		exit(1);
	}
	setenv("PVM_TMP", tmpdir, 1);
	setenv("HOME", homedir, 1);
	setenv("COPVM_PVMD", PVMD_PATH, 1);
	unsetenv("PVM_ROOT");
	unsetenv("PVM_EXPORT");
}

const char *vm_fixture_tmp(void)
{
	return tmpdir;
}

static void kill_daemon(void)
{
	char path[512];
	FILE *f;
	int pid = 0, i;

	snprintf(path, sizeof(path), "%s/copvm-%u/pvmd.pid", tmpdir,
		 (unsigned)getuid());
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 100 && kill(pid, 0) == 0; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
}

void vm_fixture_teardown(void)
{
	char cmd[600];

	kill_daemon();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", tmpdir, homedir);
	if (system(cmd) != 0)
		fprintf(stderr, "vm_fixture: could not remove %s\n", tmpdir);
}

void vm_send_int(int tid, int tag, int v)
{
	int old = pvm_setsbuf(pvm_mkbuf(PvmDataDefault));

	pvm_pkint(&v, 1, 1);
	pvm_send(tid, tag);
	pvm_freebuf(pvm_setsbuf(old));
}

int vm_recv_int(int tid, int tag)
{
	int v = -12345, b = pvm_recv(tid, tag);

	if (b > 0)
		pvm_upkint(&v, 1, 1);
	return v;
}

/*
 * vm_fixture.c - see vm_fixture.h.
 */
#include <check.h>
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

int vm_trips_child(int parent, int n, int data, int echo)
{
	int i;

	for (i = 0; i < n; i++) {
		vm_send_int(parent, data, -1 - i);
		if (vm_recv_int(parent, echo) != i)
			return 1;
	}
	return 0;
}

void vm_trips(int kid, int n, int data, int echo)
{
	int i;

	for (i = 0; i < n; i++) {
		ck_assert_int_eq(vm_recv_int(kid, data), -1 - i);
		vm_send_int(kid, echo, i);
	}
}

int vm_fork_task(int (*fn)(int parent), int parent, pid_t *pid)
{
	int fds[2], tid = 0;

	ck_assert_int_eq(pipe(fds), 0);
	*pid = fork();
	ck_assert_int_ge(*pid, 0);
	if (*pid == 0) {
		int me, rc;

		close(fds[0]);
		me = pvm_mytid();
		if (write(fds[1], &me, sizeof(me)) < 0)
			_exit(3);
		close(fds[1]);
		rc = fn(parent);
		pvm_exit();
		_exit(rc);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &tid, sizeof(tid)), sizeof(tid));
	close(fds[0]);
	ck_assert_int_gt(tid, 0);
	return tid;
}

void vm_wait_ok(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}

uint32_t vm_checksum(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

void vm_fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 7 + i * 31 + (i >> 11));
}

/* Puts the shm transport on or off (vm_fixture.h). */
void vm_set_shm(int sockets_only)
{
	if (sockets_only)
		setenv("COPVM_SHM", "0", 1);
	else
		unsetenv("COPVM_SHM");
}

/* Counts the ring segments mapped here (vm_fixture.h). */
int vm_ring_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "copvm-shm-ring"))
			n++;
	fclose(f);
	return n;
}

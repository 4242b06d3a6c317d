/*
 * pvmbench.c - the PVM half of the benchmark helpers (see bench.h).
 *
 * Only the PVM 3.4 API is used, and only through pvm3.h, so a benchmark
 * built once against copvm's header runs on stock PVM when Debian's
 * libpvm3.so.3 comes first on LD_LIBRARY_PATH, and on copvm otherwise.
 *
 * Placement follows the paper's experiments: one task per processor,
 * dealt out round-robin over the hosts starting with the master's own, so
 * that with two hosts the COMMS1/COMMS2 partner sits on the other host and
 * a barrier of 2..8 tasks alternates between the hosts.  On a one-host
 * virtual machine every task lands on that host, which is what the quick
 * mode and `make check' use.
 *
 * The helpers are spawned as copies of the program itself, by the
 * absolute path of its executable: every emulated host shares this
 * machine's file system, so the path is valid on each of them, and no
 * spawn search path needs setting up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define MAX_CHILD_ARGS	32

int bench_vm_get(struct bench_vm *vm)
{
	struct pvmhostinfo *hi;
	int nhost, narch, rc, self = 0, i, me;
	size_t count;

	memset(vm, 0, sizeof(*vm));
	rc = pvm_config(&nhost, &narch, &hi);
	if (rc < 0)
		return rc;
	if (nhost < 1 || nhost > 4096)
		return PvmSysErr;
	count = (unsigned int)nhost;
	me = pvm_tidtohost(pvm_mytid());
	for (i = 0; i < nhost; i++)
		if (hi[i].hi_tid == me)
			self = i;
	vm->names = calloc(count, sizeof(*vm->names));
	vm->dtids = calloc(count, sizeof(*vm->dtids));
	if (vm->names == NULL || vm->dtids == NULL) {
		bench_vm_free(vm);
		return PvmNoMem;
	}
	/* Rotate so that the caller's host comes first. */
	for (i = 0; i < nhost; i++) {
		const struct pvmhostinfo *h = &hi[(self + i) % nhost];

		vm->names[i] = strdup(h->hi_name ? h->hi_name : "?");
		vm->dtids[i] = h->hi_tid;
		if (vm->names[i] == NULL) {
			vm->nhost = i;
			bench_vm_free(vm);
			return PvmNoMem;
		}
	}
	vm->nhost = nhost;
	return 0;
}

void bench_vm_free(struct bench_vm *vm)
{
	int i;

	for (i = 0; vm->names && i < vm->nhost; i++)
		free(vm->names[i]);
	free(vm->names);
	free(vm->dtids);
	memset(vm, 0, sizeof(*vm));
}

const char *bench_vm_place(const struct bench_vm *vm, int i)
{
	if (vm->nhost < 1)
		return NULL;
	return vm->names[i % vm->nhost];
}

/* The absolute path of this executable ("" if unknown). */
static const char *self_path(void)
{
	static char path[4096];
	ssize_t n;

	if (path[0] == '\0') {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
	}
	return path;
}

int bench_spawn_self(const char *host, char **args)
{
	char *argv[MAX_CHILD_ARGS + 2];
	const char *prog = self_path();
	int n = 0, tid = 0, rc;

	if (prog[0] == '\0')
		return PvmNoFile;
	argv[n++] = BENCH_CHILD_ARG;
	while (args && *args && n < MAX_CHILD_ARGS)
		argv[n++] = *args++;
	argv[n] = NULL;
	rc = pvm_spawn((char *)prog, argv, host ? PvmTaskHost : PvmTaskDefault,
		       host ? (char *)host : "", 1, &tid);
	if (rc == 1 && tid > 0)
		return tid;
	return rc < 0 ? rc : (tid < 0 ? tid : PvmSysErr);
}

void bench_watch(const int *tids, int n, int tag)
{
	if (n > 0)
		pvm_notify(PvmTaskExit, tag, n, (int *)tids);
}

int bench_wait_exits(int n, int tag, double timeout)
{
	double end = bench_now() + timeout, left;
	struct timeval tv;
	int got = 0, rc;

	while (got < n) {
		left = end - bench_now();
		if (left <= 0)
			break;
		tv.tv_sec = (long)left;
		tv.tv_usec = (long)((left - (long)left) * 1e6);
		rc = pvm_trecv(-1, tag, &tv);
		if (rc <= 0)
			break;
		got++;
	}
	return got;
}

int bench_dismiss(const char *name, const int *tids, int n, int tag_quit,
		  int tag_exit)
{
	int i;

	for (i = 0; i < n; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_send(tids[i], tag_quit);
	}
	if (bench_wait_exits(n, tag_exit, 30) != n) {
		fprintf(stderr, "%s: not every task exited\n", name);
		return 1;
	}
	return 0;
}

void bench_abort(const int *tids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (tids[i] > 0)
			pvm_kill(tids[i]);
	pvm_exit();
}

const char *bench_host_of(const struct bench_vm *vm, int tid)
{
	int d = pvm_tidtohost(tid), i;

	for (i = 0; i < vm->nhost; i++)
		if (vm->dtids[i] == d)
			return vm->names[i];
	return "?";
}

/* The file libpvm3.so.3 was loaded from, as the process maps show it:
 * says which PVM a run used when the same binary serves both. */
static void loaded_lib(const char *soname, char *out, size_t size)
{
	char line[4352], *p;
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(out, size, "?");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (p && strstr(p, soname)) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, size, "%s", p);
			break;
		}
	}
	fclose(f);
}

void bench_print_setup(const char *bench, const struct bench_vm *vm)
{
	char lib[4096];
	int i;

	loaded_lib("libpvm3.so", lib, sizeof(lib));
	printf("# %s: PVM %s, library %s, direct routes, %d host%s:", bench,
	       pvm_version(), lib, vm->nhost, vm->nhost == 1 ? "" : "s");
	for (i = 0; i < vm->nhost; i++)
		printf(" %s", vm->names[i]);
	printf("\n");
}

int bench_send_ints(int tid, int tag, const int *v, int n)
{
	int rc = pvm_initsend(PvmDataDefault);

	if (rc < 0)
		return rc;
	rc = pvm_pkint((int *)v, n, 1);
	if (rc < 0)
		return rc;
	return pvm_send(tid, tag);
}

int bench_recv_ints(int from, int tag, int *v, int n)
{
	int bufid, tid, rc;

	bufid = pvm_recv(from, tag);
	if (bufid < 0)
		return bufid;
	rc = pvm_bufinfo(bufid, NULL, NULL, &tid);
	if (rc < 0)
		return rc;
	rc = pvm_upkint(v, n, 1);
	return rc < 0 ? rc : tid;
}

/*
 * synch1 - PARKBENCH SYNCH1: how fast a barrier of N tasks runs, as a
 * barrier time and as barriers per second, for N = 2..8 by default.
 *
 * The master spawns the largest number of helpers needed at once (one
 * copy of itself per extra task), dealt out round-robin over the hosts of
 * the virtual machine starting with the next one, so with two hosts a
 * barrier of N tasks has N/2 on each.  For each N, the master and the
 * first N - 1 helpers join a group of their own, wait until all N are
 * members, pass a few untimed barriers, then pvm_barrier(group, N) is
 * called NREPT times 10 times in a row (PARKBENCH repeats a sequence of 10
 * barrier statements); the master times that loop.  Barrier time = loop
 * time / (10 * NREPT), rate = 1 / barrier time.
 *
 * pvm_barrier comes from libgpvm3 (the group library): built against
 * copvm's, run on stock PVM with Debian's libgpvm3.so.3 and libpvm3.so.3
 * first on LD_LIBRARY_PATH; each side uses its own group server.
 *
 * usage: synch1 [-n counts] [-r nrept] [-w warmup]
 *   -n counts  task counts, e.g. 2-8 (default) or 2,4,8
 *   -r nrept   repetitions of the 10-barrier sequence (default 100)
 *   -w warmup  untimed barriers before each timed loop (default 5)
 * Output ends with RESULT lines: barrier_us.N, barr_s.N, and time_s (the
 * timed loops of all counts).  Exit status 0, or 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_RUN		31	/* master -> helper: N, nrept, warmup, id */
#define TAG_QUIT	32
#define TAG_EXIT	33

#define BARRIERS_PER_REP 10
#define MAX_TASKS	64

/* The group of the count-N round of run `id' (the master's tid): runs
 * that share a virtual machine never share a group. */
static void group_name(char *buf, size_t size, int id, int n)
{
	snprintf(buf, size, "synch1.%x.%d", id, n);
}

/*
 * Joins the group, waits for all n members, passes `warm' barriers, then
 * times reps barriers.  Returns the timed seconds, or -1 on a failure
 * (with a message).
 */
static double barriers(const char *group, int n, int warm, int reps)
{
	double t0, t;
	int i, rc;

	rc = pvm_joingroup((char *)group);
	if (rc < 0) {
		fprintf(stderr, "synch1: pvm_joingroup(%s) = %d\n", group, rc);
		return -1;
	}
	while ((rc = pvm_gsize((char *)group)) >= 0 && rc < n)
		usleep(1000);
	if (rc < 0) {
		fprintf(stderr, "synch1: pvm_gsize(%s) = %d\n", group, rc);
		return -1;
	}
	for (i = 0; i < warm; i++) {
		rc = pvm_barrier((char *)group, n);
		if (rc < 0)
			goto bad;
	}
	t0 = bench_now();
	for (i = 0; i < reps; i++) {
		rc = pvm_barrier((char *)group, n);
		if (rc < 0)
			goto bad;
	}
	t = bench_now() - t0;
	pvm_lvgroup((char *)group);
	return t;
bad:
	fprintf(stderr, "synch1: pvm_barrier(%s, %d) = %d\n", group, n, rc);
	pvm_lvgroup((char *)group);
	return -1;
}

/* A helper: take part in the rounds the master announces. */
static int helper(void)
{
	int parent = pvm_parent(), bufid, tag, v[4];
	char group[64];

	pvm_setopt(PvmRoute, PvmRouteDirect);
	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0 || pvm_bufinfo(bufid, NULL, &tag, NULL) < 0 ||
		    tag != TAG_RUN || pvm_upkint(v, 4, 1) < 0)
			break;
		group_name(group, sizeof(group), v[3], v[0]);
		if (barriers(group, v[0], v[2], v[1] * BARRIERS_PER_REP) < 0)
			break;
	}
	pvm_exit();
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: synch1 [-n counts] [-r nrept] [-w warmup]\n");
}

int main(int argc, char **argv)
{
	int counts[MAX_TASKS], ncount, nrept = 100, warm = 5, opt, i, c, max = 0;
	int tids[MAX_TASKS], nspawned = 0, status = 1, me, v[4];
	double times[MAX_TASKS], total = 0;
	struct bench_vm vm;
	char group[64];

	if (argc > 1 && strcmp(argv[1], BENCH_CHILD_ARG) == 0)
		return helper();

	ncount = bench_parse_list("2-8", counts, MAX_TASKS);
	while ((opt = getopt(argc, argv, "n:r:w:")) != -1) {
		switch (opt) {
		case 'n':
			ncount = bench_parse_list(optarg, counts, MAX_TASKS);
			break;
		case 'r':
			nrept = atoi(optarg);
			break;
		case 'w':
			warm = atoi(optarg);
			break;
		default:
			return usage(), 1;
		}
	}
	if (ncount < 1 || nrept < 1 || warm < 0 || optind != argc)
		return usage(), 1;
	for (c = 0; c < ncount; c++) {
		if (counts[c] < 2 || counts[c] > MAX_TASKS)
			return usage(), 1;
		if (counts[c] > max)
			max = counts[c];
	}

	me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_vm_get(&vm) < 0) {
		fprintf(stderr, "synch1: cannot read the host table\n");
		pvm_exit();
		return 1;
	}
	for (i = 1; i < max; i++) {
		tids[i - 1] = bench_spawn_self(bench_vm_place(&vm, i), NULL);
		if (tids[i - 1] < 0) {
			fprintf(stderr, "synch1: cannot spawn helper %d on %s (%d)\n",
				i, bench_vm_place(&vm, i), tids[i - 1]);
			goto fail;
		}
		nspawned++;
	}
	bench_watch(tids, nspawned, TAG_EXIT);

	bench_print_setup("SYNCH1 barrier", &vm);
	printf("# NREPT = %d repetitions of %d barriers per task count\n",
	       nrept, BARRIERS_PER_REP);
	printf("%8s %10s %12s %12s  %s\n", "NPROC", "BARRIERS", "TIME(us)",
	       "BARR/S", "HOSTS");
	for (c = 0; c < ncount; c++) {
		int n = counts[c], reps = nrept * BARRIERS_PER_REP;
		double per;

		v[0] = n;
		v[1] = nrept;
		v[2] = warm;
		v[3] = me;
		for (i = 0; i < n - 1; i++)
			if (bench_send_ints(tids[i], TAG_RUN, v, 4) < 0)
				goto fail;
		group_name(group, sizeof(group), me, n);
		times[c] = barriers(group, n, warm, reps);
		if (times[c] < 0)
			goto fail;
		total += times[c];
		per = times[c] / reps;
		printf("%8d %10d %12.3f %12.1f  %s", n, reps, per * 1e6,
		       per > 0 ? 1.0 / per : 0.0, vm.names[0]);
		for (i = 0; i < n - 1; i++)
			printf(" %s", bench_host_of(&vm, tids[i]));
		printf("\n");
		fflush(stdout);
	}
	for (c = 0; c < ncount; c++) {
		double per = times[c] / (nrept * BARRIERS_PER_REP);

		bench_result(per * 1e6, "barrier_us.%d", counts[c]);
		bench_result(per > 0 ? 1.0 / per : 0, "barr_s.%d", counts[c]);
	}
	bench_result(total, "time_s");
	status = bench_dismiss("synch1", tids, nspawned, TAG_QUIT, TAG_EXIT);
	bench_vm_free(&vm);
	pvm_exit();
	return status;

fail:
	bench_vm_free(&vm);
	bench_abort(tids, nspawned);
	return 1;
}

/*
 * sintree - a synthetic benchmark: one to many, then many to one.  A root
 * sends a message to each of N - 1 leaves; every task, on receiving a
 * message, computes for a fixed time; the leaves then answer the root.
 *
 * The root spawns N - 1 copies of itself, dealt out round-robin over the
 * hosts of the virtual machine starting with the next one.  One
 * iteration: the root sends a message of the given length to every leaf
 * (one pvm_send each, over the direct routes); each leaf unpacks it into
 * an array, runs the floating-point kernel for the compute time (CPU time
 * of the task) and sends a message of the same length back; the root
 * receives the answers in whatever order they come and computes for the
 * same time on each.  After two untimed iterations, the root times each
 * of the given number of iterations.
 *
 * usage: sintree [-n tasks] [-s lengths] [-c compute_ms] [iterations]
 *   -n tasks    root plus leaves (default 4)
 *   -s lengths  message lengths in bytes, 0..8192 (default 1024; a list
 *               such as 0,1k,2k,4k,8k runs each in turn)
 *   -c ms       compute time per received message (default 1 ms)
 *   iterations  per length (default 100)
 * Output ends with RESULT lines: iter_ms.<length> (mean iteration time)
 * and time_s (all timed iterations).  Exit status 0, or 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_DOWN	51	/* root -> leaf */
#define TAG_UP		52	/* leaf -> root */
#define TAG_QUIT	53
#define TAG_EXIT	54

#define MAX_TASKS	64
#define MAX_LENGTHS	32
#define MAX_LENGTH	8192

static volatile double sink;

static int put(int to, int tag, char *buf, int len)
{
	if (pvm_initsend(PvmDataRaw) < 0)
		return -1;
	if (len > 0 && pvm_pkbyte(buf, len, 1) < 0)
		return -1;
	return pvm_send(to, tag) < 0 ? -1 : 0;
}

/* Receives a message with `tag' from `from' into buf; returns its length,
 * or -1 for anything else. */
static int take(int from, int tag, char *buf)
{
	int bufid, len, got;

	bufid = pvm_recv(from, -1);
	if (bufid < 0 || pvm_bufinfo(bufid, &len, &got, NULL) < 0 ||
	    got != tag || len > MAX_LENGTH)
		return -1;
	if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
		return -1;
	return len;
}

/* A leaf: compute on each message from the root, then answer it. */
static int leaf(double compute)
{
	static char buf[MAX_LENGTH];
	int parent = pvm_parent(), len;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	while ((len = take(parent, TAG_DOWN, buf)) >= 0) {
		bench_burn(compute);
		sink += len > 0 ? buf[len - 1] : 0;
		if (put(parent, TAG_UP, buf, len) < 0)
			break;
	}
	pvm_exit();
	return 0;
}

/* One iteration at the root; 0 or -1. */
static int iteration(const int *tids, int n, char *buf, int len, double compute)
{
	int i;

	for (i = 0; i < n; i++)
		if (put(tids[i], TAG_DOWN, buf, len) < 0)
			return -1;
	for (i = 0; i < n; i++) {
		if (take(-1, TAG_UP, buf) != len)
			return -1;
		bench_burn(compute);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sintree [-n tasks] [-s lengths] [-c compute_ms] "
		"[iterations]\n");
}

int main(int argc, char **argv)
{
	static char buf[MAX_LENGTH];
	int ntask = 4, lengths[MAX_LENGTHS] = { 1024 }, nlen = 1, iters = 100;
	int tids[MAX_TASKS], nspawned = 0, opt, i, l, status = 1;
	double compute = 1e-3, *t = NULL, total = 0, t0, means[MAX_LENGTHS];
	struct bench_stats st;
	struct bench_vm vm;

	if (argc > 1 && strcmp(argv[1], BENCH_CHILD_ARG) == 0)
		return leaf(argc > 2 ? atof(argv[2]) : 1e-3);

	while ((opt = getopt(argc, argv, "n:s:c:")) != -1) {
		switch (opt) {
		case 'n':
			ntask = atoi(optarg);
			break;
		case 's':
			nlen = bench_parse_list(optarg, lengths, MAX_LENGTHS);
			break;
		case 'c':
			compute = atof(optarg) / 1e3;
			break;
		default:
			return usage(), 1;
		}
	}
	if (optind < argc)
		iters = atoi(argv[optind++]);
	if (ntask < 2 || ntask > MAX_TASKS || nlen < 1 || iters < 1 ||
	    compute < 0 || optind != argc)
		return usage(), 1;
	for (l = 0; l < nlen; l++)
		if (lengths[l] > MAX_LENGTH)
			return usage(), 1;

	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_vm_get(&vm) < 0) {
		fprintf(stderr, "sintree: cannot read the host table\n");
		pvm_exit();
		return 1;
	}
	for (i = 1; i < ntask; i++) {
		char arg[32], *args[] = { arg, NULL };

		snprintf(arg, sizeof(arg), "%.9g", compute);
		tids[i - 1] = bench_spawn_self(bench_vm_place(&vm, i), args);
		if (tids[i - 1] < 0) {
			fprintf(stderr, "sintree: cannot spawn leaf %d on %s (%d)\n",
				i, bench_vm_place(&vm, i), tids[i - 1]);
			goto fail;
		}
		nspawned++;
	}
	bench_watch(tids, nspawned, TAG_EXIT);
	t = calloc((size_t)iters, sizeof(*t));
	if (t == NULL)
		goto fail;

	bench_print_setup("SINTREE one to many to one", &vm);
	printf("# root on %s, leaves on", vm.names[0]);
	for (i = 0; i < nspawned; i++)
		printf(" %s", bench_host_of(&vm, tids[i]));
	printf("; compute %.3f ms per received message\n", compute * 1e3);
	printf("%10s %8s %12s %12s %12s %10s\n", "LENGTH(B)", "ITERS",
	       "ITER(ms)", "MEDIAN(ms)", "P90(ms)", "TOTAL(s)");
	for (l = 0; l < nlen; l++) {
		double sum = 0;

		for (i = 0; i < lengths[l]; i++)
			buf[i] = (char)(i * 3 + l);
		for (i = -2; i < iters; i++) {
			t0 = bench_now();
			if (iteration(tids, nspawned, buf, lengths[l], compute) < 0) {
				fprintf(stderr, "sintree: an iteration of %d bytes "
					"failed\n", lengths[l]);
				goto fail;
			}
			if (i >= 0) {
				t[i] = bench_now() - t0;
				sum += t[i];
			}
		}
		total += sum;
		bench_stats(t, iters, &st);
		printf("%10d %8d %12.3f %12.3f %12.3f %10.3f\n", lengths[l],
		       iters, st.mean * 1e3, st.median * 1e3, st.p90 * 1e3, sum);
		fflush(stdout);
		means[l] = st.mean;
	}
	for (l = 0; l < nlen; l++)
		bench_result(means[l] * 1e3, "iter_ms.%d", lengths[l]);
	bench_result(total, "time_s");
	status = 0;

	for (i = 0; i < nspawned; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_send(tids[i], TAG_QUIT);
	}
	if (bench_wait_exits(nspawned, TAG_EXIT, 30) != nspawned) {
		fprintf(stderr, "sintree: not every leaf exited\n");
		status = 1;
	}
	free(t);
	bench_vm_free(&vm);
	pvm_exit();
	return status;

fail:
	free(t);
	bench_vm_free(&vm);
	bench_abort(tids, nspawned);
	return 1;
}

/*
 * sinring - a synthetic benchmark: a token goes round a logical ring of
 * N tasks, and every task that receives it computes for a fixed time
 * before passing it on.
 *
 * The master spawns N - 1 copies of itself, dealt out round-robin over the
 * hosts of the virtual machine starting with the next one, and tells each
 * which task follows it.  For each message length, the master sends a
 * token of that many bytes to task 1; each task unpacks it into an array,
 * runs the floating-point kernel for the compute time (CPU time of the
 * task: a preempted task still does all of it), packs it again and sends
 * it to the next task; task N - 1 sends it back to the master, which
 * computes too.  One iteration is one trip round the ring; after two
 * untimed trips, the master times each of the given number of iterations.
 *
 * usage: sinring [-n tasks] [-s lengths] [-c compute_ms] [iterations]
 *   -n tasks    tasks in the ring, master included (default 4)
 *   -s lengths  token lengths in bytes, 0..8192 (default 1024; a list such
 *               as 0,1k,2k,4k,8k runs each in turn)
 *   -c ms       compute time per received message (default 1 ms)
 *   iterations  trips round the ring per length (default 100)
 * Output ends with RESULT lines: iter_ms.<length> (mean trip time) and
 * time_s (all timed trips).  Exit status 0, or 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_NEXT	41	/* master -> task: the tid of the next task */
#define TAG_TOKEN	42
#define TAG_QUIT	43
#define TAG_EXIT	44

#define MAX_TASKS	64
#define MAX_LENGTHS	32
#define MAX_LENGTH	8192

static volatile double sink;

/* Receives a token from anyone into buf; returns its length, or -1 for
 * anything else (a QUIT, an error). */
static int take(char *buf)
{
	int bufid, len, tag;

	bufid = pvm_recv(-1, -1);
	if (bufid < 0 || pvm_bufinfo(bufid, &len, &tag, NULL) < 0 ||
	    tag != TAG_TOKEN || len > MAX_LENGTH)
		return -1;
	if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
		return -1;
	return len;
}

static int pass(int to, char *buf, int len)
{
	if (pvm_initsend(PvmDataRaw) < 0)
		return -1;
	if (len > 0 && pvm_pkbyte(buf, len, 1) < 0)
		return -1;
	return pvm_send(to, TAG_TOKEN) < 0 ? -1 : 0;
}

/* A ring member: compute on each token, then pass it on. */
static int member(double compute)
{
	static char buf[MAX_LENGTH];
	int next, len;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_recv_ints(pvm_parent(), TAG_NEXT, &next, 1) < 0)
		goto out;
	while ((len = take(buf)) >= 0) {
		bench_burn(compute);
		sink += len > 0 ? buf[0] : 0;
		if (pass(next, buf, len) < 0)
			break;
	}
out:
	pvm_exit();
	return 0;
}

/* One trip round the ring, from the master; 0 or -1. */
static int trip(int first, char *buf, int len, double compute)
{
	if (pass(first, buf, len) < 0 || take(buf) != len)
		return -1;
	bench_burn(compute);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sinring [-n tasks] [-s lengths] [-c compute_ms] "
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
		return member(argc > 2 ? atof(argv[2]) : 1e-3);

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
		fprintf(stderr, "sinring: cannot read the host table\n");
		pvm_exit();
		return 1;
	}
	for (i = 1; i < ntask; i++) {
		char arg[32], *args[] = { arg, NULL };

		snprintf(arg, sizeof(arg), "%.9g", compute);
		tids[i - 1] = bench_spawn_self(bench_vm_place(&vm, i), args);
		if (tids[i - 1] < 0) {
			fprintf(stderr, "sinring: cannot spawn task %d on %s (%d)\n",
				i, bench_vm_place(&vm, i), tids[i - 1]);
			goto fail;
		}
		nspawned++;
	}
	bench_watch(tids, nspawned, TAG_EXIT);
	/* Task i passes to task i + 1; the last one back to the master. */
	for (i = 0; i < nspawned; i++) {
		int next = i + 1 < nspawned ? tids[i + 1] : pvm_mytid();

		if (bench_send_ints(tids[i], TAG_NEXT, &next, 1) < 0)
			goto fail;
	}
	t = calloc((size_t)iters, sizeof(*t));
	if (t == NULL)
		goto fail;

	bench_print_setup("SINRING logical ring", &vm);
	printf("# %d tasks:", ntask);
	printf(" %s", vm.names[0]);
	for (i = 0; i < nspawned; i++)
		printf(" %s", bench_host_of(&vm, tids[i]));
	printf("; compute %.3f ms per received message\n", compute * 1e3);
	printf("%10s %8s %12s %12s %12s %10s\n", "LENGTH(B)", "ITERS",
	       "TRIP(ms)", "MEDIAN(ms)", "P90(ms)", "TOTAL(s)");
	for (l = 0; l < nlen; l++) {
		double sum = 0;

		for (i = 0; i < lengths[l]; i++)
			buf[i] = (char)(i + l);
		for (i = -2; i < iters; i++) {
			t0 = bench_now();
			if (trip(tids[0], buf, lengths[l], compute) < 0) {
				fprintf(stderr, "sinring: a trip of %d bytes failed\n",
					lengths[l]);
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
		fprintf(stderr, "sinring: not every task exited\n");
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

/*
 * synthetic.c - what sinring and sintree share: the arguments, spawning
 * the tasks over the hosts, the timed iterations per message length, the
 * table and the RESULT lines, and the shutdown.  Each program brings its
 * communication pattern (struct bench_synthetic, bench.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "bench.h"

#define MAX_TASKS	64
#define MAX_LENGTHS	32

struct run {
	int ntask, nlen, iters;
	int lengths[MAX_LENGTHS];
	double compute;		/* seconds per received message */
};

static void usage(const struct bench_synthetic *s)
{
	fprintf(stderr, "usage: %s [-n tasks] [-s lengths] [-c compute_ms] "
		"[iterations]\n", s->name);
}

/* Reads the command line into r; 0, or -1 after printing the usage. */
static int parse(const struct bench_synthetic *s, int argc, char **argv,
		 struct run *r)
{
	int opt, l;

	r->ntask = 4;
	r->lengths[0] = 1024;
	r->nlen = 1;
	r->iters = 100;
	r->compute = 1e-3;
	while ((opt = getopt(argc, argv, "n:s:c:")) != -1) {
		switch (opt) {
		case 'n':
			r->ntask = atoi(optarg);
			break;
		case 's':
			r->nlen = bench_parse_list(optarg, r->lengths,
						   MAX_LENGTHS);
			break;
		case 'c':
			r->compute = atof(optarg) / 1e3;
			break;
		default:
			return usage(s), -1;
		}
	}
	if (optind < argc)
		r->iters = atoi(argv[optind++]);
	if (r->ntask < 2 || r->ntask > MAX_TASKS || r->nlen < 1 ||
	    r->iters < 1 || r->compute < 0 || optind != argc)
		return usage(s), -1;
	for (l = 0; l < r->nlen; l++)
		if (r->lengths[l] < 0 || r->lengths[l] > BENCH_SYN_MAX_LENGTH)
			return usage(s), -1;
	return 0;
}

/* Spawns tasks 1..ntask-1 round-robin over the hosts; returns how many
 * were spawned, or -1 - that count after a failure. */
static int spawn_tasks(const struct bench_synthetic *s, const struct run *r,
		       const struct bench_vm *vm, int *tids)
{
	char arg[32], *args[] = { arg, NULL };
	int i;

	snprintf(arg, sizeof(arg), "%.9g", r->compute);
	for (i = 1; i < r->ntask; i++) {
		tids[i - 1] = bench_spawn_self(bench_vm_place(vm, i), args);
		if (tids[i - 1] < 0) {
			fprintf(stderr, "%s: cannot spawn task %d on %s (%d)\n",
				s->name, i, bench_vm_place(vm, i), tids[i - 1]);
			return -1 - (i - 1);
		}
	}
	return r->ntask - 1;
}

/* Times r->iters iterations (after two untimed ones) for each length and
 * prints the table and the RESULT lines; 0 or -1. */
static int measure(const struct bench_synthetic *s, const struct run *r,
		   const int *tids, int n, double *t)
{
	static char buf[BENCH_SYN_MAX_LENGTH];
	double total = 0, t0, means[MAX_LENGTHS];
	struct bench_stats st;
	int i, l;

	printf("%10s %8s %12s %12s %12s %10s\n", "LENGTH(B)", "ITERS",
	       "ITER(ms)", "MEDIAN(ms)", "P90(ms)", "TOTAL(s)");
	for (l = 0; l < r->nlen; l++) {
		double sum = 0;
		int len = r->lengths[l];

		for (i = 0; i < len; i++)
			buf[i] = (char)(i + l);
		for (i = -2; i < r->iters; i++) {
			t0 = bench_now();
			if (s->iteration(tids, n, buf, len, r->compute) < 0) {
				fprintf(stderr, "%s: an iteration of %d bytes "
					"failed\n", s->name, len);
				return -1;
			}
			if (i >= 0) {
				t[i] = bench_now() - t0;
				sum += t[i];
			}
		}
		total += sum;
		bench_stats(t, r->iters, &st);
		printf("%10d %8d %12.3f %12.3f %12.3f %10.3f\n", len, r->iters,
		       st.mean * 1e3, st.median * 1e3, st.p90 * 1e3, sum);
		fflush(stdout);
		means[l] = st.mean;
	}
	for (l = 0; l < r->nlen; l++)
		bench_result(means[l] * 1e3, "iter_ms.%d", r->lengths[l]);
	bench_result(total, "time_s");
	return 0;
}

int bench_synthetic_main(const struct bench_synthetic *s, int argc,
			 char **argv)
{
	int tids[MAX_TASKS], n, i, status = 1;
	double *t = NULL;
	struct bench_vm vm;
	struct run r;

	if (argc > 1 && strcmp(argv[1], BENCH_CHILD_ARG) == 0)
		return s->member(argc > 2 ? atof(argv[2]) : 1e-3);
	if (parse(s, argc, argv, &r) < 0)
		return 1;
	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_vm_get(&vm) < 0) {
		fprintf(stderr, "%s: cannot read the host table\n", s->name);
		pvm_exit();
		return 1;
	}
	n = spawn_tasks(s, &r, &vm, tids);
	if (n < 0) {
		n = -1 - n;
		goto fail;
	}
	bench_watch(tids, n, s->tag_exit);
	if (s->start && s->start(tids, n) < 0)
		goto fail;
	t = calloc((size_t)r.iters, sizeof(*t));
	if (t == NULL)
		goto fail;

	bench_print_setup(s->title, &vm);
	printf("# %d tasks: master on %s, the others on", r.ntask, vm.names[0]);
	for (i = 0; i < n; i++)
		printf(" %s", bench_host_of(&vm, tids[i]));
	printf("; compute %.3f ms per received message\n", r.compute * 1e3);
	if (measure(s, &r, tids, n, t) < 0)
		goto fail;
	status = bench_dismiss(s->name, tids, n, s->tag_quit, s->tag_exit);
	free(t);
	bench_vm_free(&vm);
	pvm_exit();
	return status;

fail:
	free(t);
	bench_vm_free(&vm);
	bench_abort(tids, n);
	return 1;
}

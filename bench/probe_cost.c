/*
 * probe_cost.c - what the coscheduling probe costs per message: the
 * hooks that every send and every received message go through
 * (pvmi_cosched_sent/received, lib/cosched/freq.c), called in a tight
 * loop against a page in memory, with the interval's end (the roll and
 * the decision, backend `none') coming as often as in a real task.
 * Linked with the static libpvm3 to reach the internal hooks.
 *
 * usage: bench/probe_cost [-n messages] [-r repetitions]
 * Prints one RESULT line per case, the median over the repetitions, in ns
 * per message: off (coscheduling off: no page), lin, pre.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched/cosched.h"
#include "cosched_page.h"
#include "pvmi.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per message of `n' hooks, alternating sends and receives over four
 * local correspondents. */
static double run(long n)
{
	int peers[4], i;
	double t0, t1;
	long k;

	for (i = 0; i < 4; i++)
		peers[i] = pvmi.mytid + 1 + i;
	t0 = now_ns();
	for (k = 0; k < n; k += 2) {
		pvmi_cosched_sent(peers[k & 3]);
		pvmi_cosched_received(peers[(k + 1) & 3]);
	}
	t1 = now_ns();
	return (t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int model; } cases[] = {
		{ "off", -1 }, { "lin", COPVM_MODEL_LIN }, { "pre", COPVM_MODEL_PRE },
	};
	long n = 10000000;
	int reps = 5, c, r, opt;
	struct cosched_page *pg;
	double *t;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'r')
			reps = atoi(optarg);
		else {
			fprintf(stderr, "usage: %s [-n messages] [-r repetitions]\n", argv[0]);
			return 2;
		}
	}
	if (n < 2 || reps < 1)
		return 2;
	t = calloc((size_t)reps, sizeof(*t));
	pg = mmap(NULL, COSCHED_PAGE_SIZE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!t || pg == MAP_FAILED)
		return 1;
	/* A task id of host 1 with its correspondents beside it. */
	pvmi.mytid = 0x40001;
	pvmi_cosched_set.interval_ms = 20;
	pvmi_cosched_set.p_milli = 500;
	for (c = 0; c < (int)(sizeof(cases) / sizeof(cases[0])); c++) {
		memset(pg, 0, COSCHED_PAGE_SIZE);
		pg->magic = COSCHED_PAGE_MAGIC;
		pg->tid = pvmi.mytid;
		pvmi_cosched_set.model = cases[c].model;
		pvmi_cosched_page = cases[c].model < 0 ? NULL : pg;
		for (r = 0; r < reps; r++)
			t[r] = run(n);
		qsort(t, (size_t)reps, sizeof(*t), cmp);
		printf("RESULT probe_ns_%s %.2f\n", cases[c].name, t[reps / 2]);
	}
	pvmi_cosched_page = NULL;
	return 0;
}

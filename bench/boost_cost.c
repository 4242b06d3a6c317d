/*
 * boost_cost.c - what one boost costs the task that asks for it, through
 * a coscheduling backend's own operations (lib/cosched/backend.h): the
 * kernel module's ioctl (kmod) or the agent's round trip (agent), beside
 * a getppid() system call as the unit, measured on the same machine.
 * Run it where the backend is: the agent on the host (COPVM_AGENT_SOCK),
 * the module in the qemu guest (its own ioctl benchmark is kmod-suite
 * --bench).
 *
 * usage: bench/boost_cost agent|kmod [-n calls] [-r repetitions]
 * Prints one RESULT line per case, medians over the repetitions, in ns
 * per call: getppid, apply (a nice boost, then its undo: two calls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "copvm.h"
#include "cosched_page.h"

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

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	const struct cosched_backend_ops *be;
	struct cosched_caps caps;
	static struct cosched_page page;
	double *sys, *boost, t;
	int n = 20000, reps = 5, i, r, c, rc, refused = 0, nice;

	if (argc < 2 || (strcmp(argv[1], "agent") && strcmp(argv[1], "kmod"))) {
		fprintf(stderr, "usage: %s agent|kmod [-n calls] [-r reps]\n",
			argv[0]);
		return 2;
	}
	be = argv[1][0] == 'a' ? &cosched_backend_agent : &cosched_backend_kmod;
	optind = 2;
	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			n = atoi(optarg);
		else if (c == 'r')
			reps = atoi(optarg);
		else
			return 2;
	}
	if (n < 2 || reps < 1) {
		fprintf(stderr, "%s: -n >= 2 and -r >= 1\n", argv[0]);
		return 2;
	}
	rc = be->probe(&caps);
	if (rc < 0) {
		fprintf(stderr, "%s: the %s backend is not usable: %s\n",
			argv[0], be->name, strerror(-rc));
		return 77;
	}
	page.magic = COSCHED_PAGE_MAGIC;
	page.pid = getpid();
	page.tid = 0x40001;
	page.freq = 5000;
	rc = be->attach(&page, 0);
	if (rc < 0) {
		fprintf(stderr, "%s: attach: %s\n", argv[0], strerror(-rc));
		return 1;
	}
	nice = caps.nice_floor < 0 ? caps.nice_floor : -1;
	sys = calloc(reps, sizeof(*sys));
	boost = calloc(reps, sizeof(*boost));
	if (!sys || !boost)
		return 1;
	for (r = 0; r < reps; r++) {
		t = now_ns();
		for (i = 0; i < n; i++)
			getppid();
		sys[r] = (now_ns() - t) / n;
		t = now_ns();
		for (i = 0; i < n; i += 2) {
			if (be->apply(COPVM_BOOST_NICE, nice, 20000000) < 0)
				refused++;
			be->apply(COPVM_BOOST_NONE, 0, 0);
		}
		boost[r] = (now_ns() - t) / n;
	}
	be->detach();
	printf("RESULT backend=%s getppid_ns=%.0f apply_ns=%.0f ratio=%.1f "
	       "refused=%d calls=%d reps=%d\n", be->name, median(sys, reps),
	       median(boost, reps), median(boost, reps) / median(sys, reps),
	       refused, n, reps);
	return 0;
}

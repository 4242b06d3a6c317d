/*
 * calcula - the local workload: a CPU-bound job that never ends.
 *
 * It stands for the owner's work on a node of a non-dedicated cluster.
 * It runs the floating-point kernel (bench/util.c: user time only, no
 * system call inside) in bursts of about 10 ms of CPU time, and after
 * each burst gives the processor up with sched_yield() without leaving
 * the run queue, so that it behaves like a mix of processes that keep
 * asking for time slices of varying length rather than one that holds
 * the CPU for its whole quantum.  Its mean CPU use is about 99%.
 *
 * The burst is measured once at start (kernel steps that take the burst
 * length of CPU time), so the bursts themselves contain no clock reads.
 *
 * usage: calcula [-b burst_ms]	(default 10 ms)
 * Runs until killed; prints nothing.  The harness starts k of these per
 * node (k = 0..5) and kills them at the end of each run.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

static volatile double sink;

int main(int argc, char **argv)
{
	double burst = 10e-3;
	long iters;
	int opt;

	while ((opt = getopt(argc, argv, "b:")) != -1) {
		switch (opt) {
		case 'b':
			burst = atof(optarg) / 1e3;
			break;
		default:
			fprintf(stderr, "usage: calcula [-b burst_ms]\n");
			return 1;
		}
	}
	if (burst <= 0 || optind != argc) {
		fprintf(stderr, "usage: calcula [-b burst_ms]\n");
		return 1;
	}
	iters = bench_calibrate(burst);
	for (;;) {
		sink += bench_fp(iters);
		sched_yield();
	}
	return 0;
}

/*
 * calcula2 - the local job whose slowdown is measured: the same work as
 * calcula (bench/util.c's floating-point kernel, in units of about 10 ms
 * of CPU time separated by sched_yield()), but a fixed amount of it, and
 * it prints how long it took.
 *
 * The amount of work is a number of units of a fixed number of kernel
 * steps, never a time: the work must be the same whatever the load, so
 * that the Local Overhead LO = ET_dedicated / ET_nondedicated compares
 * like with like (ET_dedicated: this program alone on an idle node;
 * ET_nondedicated: beside a parallel application).  The default, 8000
 * units, takes about 80 s on an idle node of the machine it was tuned on
 * (one unit = 5.4 million steps, 10 ms there); -x scales it.
 *
 * The duty-cycle variant (-d PCT) suspends itself after each unit, with
 * nanosleep(), for as long as the unit took of CPU time times
 * (100 - PCT) / PCT, so that on an idle node it uses PCT percent of the
 * CPU (10, 50 and 90 in the experiments); its elapsed time on an idle
 * node is then the work divided by PCT percent.
 *
 * -n (never yield) drops the sched_yield() between units: the same fixed
 * work as a plain busy loop (the harness's -L busy); with -d below 100
 * the duty-cycle pauses stay.
 *
 * usage: calcula2 [-x factor] [-u units] [-d duty_pct] [-n]
 *   -x factor   units = 8000 * factor (e.g. 0.05 for about 4 s)
 *   -u units    the number of units itself
 *   -d pct      CPU duty cycle in percent, 1..100 (default 100)
 *   -n          never yield between units
 * Output: one line for people, then RESULT elapsed_s, cpu_s and units.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* Kernel steps in one unit of work: 10 ms of CPU time on the machine the
 * default was tuned on (a 2-core VM, see docs/benchmarks.md). */
#define UNIT_STEPS	5400000L
#define DEFAULT_UNITS	8000L

static volatile double sink;

static void usage(void)
{
	fprintf(stderr, "usage: calcula2 [-x factor] [-u units] [-d duty_pct] [-n]\n");
}

static void pause_for(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	long units = DEFAULT_UNITS, u;
	double duty = 100, start, cpu0, c0, elapsed, cpu;
	int opt, busy = 0;

	while ((opt = getopt(argc, argv, "x:u:d:n")) != -1) {
		switch (opt) {
		case 'x':
			units = (long)(DEFAULT_UNITS * atof(optarg) + 0.5);
			break;
		case 'u':
			units = atol(optarg);
			break;
		case 'd':
			duty = atof(optarg);
			break;
		case 'n':
			busy = 1;
			break;
		default:
			usage();
			return 1;
		}
	}
	if (units < 1 || duty <= 0 || duty > 100 || optind != argc) {
		usage();
		return 1;
	}

	start = bench_now();
	cpu0 = bench_cputime();
	for (u = 0; u < units; u++) {
		c0 = duty < 100 ? bench_cputime() : 0;
		sink += bench_fp(UNIT_STEPS);
		if (duty < 100)
			pause_for((bench_cputime() - c0) * (100 - duty) / duty);
		else if (!busy)
			sched_yield();
	}
	elapsed = bench_now() - start;
	cpu = bench_cputime() - cpu0;

	printf("calcula2: %ld units at %.0f%% duty%s in %.3f s (%.3f s of CPU)\n",
	       units, duty, busy ? ", never yielding," : "", elapsed, cpu);
	bench_result(elapsed, "elapsed_s");
	bench_result(cpu, "cpu_s");
	bench_result((double)units, "units");
	return 0;
}

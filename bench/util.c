/*
 * util.c - the PVM-free half of the benchmark helpers (see bench.h).
 *
 * The floating-point kernel is what every "compute" step is made of: the
 * local workload (calcula, calcula2) and the fixed compute time sinring,
 * sintree and the master-slave slaves spend on each message.  It is a
 * dependent chain of multiply-adds with no call and no system call inside,
 * so it stays in user mode and the compiler can neither vectorise it nor
 * drop it.  "Compute for t seconds" is measured in CPU time of the thread,
 * not wall time: on a loaded node a task that is preempted in the middle
 * of its compute step must still do the whole step once it runs again,
 * otherwise local load would shorten the work instead of delaying it.
 *
 * The fit is the PARKBENCH one for COMMS1/COMMS2: ordinary least squares
 * of the time per message t against the length n, t = t0 + n / rinf.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* Kernel steps between two looks at the CPU clock in bench_burn(): a few
 * tens of microseconds, small against the 1 ms default compute step. */
#define BURN_CHUNK	4096

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bench_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

double bench_cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double bench_fp(long iters)
{
	double x = 1.0, y = 0.5;
	long i;

	for (i = 0; i < iters; i++) {
		x = x * 1.0000001 + 1e-7;
		y = y * 0.9999999 + x * 1e-9;
	}
	return x + y;
}

/* Keeps the kernel's results alive across calls. */
static volatile double sink;

void bench_burn(double seconds)
{
	double end = bench_cputime() + seconds;

	do
		sink += bench_fp(BURN_CHUNK);
	while (bench_cputime() < end);
}

long bench_calibrate(double seconds)
{
	long iters = BURN_CHUNK;
	double t0, used;

	/* Grow the sample until it is long enough to time (>= 20 ms). */
	for (;;) {
		t0 = bench_cputime();
		sink += bench_fp(iters);
		used = bench_cputime() - t0;
		if (used >= 0.02 || iters > (1L << 40))
			break;
		iters *= 2;
	}
	if (used <= 0)
		return iters;
	return (long)(iters * (seconds / used)) + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_stats(double *v, int n, struct bench_stats *st)
{
	double sum = 0;
	int i;

	memset(st, 0, sizeof(*st));
	if (n <= 0)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	st->n = n;
	st->mean = sum / n;
	st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	/* Nearest rank: the ceil(0.9 n)-th smallest. */
	st->p90 = v[(9 * n + 9) / 10 - 1];
	st->min = v[0];
	st->max = v[n - 1];
}

/* Weighted least squares of t = t0 + n / rinf; w == NULL: all weights 1. */
static int fit(const double *n, const double *t, const double *w, int count,
	       struct bench_fit *f)
{
	double sw = 0, mn = 0, mt = 0, sxx = 0, sxt = 0, slope, wi;
	int i;

	memset(f, 0, sizeof(*f));
	f->points = count;
	if (count < 2)
		return -1;
	/* Centred sums: lengths up to megabytes, times in microseconds. */
	for (i = 0; i < count; i++) {
		wi = w ? w[i] : 1;
		sw += wi;
		mn += wi * n[i];
		mt += wi * t[i];
	}
	if (sw <= 0)
		return -1;
	mn /= sw;
	mt /= sw;
	for (i = 0; i < count; i++) {
		wi = w ? w[i] : 1;
		sxx += wi * (n[i] - mn) * (n[i] - mn);
		sxt += wi * (n[i] - mn) * (t[i] - mt);
	}
	if (sxx <= 0)
		return -1;
	slope = sxt / sxx;
	f->t0 = mt - slope * mn;
	if (slope <= 0)
		return -1;
	f->rinf = 1.0 / slope;
	f->nhalf = f->rinf * f->t0;
	return 0;
}

int bench_fit(const double *n, const double *t, int count, struct bench_fit *f)
{
	return fit(n, t, NULL, count, f);
}

int bench_fit_rel(const double *n, const double *t, int count,
		  struct bench_fit *f)
{
	double w[64];
	int i;

	if (count > 64)
		count = 64;
	for (i = 0; i < count; i++)
		w[i] = t[i] > 0 ? 1.0 / (t[i] * t[i]) : 0;
	return fit(n, t, w, count, f);
}

/* One number with an optional k/M suffix; returns 0 or -1. */
static int parse_num(const char *s, char **end, long *out)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (*end == s || errno != 0 || v < 0)
		return -1;
	if (**end == 'k' || **end == 'K') {
		v *= 1024;
		(*end)++;
	} else if (**end == 'm' || **end == 'M') {
		v *= 1024 * 1024;
		(*end)++;
	}
	if (v > 1L << 30)
		return -1;
	*out = v;
	return 0;
}

int bench_parse_list(const char *arg, int *out, int max)
{
	const char *p = arg;
	char *end;
	long lo, hi, v;
	int n = 0;

	while (*p) {
		if (parse_num(p, &end, &lo) < 0)
			return -1;
		hi = lo;
		if (*end == '-' && parse_num(end + 1, &end, &hi) < 0)
			return -1;
		if (hi < lo || hi - lo > 4096)
			return -1;
		for (v = lo; v <= hi; v++) {
			if (n >= max)
				return -1;
			out[n++] = (int)v;
		}
		if (*end == ',')
			end++;
		else if (*end != '\0')
			return -1;
		p = end;
	}
	return n;
}

int bench_pow2_sizes(int max, int *out, int room)
{
	int n = 0;
	long s;

	if (room > 0 && max >= 0)
		out[n++] = 0;
	for (s = 1; s <= max && n < room; s *= 2)
		out[n++] = (int)s;
	if (n < room && max > 0 && out[n - 1] != max)
		out[n++] = max;
	return n;
}

void bench_result(double value, const char *fmt, ...)
{
	va_list ap;

	fputs("RESULT ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" %.9g\n", value);
}

void bench_comms_header(void)
{
	printf("%12s %8s %12s %12s %12s %12s\n", "LENGTH(B)", "NREPT",
	       "TIME(us)", "MEDIAN(us)", "P90(us)", "RATE(MB/s)");
}

void bench_comms_row(int length, int reps, const struct bench_stats *st)
{
	printf("%12d %8d %12.3f %12.3f %12.3f %12.3f\n", length, reps,
	       st->mean * 1e6, st->median * 1e6, st->p90 * 1e6,
	       st->mean > 0 ? length / st->mean / 1e6 : 0.0);
	fflush(stdout);
}

/* Fits lengths[lo..hi) (relative errors if rel) and prints the
 * parameters under `label'; with a suffix (may be ""), also the RESULT
 * lines rinf<suffix>_MBps, nhalf<suffix>_B and t0<suffix>_us. */
static void fit_range(const char *label, const int *lengths,
		      const struct bench_stats *st, int lo, int hi, int rel,
		      const char *suffix)
{
	double n[64], t[64];
	struct bench_fit f;
	int i, c = 0, rc;

	for (i = lo; i < hi && c < 64; i++, c++) {
		n[c] = lengths[i];
		t[c] = st[i].mean;
	}
	rc = rel ? bench_fit_rel(n, t, c, &f) : bench_fit(n, t, c, &f);
	if (rc < 0) {
		printf("%s: the times do not grow with the length; no fit "
		       "(%d points)\n", label, c);
		return;
	}
	printf("%s (%d points): RINF = %.3f MB/s, NHALF = %.1f B, "
	       "T0 = %.3f us, PI0 = %.4g msg/s\n", label, c, f.rinf / 1e6,
	       f.nhalf, f.t0 * 1e6, f.t0 > 0 ? 1.0 / f.t0 : 0.0);
	if (suffix) {
		bench_result(f.rinf / 1e6, "rinf%s_MBps", suffix);
		bench_result(f.nhalf, "nhalf%s_B", suffix);
		bench_result(f.t0 * 1e6, "t0%s_us", suffix);
	}
}

void bench_comms_fit(const int *lengths, const struct bench_stats *st,
		     int count, int brk)
{
	int i, split = 0;

	printf("least squares of t = t0 + n / rinf (n in bytes, t per message):\n");
	fit_range("all lengths", lengths, st, 0, count, 0, "");
	if (brk > 0) {
		while (split < count && lengths[split] < brk)
			split++;
		fit_range("below breakpoint", lengths, st, 0, split, 0, NULL);
		fit_range("from breakpoint", lengths, st, split, count, 0, NULL);
	}
	/* The long messages dominate the absolute residuals, so the plain
	 * fit's T0 and NHALF can come out negative; relative residuals
	 * weigh every length alike. */
	fit_range("relative errors, all lengths", lengths, st, 0, count, 1, "_rel");
	for (i = 0; i < count; i++) {
		bench_result(st[i].mean * 1e6, "t_us.%d", lengths[i]);
		bench_result(st[i].median * 1e6, "tmed_us.%d", lengths[i]);
		bench_result(st[i].p90 * 1e6, "tp90_us.%d", lengths[i]);
	}
}

/*
 * ktest.h - a small kselftest-style harness for the module's ioctl suite:
 * each case is a function returning KT_PASS, KT_FAIL or KT_SKIP; the
 * runner prints TAP-like `ok N - name' / `not ok N - name' lines and a
 * final summary line.  The checks print a `#' diagnostic line with the
 * expression and its place, and make the case fail.
 */
#ifndef COPVM_KTEST_H
#define COPVM_KTEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { KT_PASS = 0, KT_FAIL = 1, KT_SKIP = 77 };

/* The case that runs now fails (a check failed) unless this stays 0. */
extern int kt_failed;
/* Why the case that runs now skips (KT_SKIP). */
extern const char *kt_skip_reason;

/* Fails the case if `cond' is false. */
#define KT_CHECK(cond) do { \
	if (!(cond)) { \
		printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, \
		       #cond); \
		kt_failed = 1; \
	} \
} while (0)

/* Fails the case unless `expr' (0 or -errno) equals `want'. */
#define KT_EQ_ERR(expr, want) do { \
	int kt_got_ = (expr); \
	if (kt_got_ != (want)) { \
		printf("#   %s:%d: %s = %d (%s), want %d (%s)\n", __FILE__, \
		       __LINE__, #expr, kt_got_, strerror(-kt_got_), \
		       (want), strerror(-(want))); \
		kt_failed = 1; \
	} \
} while (0)

/* Fails the case unless the integers `a' and `b' are equal. */
#define KT_EQ(a, b) do { \
	long long kt_a_ = (long long)(a), kt_b_ = (long long)(b); \
	if (kt_a_ != kt_b_) { \
		printf("#   %s:%d: %s = %lld, want %s = %lld\n", __FILE__, \
		       __LINE__, #a, kt_a_, #b, kt_b_); \
		kt_failed = 1; \
	} \
} while (0)

/* Ends the case as skipped, with a reason. */
#define KT_SKIP_IF(cond, why) do { \
	if (cond) { \
		kt_skip_reason = (why); \
		return KT_SKIP; \
	} \
} while (0)

struct kt_case {
	const char *name;
	int (*run)(void);
};

/* ioctl(fd, cmd, arg) as 0 or -errno, the form KT_EQ_ERR compares. */
int kt_ioctl(int fd, unsigned long cmd, void *arg);
/* CLOCK_MONOTONIC now, in ns. */
uint64_t kt_mono_ns(void);
/* The calling thread's CPU time, in ns. */
uint64_t kt_thread_cpu_ns(void);

struct pvm_cosched_limits;
/* Sets the module's limits to `l' through a file of its own; 0 or
 * -errno. */
int kt_set_limits(const struct pvm_cosched_limits *l);

/* Runs the cases in order, prints one line per case and the summary
 * line `prefix: PASS|FAIL n=N pass=P fail=F skip=S'; 0 if none failed. */
int kt_run_all(const struct kt_case *cases, int n, const char *prefix);

#endif /* COPVM_KTEST_H */

/*
 * ktest.c - the runner of the kselftest-style harness (ktest.h): runs
 * each case, prints its duration and its TAP-like line at once (the
 * serial console of a booted kernel shows how far the suite got) and the
 * summary line that the qemu test reads as the verdict.
 */
#include "ktest.h"

#include <stdio.h>
#include <time.h>

int kt_failed;
const char *kt_skip_reason;

int kt_run_all(const struct kt_case *cases, int n, const char *prefix)
{
	int pass = 0, fail = 0, skip = 0;

	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		struct timespec t0, t1;
		int rc;

		kt_failed = 0;
		kt_skip_reason = NULL;
		printf("# %s\n", cases[i].name);
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = cases[i].run();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("#   %ld ms\n", (long)((t1.tv_sec - t0.tv_sec) * 1000 +
				       (t1.tv_nsec - t0.tv_nsec) / 1000000));
		if (rc == KT_SKIP && !kt_failed) {
			printf("ok %d - %s # SKIP %s\n", i + 1, cases[i].name,
			       kt_skip_reason ? kt_skip_reason : "");
			skip++;
		} else if (rc == KT_PASS && !kt_failed) {
			printf("ok %d - %s\n", i + 1, cases[i].name);
			pass++;
		} else {
			printf("not ok %d - %s\n", i + 1, cases[i].name);
			fail++;
		}
		fflush(stdout);
	}
	printf("%s: %s n=%d pass=%d fail=%d skip=%d\n", prefix,
	       fail ? "FAIL" : "PASS", n, pass, fail, skip);
	fflush(stdout);
	return fail ? 1 : 0;
}

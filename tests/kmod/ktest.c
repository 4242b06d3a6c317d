/*
 * ktest.c - the runner of the kselftest-style harness (ktest.h): runs
 * each case, prints its duration and its TAP-like line at once (the
 * serial console of a booted kernel shows how far the suite got) and the
 * summary line that the qemu test reads as the verdict.  kmod_only=WORDS
 * on the kernel command line (KMOD_QEMU_APPEND, underscores for spaces)
 * runs only the cases whose names contain them.
 */
#include "ktest.h"
#include "pvm_cosched.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <time.h>

int kt_failed;
const char *kt_skip_reason;

/* The words a case's name must contain to run, from the kernel command
 * line's kmod_only= (underscores for spaces), or NULL: all. */
static const char *kt_only(void)
{
	static char only[128];
	char line[1024], *p;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return NULL;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	if (!p || !(p = strstr(line, "kmod_only=")))
		return NULL;
	p += strlen("kmod_only=");
	n = strcspn(p, " \n");
	if (n == 0 || n >= sizeof(only))
		return NULL;
	memcpy(only, p, n);
	only[n] = '\0';
	for (p = only; *p; p++)
		if (*p == '_')
			*p = ' ';
	return only;
}

int kt_run_all(const struct kt_case *cases, int n, const char *prefix)
{
	int pass = 0, fail = 0, skip = 0;

	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	const char *only = kt_only();

	for (int i = 0; i < n; i++) {
		struct timespec t0, t1;
		int rc;

		if (only && !strstr(cases[i].name, only)) {
			printf("ok %d - %s # SKIP not %s\n", i + 1,
			       cases[i].name, only);
			skip++;
			continue;
		}

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

/* ioctl as 0 or -errno (ktest.h). */
int kt_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC now (ktest.h). */
uint64_t kt_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time (ktest.h). */
uint64_t kt_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Sets the module's limits (ktest.h). */
int kt_set_limits(const struct pvm_cosched_limits *l)
{
	int fd = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = kt_ioctl(fd, PVM_COSCHED_IOC_SET_LIMITS, (void *)l);
	close(fd);
	return ret;
}

/*
 * check_cosched_watch.c - the daemon's watch over the coscheduling pages
 * (daemon/cosched_watch.c), against a private pvmd and hand-made pages:
 * a boost whose time box ended is undone (nice back to base_nice only if
 * it is still boost_nice, the slice request reset, its reset-on-fork flag
 * kept), whatever the page's backend (a correspondent's boost of a task
 * of the `none' backend), a boost still in its box is left, a spinning task over its CPU budget is demoted, pages of
 * processes that are not the daemon's tasks are never acted on, and
 * stale pages are removed.
 *
 * Nice values: as root the boosts are real (negative nice); the parts
 * that lower a nice are skipped otherwise, and an unprivileged variant
 * uses positive values (a "boost" of +5 over a base of +8: putting back
 * a higher nice is always permitted).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_page.h"
#include "pvmd_fixture.h"

static const char *const sleep_args[] = { "30", NULL };
static const char *const spin_args[] = { "-c", "while :; do :; done", NULL };

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

/* The backend the next hand-made page names (make_page). */
static int page_backend = COPVM_BACKEND_SELF;

static void watch_setup(void)
{
	unsetenv("COPVM_MODEL");
	start_daemon();
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int nice_of(pid_t pid)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, (id_t)pid);
}

/* Spawns `file' `args' from a connection of its own, closed after (a
 * halting daemon waits for its tasks' connections); the pid and tid. */
static pid_t spawn_one(const char *file, const char *const *args,
		       int32_t *tidp)
{
	int32_t tid, t[16], pid[16];
	int me, fd = task_connect(&me), n, i;

	ck_assert_int_eq(spawn(fd, file, 0, "", 1, args, NULL, 0, 0, &tid), 1);
	n = tasks(fd, 0, 16, t, NULL, NULL, pid);
	for (i = 0; i < n && t[i] != tid; i++)
		;
	ck_assert_int_lt(i, n);
	close(fd);
	*tidp = tid;
	return pid[i];
}

static char *page_path(int tid, char *buf, size_t size)
{
	snprintf(buf, size, "%s/" COSCHED_DIR "/" COSCHED_PAGE_FMT, dir,
		 (unsigned)tid);
	return buf;
}

/* Writes a page for `tid'/`pid' boosted at `boost' and maps it. */
static struct cosched_page *make_page(int tid, pid_t pid, int boost,
				      int boost_nice, int base_nice,
				      int slice, uint64_t until)
{
	static unsigned char buf[COSCHED_PAGE_SIZE];
	struct cosched_page *pg = (void *)buf;
	char path[900];
	void *m;
	int fd;

	memset(buf, 0, sizeof(buf));
	pg->magic = COSCHED_PAGE_MAGIC;
	pg->version = COSCHED_PAGE_VERSION;
	pg->pid = pid;
	pg->tid = tid;
	pg->uid = getuid();
	pg->model = COPVM_MODEL_DCS;
	pg->backend = page_backend;
	pg->boost = boost;
	pg->boost_nice = boost_nice;
	pg->base_nice = base_nice;
	pg->boost_slice = slice;
	pg->boost_until_ns = until;
	pg->budget_window_ns = 100000000ull;
	fd = open(page_path(tid, path, sizeof(path)),
		  O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), sizeof(buf));
	m = mmap(NULL, COSCHED_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	close(fd);
	ck_assert(m != MAP_FAILED);
	return m;
}

/* Waits up to `ms' for the page's boost to be NONE; 1 if it was. */
static int wait_unboosted(struct cosched_page *pg, int ms)
{
	long long end = now_ms() + ms;

	do {
		if (__atomic_load_n(&pg->boost, __ATOMIC_ACQUIRE) ==
		    COPVM_BOOST_NONE)
			return 1;
		msleep(5);
	} while (now_ms() < end);
	return 0;
}

static int wait_gone(const char *path, int ms)
{
	long long end = now_ms() + ms;
	struct stat st;

	do {
		if (stat(path, &st) < 0 && errno == ENOENT)
			return 1;
		msleep(5);
	} while (now_ms() < end);
	return 0;
}

START_TEST(expired_boost_is_undone)
{
	int32_t tid;
	pid_t p = spawn_one("/bin/sleep", sleep_args, &tid);
	struct cosched_page *pg;

	/* unprivileged variant: +5 set by the "boost", base +8 */
	ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)p, 5), 0);
	pg = make_page(tid, p, COPVM_BOOST_NICE, 5, 8, 0, mono_ns() - 1000000);
	ck_assert_msg(wait_unboosted(pg, 1000), "boost not undone");
	ck_assert_int_eq(nice_of(p), 8);
	ck_assert_uint_eq(pg->boost_until_ns, 0);
	ck_assert_uint_eq(pg->demotions, 0);
	munmap(pg, COSCHED_PAGE_SIZE);
	kill(p, SIGKILL);
}
END_TEST

START_TEST(expired_real_boost_is_undone_as_root)
{
	int32_t tid;
	pid_t p = spawn_one("/bin/sleep", sleep_args, &tid);
	struct cosched_page *pg;
	struct attr a = { .size = sizeof(a), .runtime = 100000 };

	if (setpriority(PRIO_PROCESS, (id_t)p, -5) < 0) {
		kill(p, SIGKILL);
		return;			/* not permitted: nothing to test */
	}
	/* a slice request too, where the kernel has them (6.12+) */
	a.nice = -5;
	if (syscall(SYS_sched_setattr, p, &a, 0) < 0)
		a.runtime = 0;
	pg = make_page(tid, p, COPVM_BOOST_NICE, -5, 0, a.runtime != 0,
		       mono_ns() - 1000000);
	ck_assert_msg(wait_unboosted(pg, 1000), "boost not undone");
	ck_assert_int_eq(nice_of(p), 0);
	ck_assert_int_eq(pg->boost_slice, 0);
	if (a.runtime) {
		memset(&a, 0, sizeof(a));
		ck_assert_int_eq(syscall(SYS_sched_getattr, p, &a, sizeof(a),
					 0), 0);
		ck_assert_uint_ne(a.runtime, 100000);	/* the default now */
		ck_assert_int_eq(a.nice, 0);
	}
	munmap(pg, COSCHED_PAGE_SIZE);
	kill(p, SIGKILL);
}
END_TEST

/* A correspondent's boost on the page of a task that never undoes its
 * own (backend none), or of the agent's or the module's (which undo
 * theirs, the watch being the backstop): undone at the end of its box,
 * with the slice reset and the task's reset-on-fork flag kept. */
START_TEST(expired_boost_is_undone_whatever_the_backend)
{
	static const int backends[] = { COPVM_BACKEND_NONE,
		COPVM_BACKEND_AGENT, COPVM_BACKEND_KMOD };
	struct attr a = { .size = sizeof(a), .flags = 1, .nice = 5,
			  .runtime = 100000 };
	struct cosched_page *pg;
	int32_t tid;
	pid_t p = spawn_one("/bin/sleep", sleep_args, &tid);

	/* the boost a self peer gives: nice and slice, reset-on-fork */
	if (syscall(SYS_sched_setattr, p, &a, 0) < 0) {
		a.runtime = 0;
		ck_assert_int_eq(syscall(SYS_sched_setattr, p, &a, 0), 0);
	}
	page_backend = backends[_i];
	pg = make_page(tid, p, COPVM_BOOST_NICE, 5, 8, a.runtime != 0,
		       mono_ns() - 1000000);
	ck_assert_msg(wait_unboosted(pg, 1000), "boost not undone");
	ck_assert_int_eq(nice_of(p), 8);
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(syscall(SYS_sched_getattr, p, &a, sizeof(a), 0), 0);
	ck_assert_uint_ne(a.runtime, 100000);
	ck_assert_uint_eq(a.flags & 1, 1);	/* SCHED_FLAG_RESET_ON_FORK */
	munmap(pg, COSCHED_PAGE_SIZE);
	kill(p, SIGKILL);
}
END_TEST

START_TEST(nice_not_set_by_the_boost_is_left_alone)
{
	int32_t tid;
	pid_t p = spawn_one("/bin/sleep", sleep_args, &tid);
	struct cosched_page *pg;

	/* someone else changed the nice since the boost */
	ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)p, 7), 0);
	pg = make_page(tid, p, COPVM_BOOST_NICE, 3, 9, 0, mono_ns() - 1000000);
	ck_assert(wait_unboosted(pg, 1000));
	ck_assert_int_eq(nice_of(p), 7);
	munmap(pg, COSCHED_PAGE_SIZE);
	kill(p, SIGKILL);
}
END_TEST

START_TEST(boost_in_its_time_box_is_kept)
{
	int32_t tid;
	pid_t p = spawn_one("/bin/sleep", sleep_args, &tid);
	struct cosched_page *pg;

	ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)p, 5), 0);
	pg = make_page(tid, p, COPVM_BOOST_NICE, 5, 8, 0,
		       mono_ns() + 600000000ull);
	msleep(300);
	/* sleeping, in its box: kept */
	ck_assert_int_eq(pg->boost, COPVM_BOOST_NICE);
	ck_assert_int_eq(nice_of(p), 5);
	/* then the box ends */
	ck_assert(wait_unboosted(pg, 1500));
	ck_assert_int_eq(nice_of(p), 8);
	munmap(pg, COSCHED_PAGE_SIZE);
	kill(p, SIGKILL);
}
END_TEST

START_TEST(spinning_task_over_budget_is_demoted)
{
	int32_t tid;
	int boost = -10, base = 0;
	pid_t p = spawn_one("/bin/sh", spin_args, &tid);
	struct cosched_page *pg;

	/* a real boost as root gets it the CPU it will be blamed for */
	if (setpriority(PRIO_PROCESS, (id_t)p, boost) < 0) {
		boost = 2;
		base = 6;
		ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)p, boost), 0);
	}
	pg = make_page(tid, p, COPVM_BOOST_NICE, boost, base, 0,
		       mono_ns() + 30000000000ull);
	ck_assert_msg(wait_unboosted(pg, 2000), "not demoted");
	ck_assert_uint_eq(pg->demotions, 1);
	ck_assert_int_eq(nice_of(p), base);
	munmap(pg, COSCHED_PAGE_SIZE);
	kill(p, SIGKILL);
}
END_TEST

/* A child of ours, no task of the daemon; `tid_env' (0: none) goes in
 * its COPVM_TID. */
static pid_t stranger(int tid_env)
{
	char v[32];
	pid_t p = fork();

	ck_assert_int_ge(p, 0);
	if (p == 0) {
		if (tid_env) {
			snprintf(v, sizeof(v), "%d", tid_env);
			setenv("COPVM_TID", v, 1);
		} else {
			unsetenv("COPVM_TID");
		}
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	msleep(20);			/* exec'd: environ is the new one */
	return p;
}

START_TEST(foreign_pages_are_ignored_and_stale_ones_removed)
{
	int32_t tid;
	pid_t task = spawn_one("/bin/sleep", sleep_args, &tid);
	pid_t plain = stranger(0), other = stranger(0x40abc);
	pid_t dead = stranger(0), imposter = stranger(0);
	struct cosched_page *a, *b, *c, *d;
	char pa[900], pb[900], pc[900], pd[900];
	uint64_t past = mono_ns() - 1000000;
	struct stat st;

	kill(dead, SIGKILL);
	waitpid(dead, NULL, 0);
	ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)plain, 5), 0);
	ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)imposter, 5), 0);
	/* a: a live process that is not a task; kept, never touched */
	a = make_page(0x40f01, plain, COPVM_BOOST_NICE, 5, 8, 0, past);
	/* b: a process whose COPVM_TID is another task's: stale */
	b = make_page(0x40f02, other, COPVM_BOOST_NICE, 5, 8, 0, past);
	/* c: a pid that is gone: stale */
	c = make_page(0x40f03, dead, COPVM_BOOST_NICE, 5, 8, 0, past);
	/* d: a real task's tid with another pid: stale, never touched */
	d = make_page(tid, imposter, COPVM_BOOST_NICE, 5, 8, 0, past);
	page_path(0x40f01, pa, sizeof(pa));
	page_path(0x40f02, pb, sizeof(pb));
	page_path(0x40f03, pc, sizeof(pc));
	page_path(tid, pd, sizeof(pd));
	ck_assert(wait_gone(pb, 1000));
	ck_assert(wait_gone(pc, 1000));
	ck_assert(wait_gone(pd, 1000));
	msleep(150);
	ck_assert_int_eq(stat(pa, &st), 0);
	ck_assert_int_eq(a->boost, COPVM_BOOST_NICE);
	ck_assert_int_eq(nice_of(plain), 5);
	ck_assert_int_eq(d->boost, COPVM_BOOST_NICE);
	ck_assert_int_eq(nice_of(imposter), 5);
	ck_assert(log_has("removed stale page"));
	munmap(a, COSCHED_PAGE_SIZE);
	munmap(b, COSCHED_PAGE_SIZE);
	munmap(c, COSCHED_PAGE_SIZE);
	munmap(d, COSCHED_PAGE_SIZE);
	kill(plain, SIGKILL);
	kill(other, SIGKILL);
	kill(imposter, SIGKILL);
	kill(task, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}
END_TEST

static Suite *cosched_watch_suite(void)
{
	Suite *s = suite_create("cosched_watch");
	TCase *tc = tcase_create("watch");

	tcase_add_checked_fixture(tc, watch_setup, stop_daemon);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, expired_boost_is_undone);
	tcase_add_test(tc, expired_real_boost_is_undone_as_root);
	tcase_add_loop_test(tc, expired_boost_is_undone_whatever_the_backend, 0,
			    3);
	tcase_add_test(tc, nice_not_set_by_the_boost_is_left_alone);
	tcase_add_test(tc, boost_in_its_time_box_is_kept);
	tcase_add_test(tc, spinning_task_over_budget_is_demoted);
	tcase_add_test(tc, foreign_pages_are_ignored_and_stale_ones_removed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cosched_watch_suite());
	int failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_cosched.c - the coscheduling engine inside libpvm3 (lib/cosched/)
 * against a private daemon: the page's life, the probe's counts and
 * correspondents, F over intervals and its decay, DYN against PRE,
 * copvm_setopt/getopt, requests through the page, the boosts of PRE and
 * HPDT with the unprivileged `self' backend (and their undoing), no
 * boost while no task waits for a CPU, IMP's spin bound, the backend of
 * a model changed at run time, the fallback when the agent asked for
 * is not there, and the one line on stderr that says so when the user
 * asked for coscheduling (none for a user who did not, or COPVM_QUIET).  The engine boosts only while more tasks are runnable
 * than there are CPUs: the tests give it a fixed load through
 * COPVM_LOADAVG_FILE (busy unless a test says otherwise).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_page.h"
#include "pvm3.h"
#include "vm_fixture.h"

/* The fixed loads the engine reads (setup). */
static char busy_loadavg[512], idle_loadavg[512];

static void page_path(char *buf, size_t len, int tid)
{
	snprintf(buf, len, "%s/copvm-%u/%s/" COSCHED_PAGE_FMT, vm_fixture_tmp(),
		 (unsigned)getuid(), COSCHED_DIR, (unsigned)tid);
}

/* Maps task `tid''s page read-write (the tools' view); NULL if none. */
static struct cosched_page *map_page(int tid)
{
	char path[512];
	void *p;
	int fd;

	page_path(path, sizeof(path), tid);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, COSCHED_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Spawns task_child in "pingpong n" mode; its tid. */
static int spawn_pingpong(int n)
{
	char count[16], *av[] = { "pingpong", count, NULL };
	int tid = 0;

	snprintf(count, sizeof(count), "%d", n);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	return tid;
}

/* `n' round trips with task `tid' (spawned with spawn_pingpong). */
static void exchange(int tid, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		vm_send_int(tid, 1, i);
		ck_assert_int_eq(vm_recv_int(tid, 2), i + 1);
	}
}

static uint64_t slice_of(int pid)
{
	struct sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, pid, &a, sizeof(a), 0) < 0)
		return 0;
	return a.sched_runtime;
}

/* Non-zero while task `pid' has SCHED_RESET_ON_FORK. */
static int reset_on_fork_of(int pid)
{
	struct sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, pid, &a, sizeof(a), 0) < 0)
		return -1;
	return (a.sched_flags & SCHED_FLAG_RESET_ON_FORK) != 0;
}

START_TEST(page_lives_from_enrolment_to_exit)
{
	struct cosched_page *pg;
	char path[512];
	int tid;

	setenv("COPVM_MODEL", "pre", 1);
	tid = pvm_mytid();
	ck_assert_int_gt(tid, 0);
	pg = map_page(tid);
	ck_assert_ptr_nonnull(pg);
	ck_assert_uint_eq(pg->magic, COSCHED_PAGE_MAGIC);
	ck_assert_uint_eq(pg->version, COSCHED_PAGE_VERSION);
	ck_assert_int_eq(pg->pid, getpid());
	ck_assert_int_eq(pg->tid, tid);
	ck_assert_int_eq(pg->model, COPVM_MODEL_PRE);
	ck_assert_int_eq(pg->req_model, COSCHED_REQ_NONE);
	pvm_exit();
	page_path(path, sizeof(path), tid);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_uint_eq(pg->magic, 0);	/* cleared before removal */
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

START_TEST(probe_counts_messages_and_correspondents)
{
	struct cosched_page *pg, *cp;
	int me, child;

	setenv("COPVM_MODEL", "lin", 1);
	me = pvm_mytid();
	child = spawn_pingpong(40);
	exchange(child, 40);
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	ck_assert_uint_eq(pg->sends_total, 40);
	ck_assert_uint_eq(pg->recvs_total, 40);
	ck_assert_int_eq(pg->npeers, 1);
	ck_assert_int_eq(pg->peers[0].tid, child);
	ck_assert_uint_eq(pg->peers[0].sends, 40);
	ck_assert_uint_eq(pg->peers[0].recvs, 40);
	/* LIN counts, but never boosts and talks to no backend. */
	ck_assert_int_eq(pg->boost, COPVM_BOOST_NONE);
	ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
	/* The child counted the other way round (its page may be gone
	 * already if it has exited: then there is nothing to check). */
	cp = map_page(child);
	if (cp && cp->magic == COSCHED_PAGE_MAGIC) {
		ck_assert_uint_eq(cp->recvs_total, 40);
		ck_assert_int_eq(cp->peers[0].tid, me);
	}
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* A message counts when the program takes it, not when the library reads
 * it: answers read in one burst by pvm_probe count one by one as they
 * are received (a task working through a backlog keeps its F). */
START_TEST(received_messages_count_when_taken)
{
	struct cosched_page *pg;
	int me, child, i;

	setenv("COPVM_MODEL", "lin", 1);
	me = pvm_mytid();
	child = spawn_pingpong(20);
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	for (i = 0; i < 20; i++)
		vm_send_int(child, 1, i);
	/* read what has come: at least the first answer, untaken */
	while (pvm_probe(child, 2) == 0)
		sleep_ms(5);
	sleep_ms(100);
	ck_assert_int_gt(pvm_probe(child, 2), 0);
	ck_assert_uint_eq(pg->recvs_total, 0);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(vm_recv_int(child, 2), i + 1);
	ck_assert_uint_eq(pg->recvs_total, 5);
	ck_assert_uint_eq(pg->peers[0].recvs, 5);
	for (; i < 20; i++)
		ck_assert_int_eq(vm_recv_int(child, 2), i + 1);
	ck_assert_uint_eq(pg->recvs_total, 20);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

START_TEST(frequency_rises_then_decays_when_idle)
{
	int child, f;

	setenv("COPVM_MODEL", "lin", 1);
	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_INTERVAL, 5), 10);
	child = spawn_pingpong(100000);
	{
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			exchange(child, 20);
			clock_gettime(CLOCK_MONOTONIC, &b);
		} while ((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000 < 60);
	}
	/* Under P = 0.5: an interval the probe saw end late (the task was
	 * switched out) would clear F under P = 0. */
	f = copvm_getopt(COPVM_OPT_FREQ);
	ck_assert_int_gt(f, 100);	/* thousands per second in fact */
	/* P = 0: one empty interval is enough to clear F. */
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_P, 0), 500);
	sleep_ms(30);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_FREQ), 0);
	pvm_kill(child);
}
END_TEST

START_TEST(dyn_counts_receives_pre_both)
{
	char *av[] = { "wait", NULL };
	int child = 0, i;

	setenv("COPVM_MODEL", "dyn", 1);
	setenv("COPVM_BACKEND", "none", 1);
	ck_assert_int_gt(pvm_mytid(), 0);
	copvm_setopt(COPVM_OPT_INTERVAL, 5);
	copvm_setopt(COPVM_OPT_P, 0);
	/* A child that never reads: our messages only go one way. */
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &child), 1);
	for (i = 0; i < 200; i++)
		vm_send_int(child, 1, i);
	sleep_ms(12);	/* the interval and the coarse clock's tick */
	vm_send_int(child, 1, 0);	/* a hook after the interval */
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_FREQ), 0);
	/* P = 0.5, so the empty intervals of the sleep below only halve
	 * what the 200 sends gave. */
	copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_PRE);
	copvm_setopt(COPVM_OPT_P, 500);
	for (i = 0; i < 200; i++)
		vm_send_int(child, 1, i);
	sleep_ms(12);
	ck_assert_int_gt(copvm_getopt(COPVM_OPT_FREQ), 1000);
	pvm_kill(child);
}
END_TEST

/* A task that only sends, and so never blocks, still closes every
 * interval: its probe keeps looking at the clock after each roll. */
START_TEST(a_task_that_only_sends_keeps_rolling)
{
	char *av[] = { "wait", NULL };
	struct cosched_page *pg;
	struct timespec a, b;
	uint64_t now, lag;
	int child = 0, me, i;

	setenv("COPVM_MODEL", "pre", 1);
	setenv("COPVM_BACKEND", "none", 1);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	copvm_setopt(COPVM_OPT_INTERVAL, 5);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &child), 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (i = 0; i < 50; i++)
			vm_send_int(child, 1, i);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 +
		 (b.tv_nsec - a.tv_nsec) / 1000000 < 100);
	/* Read the page, not copvm_getopt, which would roll by itself. */
	now = (uint64_t)b.tv_sec * 1000000000ULL + (uint64_t)b.tv_nsec;
	lag = now - pg->interval_start_ns;
	ck_assert_msg(lag < 40000000ULL,
		      "the last interval closed %llu ms before the last send",
		      (unsigned long long)(lag / 1000000));
	ck_assert_msg(pg->freq > 1000.0, "F = %g", pg->freq);
	pvm_kill(child);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

START_TEST(setopt_checks_and_returns_the_previous_value)
{
	setenv("COPVM_MODEL", "lin", 1);
	setenv("COPVM_P", "0.25", 1);
	setenv("COPVM_INTERVAL_MS", "7", 1);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_MODEL), COPVM_MODEL_LIN);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_P), 250);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_INTERVAL), 7);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_DCS),
			 COPVM_MODEL_LIN);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_MODEL), COPVM_MODEL_DCS);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_MODEL, COPVM_NMODELS), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_MODEL, -1), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_P, 1001), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_INTERVAL, 0), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_INTERVAL, 10001), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_BACKEND, 77), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_FREQ, 5), PvmBadParam);
	ck_assert_int_eq(copvm_setopt(0x4242, 0), PvmBadParam);
	ck_assert_int_eq(copvm_getopt(0x4242), PvmBadParam);
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	/* The values survive the bad calls and enrolment. */
	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_MODEL), COPVM_MODEL_DCS);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_P), 250);
}
END_TEST

START_TEST(bad_environment_keeps_the_defaults)
{
	setenv("COPVM_MODEL", "fastest", 1);
	setenv("COPVM_P", "2.5", 1);
	setenv("COPVM_INTERVAL_MS", "-3", 1);
	setenv("COPVM_BACKEND", "magic", 1);
	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_ge(copvm_getopt(COPVM_OPT_MODEL), 0);
	ck_assert_int_lt(copvm_getopt(COPVM_OPT_MODEL), COPVM_NMODELS);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_P), 500);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_INTERVAL), 10);
}
END_TEST

START_TEST(requests_through_the_page_are_applied)
{
	struct cosched_page *pg;
	int me;

	setenv("COPVM_MODEL", "lin", 1);
	me = pvm_mytid();
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	copvm_setopt(COPVM_OPT_INTERVAL, 2);
	__atomic_store_n(&pg->req_model, COPVM_MODEL_DYN, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->req_p_milli, 125, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->req_interval_ms, 9, __ATOMIC_RELEASE);
	sleep_ms(10);
	copvm_getopt(COPVM_OPT_FREQ);	/* a hook after the interval */
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_MODEL), COPVM_MODEL_DYN);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_P), 125);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_INTERVAL), 9);
	ck_assert_int_eq(pg->model, COPVM_MODEL_DYN);
	ck_assert_int_eq(pg->req_model, COSCHED_REQ_NONE);
	ck_assert_int_eq(pg->req_p_milli, COSCHED_REQ_NONE);
	/* Out-of-range requests are dropped. */
	__atomic_store_n(&pg->req_model, 42, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->req_p_milli, 5000, __ATOMIC_RELEASE);
	sleep_ms(12);
	copvm_getopt(COPVM_OPT_FREQ);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_MODEL), COPVM_MODEL_DYN);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_P), 125);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* PRE with the self backend: a busy exchange earns a boost of the task
 * and of its correspondent, both undone when the task leaves. */
START_TEST(pre_boosts_the_task_and_its_correspondent)
{
	struct cosched_page *pg, *cp;
	int me, child, base = getpriority(PRIO_PROCESS, 0);
	uint64_t slice0 = slice_of(0);

	/* The child runs LIN (it never boosts itself), we run PRE. */
	setenv("COPVM_MODEL", "lin", 1);
	setenv("PVM_EXPORT", "COPVM_MODEL", 1);
	setenv("COPVM_BACKEND", "self", 1);
	setenv("COPVM_INTERVAL_MS", "5", 1);
	copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_PRE);
	me = pvm_mytid();
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	if (pg->backend != COPVM_BACKEND_SELF) {
		/* Neither slice requests (kernel < 6.12) nor a lower nice
		 * (RLIMIT_NICE) here: the fallback is `none'. */
		ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
		munmap(pg, COSCHED_PAGE_SIZE);
		return;
	}
	child = spawn_pingpong(100000);
	for (int i = 0; i < 50 && pg->boost == COPVM_BOOST_NONE; i++)
		exchange(child, 50);
	ck_assert_int_gt(pg->boost, COPVM_BOOST_NONE);
	ck_assert_uint_gt(pg->boosts, 0);
	ck_assert_uint_gt(pg->boost_until_ns, 0);
	if (pg->boost_slice)
		ck_assert_uint_eq(slice_of(0), 100000);
	if (pg->boost == COPVM_BOOST_NICE) {
		ck_assert_int_lt(getpriority(PRIO_PROCESS, 0), base);
		ck_assert_int_ge(getpriority(PRIO_PROCESS, 0), -10);
	}
	for (int i = 0; i < 50 && pg->peer_boosts == 0; i++)
		exchange(child, 50);
	ck_assert_uint_gt(pg->peer_boosts, 0);
	cp = map_page(child);
	ck_assert_ptr_nonnull(cp);
	ck_assert_int_eq(cp->model, COPVM_MODEL_LIN);
	ck_assert_uint_gt(cp->boosted_by_peers, 0);
	if (cp->boost_slice)
		ck_assert_uint_eq(slice_of(cp->pid), 100000);
	munmap(cp, COSCHED_PAGE_SIZE);
	pvm_kill(child);
	pvm_exit();
	ck_assert_int_eq(getpriority(PRIO_PROCESS, 0), base);
	ck_assert_uint_eq(slice_of(0), slice0);
	/* The undo clears the flag where the kernel lets it (root; an
	 * unprivileged task may not clear it, and keeps it). */
	if (geteuid() == 0)
		ck_assert_int_eq(reset_on_fork_of(0), 0);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* PRE with the self backend boosts a LIN correspondent (backend `none',
 * which never undoes a boost itself), then goes quiet: no library call.
 * The daemon's watch must give the correspondent back its base nice and
 * its default slice within two boxes (the box is two 20 ms intervals). */
START_TEST(pre_peer_boost_of_a_lin_task_ends_within_two_boxes)
{
	const uint64_t box = 40000000ull;
	struct cosched_page *pg, *cp;
	int me, child, pid, base, level, nice, back = 0;
	uint64_t slice0 = slice_of(0), quiet, t = 0;

	setenv("COPVM_MODEL", "lin", 1);
	setenv("PVM_EXPORT", "COPVM_MODEL", 1);
	setenv("COPVM_BACKEND", "self", 1);
	setenv("COPVM_INTERVAL_MS", "20", 1);
	copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_PRE);
	me = pvm_mytid();
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	if (pg->backend != COPVM_BACKEND_SELF) {
		ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
		munmap(pg, COSCHED_PAGE_SIZE);
		return;
	}
	child = spawn_pingpong(100000);
	exchange(child, 1);
	cp = map_page(child);
	ck_assert_ptr_nonnull(cp);
	ck_assert_int_eq(cp->backend, COPVM_BACKEND_NONE);
	pid = cp->pid;
	base = cp->base_nice;
	ck_assert_int_eq(getpriority(PRIO_PROCESS, pid), base);
	for (int i = 0; i < 200 && pg->peer_boosts == 0; i++)
		exchange(child, 50);
	/* one more burst, renewing the correspondent's box: then quiet */
	exchange(child, 50);
	quiet = mono_ns();
	ck_assert_uint_gt(pg->peer_boosts, 0);
	level = __atomic_load_n(&cp->boost, __ATOMIC_ACQUIRE);
	nice = getpriority(PRIO_PROCESS, pid);
	ck_assert_int_gt(level, COPVM_BOOST_NONE);
	if (level == COPVM_BOOST_NICE)
		ck_assert_int_lt(nice, base);
	if (cp->boost_slice)
		ck_assert_uint_eq(slice_of(pid), 100000);
	ck_assert_uint_le(cp->boost_until_ns, quiet + box);
	while (!back && (t = mono_ns()) < quiet + 2 * box + 5000000ull) {
		back = getpriority(PRIO_PROCESS, pid) == base &&
		       slice_of(pid) == slice0 &&
		       __atomic_load_n(&cp->boost, __ATOMIC_ACQUIRE) ==
		       COPVM_BOOST_NONE;
		if (!back)
			sleep_ms(1);
	}
	fprintf(stderr, "# correspondent at level %d (nice %d, base %d) "
		"back after %.1f ms of quiet\n", level, nice, base,
		(double)(t - quiet) / 1e6);
	ck_assert_msg(back, "still boosted %.1f ms after going quiet",
		      (double)(t - quiet) / 1e6);
	ck_assert_uint_le(t, quiet + 2 * box);
	ck_assert_int_eq(getpriority(PRIO_PROCESS, pid), base);
	ck_assert_uint_eq(slice_of(pid), slice0);
	munmap(cp, COSCHED_PAGE_SIZE);
	pvm_kill(child);
	pvm_exit();
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* COPVM_F_RT moves PRE's thresholds: round trips 50 ms apart, counted in
 * 20 ms intervals, make F at most about 100 messages/s.  Under the
 * defaults (a raised nice from 100, the real-time boost from 1000) that
 * earns at most a slice and a nice of -1; with COPVM_F_RT=1 (loop 1)
 * every message earns the strongest boost, which `self' gives as its
 * nice floor (below -1 where CAP_SYS_NICE or RLIMIT_NICE allow). */
START_TEST(f_rt_sets_the_rate_of_the_strongest_boost)
{
	struct cosched_page *pg;
	int me, child, i, strongest = 0, levels = 0;

	setenv("COPVM_MODEL", "lin", 1);
	setenv("PVM_EXPORT", "COPVM_MODEL", 1);
	setenv("COPVM_BACKEND", "self", 1);
	setenv("COPVM_INTERVAL_MS", "20", 1);
	if (_i)
		setenv("COPVM_F_RT", "1", 1);
	copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_PRE);
	me = pvm_mytid();
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	if (pg->backend != COPVM_BACKEND_SELF) {
		munmap(pg, COSCHED_PAGE_SIZE);
		return;
	}
	child = spawn_pingpong(100000);
	for (i = 0; i < 12; i++) {
		exchange(child, 1);
		sleep_ms(50);
		copvm_getopt(COPVM_OPT_FREQ);	/* a hook after the interval */
		if (pg->boost > levels)
			levels = pg->boost;
		if (pg->boost_nice < strongest)
			strongest = pg->boost_nice;
	}
	pvm_kill(child);
	if (_i) {
		ck_assert_int_ge(levels, COPVM_BOOST_SLICE);
		/* a raised nice is the floor: -10 for root */
		if (levels == COPVM_BOOST_NICE && geteuid() == 0)
			ck_assert_int_eq(strongest, -10);
		else if (levels == COPVM_BOOST_NICE)
			ck_assert_int_lt(strongest, 0);
	} else {
		ck_assert_int_ge(strongest, -1);
	}
	pvm_exit();
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

START_TEST(hpdt_boosts_from_enrolment)
{
	struct cosched_page *pg;

	setenv("COPVM_MODEL", "hpdt", 1);
	setenv("COPVM_BACKEND", "self", 1);
	pg = map_page(pvm_mytid());
	ck_assert_ptr_nonnull(pg);
	if (pg->backend == COPVM_BACKEND_SELF)
		ck_assert_int_gt(pg->boost, COPVM_BOOST_NONE);
	else
		ck_assert_int_eq(pg->boost, COPVM_BOOST_NONE);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* On an idle machine (only this task runnable) neither HPDT nor a busy
 * PRE task asks for a boost; with the same settings on a busy one
 * (hpdt_boosts_from_enrolment, pre_boosts_...) they do. */
START_TEST(no_boost_while_no_task_waits_for_a_cpu)
{
	struct cosched_page *pg;
	int child, i;

	setenv("COPVM_LOADAVG_FILE", idle_loadavg, 1);
	setenv("COPVM_MODEL", _i ? "pre" : "hpdt", 1);
	setenv("COPVM_BACKEND", "self", 1);
	setenv("COPVM_INTERVAL_MS", "5", 1);
	pg = map_page(pvm_mytid());
	ck_assert_ptr_nonnull(pg);
	if (pg->backend != COPVM_BACKEND_SELF) {
		munmap(pg, COSCHED_PAGE_SIZE);
		return;
	}
	if (_i) {
		struct timespec a, b;

		child = spawn_pingpong(100000);
		/* F is rolled at the end of an interval (5 ms): the exchange
		 * must outlast several, however fast the messages go (on an
		 * idle machine 1000 round trips may take 2 ms) */
		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			for (i = 0; i < 20; i++)
				exchange(child, 50);
			clock_gettime(CLOCK_MONOTONIC, &b);
		} while ((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000 < 50);
		ck_assert_double_gt(pg->freq, 1000.0);
		pvm_kill(child);
	}
	ck_assert_int_eq(pg->boost, COPVM_BOOST_NONE);
	ck_assert_uint_eq(pg->boosts, 0);
	pvm_exit();
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

START_TEST(imp_spins_two_context_switches)
{
	struct cosched_page *pg;
	char path[512], buf[32] = "";
	int me, child, fd;
	unsigned long long ctxsw;

	setenv("COPVM_MODEL", "imp", 1);
	me = pvm_mytid();
	child = spawn_pingpong(3);
	exchange(child, 3);
	snprintf(path, sizeof(path), "%s/copvm-%u/ctxsw_ns", vm_fixture_tmp(),
		 (unsigned)getuid());
	fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ctxsw = strtoull(buf, NULL, 10);
	ck_assert_uint_gt(ctxsw, 0);
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	ck_assert_uint_eq(pg->spin_ns, 2 * ctxsw);
	ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* The page names the task's same-host transport from its enrolment
 * (rings unless COPVM_SHM=0), and no TCP one before a direct route. */
START_TEST(the_page_names_the_transports)
{
	struct cosched_page *pg;
	int me;

	if (_i == 1)
		setenv("COPVM_SHM", "0", 1);
	me = pvm_mytid();
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	ck_assert_int_eq(pg->local_xport, _i == 1 ? COSCHED_XPORT_UNIX :
			 COSCHED_XPORT_SHM);
	ck_assert_int_eq(pg->tcp_xport, COSCHED_XPORT_UNKNOWN);
	munmap(pg, COSCHED_PAGE_SIZE);
	pvm_exit();
}
END_TEST

START_TEST(a_model_changed_later_gets_its_backend)
{
	struct cosched_page *pg;
	int me, self_works = slice_of(0) != 0 || geteuid() == 0;

	setenv("COPVM_MODEL", "lin", 1);
	setenv("COPVM_BACKEND", "self", 1);
	me = pvm_mytid();
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
	ck_assert_int_eq(copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_PRE),
			 COPVM_MODEL_LIN);
	ck_assert_int_eq(pg->model, COPVM_MODEL_PRE);
	ck_assert_int_eq(pg->backend, self_works ? COPVM_BACKEND_SELF :
			 COPVM_BACKEND_NONE);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_BACKEND), pg->backend);
	/* Back to a model that never boosts: no backend at all. */
	copvm_setopt(COPVM_OPT_MODEL, COPVM_MODEL_EXP);
	ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
	ck_assert_int_eq(pg->boost, COPVM_BOOST_NONE);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

START_TEST(missing_agent_falls_back_quietly)
{
	struct cosched_page *pg;
	int me, child;

	setenv("COPVM_MODEL", "pre", 1);
	setenv("COPVM_BACKEND", "agent", 1);
	setenv("COPVM_AGENT_SOCK", "/nonexistent/copvm-agent.sock", 1);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
	child = spawn_pingpong(20);
	exchange(child, 20);
	ck_assert_int_eq(pg->boost, COPVM_BOOST_NONE);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* /dev/null opens but answers no pvm_cosched ioctl (ENOTTY): asked
 * for by name or found by auto, it is never taken for the module. */
START_TEST(a_device_that_is_not_the_module_falls_back_quietly)
{
	struct cosched_page *pg;
	int me, child;

	setenv("COPVM_MODEL", "pre", 1);
	setenv("COPVM_BACKEND", _i ? "auto" : "kmod", 1);
	setenv("COPVM_KMOD_DEV", "/dev/null", 1);
	setenv("COPVM_AGENT_SOCK", "/nonexistent/copvm-agent.sock", 1);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	pg = map_page(me);
	ck_assert_ptr_nonnull(pg);
	ck_assert_int_ne(pg->backend, COPVM_BACKEND_KMOD);
	if (!_i)
		ck_assert_int_eq(pg->backend, COPVM_BACKEND_NONE);
	child = spawn_pingpong(20);
	exchange(child, 20);
	ck_assert_int_ne(copvm_getopt(COPVM_OPT_BACKEND), COPVM_BACKEND_KMOD);
	munmap(pg, COSCHED_PAGE_SIZE);
}
END_TEST

/* Leaves every boost backend out of reach: no module device, no agent
 * socket, and SCHED_BATCH, which `self' leaves alone (another manager). */
static void no_backend_anywhere(void)
{
	struct sched_attr a;

	setenv("COPVM_KMOD_DEV", "/nonexistent/pvm_cosched", 1);
	setenv("COPVM_AGENT_SOCK", "/nonexistent/copvm-agent.sock", 1);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_BATCH;
	ck_assert_int_eq(syscall(SYS_sched_setattr, 0, &a, 0), 0);
}

/* Runs two enrolments (with `reprobe', a backend asked for again by
 * copvm_setopt in the second) with stderr in a file; the number of
 * lines that say the boosts are lost, the first in `line'. */
static int no_backend_lines(int reprobe, char *line, size_t len)
{
	char path[512], buf[1024];
	int fd, saved, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stderr-%d", vm_fixture_tmp(),
		 (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved = dup(2);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fd, 2), 2);
	close(fd);
	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_BACKEND), COPVM_BACKEND_NONE);
	pvm_exit();
	ck_assert_int_gt(pvm_mytid(), 0);
	if (reprobe)
		copvm_setopt(COPVM_OPT_BACKEND, COPVM_BACKEND_AUTO);
	ck_assert_int_eq(copvm_getopt(COPVM_OPT_BACKEND), COPVM_BACKEND_NONE);
	pvm_exit();
	fflush(stderr);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	line[0] = '\0';
	while (fgets(buf, sizeof(buf), f))
		if (strstr(buf, "runs without boosts") && !n++)
			snprintf(line, len, "%s", buf);
	fclose(f);
	return n;
}

/* Asked for (a model and a backend, or a model with auto) and not had:
 * one line, once per process, with the fix. */
START_TEST(boosts_asked_for_and_lost_are_told_once)
{
	char line[1024];

	no_backend_anywhere();
	setenv("COPVM_MODEL", "pre", 1);
	if (_i == 0)
		setenv("COPVM_BACKEND", "kmod", 1);
	ck_assert_int_eq(no_backend_lines(1, line, sizeof(line)), 1);
	ck_assert_ptr_nonnull(strstr(line, "libpvm [t"));
	ck_assert_ptr_nonnull(strstr(line, _i ? "COPVM_BACKEND=auto" :
					      "COPVM_BACKEND=kmod"));
	ck_assert_ptr_nonnull(strstr(line, "systemctl start copvm-agent"));
	ck_assert_ptr_nonnull(strstr(line, "modprobe pvm_cosched"));
}
END_TEST

/* Not asked for (the defaults), asked for none, a model that never
 * boosts, or silenced: no line, though no backend is there either. */
START_TEST(boosts_not_asked_for_or_silenced_are_not_told)
{
	char line[1024];

	no_backend_anywhere();
	switch (_i) {
	case 1:
		setenv("COPVM_MODEL", "pre", 1);
		setenv("COPVM_BACKEND", "kmod", 1);
		setenv("COPVM_QUIET", "1", 1);
		break;
	case 2:
		setenv("COPVM_MODEL", "pre", 1);
		setenv("COPVM_BACKEND", "none", 1);
		break;
	case 3:
		setenv("COPVM_MODEL", "lin", 1);
		setenv("COPVM_BACKEND", "kmod", 1);
		break;
	}
	ck_assert_int_eq(no_backend_lines(0, line, sizeof(line)), 0);
}
END_TEST

/* /proc/loadavg's format with `running' runnable tasks, in a file whose
 * path goes into `path'. */
static void write_loadavg(char *path, size_t len, const char *name,
			  int running)
{
	FILE *f;

	snprintf(path, len, "%s/loadavg-%s", vm_fixture_tmp(), name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "1.00 1.00 1.00 %d/300 4242\n", running);
	fclose(f);
}

static void setup(void)
{
	vm_fixture_setup();
	/* Many more runnable tasks than CPUs: boosts are worth asking. */
	write_loadavg(busy_loadavg, sizeof(busy_loadavg), "busy", 64);
	write_loadavg(idle_loadavg, sizeof(idle_loadavg), "idle", 1);
	setenv("COPVM_LOADAVG_FILE", busy_loadavg, 1);
	unsetenv("COPVM_MODEL");
	unsetenv("COPVM_P");
	unsetenv("COPVM_INTERVAL_MS");
	unsetenv("COPVM_BACKEND");
	unsetenv("COPVM_QUIET");
}

static Suite *cosched_suite(void)
{
	Suite *s = suite_create("cosched");
	TCase *tc;

	tc = tcase_create("probe");
	tcase_add_unchecked_fixture(tc, setup, vm_fixture_teardown);
	tcase_add_test(tc, page_lives_from_enrolment_to_exit);
	tcase_add_test(tc, probe_counts_messages_and_correspondents);
	tcase_add_test(tc, received_messages_count_when_taken);
	tcase_add_test(tc, frequency_rises_then_decays_when_idle);
	tcase_add_test(tc, dyn_counts_receives_pre_both);
	tcase_add_test(tc, a_task_that_only_sends_keeps_rolling);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("settings");
	tcase_add_unchecked_fixture(tc, setup, vm_fixture_teardown);
	tcase_add_test(tc, setopt_checks_and_returns_the_previous_value);
	tcase_add_test(tc, bad_environment_keeps_the_defaults);
	tcase_add_test(tc, requests_through_the_page_are_applied);
	tcase_add_loop_test(tc, boosts_asked_for_and_lost_are_told_once, 0, 2);
	tcase_add_loop_test(tc, boosts_not_asked_for_or_silenced_are_not_told,
			    0, 4);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("models");
	tcase_add_unchecked_fixture(tc, setup, vm_fixture_teardown);
	tcase_add_test(tc, pre_boosts_the_task_and_its_correspondent);
	tcase_add_test(tc, pre_peer_boost_of_a_lin_task_ends_within_two_boxes);
	tcase_add_test(tc, hpdt_boosts_from_enrolment);
	tcase_add_loop_test(tc, no_boost_while_no_task_waits_for_a_cpu, 0, 2);
	tcase_add_loop_test(tc, f_rt_sets_the_rate_of_the_strongest_boost, 0, 2);
	tcase_add_test(tc, imp_spins_two_context_switches);
	tcase_add_test(tc, a_model_changed_later_gets_its_backend);
	tcase_add_loop_test(tc, the_page_names_the_transports, 0, 2);
	tcase_add_test(tc, missing_agent_falls_back_quietly);
	tcase_add_loop_test(tc, a_device_that_is_not_the_module_falls_back_quietly,
			    0, 2);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cosched_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

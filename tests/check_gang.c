/*
 * check_gang.c - EXP in the daemon (daemon/gang.c): a private pvmd run
 * with COPVM_MODEL=exp stops its CPU-bound task in the LS slot and
 * continues it in PS, at realtime multiples of IP, so the task gets about
 * PS/IP of a CPU; it leaves no task stopped when it halts (request or
 * SIGTERM), nor a task that leaves its table, and never signals a pid
 * that a gone task's process had.  Several users' jobs take turns in the
 * PS (gang_jobs.c): the daemon's entry lives as long as it has a task, a
 * forged entry or an unsafe directory changes nothing, and (as root)
 * another uid's live entry halves the task's part of the PS.
 *
 * The test process registers to spawn, and so is a task too: it leaves
 * the table (closes its connection) before it watches, so that it is not
 * stopped together with what it observes.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvmd_fixture.h"

static const char *const spin_args[] = { "-c", "while :; do :; done", NULL };
/* A spinner that ignores SIGTERM: only SIGKILL (1 s into a halt) ends it. */
static const char *const stubborn_args[] = {
	"-c", "trap '' TERM; while :; do :; done", NULL
};

/* The jobs directory of the test's daemon (gang_jobs.c), private so that
 * other EXP daemons of the machine do not take turns with it. */
static char jobs_dir[64];

static void exp_setup(void)
{
	snprintf(jobs_dir, sizeof(jobs_dir), "/tmp/check_gang-jobs-%ld",
		 (long)getpid());
	ck_assert_int_eq(mkdir(jobs_dir, 0700), 0);
	ck_assert_int_eq(chmod(jobs_dir, 01777), 0);
	setenv("COPVM_EXP_JOBS_DIR", jobs_dir, 1);
	setenv("COPVM_MODEL", "Exp", 1);
	setenv("COPVM_EXP_MODE", "static", 1);
	setenv("COPVM_EXP_IP_MS", "100", 1);
	setenv("COPVM_EXP_PS_MS", "50", 1);
	start_daemon();
}

static void exp_teardown(void)
{
	char cmd[128];

	stop_daemon();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", jobs_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", jobs_dir);
}

/* CPU time of `pid', ns (schedstat). */
static unsigned long long cpu_of(pid_t pid)
{
	char path[64];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/schedstat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static unsigned long long real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits up to `ms' for `pid' to be in state `want' (or any but it when
 * `not'); 1 if it was. */
static int wait_state(pid_t pid, char want, int not, int ms)
{
	long long end = now_ms() + ms;
	char s;

	do {
		s = state_of(pid);
		if (not ? s != want : s == want)
			return 1;
		usleep(500);
	} while (now_ms() < end);
	return 0;
}

/* Spawns `args' under /bin/sh from a fresh registered connection;
 * returns the spawned process's pid and leaves the connection in *fdp. */
static pid_t spawn_sh(const char *const *args, int *fdp, int32_t *tidp)
{
	int32_t tid, t[8], pid[8];
	int me, fd = task_connect(&me), n, i;

	ck_assert_int_eq(spawn(fd, "/bin/sh", 0, "", 1, args, NULL, 0, 0,
			       &tid), 1);
	n = tasks(fd, 0, 8, t, NULL, NULL, pid);
	for (i = 0; i < n; i++)
		if (t[i] == tid)
			break;
	ck_assert_int_lt(i, n);
	ck_assert_int_gt(pid[i], 1);
	*fdp = fd;
	if (tidp)
		*tidp = tid;
	return pid[i];
}

START_TEST(task_is_stopped_and_continued)
{
	int fd, stops = 0, tries;
	pid_t p = spawn_sh(spin_args, &fd, NULL);

	close(fd);			/* we are no task of it any more */
	ck_assert(log_has("EXP: mode static, IP 100 ms, PS 50 ms, LS 50 ms"));
	for (tries = 0; tries < 5; tries++) {
		/* stopped within a period or two, running again after */
		ck_assert_msg(wait_state(p, 'T', 0, 400), "never stopped");
		ck_assert_msg(wait_state(p, 'T', 1, 400), "never continued");
		stops++;
	}
	ck_assert_int_eq(stops, 5);
	kill(p, SIGKILL);
}
END_TEST

/* What a second of watching spinner `p' saw: its CPU share, the
 * fraction of samples it was stopped in, and when in the 100 ms period
 * (realtime) it was seen stopping. */
struct watched {
	double share, tfrac;
	unsigned long long phase[16];
	int nphase;
};

static void watch_spinner(pid_t p, struct watched *w)
{
	unsigned long long c0, c1, w0, w1, samples = 0, stopped = 0;
	char last = 'R', s;

	memset(w, 0, sizeof(*w));
	usleep(200 * 1000);
	c0 = cpu_of(p);
	w0 = (unsigned long long)now_ms();
	while ((w1 = (unsigned long long)now_ms()) < w0 + 1000) {
		s = state_of(p);
		samples++;
		if (s == 'T') {
			stopped++;
			/* when did it stop, in the period? */
			if (last != 'T' && w->nphase < 16)
				w->phase[w->nphase++] = real_ms() % 100;
		}
		last = s;
		usleep(300);
	}
	c1 = cpu_of(p);
	w->share = (double)(c1 - c0) / 1e6 / (double)(w1 - w0);
	w->tfrac = (double)stopped / (double)samples;
}

/* How many of the stops `w' saw came `from' to `to' ms into a period. */
static int stops_between(const struct watched *w, unsigned from, unsigned to)
{
	int i, n = 0;

	for (i = 0; i < w->nphase; i++)
		n += w->phase[i] >= from && w->phase[i] < to;
	return n;
}

START_TEST(cpu_share_is_about_ps_over_ip)
{
	struct watched w;
	int fd, aligned;
	pid_t p = spawn_sh(spin_args, &fd, NULL);
	double share, tfrac;

	close(fd);
	watch_spinner(p, &w);
	share = w.share;
	tfrac = w.tfrac;
	kill(p, SIGKILL);
	/* unmanaged it would take a whole CPU: PS/IP = 0.5 caps it.  How
	 * much of its half it gets depends on the machine's other load, so
	 * below only "it ran" is asserted; the stopped fraction shows that
	 * it was continued in every period. */
	ck_assert_msg(share < 0.58, "CPU share %.2f", share);
	ck_assert_msg(share > 0.0, "CPU share %.2f", share);
	ck_assert_msg(tfrac > 0.38 && tfrac < 0.62, "stopped %.2f", tfrac);
	/* stops come at the realtime PS boundary, 50 ms into each period */
	aligned = stops_between(&w, 50, 62);
	ck_assert_int_ge(w.nphase, 6);
	ck_assert_msg(aligned * 4 >= w.nphase * 3, "%d of %d stops at 50-62 ms",
		      aligned, w.nphase);
}
END_TEST

/* Makes a jobs entry "UID.PID" named for `uid' in the daemon's jobs
 * directory, owned by `owner', and holds it locked as a live daemon's
 * would be; returns its fd (close it to let the entry die). */
static int fake_job(unsigned uid, uid_t owner)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%u.%d", jobs_dir, uid, 4242);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	if (owner != getuid())
		ck_assert_int_eq(fchown(fd, owner, (gid_t)-1), 0);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	return fd;
}

/* Our entry "UID.PID" (the daemon's pid) is in the jobs directory while
 * the daemon has a task, and goes when its last task has left. */
START_TEST(the_jobs_entry_lives_as_long_as_a_task)
{
	char path[128];
	int fd, i;
	pid_t p = spawn_sh(spin_args, &fd, NULL);

	close(fd);
	snprintf(path, sizeof(path), "%s/%u.%ld", jobs_dir,
		 (unsigned)getuid(), (long)dpid);
	for (i = 0; i < 100 && access(path, F_OK) != 0; i++)
		msleep(10);
	ck_assert_msg(access(path, F_OK) == 0, "no entry %s", path);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	for (i = 0; i < 100 && access(path, F_OK) == 0; i++)
		msleep(10);
	ck_assert_msg(access(path, F_OK) != 0, "entry %s outlived the task",
		      path);
}
END_TEST

/* An entry named for another uid but owned by us is a forgery: it takes
 * no part of the PS, which stays whole (stopped half the time). */
START_TEST(a_forged_jobs_entry_takes_no_turn)
{
	struct watched w;
	int fd, fake = fake_job((unsigned)getuid() + 1, getuid());
	pid_t p = spawn_sh(spin_args, &fd, NULL);

	close(fd);
	watch_spinner(p, &w);
	kill(p, SIGKILL);
	close(fake);
	ck_assert_msg(w.tfrac > 0.38 && w.tfrac < 0.62, "stopped %.2f",
		      w.tfrac);
	ck_assert(!log_has("users with EXP jobs on this node"));
}
END_TEST

/* A jobs directory that others could not write, or without the sticky
 * bit, is not used: the daemon says so and makes no entry. */
START_TEST(a_jobs_directory_not_sticky_is_not_used)
{
	char path[128];
	int fd, i;
	pid_t p;

	ck_assert_int_eq(chmod(jobs_dir, 0777), 0);
	p = spawn_sh(spin_args, &fd, NULL);
	close(fd);
	for (i = 0; i < 100 && !log_has("is not sticky and writable by all");
	     i++)
		msleep(10);
	kill(p, SIGKILL);
	ck_assert(log_has("is not sticky and writable by all (mode 777)"));
	snprintf(path, sizeof(path), "%s/%u.%ld", jobs_dir,
		 (unsigned)getuid(), (long)dpid);
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* Root only: another user's live job on the node (uid 65534, ranked
 * after root) takes the second half of the 50 ms PS, so our task runs
 * in the first 25 ms of each period and is stopped 75 % of the time,
 * stopping at 25 ms.  When that job's entry dies, the PS is ours again. */
START_TEST(another_users_job_takes_its_turn_in_the_ps)
{
	struct watched w;
	int fd, fake = fake_job(65534, 65534), aligned;
	pid_t p = spawn_sh(spin_args, &fd, NULL);

	close(fd);
	watch_spinner(p, &w);
	ck_assert(log_has("2 users with EXP jobs on this node, ours runs "
			  "in part 1 of 2 of the PS"));
	ck_assert_msg(w.tfrac > 0.63 && w.tfrac < 0.87, "stopped %.2f",
		      w.tfrac);
	ck_assert_msg(w.share < 0.33, "CPU share %.2f", w.share);
	aligned = stops_between(&w, 25, 37);
	ck_assert_int_ge(w.nphase, 6);
	ck_assert_msg(aligned * 4 >= w.nphase * 3, "%d of %d stops at 25-37 ms",
		      aligned, w.nphase);
	close(fake);			/* that daemon is gone */
	watch_spinner(p, &w);
	kill(p, SIGKILL);
	ck_assert_msg(w.tfrac > 0.38 && w.tfrac < 0.62, "stopped %.2f once "
		      "alone again", w.tfrac);
}
END_TEST

/* Polls `p' until it is gone; counts the times it was seen stopped after
 * the first `after_ms'. */
static int stopped_until_gone(pid_t p, int after_ms, int ms)
{
	long long t0 = now_ms(), end = t0 + ms;
	int seen = 0;
	char s;

	while (now_ms() < end) {
		s = state_of(p);
		if (s == '?' || s == 'Z')
			break;
		if (s == 'T' && now_ms() > t0 + after_ms)
			seen++;
		usleep(500);
	}
	return seen;
}

START_TEST(halt_leaves_no_task_stopped)
{
	int fd, me;
	pid_t p = spawn_sh(stubborn_args, &fd, NULL);

	close(fd);
	/* catch it stopped, then halt */
	ck_assert(wait_state(p, 'T', 0, 400));
	fd = task_connect(&me);
	ck_assert_int_eq(call_status(fd, PVMI_OP_HALT, NULL), PvmOk);
	/* continued at once; SIGKILLed after the 1 s grace */
	ck_assert_int_eq(stopped_until_gone(p, 30, 3000), 0);
	ck_assert_int_ne(wait_daemon(3000), -1);
	ck_assert(log_has("EXP: released"));
}
END_TEST

START_TEST(sigterm_leaves_no_task_stopped)
{
	int fd;
	pid_t p = spawn_sh(stubborn_args, &fd, NULL);

	close(fd);
	ck_assert(wait_state(p, 'T', 0, 400));
	kill(dpid, SIGTERM);
	ck_assert_int_eq(stopped_until_gone(p, 30, 3000), 0);
	ck_assert_int_ne(wait_daemon(3000), -1);
}
END_TEST

/* A task leaving the table while stopped is continued at once: a child
 * of ours registers on a socket we share and spins; we close the
 * connection under it while it is stopped. */
START_TEST(task_leaving_the_table_is_continued)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), sync[2], tid;
	pid_t child;
	char c;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pipe(sync), 0);
	strcpy(sa.sun_path, sockpath);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* connect from here: SO_PEERCRED names this process */
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			_exit(1);
		tid = reg_full(fd, 0, NULL, NULL, NULL);
		c = tid > 0 ? 'y' : 'n';
		if (write(sync[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			;
	}
	ck_assert_int_eq(read(sync[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	ck_assert(wait_state(child, 'T', 0, 400));
	/* the task's connection ends while it is stopped */
	shutdown(fd, SHUT_RDWR);
	close(fd);
	ck_assert(wait_state(child, 'T', 1, 30));
	/* and it stays running: forgotten */
	ck_assert_int_eq(stopped_until_gone(child, 0, 500), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}
END_TEST

/* Makes the next fork() get `pid' (root, /proc/sys/kernel/ns_last_pid);
 * 0 or -1. */
static int next_pid_is(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%ld", (long)pid - 1) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

START_TEST(a_reused_pid_is_never_signalled)
{
	static const char *const brief[] = { "-c", "sleep 0.3", NULL };
	int32_t tid;
	int fd, tries;
	pid_t p = spawn_sh(brief, &fd, &tid), q = -1;

	close(fd);
	ck_assert(wait_state(p, '?', 0, 3000));
	fd = task_connect(&tries);
	wait_task_gone(fd, tid);
	close(fd);
	/* a process of ours, no task, under the gone task's pid */
	for (tries = 0; tries < 20 && q != p; tries++) {
		if (next_pid_is(p) < 0)
			break;
		q = fork();
		ck_assert_int_ge(q, 0);
		if (q == 0) {
			for (;;)
				;
		}
		if (q != p) {
			kill(q, SIGKILL);
			waitpid(q, NULL, 0);
		}
	}
	if (q != p)
		return;		/* could not reuse the pid: nothing to test */
	ck_assert_int_eq(stopped_until_gone(q, 0, 600), 0);
	kill(q, SIGKILL);
	waitpid(q, NULL, 0);
}
END_TEST

static Suite *gang_suite(void)
{
	Suite *s = suite_create("gang");
	TCase *tc = tcase_create("exp");

	tcase_add_checked_fixture(tc, exp_setup, exp_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, task_is_stopped_and_continued);
	tcase_add_test(tc, cpu_share_is_about_ps_over_ip);
	tcase_add_test(tc, halt_leaves_no_task_stopped);
	tcase_add_test(tc, sigterm_leaves_no_task_stopped);
	tcase_add_test(tc, task_leaving_the_table_is_continued);
	tcase_add_test(tc, a_reused_pid_is_never_signalled);
	tcase_add_test(tc, the_jobs_entry_lives_as_long_as_a_task);
	tcase_add_test(tc, a_forged_jobs_entry_takes_no_turn);
	tcase_add_test(tc, a_jobs_directory_not_sticky_is_not_used);
	if (geteuid() == 0)
		tcase_add_test(tc, another_users_job_takes_its_turn_in_the_ps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gang_suite());
	int failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * kmod_split.c - the ioctl suite's cases on the node's budget
 * (node_share_ppm), split evenly among the users with registered tasks:
 * the parts STATS shows as users come and go, then, measured in the
 * guest, the boosted CPU of a spinning task of each of two users (each
 * alone on its CPU, so that its boosted CPU time is bounded by its
 * user's bucket only), and the boosts of a user beside another that asks
 * all the time with more tasks.  The bounds are generous (a quarter over,
 * half under) and the discriminating checks are ratios and a control,
 * since the guest's CPUs are emulated host threads that a loaded host
 * stalls at times.  Each case uses uids of its own, so no user's debt
 * carries from one case into another.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmod_agent.h"
#include "kmod_split.h"
#include "ktest.h"
#include "pvm_cosched.h"

#define MS		1000000ULL
#define ONE_CPU		1000000U	/* a share of one CPU, in ppm */
#define BUDGET		200000U		/* the node's budget in the cases */
#define PHASE_MS	2000		/* one phase of the timing case */

static void sleep_until(uint64_t t)
{
	uint64_t now = kt_mono_ns();

	if (now < t)
		usleep((t - now) / 1000);
}

/* Sets `base' with tasks' shares of up to a whole CPU, 100 ms windows,
 * each user's share `user_ppm' and the node's budget `node_ppm'. */
static int split_limits(const struct pvm_cosched_limits *base,
			uint32_t user_ppm, uint32_t node_ppm)
{
	struct pvm_cosched_limits l = *base;

	l.share_max_ppm = ONE_CPU;
	l.window_ns = 100 * MS;
	l.user_share_ppm = user_ppm;
	l.node_share_ppm = node_ppm;
	return kt_set_limits(&l);
}

/* Pins the caller to `cpu' and becomes `uid'; exits on failure. */
static void pin_as(int cpu, int uid)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0 ||
	    setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0)
		_exit(2);
}

/* Opens and registers a fd asking for a whole CPU of share (so that only
 * its user's bucket bounds it); exits on failure. */
static int registered_whole_cpu(void)
{
	struct pvm_cosched_register reg = {
		.abi_version = PVM_COSCHED_ABI_VERSION, .share_ppm = ONE_CPU };
	int fd = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg) < 0)
		_exit(3);
	return fd;
}

/* REPORTs a nice boost (-5) of `box' on fd; the level granted, or
 * -errno. */
static int ask_nice(int fd, uint64_t box)
{
	struct pvm_cosched_report rep = { .level = PVM_COSCHED_BOOST_NICE,
					  .nice = -5, .box_ns = box };
	int ret = kt_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep);

	return ret ? ret : rep.level;
}

/* What a child measured, written to the parent's pipe. */
struct split_result {
	int tag;
	uint64_t boosted_ns[3];	/* its CPU at the boosted nice, by phase */
	int asks, in_force;	/* the light asker's requests */
	uint32_t users, part_ppm;	/* its STATS while the other user ran */
};

/* A task of `uid' pinned to `cpu' that registers at t0 + from_ms, spins
 * until t0 + to_ms asking every `every_ms' for a nice boost of 20 ms,
 * and writes its CPU time at the boosted nice in phases of PHASE_MS from
 * t0 (a CPU time read before the nice is counted at that nice). */
static void spinner(int tag, int uid, int cpu, uint64_t t0, int from_ms,
		    int to_ms, int every_ms, int out)
{
	struct split_result r = { .tag = tag };
	uint64_t t, c, last, next = 0, end = t0 + to_ms * MS;
	int fd, phase;

	pin_as(cpu, uid);
	sleep_until(t0 + from_ms * MS);
	fd = registered_whole_cpu();
	last = kt_thread_cpu_ns();
	while ((t = kt_mono_ns()) < end) {
		c = kt_thread_cpu_ns();
		if (getpriority(PRIO_PROCESS, 0) == -5) {
			phase = (int)((t - t0) / (PHASE_MS * MS));
			r.boosted_ns[phase < 3 ? phase : 2] += c - last;
		}
		last = c;
		if (t >= next) {
			ask_nice(fd, 20 * MS);
			next = t + every_ms * MS;
		}
	}
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(4);
	_exit(0);
}

/* Reads `n' results into r[] by tag (0..n-1) and reaps the children c[];
 * 0, or -1 if one failed. */
static int collect(int in, struct split_result *r, int n, const pid_t *c,
		   int nc)
{
	struct split_result got;
	int i, st, failed = 0;

	for (i = 0; i < n; i++) {
		if (read(in, &got, sizeof(got)) != sizeof(got) ||
		    got.tag < 0 || got.tag >= n) {
			failed = -1;
			break;
		}
		r[got.tag] = got;
	}
	for (i = 0; i < nc; i++) {
		if (failed)
			kill(c[i], SIGKILL);
		if (waitpid(c[i], &st, 0) != c[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed = -1;
	}
	return failed;
}

/* ---- the parts as users come and go ---- */

#define SPLIT_A	1014
#define SPLIT_B	1015

/* Fails the case unless agent a's STATS show `users' and part `part'. */
static void check_part(struct agent *a, uint32_t users, uint32_t part,
		       const char *when)
{
	struct agent_order o = { .op = AGENT_STATS };
	struct agent_reply r;

	KT_EQ_ERR(agent_do(a, &o, &r), 0);
	KT_EQ_ERR(r.ret, 0);
	if (r.users != users || r.part_ppm != part) {
		printf("#   %s: %u users, part %u ppm; want %u users, part %u\n",
		       when, r.users, r.part_ppm, users, part);
		kt_failed = 1;
	}
}

int case_node_budget_parts_follow_the_users(const struct pvm_cosched_limits *base)
{
	struct agent a = { 0 }, b1 = { 0 }, b2 = { 0 };
	struct agent_order close_fd = { .op = AGENT_CLOSE };
	struct agent_reply r;
	struct pvm_cosched_stats st = { .flags = 0 };
	int fd;

	KT_SKIP_IF(geteuid() != 0, "needs root (two users, SET_LIMITS)");
	KT_EQ_ERR(split_limits(base, ONE_CPU, 400000), 0);
	fd = open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_STATS, &st), 0);
	close(fd);
	KT_EQ(st.users, 0);		/* no other case left a task */
	KT_EQ(st.my_part_ppm, 0);	/* not registered */
	KT_EQ_ERR(agent_start(&a, SPLIT_A), 0);
	check_part(&a, 1, 400000, "A alone");
	KT_EQ_ERR(agent_start(&b1, SPLIT_B), 0);
	check_part(&a, 2, 200000, "A beside B");
	check_part(&b1, 2, 200000, "B beside A");
	/* a user's second task does not make it two users */
	KT_EQ_ERR(agent_start(&b2, SPLIT_B), 0);
	check_part(&a, 2, 200000, "A beside B's two tasks");
	check_part(&b2, 2, 200000, "B's second task");
	/* new limits split again; the user share bounds a part */
	KT_EQ_ERR(split_limits(base, ONE_CPU, 300000), 0);
	check_part(&a, 2, 150000, "a budget of 30 %");
	KT_EQ_ERR(split_limits(base, 100000, 300000), 0);
	check_part(&b1, 2, 100000, "a user share of 10 %");
	KT_EQ_ERR(split_limits(base, ONE_CPU, 400000), 0);
	/* B's first task leaving changes nothing, its last one does */
	KT_EQ_ERR(agent_do(&b1, &close_fd, &r), 0);
	KT_EQ_ERR(r.ret, 0);
	check_part(&a, 2, 200000, "B's second task left");
	KT_EQ_ERR(agent_do(&b2, &close_fd, &r), 0);
	KT_EQ_ERR(r.ret, 0);
	check_part(&a, 1, 400000, "the last user left");
	/* no node budget: each user the user share */
	KT_EQ_ERR(split_limits(base, 300000, 0), 0);
	check_part(&a, 1, 300000, "no node budget");
	agent_stop(&a);
	agent_stop(&b1);
	agent_stop(&b2);
	KT_EQ_ERR(kt_set_limits(base), 0);
	return KT_PASS;
}

/* ---- two users' boosted CPU ---- */

#define HALF_A	1010
#define HALF_B	1011
#define CTL_A	1016
#define CTL_B	1017

/* Runs user `ua's spinner on CPU 0 from 0 to to_a phases and user `ub's
 * on CPU 1 from from_b to to_b phases (of PHASE_MS), both asking every
 * 10 ms; their results in r[0] (A) and r[1] (B).  0 or -1. */
static int two_spinners(int ua, int ub, int to_a, int from_b, int to_b,
			struct split_result *r)
{
	uint64_t t0 = kt_mono_ns() + 300 * MS;	/* forked and pinned */
	int out[2], ret;
	pid_t c[2];

	if (pipe(out) < 0)
		return -1;
	c[0] = fork();
	if (c[0] == 0)
		spinner(0, ua, 0, t0, 0, to_a * PHASE_MS, 10, out[1]);
	c[1] = fork();
	if (c[1] == 0)
		spinner(1, ub, 1, t0, from_b * PHASE_MS, to_b * PHASE_MS, 10,
			out[1]);
	close(out[1]);
	ret = collect(out[0], r, 2, c, 2);
	close(out[0]);
	return ret;
}

/* A budget of 20 % of each CPU (0.8 s of boosted CPU in a 2 s phase on
 * 2 CPUs, `whole'): A alone takes about the whole, A and B about half
 * each, A alone again the whole.  Each half within a quarter and 50 ms
 * over (a bucket's burst and the holds' lag), both halves together
 * within the whole's such bound, each phase half under; A alone at least
 * 1.4 times A beside B, and within half over (a sample the loaded host
 * delays lets a boost run past a debt, which is capped: seen 1.4 times
 * the whole).  The control, no node budget and each user 40 %, boosts
 * both nearly all the time (the module's holds, whose lag a loaded host
 * stretches, play little part): both together must exceed twice the
 * whole. */
int case_two_users_each_get_half_the_node_budget(const struct pvm_cosched_limits *base)
{
	const uint64_t whole = (uint64_t)PHASE_MS * MS * BUDGET / ONE_CPU * 2;
	const uint64_t half = whole / 2;
	struct split_result r[2], ctl[2];
	uint64_t a0, a1, a2, b1, both;

	KT_SKIP_IF(geteuid() != 0, "needs root (two users, SET_LIMITS)");
	KT_SKIP_IF(sysconf(_SC_NPROCESSORS_ONLN) != 2, "needs 2 CPUs");
	memset(r, 0, sizeof(r));
	memset(ctl, 0, sizeof(ctl));
	KT_EQ_ERR(split_limits(base, ONE_CPU, BUDGET), 0);
	KT_EQ(two_spinners(HALF_A, HALF_B, 3, 1, 2, r), 0);
	KT_EQ_ERR(split_limits(base, 2 * BUDGET, 0), 0);
	KT_EQ(two_spinners(CTL_A, CTL_B, 1, 0, 1, ctl), 0);
	a0 = r[0].boosted_ns[0];
	a1 = r[0].boosted_ns[1];
	a2 = r[0].boosted_ns[2];
	b1 = r[1].boosted_ns[1];
	both = ctl[0].boosted_ns[0] + ctl[1].boosted_ns[0];
	printf("#   node budget 20 %% of each CPU, %d ms phases (the whole: %.0f ms of boosted CPU): A alone %.1f ms; A %.1f and B %.1f beside each other; A alone again %.1f; without a node budget and 40 %% each, A and B together %.1f\n",
	       PHASE_MS, whole / 1e6, a0 / 1e6, a1 / 1e6, b1 / 1e6, a2 / 1e6,
	       both / 1e6);
	KT_CHECK(a0 >= whole / 2 && a0 <= whole + whole / 2 + 50 * MS);
	KT_CHECK(a2 >= whole / 2 && a2 <= whole + whole / 2 + 50 * MS);
	KT_CHECK(a1 >= half / 2 && a1 <= half + half / 4 + 50 * MS);
	KT_CHECK(b1 >= half / 2 && b1 <= half + half / 4 + 50 * MS);
	KT_CHECK(a1 + b1 <= whole + whole / 4 + 50 * MS);
	KT_CHECK(a0 * 10 >= a1 * 14);
	KT_CHECK(a2 * 10 >= a1 * 14);
	/* the control: the case can tell a node budget from none */
	KT_CHECK(both > 2 * whole);
	KT_EQ_ERR(kt_set_limits(base), 0);
	return KT_PASS;
}

/* ---- a user asking constantly ---- */

#define ASK_A		1012
#define ASK_B		1013
#define ASK_B_TASKS	4
#define ASK_MS		2000

/* User A's light task on CPU 0: from t0 + 300 ms (B's tasks registered)
 * until t0 + ASK_MS, every 40 ms asks for a nice boost of 5 ms and counts
 * it in force at once (granted, and at the boosted nice), then spins
 * 2 ms; writes its counts and its STATS. */
static void light_asker(uint64_t t0, int out)
{
	struct split_result r = { .tag = ASK_B_TASKS };
	struct pvm_cosched_stats st = { .flags = 0 };
	uint64_t end = t0 + ASK_MS * MS, t;
	int fd;

	pin_as(0, ASK_A);
	sleep_until(t0);
	fd = registered_whole_cpu();
	sleep_until(t0 + 300 * MS);
	if (kt_ioctl(fd, PVM_COSCHED_IOC_STATS, &st) == 0) {
		r.users = st.users;
		r.part_ppm = st.my_part_ppm;
	}
	while (kt_mono_ns() < end) {
		r.asks++;
		if (ask_nice(fd, 5 * MS) == PVM_COSCHED_BOOST_NICE &&
		    getpriority(PRIO_PROCESS, 0) == -5)
			r.in_force++;
		for (t = kt_mono_ns(); kt_mono_ns() < t + 2 * MS;)
			;
		usleep(40000);
	}
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(4);
	_exit(0);
}

/* User B's four tasks, two on each CPU, spin asking every 1 ms for a
 * nice boost; user A's one task asks every 40 ms.  A's boosts must be in
 * force at once at least 9 times in 10, A's part must be half the budget
 * (two users, however many tasks B has), and B's four tasks together are
 * boosted no more than B's half of the budget allows (within a quarter
 * and 50 ms). */
int case_a_user_asking_constantly_leaves_the_other_its_part(const struct pvm_cosched_limits *base)
{
	const uint64_t half = (uint64_t)ASK_MS * MS * BUDGET / ONE_CPU;
	struct split_result r[ASK_B_TASKS + 1];
	uint64_t t0 = kt_mono_ns() + 300 * MS, b = 0;
	pid_t c[ASK_B_TASKS + 1];
	int out[2], i;

	KT_SKIP_IF(geteuid() != 0, "needs root (two users, SET_LIMITS)");
	KT_SKIP_IF(sysconf(_SC_NPROCESSORS_ONLN) != 2, "needs 2 CPUs");
	memset(r, 0, sizeof(r));
	KT_EQ_ERR(split_limits(base, ONE_CPU, BUDGET), 0);
	KT_CHECK(pipe(out) == 0);
	for (i = 0; i < ASK_B_TASKS; i++) {
		c[i] = fork();
		if (c[i] == 0)
			spinner(i, ASK_B, i % 2, t0, 0, ASK_MS, 1, out[1]);
	}
	c[ASK_B_TASKS] = fork();
	if (c[ASK_B_TASKS] == 0)
		light_asker(t0, out[1]);
	close(out[1]);
	KT_EQ(collect(out[0], r, ASK_B_TASKS + 1, c, ASK_B_TASKS + 1), 0);
	close(out[0]);
	for (i = 0; i < ASK_B_TASKS; i++)
		b += r[i].boosted_ns[0];
	printf("#   B's %d tasks asking every 1 ms: boosted %.1f ms in all in %d ms (its half allows %.1f ms); A's boosts in force at once %d of %d, A's part %u ppm of %u users\n",
	       ASK_B_TASKS, b / 1e6, ASK_MS, half / 1e6,
	       r[ASK_B_TASKS].in_force, r[ASK_B_TASKS].asks,
	       r[ASK_B_TASKS].part_ppm, r[ASK_B_TASKS].users);
	KT_EQ(r[ASK_B_TASKS].users, 2);
	KT_EQ(r[ASK_B_TASKS].part_ppm, BUDGET / 2);
	KT_CHECK(r[ASK_B_TASKS].asks >= 10);
	KT_CHECK(r[ASK_B_TASKS].in_force * 10 >= r[ASK_B_TASKS].asks * 9);
	KT_CHECK(b <= half + half / 4 + 50 * MS);
	KT_EQ_ERR(kt_set_limits(base), 0);
	return KT_PASS;
}

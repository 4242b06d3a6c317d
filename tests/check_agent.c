/*
 * check_agent.c - copvm-agent (agent/) and the library's agent backend
 * (lib/cosched/backend_agent.c, compiled in): each test starts a private
 * agent on a socket in a temporary directory, and child processes that
 * register through the backend's ops; some speak the raw protocol
 * (common/agent_proto.h) to send what the library never would.  The
 * scheduling state is read back from the kernel.  Needs root (the agent
 * drops to `nobody' with CAP_SYS_NICE); exits 77 otherwise.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "copvm.h"
#include "cosched/backend.h"

#ifndef AGENT_PATH
#error "AGENT_PATH must name the built copvm-agent"
#endif

#define OPS	(&cosched_backend_agent)
#define MS	1000000ull
#define OTHER_UID	12345	/* a uid that is neither root nor nobody */

static char dir[64];
static char sock[128];
static pid_t agent_pid;

/* ---- the private agent ---- */

static void stop_agent(void)
{
	if (agent_pid > 0) {
		kill(agent_pid, SIGTERM);
		waitpid(agent_pid, NULL, 0);
		agent_pid = 0;
	}
	if (dir[0]) {
		unlink(sock);
		rmdir(dir);
		dir[0] = '\0';
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void nap_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static int raw_connect(void)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, sock);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Starts an agent with `argv' options on a fresh socket; waits until it
 * answers. */
static void start_agent(const char *const *opts)
{
	const char *av[24];
	int n = 0, fd;
	uint64_t end;

	snprintf(dir, sizeof(dir), "/tmp/copvm-agent-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0755);	/* other users' tasks reach the socket */
	snprintf(sock, sizeof(sock), "%s/agent.sock", dir);
	setenv(AGENT_SOCK_ENV, sock, 1);
	av[n++] = AGENT_PATH;
	av[n++] = "-f";
	av[n++] = "-s";
	av[n++] = sock;
	while (opts && *opts && n < 22)
		av[n++] = *opts++;
	av[n] = NULL;
	agent_pid = fork();
	ck_assert_int_ge(agent_pid, 0);
	if (agent_pid == 0) {
		execv(AGENT_PATH, (char *const *)av);
		_exit(127);
	}
	atexit(stop_agent);
	for (end = now_ns() + 5000 * MS; now_ns() < end; nap_ms(5)) {
		fd = raw_connect();
		if (fd >= 0) {
			close(fd);
			return;
		}
	}
	ck_abort_msg("the agent did not start");
}

/* ---- the raw protocol ---- */

static int raw_req(int fd, int op, int pid, int level, int nice,
		   uint64_t box, struct agent_reply *rp)
{
	struct agent_req rq = {
		.version = AGENT_PROTO_VERSION, .op = op, .seq = 7,
		.pid = pid, .level = level, .nice = nice, .box_ns = box,
	};
	struct agent_reply tmp;

	if (!rp)
		rp = &tmp;
	if (send(fd, &rq, sizeof(rq), MSG_NOSIGNAL) != sizeof(rq))
		return INT_MIN;
	memset(rp, 0x5a, sizeof(*rp));
	if (recv(fd, rp, sizeof(*rp), 0) != sizeof(*rp))
		return INT_MIN;
	return rp->status;
}

/* Sends `len' bytes of anything; the reply's status. */
static int raw_junk(int fd, const void *buf, size_t len)
{
	struct agent_reply rp;

	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		return INT_MIN;
	if (recv(fd, &rp, sizeof(rp), 0) != sizeof(rp))
		return INT_MIN;
	ck_assert_int_eq(rp.version, AGENT_PROTO_VERSION);
	return rp.status;
}

static struct agent_stats stats(void)
{
	struct agent_reply rp;
	int fd = raw_connect();

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_STATS, 0, 0, 0, 0, &rp), 0);
	close(fd);
	return rp.stats;
}

/* ---- the scheduling state, as the kernel reports it ---- */

static int policy_of(pid_t pid)
{
	return sched_getscheduler(pid) & ~SCHED_RESET_ON_FORK;
}

static int nice_of(pid_t pid)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, pid);
}

struct kattr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

static uint64_t slice_of(pid_t pid)
{
	struct kattr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, pid, &a, sizeof(a), 0) < 0)
		return 0;
	return a.runtime;
}

/* Polls until `pid' has `policy' and nice `nice' (INT_MIN: any); the ms
 * it took, or -1 after `limit_ms'. */
static int wait_state(pid_t pid, int policy, int nice, int limit_ms)
{
	uint64_t t0 = now_ns(), end = t0 + limit_ms * MS;

	do {
		if (policy_of(pid) == policy &&
		    (nice == INT_MIN || nice_of(pid) == nice))
			return (int)((now_ns() - t0) / MS);
		nap_ms(1);
	} while (now_ns() < end);
	return -1;
}

/* ---- child tasks, driven through pipes ---- */

struct task {
	pid_t pid;
	int cmd;		/* write end: commands */
	int res;		/* read end: one int per command */
};

struct cmd {
	int op;			/* 'a' apply, 'p' boost peer, 'f' fork a sleeper,
				 * 'u' unregister, 'x' _exit at once, 'q' quit */
	int pid, level, nice;
	uint64_t box;
};

static void task_loop(int cfd, int rfd)
{
	struct cmd c;
	int rc;
	pid_t g;

	while (read(cfd, &c, sizeof(c)) == sizeof(c)) {
		switch (c.op) {
		case 'a':
			rc = OPS->apply(c.level, c.nice, c.box);
			break;
		case 'p':
			rc = OPS->boost_peer(c.pid, 0, c.level, c.nice, c.box);
			break;
		case 'f':
			g = fork();
			if (g == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				for (;;)
					pause();
			}
			rc = g;
			break;
		case 'u':
			OPS->detach();
			rc = 0;
			break;
		case 'x':
			_exit(0);
		default:
			OPS->detach();
			_exit(0);
		}
		if (write(rfd, &rc, sizeof(rc)) != sizeof(rc))
			_exit(1);
	}
	_exit(0);
}

/* Forks a task running as `uid' (-1: as we are) that registers with the
 * agent; its registration status is the first int it answers. */
static struct task task_start(int uid, int *reg)
{
	struct task t;
	int c[2], r[2], rc;

	ck_assert_int_eq(pipe(c), 0);
	ck_assert_int_eq(pipe(r), 0);
	t.pid = fork();
	ck_assert_int_ge(t.pid, 0);
	if (t.pid == 0) {
		close(c[1]);
		close(r[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (uid >= 0 && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(2);
		rc = OPS->attach(NULL, 0);
		if (write(r[1], &rc, sizeof(rc)) != sizeof(rc))
			_exit(1);
		task_loop(c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	t.cmd = c[1];
	t.res = r[0];
	ck_assert_int_eq(read(t.res, reg, sizeof(*reg)), sizeof(*reg));
	return t;
}

static int task_do(struct task *t, int op, int pid, int level, int nice,
		   uint64_t box)
{
	struct cmd c = { op, pid, level, nice, box };
	int rc;

	ck_assert_int_eq(write(t->cmd, &c, sizeof(c)), sizeof(c));
	if (op == 'x' || op == 'q') {
		waitpid(t->pid, NULL, 0);
		return 0;
	}
	ck_assert_int_eq(read(t->res, &rc, sizeof(rc)), sizeof(rc));
	return rc;
}

static struct task task_registered(int uid)
{
	int reg;
	struct task t = task_start(uid, &reg);

	ck_assert_int_eq(reg, 0);
	return t;
}

static int nobody_uid(void)
{
	struct passwd *pw = getpwnam("nobody");

	return pw ? (int)pw->pw_uid : 65534;
}

/* Non-zero when CAP_SYS_RESOURCE is in our bounding set, so that an agent
 * we start keeps it (a container may lack it). */
static int have_sys_resource(void)
{
	char line[256];
	unsigned long long bnd = 0;
	FILE *f = fopen("/proc/self/status", "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapBnd: %llx", &bnd) == 1)
			break;
	fclose(f);
	return (bnd >> CAP_SYS_RESOURCE) & 1;
}

/* Asserts that root's task `pid' has the strongest boost the agent (as
 * nobody) grants it: SCHED_FIFO where it keeps CAP_SYS_RESOURCE and so
 * can set RLIMIT_RTTIME, else nice at the default floor. */
static void assert_strongest(pid_t pid)
{
	if (have_sys_resource()) {
		ck_assert_int_eq(policy_of(pid), SCHED_FIFO);
	} else {
		ck_assert_int_eq(policy_of(pid), SCHED_OTHER);
		ck_assert_int_eq(nice_of(pid), -10);
	}
}

/* In a forked child: becomes nobody, the agent's own uid, whose tasks it
 * can give RLIMIT_RTTIME (and so RT) without CAP_SYS_RESOURCE. */
static void become_nobody(void)
{
	int uid = nobody_uid();

	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		_exit(3);
}

/* ---- the tests ---- */

START_TEST(probe_is_fast_and_exact_without_an_agent)
{
	struct cosched_caps caps;
	struct sockaddr_un sa;
	uint64_t t0;
	int fd;

	setenv(AGENT_SOCK_ENV, "/tmp/copvm-no-such-agent.sock", 1);
	t0 = now_ns();
	ck_assert_int_eq(OPS->probe(&caps), -ENOENT);
	ck_assert_uint_lt(now_ns() - t0, 50 * MS);
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_RT, 0, 10 * MS), -ENOTCONN);

	/* A stale socket: bound, nobody listening. */
	snprintf(dir, sizeof(dir), "/tmp/copvm-agent-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/agent.sock", dir);
	setenv(AGENT_SOCK_ENV, sock, 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, sock);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	ck_assert_int_eq(OPS->probe(&caps), -ECONNREFUSED);
	stop_agent();
}
END_TEST

START_TEST(probe_reports_the_agents_caps)
{
	struct cosched_caps caps;

	start_agent((const char *[]){ "-n", "-7", NULL });
	memset(&caps, 0x5a, sizeof(caps));
	ck_assert_int_eq(OPS->probe(&caps), 0);
	/* RT is offered only with its RLIMIT_RTTIME backstop. */
	ck_assert_int_eq(caps.rt, have_sys_resource());
	ck_assert_int_eq(caps.peers, 1);
	/* Its nice and rt boosts are charged to the share (the wait's
	 * spin relies on it: lib/wait.c). */
	ck_assert_int_eq(caps.charged, 1);
	ck_assert_int_eq(caps.nice_floor, -7);
	ck_assert_int_eq(caps.slice, slice_of(getpid()) != 0);
	stop_agent();
}
END_TEST

START_TEST(a_boost_is_visible_and_gone_after_its_box)
{
	pid_t me = getpid();
	uint64_t t0, base_slice = slice_of(me);
	int ms;

	start_agent(NULL);	/* default box: at most 20 ms */
	ck_assert_int_eq(OPS->attach(NULL, 0), 0);
	ck_assert_int_eq(OPS->attach(NULL, 0), 0);	/* again: a no-op */

	t0 = now_ns();
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_RT, 0, 15 * MS), 0);
	assert_strongest(me);
	ms = wait_state(me, SCHED_OTHER, 0, 1000);
	ck_assert_int_ge(ms, 0);
	ck_assert_uint_ge(now_ns() - t0, 14 * MS);

	/* Below the floor: clamped to -10. */
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_NICE, -15, 15 * MS), 0);
	ck_assert_int_eq(nice_of(me), -10);
	ck_assert_int_ge(wait_state(me, SCHED_OTHER, 0, 1000), 0);

	/* A 5 s box is cut to the agent's 20 ms. */
	t0 = now_ns();
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_RT, 0, 5000 * MS), 0);
	assert_strongest(me);
	ck_assert_int_ge(wait_state(me, SCHED_OTHER, 0, 1000), 0);
	ck_assert_uint_lt(now_ns() - t0, 500 * MS);

	/* NONE undoes at once. */
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_RT, 0, 15 * MS), 0);
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_NONE, 0, 0), 0);
	ck_assert_int_eq(policy_of(me), SCHED_OTHER);
	ck_assert_int_eq(nice_of(me), 0);

	if (base_slice) {
		ck_assert_int_eq(OPS->apply(COPVM_BOOST_SLICE, 0, 15 * MS), 0);
		ck_assert_uint_eq(slice_of(me), 100000);
		for (t0 = now_ns(); slice_of(me) != base_slice &&
		     now_ns() - t0 < 1000 * MS;)
			nap_ms(1);
		ck_assert_uint_eq(slice_of(me), base_slice);
	}
	ck_assert_uint_ge(stats().applied, 4);
	OPS->detach();
	stop_agent();
}
END_TEST

START_TEST(an_undo_leaves_alone_what_someone_else_changed)
{
	pid_t me = getpid();

	start_agent(NULL);
	ck_assert_int_eq(OPS->attach(NULL, 0), 0);
	ck_assert_int_eq(OPS->apply(COPVM_BOOST_NICE, -5, 15 * MS), 0);
	ck_assert_int_eq(nice_of(me), -5);
	/* We (root) change it during the box: the agent must not undo. */
	ck_assert_int_eq(setpriority(PRIO_PROCESS, 0, -3), 0);
	nap_ms(40);
	ck_assert_int_eq(nice_of(me), -3);
	setpriority(PRIO_PROCESS, 0, 0);
	OPS->detach();
	stop_agent();
}
END_TEST

/* The soft RLIMIT_RTTIME of `pid' in us, -1 for unlimited, -2 unread. */
static long rttime_of(pid_t pid)
{
	char path[64], line[256];
	long v = -2;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Max realtime timeout", 20))
			v = !strncmp(line + 26, "unlimited", 9) ? -1 :
			    strtol(line + 26, NULL, 10);
	fclose(f);
	return v;
}

START_TEST(rt_boosts_carry_an_rttime_backstop_until_unregistered)
{
	struct task t;

	/* The agent runs as nobody: without CAP_SYS_RESOURCE it can still
	 * set the limit on nobody's tasks. */
	start_agent(NULL);
	t = task_registered(nobody_uid());
	ck_assert_int_eq(rttime_of(t.pid), -1);
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 10 * MS), 0);
	ck_assert_int_eq(rttime_of(t.pid), 10 * 20000);	/* 10 x 20 ms */
	ck_assert_int_eq(task_do(&t, 'u', 0, 0, 0, 0), 0);
	ck_assert_int_eq(rttime_of(t.pid), -1);
	task_do(&t, 'q', 0, 0, 0, 0);
	stop_agent();
}
END_TEST

START_TEST(rt_without_a_backstop_is_granted_as_nice)
{
	struct cosched_caps caps;
	struct task t, own;

	/* -B: the agent gives up CAP_SYS_RESOURCE, so it cannot set
	 * RLIMIT_RTTIME on a task of another uid than its own (nobody). */
	start_agent((const char *[]){ "-B", NULL });
	ck_assert_int_eq(OPS->probe(&caps), 0);
	ck_assert_int_eq(caps.rt, 0);
	t = task_registered(OTHER_UID);
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 200 * MS), 0);
	ck_assert_int_eq(policy_of(t.pid), SCHED_OTHER);
	ck_assert_int_eq(nice_of(t.pid), -10);	/* the default floor */
	ck_assert_int_eq(rttime_of(t.pid), -1);
	ck_assert_int_eq(task_do(&t, 'u', 0, 0, 0, 0), 0);
	ck_assert_int_eq(nice_of(t.pid), 0);
	/* The agent's own uid's task: the limit can be set, RT is given. */
	own = task_registered(nobody_uid());
	ck_assert_int_eq(task_do(&own, 'a', 0, COPVM_BOOST_RT, 0, 200 * MS), 0);
	ck_assert_int_eq(policy_of(own.pid), SCHED_FIFO);
	ck_assert_int_gt(rttime_of(own.pid), 0);
	task_do(&t, 'q', 0, 0, 0, 0);
	task_do(&own, 'q', 0, 0, 0, 0);
	stop_agent();
}
END_TEST

START_TEST(another_users_process_cannot_be_boosted)
{
	int nobody = nobody_uid();
	struct task a, b, c;

	start_agent(NULL);
	a = task_registered(nobody);
	b = task_registered(OTHER_UID);
	c = task_registered(nobody);
	ck_assert_int_eq(OPS->attach(NULL, 0), 0);

	/* Root is just another user to the agent. */
	ck_assert_int_eq(OPS->boost_peer(a.pid, 0, COPVM_BOOST_RT, 0, 15 * MS),
			 -EPERM);
	ck_assert_int_eq(task_do(&b, 'p', a.pid, COPVM_BOOST_NICE, -5, 15 * MS),
			 -EPERM);
	ck_assert_int_eq(policy_of(a.pid), SCHED_OTHER);
	ck_assert_int_eq(nice_of(a.pid), 0);
	/* The same user may, and the kernel shows it. */
	ck_assert_int_eq(task_do(&c, 'p', a.pid, COPVM_BOOST_NICE, -5, 15 * MS),
			 0);
	ck_assert_int_eq(nice_of(a.pid), -5);
	ck_assert_int_ge(wait_state(a.pid, SCHED_OTHER, 0, 1000), 0);
	task_do(&a, 'q', 0, 0, 0, 0);
	task_do(&b, 'q', 0, 0, 0, 0);
	task_do(&c, 'q', 0, 0, 0, 0);
	OPS->detach();
	stop_agent();
}
END_TEST

START_TEST(an_unregistered_process_cannot_be_boosted)
{
	struct task t, u;
	pid_t sleeper;
	int fd, fd2, st;

	start_agent(NULL);
	sleeper = fork();
	ck_assert_int_ge(sleeper, 0);
	if (sleeper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(OPS->attach(NULL, 0), 0);
	ck_assert_int_eq(OPS->boost_peer(sleeper, 0, COPVM_BOOST_RT, 0, 15 * MS),
			 -ESRCH);
	ck_assert_int_eq(OPS->boost_peer(1, 0, COPVM_BOOST_RT, 0, 15 * MS),
			 -ESRCH);
	ck_assert_int_eq(policy_of(sleeper), SCHED_OTHER);
	ck_assert_int_eq(policy_of(1), SCHED_OTHER);

	/* Registered, then unregistered. */
	t = task_registered(-1);
	ck_assert_int_eq(OPS->boost_peer(t.pid, 0, COPVM_BOOST_RT, 0, 15 * MS), 0);
	assert_strongest(t.pid);
	ck_assert_int_eq(task_do(&t, 'u', 0, 0, 0, 0), 0);
	ck_assert_int_eq(policy_of(t.pid), SCHED_OTHER);
	ck_assert_int_eq(nice_of(t.pid), 0);
	ck_assert_int_eq(OPS->boost_peer(t.pid, 0, COPVM_BOOST_RT, 0, 15 * MS),
			 -ESRCH);
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 15 * MS),
			 -ENOTCONN);

	/* A caller that never registered can boost nobody, not even itself. */
	u = task_registered(-1);
	fd = raw_connect();
	ck_assert_int_eq(raw_req(fd, AGENT_OP_BOOST_PEER, u.pid, COPVM_BOOST_RT,
				 0, 15 * MS, NULL), -EPERM);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, COPVM_BOOST_RT, 0,
				 15 * MS, NULL), -ESRCH);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_UNREGISTER, 0, 0, 0, 0, NULL),
			 -ESRCH);

	/* One registration per process. */
	fd2 = raw_connect();
	ck_assert_int_eq(raw_req(fd2, AGENT_OP_REGISTER, 0, 0, 0, 0, NULL),
			 -EALREADY);
	close(fd2);

	/* A child speaking on its parent's registered connection is told
	 * off; the library's own inherited copy refuses before asking. */
	sleeper = fork();
	if (sleeper == 0) {
		int r0, r1, r2, r3;
		pid_t c;

		fd2 = raw_connect();
		r0 = raw_req(fd2, AGENT_OP_REGISTER, 0, 0, 0, 0, NULL);
		c = fork();
		if (c == 0) {
			r1 = raw_req(fd2, AGENT_OP_APPLY, 0, COPVM_BOOST_RT, 0,
				     15 * MS, NULL);
			r2 = OPS->apply(COPVM_BOOST_RT, 0, 15 * MS);
			_exit(r1 == -EPERM && r2 == -ENOTCONN &&
			      policy_of(0) == SCHED_OTHER ? 0 : 1);
		}
		waitpid(c, &st, 0);
		r3 = raw_req(fd2, AGENT_OP_REGISTER, 0, 0, 0, 0, NULL);
		_exit(r0 == 0 && r3 == -EALREADY && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(sleeper, &st, 0), sleeper);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	close(fd);
	task_do(&t, 'q', 0, 0, 0, 0);
	task_do(&u, 'q', 0, 0, 0, 0);
	OPS->detach();
	stop_agent();
}
END_TEST

START_TEST(exit_of_a_boosted_task_or_its_booster_ends_the_boost)
{
	struct task t, b, v;
	pid_t g1, g2;
	int gone = 0, k;

	start_agent((const char *[]){ "-b", "5000", NULL });
	ck_assert_int_eq(OPS->attach(NULL, 0), 0);

	/* Children forked while boosted start unboosted. */
	t = task_registered(nobody_uid());
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 3000 * MS), 0);
	ck_assert_int_eq(policy_of(t.pid), SCHED_FIFO);
	g1 = task_do(&t, 'f', 0, 0, 0, 0);
	ck_assert_int_gt(g1, 0);
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_NICE, -8, 3000 * MS), 0);
	ck_assert_int_eq(nice_of(t.pid), -8);
	g2 = task_do(&t, 'f', 0, 0, 0, 0);
	ck_assert_int_gt(g2, 0);
	task_do(&t, 'x', 0, 0, 0, 0);	/* exits boosted, no detach */
	for (k = 0; k < 1000 && !gone; k++) {
		gone = OPS->boost_peer(t.pid, 0, COPVM_BOOST_RT, 0, MS) == -ESRCH;
		nap_ms(1);
	}
	ck_assert(gone);
	ck_assert_int_eq(policy_of(g1), SCHED_OTHER);
	ck_assert_int_eq(nice_of(g1), 0);
	ck_assert_int_eq(policy_of(g2), SCHED_OTHER);
	ck_assert_int_eq(nice_of(g2), 0);
	kill(g1, SIGKILL);
	kill(g2, SIGKILL);

	/* The booster leaves: its boost of a peer ends long before the box. */
	v = task_registered(nobody_uid());
	b = task_registered(nobody_uid());
	ck_assert_int_eq(task_do(&b, 'p', v.pid, COPVM_BOOST_RT, 0, 3000 * MS), 0);
	ck_assert_int_eq(policy_of(v.pid), SCHED_FIFO);
	task_do(&b, 'x', 0, 0, 0, 0);
	k = wait_state(v.pid, SCHED_OTHER, 0, 1000);
	ck_assert_int_ge(k, 0);
	ck_assert_int_lt(k, 1000);
	task_do(&v, 'q', 0, 0, 0, 0);
	OPS->detach();
	stop_agent();
}
END_TEST

/* Two tasks boosted for 3 s, then the agent dies by `sig'. */
static void agent_death_reverts(int sig)
{
	struct task t, u;
	int ms;

	start_agent((const char *[]){ "-b", "5000", NULL });
	t = task_registered(nobody_uid());
	u = task_registered(nobody_uid());
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 3000 * MS), 0);
	ck_assert_int_eq(task_do(&u, 'a', 0, COPVM_BOOST_NICE, -5, 3000 * MS), 0);
	ck_assert_int_eq(policy_of(t.pid), SCHED_FIFO);
	ck_assert_int_eq(nice_of(u.pid), -5);
	kill(agent_pid, sig);
	waitpid(agent_pid, NULL, 0);
	agent_pid = 0;
	/* Neither task calls the library meanwhile: only the agent (or its
	 * watchdog) can have reverted them. */
	ms = wait_state(t.pid, SCHED_OTHER, 0, 1000);
	ck_assert_int_ge(ms, 0);
	ms = wait_state(u.pid, SCHED_OTHER, 0, 1000);
	ck_assert_int_ge(ms, 0);
	/* The library notices at its next call, and stays down. */
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 10 * MS),
			 -ENOTCONN);
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 10 * MS),
			 -ENOTCONN);
	ck_assert_int_eq(policy_of(t.pid), SCHED_OTHER);
	task_do(&t, 'q', 0, 0, 0, 0);
	task_do(&u, 'q', 0, 0, 0, 0);
	stop_agent();
}

START_TEST(agent_sigkill_leaves_no_task_raised)
{
	agent_death_reverts(SIGKILL);
}
END_TEST

START_TEST(agent_sigterm_leaves_no_task_raised)
{
	agent_death_reverts(SIGTERM);
}
END_TEST

/* CPU time of process `pid' so far (schedstat), in ns; 0 if unreadable. */
static uint64_t cpu_ns_of(pid_t pid)
{
	char path[64];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Pins the calling process to CPU `cpu'. */
static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

START_TEST(a_spinning_task_is_held_to_its_share)
{
	struct agent_stats s0, s1;
	uint64_t c0, s0_cpu, loop_cpu, spin_cpu;
	pid_t spin, loop;
	int st;

	/* A 20 % share, 100 ms window: 20 ms bursts. */
	start_agent((const char *[]){ "-d", "20", "-b", "5000", NULL });
	s0 = stats();
	loop = fork();
	if (loop == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(0);
		for (;;)
			;
	}
	spin = fork();
	if (spin == 0) {
		uint64_t last = 0, now, start;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(0);
		become_nobody();
		if (OPS->attach(NULL, 0))
			_exit(1);
		/* Spins at SCHED_FIFO 1 for 2 s, renewing its box. */
		for (start = now_ns(); (now = now_ns()) - start < 2000 * MS;) {
			if (now - last >= 100 * MS) {
				if (OPS->apply(COPVM_BOOST_RT, 0, 1000 * MS))
					_exit(2);
				last = now;
			}
		}
		_exit(0);
	}
	nap_ms(200);
	c0 = cpu_ns_of(loop);
	s0_cpu = cpu_ns_of(spin);
	poll(NULL, 0, 1500);
	loop_cpu = cpu_ns_of(loop) - c0;
	spin_cpu = cpu_ns_of(spin) - s0_cpu;
	ck_assert_int_eq(waitpid(spin, &st, 0), spin);
	kill(loop, SIGKILL);
	waitpid(loop, NULL, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Unbounded, SCHED_FIFO would leave the loop nothing (or the
	 * kernel's 5 % of RT throttling).  Held to 20 % boosted, then
	 * sharing fairly, the spinner takes about 0.2 + 0.8 / 2 of the
	 * CPU and the loop about 0.4, so 0.4 of what the two got: a
	 * generous margin below that.  Counted against the pair, not the
	 * wall clock, so that other load on the CPU does not decide. */
	ck_assert_msg(loop_cpu * 100 >= (loop_cpu + spin_cpu) * 25,
		      "the competing loop got %llu us, the spinner %llu us",
		      (unsigned long long)(loop_cpu / 1000),
		      (unsigned long long)(spin_cpu / 1000));
	s1 = stats();
	ck_assert_uint_gt(s1.demotions, s0.demotions);
	/* Held and resumed, never refused. */
	ck_assert_uint_eq(s1.refused, s0.refused);
	stop_agent();
}
END_TEST

/* Forks a process of uid `uid' that spins until killed; while *boost is
 * set it registers (once) asking for a whole CPU as its share, and asks
 * for SCHED_FIFO every 10 ms. */
static pid_t spinner_of(uid_t uid, volatile int *boost)
{
	pid_t p = fork();

	if (p == 0) {
		uint64_t last = 0, now;
		int attached = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgid(uid) < 0 || setuid(uid) < 0)
			_exit(1);
		for (;;) {
			if (!boost || !*boost)
				continue;
			if (!attached)
				attached = OPS->attach(NULL, 1000000) == 0;
			now = now_ns();
			if (attached && now - last >= 10 * MS) {
				OPS->apply(COPVM_BOOST_RT, 0, 20 * MS);
				last = now;
			}
		}
	}
	return p;
}

/* CPU time of the processes `p[0..n)' together, in ns. */
static uint64_t cpu_of_all(const pid_t *p, int n)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += cpu_ns_of(p[i]);
	return sum;
}

START_TEST(many_boosted_tasks_of_one_user_cannot_take_anothers_cpu)
{
	enum { NA = 16 };
	volatile int *boost;
	pid_t a[NA], b[CPU_SETSIZE];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t, c, lin, boosted, span;
	int i;

	if (ncpu < 1 || ncpu > 64)
		ncpu = 1;
	/* 50 % per task at most, 10 % of each CPU per user: the defaults. */
	start_agent(NULL);
	boost = mmap(NULL, sizeof(*boost), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne((void *)boost, MAP_FAILED);
	*boost = 0;
	/* User A (nobody, so RT comes with its backstop even without
	 * CAP_SYS_RESOURCE): 16 busy tasks; user B: one loop per CPU. */
	for (i = 0; i < NA; i++)
		a[i] = spinner_of(nobody_uid(), boost);
	for (i = 0; i < ncpu; i++)
		b[i] = spinner_of(OTHER_UID + 1, NULL);
	nap_ms(300);
	/* B's share with nobody boosted: what it has under LIN. */
	t = now_ns();
	c = cpu_of_all(b, (int)ncpu);
	poll(NULL, 0, 1500);
	span = now_ns() - t;
	lin = (cpu_of_all(b, (int)ncpu) - c) * 1000 / span;
	/* Every one of A's tasks asks for the strongest boost. */
	*boost = 1;
	nap_ms(300);
	t = now_ns();
	c = cpu_of_all(b, (int)ncpu);
	poll(NULL, 0, 1500);
	span = now_ns() - t;
	boosted = (cpu_of_all(b, (int)ncpu) - c) * 1000 / span;
	for (i = 0; i < NA; i++) {
		kill(a[i], SIGKILL);
		waitpid(a[i], NULL, 0);
	}
	for (i = 0; i < ncpu; i++) {
		kill(b[i], SIGKILL);
		waitpid(b[i], NULL, 0);
	}
	/* In thousandths of a CPU, summed over the CPUs: B keeps its LIN
	 * share less 0.05 of each CPU. */
	ck_assert_msg(boosted + 50 * (uint64_t)ncpu >= lin,
		      "user B had %llu/1000 of the CPUs, %llu/1000 under LIN",
		      (unsigned long long)(boosted / ncpu),
		      (unsigned long long)(lin / ncpu));
	stop_agent();
}
END_TEST

/* A user whose bucket is in debt gains nothing by leaving and coming
 * back: the record keeps the debt until it is paid.  With `other', another
 * user's task stays registered meanwhile, so the budget is split anew
 * when the first user leaves and when it comes back. */
static void debt_outlives_the_last_task(int other)
{
	struct task o;
	int pfd[2], res[3], st;
	pid_t t;

	/* 1 % of each CPU per user, sampled every 10 ms: a hold leaves a
	 * debt that takes about 100 ms to repay. */
	start_agent((const char *[]){ "-U", "1", "-t", "10", "-b", "5000", NULL });
	if (other)
		o = task_registered(OTHER_UID);
	ck_assert_int_eq(pipe(pfd), 0);
	t = fork();
	if (t == 0) {
		uint64_t start;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		become_nobody();
		if (OPS->attach(NULL, 1000000) ||
		    OPS->apply(COPVM_BOOST_RT, 0, 3000 * MS))
			_exit(1);
		res[0] = policy_of(0);
		/* Spin until the user's share holds the boost. */
		for (start = now_ns(); now_ns() - start < 2000 * MS &&
		     policy_of(0) == SCHED_FIFO;)
			;
		res[1] = policy_of(0);
		OPS->detach();
		if (OPS->attach(NULL, 1000000) ||
		    OPS->apply(COPVM_BOOST_RT, 0, 3000 * MS))
			_exit(1);
		res[2] = policy_of(0);
		if (write(pfd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], res, sizeof(res)), sizeof(res));
	waitpid(t, &st, 0);
	ck_assert_int_eq(res[0], SCHED_FIFO);
	ck_assert_int_eq(res[1], SCHED_OTHER);
	/* Registered anew while the debt lasts: held at once. */
	ck_assert_int_eq(res[2], SCHED_OTHER);
	if (other)
		task_do(&o, 'q', 0, 0, 0, 0);
	stop_agent();
}

START_TEST(registering_again_does_not_wipe_a_users_debt)
{
	debt_outlives_the_last_task(0);
}
END_TEST

START_TEST(registering_again_beside_another_user_does_not_wipe_a_debt)
{
	debt_outlives_the_last_task(1);
}
END_TEST

/* ---- the node's budget, split between users ---- */

/* What a booster of the split-budget tests reports, cumulative. */
struct boost_meter {
	volatile int run;	/* 0: wait, 1: boost, 2: detach, 3: quit */
	volatile int detached;
	volatile uint64_t boosted_ns;	/* its CPU time while at the floor */
	volatile uint64_t cpu_ns;	/* all its CPU time while running */
	volatile int asks, granted;	/* requests, and those in force at
					 * once after their answer */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Forks a task of `uid', pinned to `cpu', registered with a whole CPU as
 * its share, which asks for nice -10 (the floor) while m->run is 1:
 * every 10 ms while spinning on (`busy'), else every 50 ms for 3 ms of
 * spinning.  It counts the CPU time it had while boosted (nice < 0). */
static pid_t booster_of(uid_t uid, int cpu, int busy, struct boost_meter *m)
{
	pid_t p = fork();

	if (p == 0) {
		uint64_t last_ask = 0, cpu0, cpu1, now;
		int boosted = 0, period = busy ? 10 : 50;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(cpu);
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid) ||
		    OPS->attach(NULL, 1000000))
			_exit(1);
		cpu0 = thread_cpu_ns();
		while (m->run != 3) {
			if (m->run == 2 && !m->detached) {
				OPS->detach();
				m->detached = 1;
			}
			if (m->run != 1) {
				nap_ms(1);
				cpu0 = thread_cpu_ns();
				boosted = 0;
				continue;
			}
			now = now_ns();
			if (now - last_ask >= (uint64_t)period * MS) {
				if (!busy) {
					/* Sleeps between asks; charged nothing. */
					cpu0 = thread_cpu_ns();
					boosted = 0;
				}
				last_ask = now;
				if (OPS->apply(COPVM_BOOST_NICE, -10, 20 * MS) == 0) {
					m->asks++;
					if (nice_of(0) < 0)
						m->granted++;
				}
			} else if (!busy && now - last_ask >= 3 * MS) {
				nap_ms(1);
				cpu0 = thread_cpu_ns();
				boosted = 0;
				continue;
			}
			cpu1 = thread_cpu_ns();
			if (boosted)
				m->boosted_ns += cpu1 - cpu0;
			m->cpu_ns += cpu1 - cpu0;
			cpu0 = cpu1;
			boosted = nice_of(0) < 0;
		}
		_exit(0);
	}
	return p;
}

static struct boost_meter *meters(int n)
{
	struct boost_meter *m = mmap(NULL, n * sizeof(*m),
				     PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne((void *)m, MAP_FAILED);
	memset(m, 0, n * sizeof(*m));
	return m;
}

/* The node's budget of these tests, -U, chosen so that all users'
 * boosts together take 0.4 of one CPU whatever the number of CPUs:
 * within what one spinning task can use. */
static void start_split_agent(void)
{
	static char pct[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 1)
		ncpu = 1;
	snprintf(pct, sizeof(pct), "%.4f", 40.0 / ncpu);
	start_agent((const char *[]){ "-U", pct, "-p", "100", "-b", "5000",
				      "-v", NULL });
}

/* The boosted CPU of meter `m' over `ms' of wall time, in thousandths
 * of a CPU. */
static uint64_t boosted_rate(struct boost_meter *m, int ms)
{
	uint64_t b0 = m->boosted_ns, t0 = now_ns();

	poll(NULL, 0, ms);
	return (m->boosted_ns - b0) * 1000 / (now_ns() - t0);
}

/* boosted_rate() of `m' over at least `ms', and on until meter `other'
 * has counted `asks' asks (at most 20 s): a loaded or sanitized machine
 * runs the other user's booster less often than the nominal period. */
static uint64_t boosted_rate_until_asks(struct boost_meter *m,
					struct boost_meter *other, int asks,
					int ms)
{
	uint64_t b0 = m->boosted_ns, t0 = now_ns();

	poll(NULL, 0, ms);
	while (other->asks < asks && now_ns() - t0 < 20000 * MS)
		nap_ms(10);
	return (m->boosted_ns - b0) * 1000 / (now_ns() - t0);
}

static void stop_booster(pid_t p, struct boost_meter *m)
{
	m->run = 3;
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

/* With two users registered, each has half the node's budget: a user
 * alone boosting gets 0.2 of a CPU, not the 0.4 of all users together
 * (what every user had before the split). */
START_TEST(two_users_each_get_half_the_nodes_budget)
{
	struct boost_meter *m = meters(2);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t a, b;
	uint64_t rate;

	start_split_agent();
	a = booster_of(nobody_uid(), 0, 1, &m[0]);
	b = booster_of(OTHER_UID, ncpu > 1 ? 1 : 0, 1, &m[1]);
	nap_ms(200);		/* both registered, B never boosts */
	m[0].run = 1;
	nap_ms(300);		/* past the first burst */
	rate = boosted_rate(&m[0], 1500);
	stop_booster(a, &m[0]);
	stop_booster(b, &m[1]);
	fprintf(stderr, "two users: A boosted %llu/1000 of a CPU\n",
		(unsigned long long)rate);
	/* 0.2 of a CPU, plus a burst of 20 ms; 0.4 without the split. */
	ck_assert_msg(rate <= 300 && rate >= 100,
		      "user A was boosted %llu/1000 of a CPU, its half of "
		      "the budget is 200/1000", (unsigned long long)rate);
	stop_agent();
}
END_TEST

/* A user who boosts all the time is held at its half, and the other
 * user's boosts are still granted at once: neither takes the other's
 * part by asking more. */
START_TEST(a_user_boosting_constantly_leaves_the_other_its_half)
{
	struct boost_meter *m = meters(2);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t rate;
	int asks, granted;
	pid_t a, b;

	start_split_agent();
	a = booster_of(nobody_uid(), 0, 1, &m[0]);
	b = booster_of(OTHER_UID, ncpu > 1 ? 1 : 0, 0, &m[1]);
	nap_ms(200);
	m[0].run = 1;
	nap_ms(300);		/* A is held by now */
	m[1].run = 1;
	asks = m[1].asks;
	granted = m[1].granted;
	rate = boosted_rate_until_asks(&m[0], &m[1], asks + 20, 1500);
	asks = m[1].asks - asks;
	granted = m[1].granted - granted;
	stop_booster(a, &m[0]);
	stop_booster(b, &m[1]);
	fprintf(stderr, "A constantly: A boosted %llu/1000 of a CPU, B's "
		"boosts %d of %d granted\n", (unsigned long long)rate,
		granted, asks);
	ck_assert_msg(rate <= 300, "user A was boosted %llu/1000 of a CPU "
		      "beside user B, its half is 200/1000",
		      (unsigned long long)rate);
	/* B asks every 50 ms for 3 ms each: 0.06 of a CPU, within its 0.2. */
	ck_assert_int_ge(asks, 20);
	ck_assert_msg(granted * 10 >= asks * 9,
		      "user B's boosts: %d of %d granted", granted, asks);
	stop_agent();
}
END_TEST

/* When the other user's last task leaves, the one left has the whole
 * budget again. */
START_TEST(the_last_user_left_gets_the_whole_budget)
{
	struct boost_meter *m = meters(2);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t half, whole;
	pid_t a, b;

	start_split_agent();
	a = booster_of(nobody_uid(), 0, 1, &m[0]);
	b = booster_of(OTHER_UID, ncpu > 1 ? 1 : 0, 1, &m[1]);
	nap_ms(200);
	m[0].run = 1;
	nap_ms(300);
	half = boosted_rate(&m[0], 1500);
	m[1].run = 2;		/* B unregisters; its bucket is full */
	while (!m[1].detached)
		nap_ms(1);
	nap_ms(200);
	whole = boosted_rate(&m[0], 1500);
	stop_booster(a, &m[0]);
	stop_booster(b, &m[1]);
	fprintf(stderr, "last user left: A boosted %llu/1000 of a CPU beside "
		"B, %llu/1000 alone\n", (unsigned long long)half,
		(unsigned long long)whole);
	ck_assert_msg(half <= 300, "user A was boosted %llu/1000 of a CPU "
		      "beside user B, its half is 200/1000",
		      (unsigned long long)half);
	/* 0.4 of a CPU alone; 0.2 if B's part were not given back. */
	ck_assert_msg(whole >= 320, "user A alone was boosted %llu/1000 of a "
		      "CPU, the whole budget is 400/1000",
		      (unsigned long long)whole);
	stop_agent();
}
END_TEST

START_TEST(a_task_blocked_under_a_boost_spends_no_share)
{
	struct agent_stats s0, s1;
	int pfd[2], res[3], st;
	pid_t t;

	/* A 10 % share: 10 ms of CPU per 100 ms window. */
	start_agent((const char *[]){ "-d", "10", "-b", "5000", NULL });
	s0 = stats();
	ck_assert_int_eq(pipe(pfd), 0);
	t = fork();
	if (t == 0) {
		struct pollfd never = { .fd = -1 };
		uint64_t start;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		become_nobody();
		if (OPS->attach(NULL, 0) ||
		    OPS->apply(COPVM_BOOST_RT, 0, 3000 * MS))
			_exit(1);
		/* Blocked for 600 ms: six windows of wall time. */
		poll(&never, 0, 600);
		res[0] = policy_of(0);
		/* Then 6 ms of CPU, within the 10 ms the bucket saved. */
		for (start = now_ns(); now_ns() - start < 6 * MS;)
			;
		/* The agent samples within the 10 ms the tokens hold. */
		nap_ms(12);
		res[1] = policy_of(0);
		res[2] = 0;
		if (write(pfd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], res, sizeof(res)), sizeof(res));
	waitpid(t, &st, 0);
	ck_assert_int_eq(res[0], SCHED_FIFO);
	ck_assert_int_eq(res[1], SCHED_FIFO);
	s1 = stats();
	ck_assert_uint_eq(s1.demotions, s0.demotions);
	stop_agent();
}
END_TEST

/* The agent's voluntary context switches so far: each of its wakes. */
static long agent_wakes(void)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)agent_pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	ck_assert_int_ge(n, 0);
	return n;
}

START_TEST(a_boost_with_tokens_to_spare_is_sampled_seldom)
{
	struct task t;
	long w0, w1;

	/* A 20 % share of a 100 ms window: 20 ms of tokens, which a task
	 * on one CPU cannot spend in less than 20 ms of wall time (its
	 * user's part, 40 % of it, is larger); -t 2. */
	start_agent((const char *[]){ "-d", "20", "-U", "40", "-t", "2",
				      "-b", "5000", NULL });
	t = task_registered(nobody_uid());
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 3000 * MS), 0);
	ck_assert(policy_of(t.pid) == SCHED_FIFO || nice_of(t.pid) < 0);
	/* The task is blocked, boosted, for 500 ms.  Sampled every -t, the
	 * agent would wake 250 times; at most every 20 ms, about 25. */
	w0 = agent_wakes();
	nap_ms(500);
	w1 = agent_wakes();
	ck_assert_msg(w1 - w0 <= 60, "the agent woke %ld times in 500 ms",
		      w1 - w0);
	/* Blocked, it spent nothing: the boost is still in force. */
	ck_assert(policy_of(t.pid) == SCHED_FIFO || nice_of(t.pid) < 0);
	task_do(&t, 'x', 0, 0, 0, 0);
	stop_agent();
}
END_TEST

/* Is this process boosted above the slice level now? */
static int strongly_boosted(void)
{
	return policy_of(0) == SCHED_FIFO || nice_of(0) < 0;
}

START_TEST(a_held_boost_comes_back_once_its_debt_is_paid)
{
	int pfd[2], st;
	long back = -1;
	pid_t t;

	/* A 10 % share of a 100 ms window, the node's budget not binding:
	 * a task that spins boosted is held within a sample of spending its
	 * 10 ms, and in force again once the refill has paid its debt, a
	 * few tens of ms later: several times in 800 ms. */
	start_agent((const char *[]){ "-d", "10", "-U", "100", "-b", "5000",
				      NULL });
	ck_assert_int_eq(pipe(pfd), 0);
	t = fork();
	if (t == 0) {
		uint64_t start, last = 0, now;
		int was = 1, held = 0, resumed = 0, is;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(0);
		become_nobody();
		if (OPS->attach(NULL, 0) ||
		    OPS->apply(COPVM_BOOST_RT, 0, 3000 * MS))
			_exit(1);
		for (start = now_ns(); (now = now_ns()) - start < 800 * MS;) {
			if (now - last < 100 * 1000)
				continue;
			last = now;	/* look every 100 us */
			is = strongly_boosted();
			held += was && !is;
			resumed += !was && is;
			was = is;
		}
		back = held > 0 ? resumed : -1;
		if (write(pfd[1], &back, sizeof(back)) != sizeof(back))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &back, sizeof(back)), sizeof(back));
	waitpid(t, &st, 0);
	ck_assert_msg(back >= 3, "held, then in force again %ld times", back);
	stop_agent();
}
END_TEST

START_TEST(garbage_gets_error_replies_and_others_are_served)
{
	struct agent_req rq = {
		.version = AGENT_PROTO_VERSION, .op = AGENT_OP_STATS, .seq = 3,
	};
	char big[512];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &rq, .iov_len = sizeof(rq) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm;
	struct agent_reply rp;
	struct task t;
	int fd, quiet, k, devnull;

	start_agent(NULL);
	fd = raw_connect();
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(raw_junk(fd, "abc", 3), -EBADMSG);
	memset(big, 0xff, sizeof(big));
	ck_assert_int_eq(raw_junk(fd, big, sizeof(big)), -EBADMSG);
	ck_assert_int_eq(raw_junk(fd, big, sizeof(rq)), -EPROTONOSUPPORT);
	rq.version = 99;
	ck_assert_int_eq(raw_junk(fd, &rq, sizeof(rq)), -EPROTONOSUPPORT);
	rq.version = AGENT_PROTO_VERSION;
	rq.op = 77;
	ck_assert_int_eq(raw_junk(fd, &rq, sizeof(rq)), -EOPNOTSUPP);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_REGISTER, 0, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, 9, 0, MS, NULL), -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, -1, 0, MS, NULL), -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, INT_MAX, 0, MS, NULL),
			 -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, COPVM_BOOST_NICE, 100,
				 MS, NULL), -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, COPVM_BOOST_NICE,
				 INT_MIN, MS, NULL), -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, COPVM_BOOST_RT, 0, 0,
				 NULL), -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_APPLY, 0, COPVM_BOOST_RT, 0,
				 UINT64_MAX, NULL), -EINVAL);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_BOOST_PEER, INT_MAX,
				 COPVM_BOOST_RT, 0, MS, NULL), -ESRCH);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_BOOST_PEER, -5, COPVM_BOOST_RT,
				 0, MS, NULL), -ESRCH);
	ck_assert_int_eq(policy_of(0), SCHED_OTHER);
	ck_assert_int_eq(nice_of(0), 0);

	/* A descriptor passed along is dropped; the request still works. */
	devnull = open("/dev/null", O_RDONLY);
	rq.op = AGENT_OP_STATS;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &devnull, sizeof(int));
	ck_assert_int_eq(sendmsg(fd, &mh, MSG_NOSIGNAL), sizeof(rq));
	ck_assert_int_eq(recv(fd, &rp, sizeof(rp), 0), sizeof(rp));
	ck_assert_int_eq(rp.status, 0);
	ck_assert_uint_eq(rp.seq, 3);
	close(devnull);

	/* Clients that never read their replies, or vanish at once. */
	quiet = raw_connect();
	for (k = 0; k < 2000; k++)
		if (send(quiet, "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			break;
	for (k = 0; k < 20; k++)
		close(raw_connect());

	/* A well-behaved client is served as usual. */
	t = task_registered(nobody_uid());
	ck_assert_int_eq(task_do(&t, 'a', 0, COPVM_BOOST_RT, 0, 10 * MS), 0);
	ck_assert_int_eq(policy_of(t.pid), SCHED_FIFO);
	ck_assert_int_ge(wait_state(t.pid, SCHED_OTHER, 0, 1000), 0);
	task_do(&t, 'q', 0, 0, 0, 0);
	ck_assert_int_eq(raw_req(fd, AGENT_OP_STATS, 0, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(waitpid(agent_pid, NULL, WNOHANG), 0);
	close(quiet);
	close(fd);
	stop_agent();
}
END_TEST

static Suite *agent_suite(void)
{
	Suite *s = suite_create("agent");
	TCase *tc = tcase_create("agent");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, probe_is_fast_and_exact_without_an_agent);
	tcase_add_test(tc, probe_reports_the_agents_caps);
	tcase_add_test(tc, a_boost_is_visible_and_gone_after_its_box);
	tcase_add_test(tc, an_undo_leaves_alone_what_someone_else_changed);
	tcase_add_test(tc, rt_boosts_carry_an_rttime_backstop_until_unregistered);
	tcase_add_test(tc, rt_without_a_backstop_is_granted_as_nice);
	tcase_add_test(tc, another_users_process_cannot_be_boosted);
	tcase_add_test(tc, an_unregistered_process_cannot_be_boosted);
	tcase_add_test(tc, exit_of_a_boosted_task_or_its_booster_ends_the_boost);
	tcase_add_test(tc, agent_sigkill_leaves_no_task_raised);
	tcase_add_test(tc, agent_sigterm_leaves_no_task_raised);
	tcase_add_test(tc, a_spinning_task_is_held_to_its_share);
	tcase_add_test(tc, a_task_blocked_under_a_boost_spends_no_share);
	tcase_add_test(tc, a_boost_with_tokens_to_spare_is_sampled_seldom);
	tcase_add_test(tc, a_held_boost_comes_back_once_its_debt_is_paid);
	tcase_add_test(tc, many_boosted_tasks_of_one_user_cannot_take_anothers_cpu);
	tcase_add_test(tc, registering_again_does_not_wipe_a_users_debt);
	tcase_add_test(tc, registering_again_beside_another_user_does_not_wipe_a_debt);
	tcase_add_test(tc, two_users_each_get_half_the_nodes_budget);
	tcase_add_test(tc, a_user_boosting_constantly_leaves_the_other_its_half);
	tcase_add_test(tc, the_last_user_left_gets_the_whole_budget);
	tcase_add_test(tc, garbage_gets_error_replies_and_others_are_served);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		fprintf(stderr, "check_agent: needs root, skipped\n");
		return 77;
	}
	if (access(AGENT_PATH, X_OK) != 0)
		return 77;
	sr = srunner_create(agent_suite());
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

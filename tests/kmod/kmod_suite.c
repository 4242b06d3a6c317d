/*
 * kmod_suite.c - the ioctl suite of the pvm_cosched module, a static
 * program run as root (as /init's child) inside a booted Debian kernel by
 * tests/integ/kmod-qemu.sh, or by hand where the module is loaded.
 *
 * Every ioctl is followed by a read-back (STATS, getpriority,
 * sched_getattr, sched_getscheduler) and an exact errno check.  The cases
 * cover garbage, reserved and out-of-range arguments, unknown commands,
 * bad pointers, the ABI version, boosts of other users' tasks, of dead
 * and unregistered pids, clamping to the limits, the revert after the
 * time box, on close and on exit, the CPU share, the node budget's split
 * between users, SET_LIMITS as root and as a user, unload with tasks
 * registered and reload, and random ioctls.
 * `--bench' prints the cost of a REPORT and a BOOST; `--stats' prints the
 * module-wide counters (after a PVM run in the VM).
 *
 * Usage: kmod-suite [--module PATH.ko] [--fuzz N] [--bench | --stats]
 * The last line is `KMOD-SUITE: PASS|FAIL n=.. pass=.. fail=.. skip=..'.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmod_agent.h"
#include "kmod_safety.h"
#include "kmod_split.h"
#include "kmod_watch.h"
#include "ktest.h"
#include "pvm_cosched.h"
#include "sched_attr.h"

#define MS	1000000ULL
#define NOBODY	65534
#define NOGROUP	65533

static const char *module_path;
static long fuzz_count = 100000;
static int kernel_has_slice;

static const struct pvm_cosched_limits default_limits = {
	.nice_floor = -5, .allow_rt = 0, .box_max_ns = 20 * MS,
	.share_max_ppm = 500000, .window_ns = 100 * MS,
	.sample_ns = 2 * MS, .user_share_ppm = 100000,
	.node_share_ppm = 100000,
};

/* The limits the cases run under once the defaults are checked: boxes
 * of up to 1 s, so that a read-back never races the end of a box on a
 * slow (emulated) machine, and shares that never run out in a case that
 * does not ask for them (10 % of 10 s: 1 s of boosted CPU), with no node
 * budget (each user the whole user share, however many register). */
static const struct pvm_cosched_limits suite_limits = {
	.nice_floor = -5, .allow_rt = 0, .box_max_ns = 1000 * MS,
	.share_max_ppm = 1000000, .window_ns = 10000 * MS,
	.sample_ns = 2 * MS, .user_share_ppm = 1000000,
	.node_share_ppm = 0,
};

static int dev_open(void)
{
	return open(PVM_COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
}

/* Opens and registers a fd for the calling process; -1 on failure. */
static int open_registered(void)
{
	struct pvm_cosched_register reg = {
		.abi_version = PVM_COSCHED_ABI_VERSION };
	int fd = dev_open();

	KT_CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), 0);
	return fd;
}

static struct pvm_cosched_stats stats_of(int fd)
{
	struct pvm_cosched_stats st;

	memset(&st, 0xff, sizeof(st));
	st.flags = 0;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_STATS, &st), 0);
	return st;
}

/* The module-wide statistics, through a fresh fd. */
static struct pvm_cosched_stats stats_now(void)
{
	int fd = dev_open();
	struct pvm_cosched_stats st = stats_of(fd);

	close(fd);
	return st;
}

static int nice_of(pid_t pid)
{
	return getpriority(PRIO_PROCESS, pid);
}

static int report(int fd, int level, int nice, uint64_t box,
		  struct pvm_cosched_report *out)
{
	struct pvm_cosched_report rep = { .level = level, .nice = nice,
					  .box_ns = box, .freq_milli = 1234 };
	int ret = kt_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep);

	if (out)
		*out = rep;
	return ret;
}

static int boost(int fd, pid_t pid, int level, int nice, uint64_t box,
		 struct pvm_cosched_boost *out)
{
	struct pvm_cosched_boost b = { .pid = pid, .level = level,
				       .nice = nice, .box_ns = box };
	int ret = kt_ioctl(fd, PVM_COSCHED_IOC_BOOST, &b);

	if (out)
		*out = b;
	return ret;
}

static void restore_limits(void)
{
	struct pvm_cosched_stats st;

	KT_EQ_ERR(kt_set_limits(&suite_limits), 0);
	st = stats_now();
	KT_CHECK(!memcmp(&st.limits, &suite_limits, sizeof(st.limits)));
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Waits up to `ms' for the calling fd's boost to be over (my_level 0). */
static int wait_unboosted(int fd, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (stats_of(fd).my_level == PVM_COSCHED_BOOST_NONE)
			return 1;
		sleep_ms(1);
	}
	return 0;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int is_root(void)
{
	return geteuid() == 0;
}

/* ---- the cases ---- */

static int case_open_and_defaults(void)
{
	int fd = dev_open();
	struct pvm_cosched_stats st;

	KT_CHECK(fd >= 0);
	if (fd < 0)
		return KT_FAIL;
	st = stats_of(fd);
	KT_CHECK(!memcmp(&st.limits, &default_limits, sizeof(st.limits)));
	KT_EQ(st.my_level, PVM_COSCHED_BOOST_NONE);
	KT_EQ(st.my_applied, 0);
	KT_EQ(st.my_arrivals | st.my_part_ppm, 0);
	KT_EQ(st.my_nice, nice_of(0));
	close(fd);
	restore_limits();
	return KT_PASS;
}

static int case_unknown_commands(void)
{
	const unsigned long cmds[] = {
		_IO(PVM_COSCHED_IOC_MAGIC, 0),
		_IOWR(PVM_COSCHED_IOC_MAGIC, 6, struct pvm_cosched_register),
		_IOWR(PVM_COSCHED_IOC_MAGIC, 1, char[47]),
		_IOWR(PVM_COSCHED_IOC_MAGIC, 1, char[49]),
		_IOR(PVM_COSCHED_IOC_MAGIC, 1, struct pvm_cosched_register),
		_IOW(PVM_COSCHED_IOC_MAGIC, 4, struct pvm_cosched_stats),
		_IOWR(PVM_COSCHED_IOC_MAGIC, 5, struct pvm_cosched_limits),
		_IOWR(PVM_COSCHED_IOC_MAGIC, 2, char[16000]),
		_IOWR('x', 1, struct pvm_cosched_register),
		_IOWR(PVM_COSCHED_IOC_MAGIC, 255, int),
		0, 0xffffffffUL,
	};
	char buf[256] = { 0 };
	int fd = open_registered();
	struct pvm_cosched_stats before = stats_of(fd), after;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		KT_EQ_ERR(kt_ioctl(fd, cmds[i], buf), -ENOTTY);
		KT_EQ_ERR(kt_ioctl(fd, cmds[i], NULL), -ENOTTY);
	}
	after = stats_of(fd);
	KT_EQ(after.applied, before.applied);
	KT_EQ(after.refused, before.refused);
	KT_EQ(after.registered, before.registered);
	KT_EQ(nice_of(0), before.my_nice);
	close(fd);
	return KT_PASS;
}

static int case_bad_pointers(void)
{
	const unsigned long cmds[] = {
		PVM_COSCHED_IOC_REGISTER, PVM_COSCHED_IOC_REPORT,
		PVM_COSCHED_IOC_BOOST, PVM_COSCHED_IOC_STATS,
		PVM_COSCHED_IOC_SET_LIMITS, PVM_COSCHED_IOC_WATCH,
	};
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *bad[4];
	struct pvm_cosched_register reg = {
		.abi_version = PVM_COSCHED_ABI_VERSION };
	struct pvm_cosched_report rep = { .unused_npeers = 1 };
	struct pvm_cosched_stats before, after;
	int fd = dev_open(), fd2;

	KT_CHECK(map != MAP_FAILED && fd >= 0);
	if (map == MAP_FAILED || fd < 0)
		return KT_FAIL;
	mprotect(map + page, page, PROT_NONE);
	bad[0] = NULL;
	bad[1] = (void *)1;
	bad[2] = (void *)0xffff800000000000UL;
	bad[3] = map + page - 8;	/* runs into the PROT_NONE page */
	before = stats_of(fd);
	for (size_t c = 0; c < 5; c++)
		for (int b = 0; b < 4; b++)
			KT_EQ_ERR(kt_ioctl(fd, cmds[c], bad[b]), -EFAULT);
	/* A read-only REGISTER cannot write back: no registration. */
	memcpy(map, &reg, sizeof(reg));
	mprotect(map, page, PROT_READ);
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, map), -EFAULT);
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_STATS, map + 64), -EFAULT);
	after = stats_of(fd);
	KT_EQ(after.registered, before.registered);
	KT_EQ_ERR(report(fd, 0, 0, 0, NULL), -ENOTCONN);
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), 0);
	KT_EQ(stats_of(fd).registered, before.registered + 1);
	/* REPORT's ignored words are not read: a bad pointer there is no
	 * fault. */
	rep.unused_peers_ptr = (uintptr_t)bad[1];
	rep.freq_milli = 5;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep), 0);
	rep.unused_peers_ptr = (uintptr_t)(map + page - 4);
	rep.unused_npeers = 2;
	rep.freq_milli = 6;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep), 0);
	KT_EQ(stats_of(fd).my_freq_milli, 6);
	/* A second fd of a registered task cannot register it again. */
	fd2 = dev_open();
	KT_EQ_ERR(kt_ioctl(fd2, PVM_COSCHED_IOC_REGISTER, &reg), -EALREADY);
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), -EALREADY);
	KT_EQ(stats_of(fd).registered, before.registered + 1);
	close(fd2);
	close(fd);
	munmap(map, 2 * page);
	return KT_PASS;
}

static int case_abi_version(void)
{
	const uint32_t wrong[] = { 0, 1, 0x100, 0xffffffffU };
	struct pvm_cosched_register reg;
	struct pvm_cosched_stats st;
	int fd = dev_open();

	for (size_t i = 0; i < 4; i++) {
		memset(&reg, 0, sizeof(reg));
		reg.abi_version = wrong[i];
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg),
			  -EPROTONOSUPPORT);
		KT_EQ_ERR(report(fd, 0, 0, 0, NULL), -ENOTCONN);
		KT_EQ_ERR(boost(fd, getpid(), 0, 0, 0, NULL), -ENOTCONN);
	}
	memset(&reg, 0, sizeof(reg));
	reg.abi_version = PVM_COSCHED_ABI_VERSION;
	reg.tid = 0x40001;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), 0);
	st = stats_of(fd);
	KT_EQ(reg.base_nice, nice_of(0));
	KT_EQ(reg.nice_floor, st.limits.nice_floor);
	KT_EQ(reg.box_max_ns, st.limits.box_max_ns);
	KT_EQ(!!(reg.caps & PVM_COSCHED_CAP_SLICE), kernel_has_slice);
	KT_EQ(!!(reg.caps & PVM_COSCHED_CAP_NICE), st.limits.nice_floor < 0);
	KT_EQ(!!(reg.caps & PVM_COSCHED_CAP_RT), st.limits.allow_rt);
	KT_CHECK(reg.caps & PVM_COSCHED_CAP_PEERS);
	KT_EQ(reg.pad | reg.reserved[0], 0);
	KT_EQ(reg.share_ppm, 50000);	/* the default share, asked 0 */
	KT_EQ_ERR(report(fd, 0, 0, 0, NULL), 0);
	KT_EQ(stats_of(fd).my_freq_milli, 1234);
	close(fd);
	return KT_PASS;
}

static int case_reserved_fields(void)
{
	struct pvm_cosched_register reg;
	struct pvm_cosched_report rep;
	struct pvm_cosched_boost b;
	struct pvm_cosched_limits l;
	struct pvm_cosched_stats st, before;
	int fd = dev_open();

	for (int i = 0; i < 3; i++) {
		memset(&reg, 0, sizeof(reg));
		reg.abi_version = PVM_COSCHED_ABI_VERSION;
		if (i == 0)
			reg.flags = 1;
		else if (i == 1)
			reg.pad = 1;
		else
			reg.reserved[0] = 1ULL << 63;
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), -EINVAL);
		KT_EQ_ERR(report(fd, 0, 0, 0, NULL), -ENOTCONN);
	}
	memset(&reg, 0, sizeof(reg));
	reg.abi_version = PVM_COSCHED_ABI_VERSION;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), 0);
	before = stats_of(fd);
	for (int i = 0; i < 3; i++) {
		memset(&rep, 0, sizeof(rep));
		rep.level = PVM_COSCHED_BOOST_NICE;
		rep.nice = -5;
		rep.box_ns = 10 * MS;
		memset(&b, 0, sizeof(b));
		b.pid = getpid();
		b.level = PVM_COSCHED_BOOST_NICE;
		b.nice = -5;
		b.box_ns = 10 * MS;
		if (i == 0) {
			rep.flags = 0x80000000U;
			b.flags = 1;
		} else {
			rep.reserved[i - 1] = 1;
			b.reserved[i - 1] = 1;
		}
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep), -EINVAL);
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_BOOST, &b), -EINVAL);
	}
	for (int i = 0; i < 3; i++) {
		l = suite_limits;
		if (i == 0)
			l.pad = 1;
		else if (i == 1)
			l.reserved[0] = 1;
		else
			l.reserved[0] = 1ULL << 63;
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_SET_LIMITS, &l), -EINVAL);
	}
	memset(&st, 0, sizeof(st));
	st.flags = 2;
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_STATS, &st), -EINVAL);
	st = stats_of(fd);
	KT_EQ(st.applied, before.applied);
	KT_EQ(st.my_level, PVM_COSCHED_BOOST_NONE);
	KT_EQ(nice_of(0), reg.base_nice);
	KT_CHECK(!memcmp(&st.limits, &suite_limits, sizeof(st.limits)));
	close(fd);
	return KT_PASS;
}

static int case_out_of_range_arguments(void)
{
	const int levels[] = { -1, 4, 0x7fffffff, -0x7fffffff - 1 };
	const int nices[] = { -21, 20, 0x7fffffff, -0x7fffffff - 1 };
	const uint32_t npeers[] = { 2, 8, 9, 0xffffffffU };
	int32_t peers[8] = { 100, 0, -7, 103, 104, 105, 106, 107 };
	struct pvm_cosched_report rep = { .level = 0 };
	struct pvm_cosched_limits l;
	struct pvm_cosched_stats before, st;
	int fd = open_registered();

	before = stats_of(fd);
	for (int i = 0; i < 4; i++) {
		KT_EQ_ERR(report(fd, levels[i], 0, MS, NULL), -EINVAL);
		KT_EQ_ERR(boost(fd, getpid(), levels[i], 0, MS, NULL),
			  -EINVAL);
		KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, nices[i], MS,
				 NULL), -EINVAL);
		KT_EQ_ERR(boost(fd, getpid(), PVM_COSCHED_BOOST_NICE, nices[i],
				MS, NULL), -EINVAL);
	}
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -5, 0, NULL), -EINVAL);
	KT_EQ_ERR(boost(fd, getpid(), PVM_COSCHED_BOOST_NICE, -5, 0, NULL),
		  -EINVAL);
	KT_EQ_ERR(boost(fd, 0, PVM_COSCHED_BOOST_NICE, -5, MS, NULL), -EINVAL);
	KT_EQ_ERR(boost(fd, -1, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -EINVAL);
	/* REPORT's ignored words: whatever a caller built before put
	 * there (its correspondents: pids <= 0 among them, more than 8) is
	 * accepted, and read by nothing. */
	for (int i = 0; i < 4; i++) {
		rep.unused_npeers = npeers[i];
		rep.unused_peers_ptr = (uintptr_t)peers;
		rep.freq_milli = 70 + i;
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REPORT, &rep), 0);
		KT_EQ(stats_of(fd).my_freq_milli, 70 + i);
	}
	/* Each limit out of its range. */
	for (int i = 0; i < 18; i++) {
		l = suite_limits;
		switch (i) {
		case 0: l.nice_floor = -21; break;
		case 1: l.nice_floor = 1; break;
		case 2: l.allow_rt = 2; break;
		case 3: l.box_max_ns = 999; break;
		case 4: l.box_max_ns = 1000 * MS + 1; break;
		case 5: l.share_max_ppm = 0; break;
		case 6: l.share_max_ppm = 1000001; break;
		case 7: l.window_ns = 10 * MS - 1; break;
		case 8: l.window_ns = 10000 * MS + 1; break;
		case 9: l.sample_ns = MS - 1; break;
		case 10: l.sample_ns = 100 * MS + 1; break;
		case 11: l.box_max_ns = 0; break;
		case 12: l.user_share_ppm = 0; break;
		case 13: l.user_share_ppm = 1000001; break;
		case 14: l.sample_ns = ~0ULL; break;
		case 15: l.window_ns = ~0ULL; break;
		case 16: l.node_share_ppm = 1000001; break;
		case 17: l.node_share_ppm = 0xffffffffU; break;
		}
		KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_SET_LIMITS, &l), -EINVAL);
	}
	st = stats_of(fd);
	KT_CHECK(!memcmp(&st.limits, &suite_limits, sizeof(l)));
	KT_EQ(st.applied, before.applied);
	KT_EQ(nice_of(0), before.my_nice);
	close(fd);
	return KT_PASS;
}

static int case_not_registered(void)
{
	int fd = dev_open();
	struct pvm_cosched_stats st;

	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -5, MS, NULL), -ENOTCONN);
	KT_EQ_ERR(boost(fd, getpid(), PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ENOTCONN);
	st = stats_of(fd);
	KT_EQ(st.my_applied, 0);
	KT_EQ(st.my_level, 0);
	KT_EQ(st.my_freq_milli, 0);
	close(fd);
	return KT_PASS;
}

static int case_forked_child_cannot_use_fd(void)
{
	int fd = open_registered(), status;
	pid_t child = fork();

	if (child == 0) {
		struct pvm_cosched_stats st = { 0 };
		int ok = kt_ioctl(fd, PVM_COSCHED_IOC_STATS, &st) == -EPERM &&
			 report(fd, 0, 0, 0, NULL) == -EPERM &&
			 boost(fd, getppid(), 0, 0, 0, NULL) == -EPERM;

		_exit(ok ? 0 : 1);
	}
	KT_CHECK(waitpid(child, &status, 0) == child);
	KT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	KT_EQ_ERR(report(fd, 0, 0, 0, NULL), 0);
	close(fd);
	return KT_PASS;
}

static int case_boost_dead_pid(void)
{
	int fd = open_registered();
	pid_t child = fork();
	struct pvm_cosched_stats before;

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	before = stats_of(fd);
	KT_EQ_ERR(boost(fd, child, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ESRCH);
	KT_EQ_ERR(boost(fd, 0x7fffffff, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ESRCH);
	KT_EQ(stats_of(fd).applied, before.applied);
	close(fd);
	return KT_PASS;
}

static int case_boost_unregistered_pid(void)
{
	int fd = open_registered();
	pid_t child = fork();
	struct pvm_cosched_stats before;

	if (child == 0) {
		for (;;)
			pause();
	}
	before = stats_of(fd);
	KT_EQ_ERR(boost(fd, 1, PVM_COSCHED_BOOST_NICE, -5, MS, NULL), -ESRCH);
	KT_EQ_ERR(boost(fd, child, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ESRCH);
	KT_EQ(nice_of(child), 0);
	KT_EQ(stats_of(fd).applied, before.applied);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);
	return KT_PASS;
}

static int case_boost_other_users_task(void)
{
	struct agent a = { 0 }, b = { 0 };
	struct agent_order o = { .op = AGENT_BOOST,
				 .level = PVM_COSCHED_BOOST_NICE,
				 .nice = -5, .box_ns = 500 * MS };
	struct agent_reply r;
	struct pvm_cosched_boost got;
	struct pvm_cosched_stats before;
	int fd;

	KT_SKIP_IF(!is_root(), "needs root to run agents as other users");
	fd = open_registered();
	KT_EQ_ERR(agent_start(&a, NOBODY), 0);
	KT_EQ_ERR(agent_start(&b, NOGROUP), 0);
	before = stats_of(fd);
	o.pid = a.pid;			/* user b -> user a */
	KT_EQ_ERR(agent_do(&b, &o, &r), 0);
	KT_EQ_ERR(r.ret, -EPERM);
	o.pid = b.pid;			/* user a -> user b */
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_EQ_ERR(r.ret, -EPERM);
	o.pid = getpid();		/* user a -> root */
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_EQ_ERR(r.ret, -EPERM);
	KT_EQ(nice_of(a.pid), 0);
	KT_EQ(nice_of(b.pid), 0);
	KT_EQ(nice_of(0), 0);
	KT_EQ(stats_of(fd).refused, before.refused + 3);
	KT_EQ(stats_of(fd).applied, before.applied);
	/* root has CAP_SYS_NICE: root -> user a works. */
	KT_EQ_ERR(boost(fd, a.pid, PVM_COSCHED_BOOST_NICE, -3, 500 * MS,
			&got), 0);
	KT_EQ(got.level, PVM_COSCHED_BOOST_NICE);
	KT_EQ(got.nice, -3);
	KT_EQ(nice_of(a.pid), -3);
	KT_EQ(stats_of(fd).my_applied, 1);
	KT_EQ_ERR(boost(fd, a.pid, PVM_COSCHED_BOOST_NONE, 0, 0, &got), 0);
	KT_EQ(nice_of(a.pid), 0);
	KT_EQ(got.nice, 0);
	agent_stop(&a);
	agent_stop(&b);
	close(fd);
	return KT_PASS;
}

static int case_clamp_nice_to_floor_and_box(void)
{
	struct pvm_cosched_report rep;
	struct pvm_cosched_stats before, st;
	int fd = open_registered();

	KT_SKIP_IF(!is_root(), "needs root to lower its own base nice back");
	before = stats_of(fd);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -20, 5000 * MS, &rep), 0);
	KT_EQ(rep.level, PVM_COSCHED_BOOST_NICE);
	KT_EQ(rep.nice, -5);
	KT_EQ(rep.box_ns, 1000 * MS);
	KT_EQ(nice_of(0), -5);
	st = stats_of(fd);
	KT_EQ(st.clamped, before.clamped + 1);
	KT_EQ(st.applied, before.applied + 1);
	KT_EQ(st.my_level, PVM_COSCHED_BOOST_NICE);
	KT_EQ(st.my_nice, -5);
	/* Within the limits: nothing clamped. */
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -3, 900 * MS, &rep), 0);
	KT_EQ(rep.nice, -3);
	KT_EQ(rep.box_ns, 900 * MS);
	KT_EQ(nice_of(0), -3);
	KT_EQ(stats_of(fd).clamped, before.clamped + 1);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, &rep), 0);
	KT_EQ(rep.level, PVM_COSCHED_BOOST_NONE);
	KT_EQ(nice_of(0), 0);
	/* A nice no lower than the base is no boost. */
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, 3, 10 * MS, &rep), 0);
	KT_EQ(rep.level, PVM_COSCHED_BOOST_NONE);
	KT_EQ(nice_of(0), 0);
	/* Another base: the undo goes back to it. */
	KT_CHECK(setpriority(PRIO_PROCESS, 0, 4) == 0);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -2, 900 * MS, &rep), 0);
	KT_EQ(nice_of(0), -2);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, &rep), 0);
	KT_EQ(nice_of(0), 4);
	KT_EQ(rep.nice, 4);
	setpriority(PRIO_PROCESS, 0, 0);
	KT_EQ(stats_of(fd).boosted_now, before.boosted_now);
	close(fd);
	return KT_PASS;
}

static int case_clamp_rt(void)
{
	struct pvm_cosched_limits l = suite_limits;
	struct pvm_cosched_report rep;
	struct sched_param sp;
	int fd;

	KT_SKIP_IF(!is_root(), "SET_LIMITS needs root");
	fd = open_registered();
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_RT, 0, 900 * MS, &rep), 0);
	KT_EQ(rep.level, PVM_COSCHED_BOOST_NICE);
	KT_EQ(rep.nice, -5);
	/* every boost carries reset-on-fork, which sched_getscheduler
	 * reports in its result */
	KT_EQ(sched_getscheduler(0), SCHED_OTHER | SCHED_RESET_ON_FORK);
	KT_EQ(nice_of(0), -5);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, NULL), 0);
	l.allow_rt = 1;
	KT_EQ_ERR(kt_set_limits(&l), 0);
	KT_EQ(stats_of(fd).limits.allow_rt, 1);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_RT, 0, 900 * MS, &rep), 0);
	KT_EQ(rep.level, PVM_COSCHED_BOOST_RT);
	KT_EQ(sched_getscheduler(0), SCHED_FIFO | SCHED_RESET_ON_FORK);
	KT_CHECK(sched_getparam(0, &sp) == 0 && sp.sched_priority == 1);
	/* Renewing its own RT boost is not "a target not at SCHED_NORMAL". */
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_RT, 0, 900 * MS, &rep), 0);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, &rep), 0);
	KT_EQ(sched_getscheduler(0), SCHED_OTHER);
	KT_EQ(nice_of(0), 0);
	/* A task at another policy is not boosted. */
	sp.sched_priority = 0;
	KT_CHECK(sched_setscheduler(0, SCHED_BATCH, &sp) == 0);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -5, 10 * MS, NULL),
		  -EPERM);
	KT_EQ(nice_of(0), 0);
	KT_CHECK(sched_setscheduler(0, SCHED_OTHER, &sp) == 0);
	restore_limits();
	close(fd);
	return KT_PASS;
}

static int case_slice_boost(void)
{
	struct pvm_cosched_report rep;
	struct copvm_sched_attr a;
	int fd = open_registered();

	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_SLICE, 0, 5000 * MS, &rep), 0);
	if (!kernel_has_slice) {
		KT_EQ(rep.level, PVM_COSCHED_BOOST_NONE);
		KT_EQ(stats_of(fd).my_level, PVM_COSCHED_BOOST_NONE);
		close(fd);
		return KT_PASS;
	}
	KT_EQ(rep.level, PVM_COSCHED_BOOST_SLICE);
	KT_EQ(rep.box_ns, 1000 * MS);
	KT_EQ_ERR(copvm_sched_getattr(0, &a), 0);
	KT_EQ(a.sched_runtime, 100000);
	KT_EQ(a.sched_policy, SCHED_OTHER);
	KT_CHECK(wait_unboosted(fd, 3000));
	KT_EQ_ERR(copvm_sched_getattr(0, &a), 0);
	KT_CHECK(a.sched_runtime != 100000);
	close(fd);
	return KT_PASS;
}

static int case_revert_after_time_box(void)
{
	struct pvm_cosched_report rep;
	struct pvm_cosched_stats before, st;
	int fd = open_registered();

	before = stats_of(fd);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -4, 300 * MS, &rep), 0);
	KT_EQ(nice_of(0), -4);
	KT_EQ(stats_of(fd).boosted_now, before.boosted_now + 1);
	KT_CHECK(wait_unboosted(fd, 3000));
	KT_EQ(nice_of(0), 0);
	st = stats_of(fd);
	KT_EQ(st.undone_box + st.demotions,
	      before.undone_box + before.demotions + 1);
	KT_EQ(st.boosted_now, before.boosted_now);
	close(fd);
	return KT_PASS;
}

static int case_undo_only_what_it_set(void)
{
	int fd;

	KT_SKIP_IF(!is_root(), "needs root to renice itself down");
	fd = open_registered();
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -5, 300 * MS, NULL), 0);
	KT_EQ(nice_of(0), -5);
	KT_CHECK(setpriority(PRIO_PROCESS, 0, -2) == 0);
	KT_CHECK(wait_unboosted(fd, 3000));
	KT_EQ(nice_of(0), -2);
	setpriority(PRIO_PROCESS, 0, 0);
	close(fd);
	return KT_PASS;
}

static int case_revert_when_fd_closed(void)
{
	struct agent a = { 0 };
	struct agent_order o = { .op = AGENT_CLOSE };
	struct agent_reply r;
	struct pvm_cosched_stats before, st;
	int fd = open_registered();

	KT_EQ_ERR(agent_start(&a, -1), 0);
	before = stats_of(fd);
	KT_EQ_ERR(boost(fd, a.pid, PVM_COSCHED_BOOST_NICE, -5, 1000 * MS,
			NULL), 0);
	KT_EQ(nice_of(a.pid), -5);
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_EQ_ERR(r.ret, 0);
	KT_EQ(nice_of(a.pid), 0);
	st = stats_of(fd);
	KT_EQ(st.registered, before.registered - 1);
	KT_EQ(st.undone_release, before.undone_release + 1);
	KT_EQ(st.boosted_now, before.boosted_now);
	KT_EQ_ERR(boost(fd, a.pid, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ESRCH);
	agent_stop(&a);
	close(fd);
	return KT_PASS;
}

static int case_revert_when_task_exits(void)
{
	struct agent a = { 0 };
	struct agent_order o = { .op = AGENT_EXIT };
	struct agent_reply r;
	struct pvm_cosched_stats before, st;
	int fd = open_registered();
	pid_t pid;

	KT_EQ_ERR(agent_start(&a, -1), 0);
	pid = a.pid;
	before = stats_of(fd);
	KT_EQ_ERR(boost(fd, pid, PVM_COSCHED_BOOST_NICE, -5, 1000 * MS, NULL),
		  0);
	KT_EQ(nice_of(pid), -5);
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_CHECK(waitpid(pid, NULL, 0) == pid);
	a.pid = 0;
	close(a.to);
	close(a.from);
	st = stats_of(fd);
	KT_EQ(st.registered, before.registered - 1);
	KT_EQ(st.undone_release, before.undone_release + 1);
	KT_EQ(st.boosted_now, before.boosted_now);
	KT_EQ_ERR(boost(fd, pid, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ESRCH);
	close(fd);
	return KT_PASS;
}

/* The task exits while a child of it still holds its fd: the module
 * finds the task gone by its struct pid. */
static int case_revert_when_task_exits_fd_held(void)
{
	struct agent a = { 0 };
	struct agent_order o = { .op = AGENT_HOLD };
	struct agent_reply r;
	struct pvm_cosched_stats before, st;
	int fd = open_registered();
	pid_t pid, holder;

	KT_EQ_ERR(agent_start(&a, -1), 0);
	pid = a.pid;
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_EQ_ERR(r.ret, 0);
	holder = r.pid;
	before = stats_of(fd);
	KT_EQ_ERR(boost(fd, pid, PVM_COSCHED_BOOST_NICE, -5, 1000 * MS, NULL),
		  0);
	o.op = AGENT_EXIT;
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_CHECK(waitpid(pid, NULL, 0) == pid);
	a.pid = 0;
	close(a.to);
	close(a.from);
	st = stats_of(fd);
	KT_EQ(st.registered, before.registered - 1);
	KT_EQ(st.undone_release, before.undone_release + 1);
	KT_EQ(st.boosted_now, before.boosted_now);
	KT_EQ(nice_of(holder), 0);
	KT_EQ_ERR(boost(fd, pid, PVM_COSCHED_BOOST_NICE, -5, MS, NULL),
		  -ESRCH);
	kill(holder, SIGKILL);
	sleep_ms(50);
	KT_EQ(stats_of(fd).registered, before.registered - 1);
	close(fd);
	return KT_PASS;
}

static int case_set_limits_root_and_user(void)
{
	struct pvm_cosched_limits l = {
		.nice_floor = -10, .allow_rt = 1, .box_max_ns = 700 * MS,
		.share_max_ppm = 300000, .window_ns = 200 * MS,
		.sample_ns = 5 * MS, .user_share_ppm = 600000,
		.node_share_ppm = 700000,
	};
	struct pvm_cosched_register reg = {
		.abi_version = PVM_COSCHED_ABI_VERSION };
	struct agent a = { 0 };
	struct agent_order o = { .op = AGENT_SET_LIMITS };
	struct agent_reply r;
	struct pvm_cosched_report rep;
	int fd;

	KT_SKIP_IF(!is_root(), "needs root");
	struct pvm_cosched_stats st;

	KT_EQ_ERR(kt_set_limits(&l), 0);
	st = stats_now();
	KT_CHECK(!memcmp(&st.limits, &l, sizeof(l)));
	fd = dev_open();
	KT_EQ_ERR(kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg), 0);
	KT_EQ(reg.nice_floor, -10);
	KT_EQ(reg.box_max_ns, 700 * MS);
	KT_EQ(reg.share_ppm, 50000);	/* the default, within the limit */
	KT_CHECK(reg.caps & PVM_COSCHED_CAP_RT);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -20, 900 * MS, &rep), 0);
	KT_EQ(rep.nice, -10);
	KT_EQ(rep.box_ns, 700 * MS);
	KT_EQ(nice_of(0), -10);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, NULL), 0);
	close(fd);
	/* An ordinary user may not, even with valid limits. */
	KT_EQ_ERR(agent_start(&a, NOBODY), 0);
	KT_EQ_ERR(agent_do(&a, &o, &r), 0);
	KT_EQ_ERR(r.ret, -EPERM);
	st = stats_now();
	KT_CHECK(!memcmp(&st.limits, &l, sizeof(l)));
	agent_stop(&a);
	restore_limits();
	return KT_PASS;
}

/* A random 32-bit command, never one of the generic types the VFS
 * answers itself before the driver (FIOCLEX, FIFREEZE, FIGETBSZ...). */
static unsigned int random_command(void)
{
	static const unsigned long valid[] = {
		PVM_COSCHED_IOC_REGISTER, PVM_COSCHED_IOC_REPORT,
		PVM_COSCHED_IOC_BOOST, PVM_COSCHED_IOC_STATS,
		PVM_COSCHED_IOC_SET_LIMITS, PVM_COSCHED_IOC_WATCH,
	};
	unsigned int cmd, type;

	switch (rand() % 4) {
	case 0:
		do {
			cmd = (unsigned int)rand() ^ ((unsigned int)rand() << 16);
			type = (cmd >> 8) & 0xff;
		} while (type == 0 || type == 0x15 || type == 'T' ||
			 type == 'X' || type == 'f' || type == 0x94);
		return cmd;
	case 1:
		return _IOC(rand() % 4, PVM_COSCHED_IOC_MAGIC, rand() % 16,
			    rand() & 0x3fff);
	default:
		return valid[rand() % 6];
	}
}

/* Fills `buf' with random bytes, or with a plausible request: zero
 * padding, small levels, nices and boxes, real pids. */
static void random_argument(unsigned char *buf, size_t len, int32_t *peers)
{
	struct pvm_cosched_report *rep = (void *)buf;
	struct pvm_cosched_boost *b = (void *)buf;

	for (size_t i = 0; i < len; i++)
		buf[i] = rand();
	if (rand() % 2 || !peers)
		return;
	memset(buf, 0, len);
	switch (rand() % 3) {
	case 0:
		rep->level = rand() % 6 - 1;
		rep->nice = rand() % 44 - 22;
		rep->box_ns = rand() % 4 ? rand() % (50 * MS) : ~0ULL;
		/* as a caller built before fills them */
		rep->unused_npeers = rand() % 10;
		rep->unused_peers_ptr = (uintptr_t)peers;
		break;
	case 1:
		b->pid = rand() % 3 ? getpid() : rand() % 400;
		b->level = rand() % 6 - 1;
		b->nice = rand() % 44 - 22;
		b->box_ns = rand() % (50 * MS);
		break;
	default:
		*(uint32_t *)buf = rand() % 3 ? PVM_COSCHED_ABI_VERSION : 2;
		break;
	}
}

static int allowed_errno(int err)
{
	return err == ENOTTY || err == EFAULT || err == EINVAL ||
	       err == EPROTONOSUPPORT || err == EALREADY ||
	       err == ENOTCONN || err == EPERM || err == ESRCH ||
	       err == EAGAIN || err == EBADF || err == EEXIST ||
	       err == ENOENT || err == ENOSPC;
}

static int case_random_ioctls(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int seed = (unsigned int)now_ns(CLOCK_REALTIME);
	int32_t peers[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	long ok = 0, errs = 0, bad = 0;
	int fd = dev_open();

	KT_CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return KT_FAIL;
	mprotect(map + page, page, PROT_NONE);
	srand(seed);
	printf("#   seed %u, %ld ioctls\n", seed, fuzz_count);
	for (long i = 0; i < fuzz_count; i++) {
		unsigned int cmd = random_command();
		void *arg;
		int ret;

		if (i % 5000 == 4999) {
			close(fd);
			fd = dev_open();
		}
		/* The largest struct is 152 bytes; the page's end is also
		 * passed, straddling the PROT_NONE page. */
		random_argument(map, 256, peers);
		random_argument(map + page - 64, 64, NULL);
		switch (rand() % 10) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)(((uintptr_t)rand() << 32) ^ rand());
			break;
		case 2:
			arg = map + page - rand() % 64;
			break;
		default:
			arg = map;
		}
		ret = ioctl(fd, cmd, arg);
		if (ret == 0) {
			ok++;
		} else if (allowed_errno(errno)) {
			errs++;
		} else if (bad++ < 10) {
			printf("#   cmd %#x arg %p: %s\n", cmd, arg,
			       strerror(errno));
		}
	}
	printf("#   %ld succeeded, %ld refused, %ld unexpected\n", ok, errs,
	       bad);
	KT_EQ(bad, 0);
	close(fd);
	munmap(map, 2 * page);
	setpriority(PRIO_PROCESS, 0, 0);
	if (is_root())
		restore_limits();
	KT_EQ(stats_now().boosted_now, 0);
	return KT_PASS;
}

static int delete_module(const char *name, int flags)
{
	return syscall(SYS_delete_module, name, flags) < 0 ? -errno : 0;
}

static int load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int case_unload_with_tasks_registered_then_reload(void)
{
	struct pvm_cosched_stats st;
	int fd;

	KT_SKIP_IF(!module_path, "no --module PATH given");
	KT_SKIP_IF(!is_root(), "needs root");
	fd = open_registered();
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -5, 1000 * MS, NULL), 0);
	KT_EQ(nice_of(0), -5);
	/* The kernel refuses while a file is open; nothing is undone. */
	KT_EQ_ERR(delete_module("pvm_cosched", O_NONBLOCK), -EWOULDBLOCK);
	KT_EQ(stats_of(fd).registered, 1);
	KT_EQ(stats_of(fd).my_level, PVM_COSCHED_BOOST_NICE);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -4, 1000 * MS, NULL), 0);
	KT_EQ(nice_of(0), -4);
	close(fd);
	KT_EQ(nice_of(0), 0);
	KT_EQ_ERR(delete_module("pvm_cosched", O_NONBLOCK), 0);
	KT_CHECK(dev_open() < 0 && errno == ENOENT);
	KT_EQ_ERR(load_module(module_path), 0);
	fd = open_registered();
	st = stats_of(fd);
	KT_EQ(st.registered, 1);
	KT_EQ(st.applied, 0);
	KT_CHECK(!memcmp(&st.limits, &default_limits, sizeof(st.limits)));
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NICE, -5, 1000 * MS, NULL), 0);
	KT_EQ(nice_of(0), -5);
	KT_EQ_ERR(report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, NULL), 0);
	close(fd);
	restore_limits();
	return KT_PASS;
}

/* The cost of a REPORT (a renewed NICE boost of itself) and a BOOST (of
 * a registered agent), in ns per call, beside getppid(). */
static int case_bench(void)
{
	struct agent a = { 0 };
	const int n = 20000;
	uint64_t t0, t_report, t_boost, t_sys;
	int fd = open_registered(), fails = 0;
	struct pvm_cosched_limits l = suite_limits;

	if (is_root())
		kt_set_limits(&l);
	KT_EQ_ERR(agent_start(&a, -1), 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++)
		fails += report(fd, PVM_COSCHED_BOOST_NICE, -5, 10 * MS,
				NULL) != 0;
	t_report = now_ns(CLOCK_MONOTONIC) - t0;
	t0 = now_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++)
		fails += boost(fd, a.pid, PVM_COSCHED_BOOST_NICE, -5,
			       10 * MS, NULL) != 0;
	t_boost = now_ns(CLOCK_MONOTONIC) - t0;
	t0 = now_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	t_sys = now_ns(CLOCK_MONOTONIC) - t0;
	printf("#   bench: REPORT %llu ns, BOOST %llu ns, getppid %llu ns per call (%d refused)\n",
	       (unsigned long long)(t_report / n),
	       (unsigned long long)(t_boost / n),
	       (unsigned long long)(t_sys / n), fails);
	report(fd, PVM_COSCHED_BOOST_NONE, 0, 0, NULL);
	agent_stop(&a);
	if (is_root())
		restore_limits();
	close(fd);
	return KT_PASS;
}

static int case_fork(void)
{
	return case_no_boost_through_fork(&suite_limits, kernel_has_slice);
}

static int case_spin(void)
{
	return case_spinning_task_undone_in_box(&suite_limits);
}

static int case_users(void)
{
	int ret = case_one_user_cannot_take_anothers_cpu(&default_limits);

	restore_limits();
	return ret;
}

static int case_user_budget(void)
{
	return case_user_share_is_shared(&suite_limits);
}

static int case_reregister(void)
{
	return case_reregistering_keeps_the_users_debt(&suite_limits);
}

static int case_split_parts(void)
{
	return case_node_budget_parts_follow_the_users(&suite_limits);
}

static int case_split_half(void)
{
	return case_two_users_each_get_half_the_node_budget(&suite_limits);
}

static int case_split_asking(void)
{
	return case_a_user_asking_constantly_leaves_the_other_its_part(&suite_limits);
}

static int case_spinner_share(void)
{
	return case_spinner_held_to_its_share(&suite_limits);
}

static int case_blocked_share(void)
{
	return case_blocked_task_spends_no_share(&suite_limits);
}

static const struct kt_case cases[] = {
	{ "open the device, default limits", case_open_and_defaults },
	{ "unknown commands get ENOTTY", case_unknown_commands },
	{ "bad pointers get EFAULT", case_bad_pointers },
	{ "another ABI version gets EPROTONOSUPPORT", case_abi_version },
	{ "non-zero reserved fields get EINVAL", case_reserved_fields },
	{ "out-of-range and oversized arguments get EINVAL",
	  case_out_of_range_arguments },
	{ "REPORT and BOOST before REGISTER get ENOTCONN",
	  case_not_registered },
	{ "a forked child cannot use its parent's fd (EPERM)",
	  case_forked_child_cannot_use_fd },
	{ "a boost of a dead pid gets ESRCH", case_boost_dead_pid },
	{ "a boost of an unregistered pid gets ESRCH",
	  case_boost_unregistered_pid },
	{ "a boost of another user's task gets EPERM both ways",
	  case_boost_other_users_task },
	{ "a nice boost is clamped to the floor and the box",
	  case_clamp_nice_to_floor_and_box },
	{ "RT only when the limits allow it; SCHED_NORMAL targets only",
	  case_clamp_rt },
	{ "a slice boost (6.12+) or its clamp to none (6.1)",
	  case_slice_boost },
	{ "a boost is undone at the end of its time box",
	  case_revert_after_time_box },
	{ "an undo restores only what the module set",
	  case_undo_only_what_it_set },
	{ "a boost is undone when the fd is closed",
	  case_revert_when_fd_closed },
	{ "a boost is undone when the boosted task exits",
	  case_revert_when_task_exits },
	{ "a task that exits while a child holds its fd is forgotten",
	  case_revert_when_task_exits_fd_held },
	{ "SET_LIMITS as root, and EPERM as a user",
	  case_set_limits_root_and_user },
	{ "no boost is inherited by a forked child or a new thread",
	  case_fork },
	{ "the undo thread runs at SCHED_FIFO above the boosts",
	  case_undo_thread_outranks_boosts },
	{ "a boosted task spinning on each CPU is undone in its box + a tick",
	  case_spin },
	{ "a boosted spinner is held to its share, not to a cliff",
	  case_spinner_share },
	{ "a task blocked under a boost spends no share; held, then resumed",
	  case_blocked_share },
	{ "one user's tasks share one bucket", case_user_budget },
	{ "registering again does not refill a user's share",
	  case_reregister },
	{ "one user's boosted tasks cannot take another user's CPU",
	  case_users },
	{ "the node budget's parts follow the users with registered tasks",
	  case_split_parts },
	{ "two users each get half the node budget, the last one left all of it",
	  case_split_half },
	{ "a user asking constantly with more tasks leaves the other its part of the node budget",
	  case_split_asking },
	{ "WATCH's bad arguments get their errors", case_watch_arguments },
	{ "input on a watched socket or eventfd boosts a blocked task before it runs",
	  case_watch_boosts_on_arrival },
	{ "watched files the task closed are let go",
	  case_watch_lets_closed_files_go },
	{ "random ioctls", case_random_ioctls },
	{ "unload with tasks registered, then reload",
	  case_unload_with_tasks_registered_then_reload },
};

/* Prints the module-wide counters on one line. */
static int print_stats(void)
{
	struct pvm_cosched_stats st = stats_now();

	printf("KMOD-STATS: registered=%u boosted_now=%llu applied=%llu undone_box=%llu undone_release=%llu demotions=%llu refused=%llu clamped=%llu\n",
	       st.registered, (unsigned long long)st.boosted_now,
	       (unsigned long long)st.applied,
	       (unsigned long long)st.undone_box,
	       (unsigned long long)st.undone_release,
	       (unsigned long long)st.demotions,
	       (unsigned long long)st.refused,
	       (unsigned long long)st.clamped);
	return kt_failed;
}

static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

int main(int argc, char **argv)
{
	int bench = 0, stats = 0, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--module") && i + 1 < argc) {
			module_path = argv[++i];
		} else if (!strcmp(argv[i], "--fuzz") && i + 1 < argc) {
			fuzz_count = strtol(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--bench")) {
			bench = 1;
		} else if (!strcmp(argv[i], "--stats")) {
			stats = 1;
		} else {
			fprintf(stderr, "usage: %s [--module PATH.ko] [--fuzz N] [--bench | --stats]\n",
				argv[0]);
			return 2;
		}
	}
	kernel_has_slice = kernel_at_least(6, 12);
	fd = dev_open();
	if (fd < 0) {
		printf("KMOD-SUITE: SKIP cannot open %s: %s\n",
		       PVM_COSCHED_DEVICE, strerror(errno));
		return KT_SKIP;
	}
	close(fd);
	if (stats)
		return print_stats();
	if (geteuid() != 0) {
		printf("KMOD-SUITE: SKIP the suite needs root\n");
		return KT_SKIP;
	}
	if (bench) {
		struct kt_case b = { "bench", case_bench };

		return kt_run_all(&b, 1, "KMOD-BENCH");
	}
	return kt_run_all(cases, sizeof(cases) / sizeof(cases[0]),
			  "KMOD-SUITE");
}

/*
 * boost.c - the scheduling levers of copvm-agent, applied to another
 * process by pid: a short EEVDF slice, a negative nice bounded by a
 * floor, or SCHED_FIFO 1 with RLIMIT_RTTIME as a backstop (nice at the
 * floor where that limit cannot be set); and their
 * undo, which restores only what the agent set.  Also the readers of
 * what the agent needs to know of a task: its CPU time (its process CPU
 * clock), and from /proc its start time and uids.
 *
 * Every lever goes through sched_setattr, so one call sets policy, nice
 * and slice together, and the raised levels (NICE, RT) carry
 * SCHED_FLAG_RESET_ON_FORK: a child forked while boosted starts at
 * SCHED_OTHER and nice 0 instead of keeping a boost nobody will undo.
 * The caller (serve.c) has checked identity and permission beforehand.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "agent.h"
#include "sched_attr.h"

/* The slice a task has without a request: writing it back is writing 0. */
static uint64_t default_slice_ns;

static int sys_setattr(pid_t pid, const struct agent_sched *s)
{
	struct copvm_sched_attr a;

	memset(&a, 0, sizeof(a));
	a.sched_policy = s->policy;
	a.sched_flags = s->flags & SCHED_FLAG_RESET_ON_FORK;
	if (s->policy == SCHED_FIFO || s->policy == SCHED_RR) {
		a.sched_priority = s->prio;
	} else {
		a.sched_nice = s->nice;
		/* 0 asks for the default slice rather than pinning it. */
		a.sched_runtime = s->runtime == default_slice_ns ? 0 :
				  s->runtime;
	}
	return copvm_sched_setattr(pid, &a);
}

int boost_get(pid_t pid, struct agent_sched *s)
{
	struct copvm_sched_attr a;
	int rc = copvm_sched_getattr(pid, &a);

	if (rc)
		return rc;
	s->policy = a.sched_policy;
	s->prio = a.sched_priority;
	s->nice = a.sched_nice;
	s->flags = a.sched_flags & SCHED_FLAG_RESET_ON_FORK;
	s->runtime = a.sched_runtime;
	return 0;
}

void boost_detect(struct agent_conf *conf)
{
	struct agent_sched s;

	/* 6.1 reports sched_runtime 0 for a fair task; 6.12+ its slice. */
	if (boost_get(0, &s) == 0 && s.policy == SCHED_OTHER &&
	    s.runtime != 0) {
		conf->slice_ok = 1;
		conf->default_slice_ns = s.runtime;
	}
	default_slice_ns = conf->default_slice_ns;
}

/* Is `cur' still what the agent set for `level'? */
static int still_ours(int level, const struct agent_sched *set,
		      const struct agent_sched *cur)
{
	switch (level) {
	case COPVM_BOOST_RT:
		return cur->policy == SCHED_FIFO && cur->prio == set->prio;
	case COPVM_BOOST_NICE:
		return cur->policy == SCHED_OTHER && cur->nice == set->nice;
	case COPVM_BOOST_SLICE:
		return cur->policy == SCHED_OTHER &&
		       cur->runtime == set->runtime;
	}
	return 0;
}

/* Puts RLIMIT_RTTIME in force on `e''s task: 0 when a soft limit no
 * looser than 10 x the longest box is in force (ours or its own), -errno
 * when it cannot be set (another user's task without CAP_SYS_RESOURCE). */
static int rttime_set(struct agent_entry *e, const struct agent_conf *conf)
{
	struct rlimit old, nw;
	uint64_t val = conf->box_max_ns / 1000 * AGENT_RTTIME_FACTOR;

	if (e->rttime_set)
		return 0;
	if (prlimit(e->pid, RLIMIT_RTTIME, NULL, &old) < 0)
		return -errno;
	if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur <= val)
		return 0;	/* already tighter: nothing to add */
	nw.rlim_cur = old.rlim_max != RLIM_INFINITY && old.rlim_max < val ?
		      old.rlim_max : val;
	nw.rlim_max = old.rlim_max;
	if (prlimit(e->pid, RLIMIT_RTTIME, &nw, NULL) < 0)
		return -errno;
	e->rttime_cur = old.rlim_cur;
	e->rttime_val = nw.rlim_cur;
	e->rttime_set = 1;
	return 0;
}

void boost_rttime_restore(struct agent_entry *e)
{
	struct rlimit cur;

	if (!e->rttime_set)
		return;
	e->rttime_set = 0;
	if (prlimit(e->pid, RLIMIT_RTTIME, NULL, &cur) < 0 ||
	    cur.rlim_cur != e->rttime_val)
		return;		/* gone, or changed by someone else */
	cur.rlim_cur = e->rttime_cur;
	prlimit(e->pid, RLIMIT_RTTIME, &cur, NULL);
}

int boost_apply(struct agent_entry *e, int level, int nice,
		const struct agent_conf *conf)
{
	struct agent_sched cur, set;
	int rc;

	rc = boost_get(e->pid, &cur);
	if (rc)
		return rc;
	if (cur.policy != SCHED_OTHER)
		return -EPERM;
	set = cur;
	switch (level) {
	case COPVM_BOOST_SLICE:
		if (!conf->slice_ok)
			return -EOPNOTSUPP;
		set.runtime = AGENT_SLICE_NS;
		break;
	case COPVM_BOOST_NICE:
		set.nice = nice < conf->nice_floor ? conf->nice_floor : nice;
		set.flags |= SCHED_FLAG_RESET_ON_FORK;
		break;
	case COPVM_BOOST_RT:
		/* No RT without the kernel's own bound: nice at the floor. */
		if (rttime_set(e, conf) < 0) {
			level = COPVM_BOOST_NICE;
			set.nice = conf->nice_floor;
		} else {
			set.policy = SCHED_FIFO;
			set.prio = 1;
		}
		set.flags |= SCHED_FLAG_RESET_ON_FORK;
		break;
	default:
		return -EINVAL;
	}
	/* Record first, then act: a watchdog that finds ENT_BOOSTED after
	 * a crash between the two sees a task that is not "ours" and
	 * leaves it alone. */
	e->base = cur;
	e->set = set;
	e->level = level;
	__atomic_store_n(&e->state, ENT_BOOSTED, __ATOMIC_RELEASE);
	rc = sys_setattr(e->pid, &set);
	if (rc) {
		__atomic_store_n(&e->state, ENT_REG, __ATOMIC_RELEASE);
		return rc;
	}
	if (level == COPVM_BOOST_SLICE) {
		/* Read back what the kernel clamped it to, for the undo test. */
		if (boost_get(e->pid, &cur) == 0)
			e->set.runtime = cur.runtime;
	}
	return 0;
}

int boost_undo(struct agent_entry *e)
{
	struct agent_sched cur;
	int done = 0;

	if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != ENT_BOOSTED)
		return 0;
	if (boost_get(e->pid, &cur) == 0 && still_ours(e->level, &e->set, &cur))
		done = sys_setattr(e->pid, &e->base) == 0;
	e->level = COPVM_BOOST_NONE;
	__atomic_store_n(&e->state, ENT_REG, __ATOMIC_RELEASE);
	return done;
}

/* Reads a small /proc file into `buf'; its length or -errno. */
static int read_proc(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

int boost_cpu_clock(pid_t pid, clockid_t *clock)
{
	int rc = clock_getcpuclockid(pid, clock);

	return rc ? -rc : 0;
}

int boost_cpu_ns(clockid_t clock, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return -errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

uint64_t boost_start_time(pid_t pid)
{
	char buf[1024], *p;
	int i;

	if (read_proc(pid, "stat", buf, sizeof(buf)) < 0)
		return 0;
	/* The command may hold spaces and parentheses: skip past the last
	 * ')', then field 3 (state) onwards; start time is field 22. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (i = 2; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

int boost_uids(pid_t pid, uid_t *ruid, uid_t *euid)
{
	char buf[2048], *p;
	unsigned long r, e;

	if (read_proc(pid, "status", buf, sizeof(buf)) < 0)
		return -ESRCH;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%lu %lu", &r, &e) != 2)
		return -ESRCH;
	*ruid = (uid_t)r;
	*euid = (uid_t)e;
	return 0;
}

/*
 * serve.c - the agent's connections and requests.  Connection i owns
 * entry i of the boost table; it can register the one process that
 * opened it (SO_PEERCRED), and every datagram's SCM_CREDENTIALS must name
 * that same process, so a child that inherited the socket cannot speak
 * for its parent.  A boost is applied only to a registered, living task
 * (its pidfd not yet readable) of the caller's uid, and is undone by the
 * agent's timerfd at the end of its box, by UNREGISTER, or when the
 * task or its booster goes away.
 *
 * The CPU share: each task has a token bucket (common/cosched_bucket.h)
 * of the share it registered with, capped by -p.  While a boost is in
 * force its CPU time (its CPU-time clock) is charged at each sample;
 * when the tokens are spent the boost is held (still wanted, but only at
 * the slice level, which takes no CPU from anyone, where the kernel has
 * slices) and comes back at the first sample after the debt is paid, as
 * long as its box lasts.  Samples come when they can matter
 * (sample_due): not before the tokens could be spent, or the debt paid,
 * and at most every -t.  A slice boost is never charged nor held.
 * Each user's boosts are charged to the user's bucket too (users.c),
 * refilled at its part of the node's -U: past it, all of the user's
 * boosts are held together.  The agent runs
 * at SCHED_FIFO 2, above the SCHED_FIFO 1 it grants, so a boosted task
 * that spins cannot delay the sample that holds it.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "copvm.h"
#include "agent.h"

struct conn {
	int fd;			/* -1: slot free */
	pid_t pid;		/* SO_PEERCRED at connect */
	uid_t uid;
};

static const struct agent_conf *conf;
static struct conn conns[AGENT_MAX_TASKS];
static int nconns_hi;		/* slots below this may be in use */
static int epfd = -1, tfd = -1;
static uint32_t caps;
static uint64_t sample_at;	/* next share sample; 0: none due */
static uint64_t armed_at;	/* the timerfd's expiry; 0: none (fired) */

static void stat_add(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

int serve_init(const struct agent_conf *c, int ep, int timer)
{
	int i;

	conf = c;
	users_init(conf->user_share_ppm, conf->window_ns);
	epfd = ep;
	tfd = timer;
	for (i = 0; i < AGENT_MAX_TASKS; i++)
		conns[i].fd = -1;
	caps = AGENT_CAP_PEERS;
	if (conf->slice_ok)
		caps |= AGENT_CAP_SLICE;
	if (priv_has_nice())
		caps |= AGENT_CAP_NICE;
	/* RT only with RLIMIT_RTTIME as the kernel's own bound on it. */
	if ((caps & AGENT_CAP_NICE) && priv_has_backstop())
		caps |= AGENT_CAP_RT;
	else if (caps & AGENT_CAP_NICE)
		agent_log("no CAP_SYS_RESOURCE: no RLIMIT_RTTIME backstop, so "
			  "RT requests are granted as nice %d (except on the "
			  "agent's own uid's tasks)", conf->nice_floor);
	return 0;
}

static int ep_add(int fd, int type, int idx)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = (uint64_t)type << 32 | (uint32_t)idx,
	};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Has the task of entry `e' exited?  Its pidfd turns readable then. */
static int task_gone(const struct agent_entry *e)
{
	struct pollfd p = { .fd = e->pidfd, .events = POLLIN };

	return e->pidfd < 0 || poll(&p, 1, 0) != 0;
}

/* Is a boost that takes CPU from others (nice, RT) in force on `e'? */
static int strong_in_force(const struct agent_entry *e)
{
	return e->state == ENT_BOOSTED && e->level > COPVM_BOOST_SLICE;
}

/* Brings `e''s share up to `now': the CPU it used since the last
 * sample is charged if a strong boost was in force, and the mark moves
 * (put_in_force sets it when a strong boost begins). */
static void charge_share(struct agent_entry *e, uint64_t now)
{
	uint64_t cpu, used = 0;

	if (strong_in_force(e) && boost_cpu_ns(e->cpu_clock, &cpu) == 0) {
		if (cpu >= e->cpu_mark_ns)
			used = cpu - e->cpu_mark_ns;
		e->cpu_mark_ns = cpu;
	}
	cosched_bucket_charge(&e->share, now, used);
	users_charge(e->user, now, used);
}

/* May `e''s wanted boost be in force: a slice always, a stronger one
 * while its own share and its user's last? */
static int share_allows(const struct agent_entry *e)
{
	return e->want_level <= COPVM_BOOST_SLICE ||
	       (cosched_bucket_allows(&e->share) && users_allow(e->user));
}

/* Ends `e''s boost, in force or held; counts it when it was in force. */
static void end_boost(struct agent_entry *e)
{
	e->want_level = COPVM_BOOST_NONE;
	e->booster = -1;
	if (e->state != ENT_BOOSTED)
		return;
	if (task_gone(e)) {
		__atomic_store_n(&e->state, ENT_REG, __ATOMIC_RELEASE);
		return;
	}
	charge_share(e, agent_now());
	if (boost_undo(e))
		stat_add(&agent_tab->stats.undone);
}

/* Holds `e''s strong boost: back to the slice level where the kernel
 * has slices, else to no boost, until its share allows it again. */
static void hold(struct agent_entry *e)
{
	boost_undo(e);
	if (conf->slice_ok && e->want_level > COPVM_BOOST_SLICE)
		boost_apply(e, COPVM_BOOST_SLICE, 0, conf);
	stat_add(&agent_tab->stats.demotions);
}

/* Puts the boost `e' wants in force, from none or a held slice; its
 * share was charged up to now by the caller.  0 or -errno. */
static int put_in_force(struct agent_entry *e)
{
	int rc;

	if (e->state == ENT_BOOSTED)
		boost_undo(e);
	rc = boost_apply(e, e->want_level, e->want_nice, conf);
	if (rc == 0 && boost_cpu_ns(e->cpu_clock, &e->cpu_mark_ns) < 0)
		e->cpu_mark_ns = 0;
	return rc;
}

/* Forgets the boosts connection `ci' asked for on other tasks. */
static void drop_booster(int ci)
{
	int j;

	for (j = 0; j < nconns_hi; j++) {
		struct agent_entry *e = &agent_tab->ent[j];

		if (e->booster != ci)
			continue;
		end_boost(e);
	}
}

static void unregister(int ci)
{
	struct agent_entry *e = &agent_tab->ent[ci];

	if (e->state == ENT_FREE)
		return;
	if (!task_gone(e)) {
		end_boost(e);
		boost_rttime_restore(e);
	}
	e->want_level = COPVM_BOOST_NONE;
	epoll_ctl(epfd, EPOLL_CTL_DEL, e->pidfd, NULL);
	close(e->pidfd);
	e->pidfd = -1;
	e->booster = -1;
	e->rttime_set = 0;
	users_put(e->user, agent_now());
	e->user = -1;
	__atomic_store_n(&e->state, ENT_FREE, __ATOMIC_RELEASE);
	drop_booster(ci);
}

static void conn_close(int ci)
{
	unregister(ci);
	drop_booster(ci);
	close(conns[ci].fd);
	conns[ci].fd = -1;
}

void serve_accept(int lfd)
{
	struct ucred cr;
	socklen_t len;
	int fd, ci, one = 1;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		for (ci = 0; ci < AGENT_MAX_TASKS && conns[ci].fd >= 0; ci++)
			;
		len = sizeof(cr);
		if (ci == AGENT_MAX_TASKS ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one,
			       sizeof(one)) < 0 ||
		    ep_add(fd, AGENT_EV_CONN, ci) < 0) {
			if (ci == AGENT_MAX_TASKS)
				agent_log("too many connections");
			close(fd);
			continue;
		}
		conns[ci].fd = fd;
		conns[ci].pid = cr.pid;
		conns[ci].uid = cr.uid;
		if (ci >= nconns_hi)
			nconns_hi = ci + 1;
	}
}

/* The share granted for `asked' ppm (0: the default), within -p. */
static uint32_t share_for(uint32_t asked)
{
	if (asked == 0)
		asked = conf->share_default_ppm;
	return asked > conf->share_max_ppm ? conf->share_max_ppm : asked;
}

static int do_register(int ci, const struct agent_req *rq,
		       struct agent_reply *rp)
{
	struct agent_entry *e = &agent_tab->ent[ci];
	uint64_t start;
	int j, pidfd;

	if (e->state != ENT_FREE)
		return -EALREADY;
	pidfd = syscall(SYS_pidfd_open, conns[ci].pid, 0);
	if (pidfd < 0)
		return -ESRCH;
	start = boost_start_time(conns[ci].pid);
	if (boost_cpu_clock(conns[ci].pid, &e->cpu_clock) < 0) {
		close(pidfd);
		return -ESRCH;
	}
	/* Another connection of the same process already registered it;
	 * one of an earlier process with this pid is stale. */
	for (j = 0; j < nconns_hi; j++) {
		struct agent_entry *o = &agent_tab->ent[j];

		if (j == ci || o->state == ENT_FREE ||
		    o->pid != conns[ci].pid)
			continue;
		if (!task_gone(o) && o->start_time == start) {
			close(pidfd);
			return -EALREADY;
		}
		unregister(j);
	}
	e->pid = conns[ci].pid;
	e->uid = conns[ci].uid;
	e->start_time = start;
	e->pidfd = pidfd;
	e->booster = -1;
	e->level = COPVM_BOOST_NONE;
	e->rttime_set = 0;
	e->want_level = COPVM_BOOST_NONE;
	e->cpu_mark_ns = 0;
	cosched_bucket_init(&e->share, share_for(rq->share_ppm),
			    conf->window_ns, agent_now());
	e->user = users_get(e->uid, agent_now());
	if (e->user < 0) {
		close(pidfd);
		e->pidfd = -1;
		return -ENOMEM;
	}
	rp->share_ppm = e->share.share_ppm;
	if (ep_add(pidfd, AGENT_EV_PIDFD, ci) < 0) {
		close(pidfd);
		e->pidfd = -1;
		users_put(e->user, agent_now());
		e->user = -1;
		return -ENOMEM;
	}
	__atomic_store_n(&e->state, ENT_REG, __ATOMIC_RELEASE);
	if (conf->verbose)
		agent_log("registered pid %d uid %u, share %u ppm, its user's"
			  " part %u ppm of each CPU", (int)e->pid,
			  (unsigned)e->uid, (unsigned)e->share.share_ppm,
			  (unsigned)users_part_ppm(e->user));
	return 0;
}

static int check_args(const struct agent_req *rq)
{
	if (rq->level < COPVM_BOOST_NONE || rq->level > COPVM_BOOST_RT)
		return -EINVAL;
	if (rq->nice < AGENT_NICE_MIN || rq->nice > AGENT_NICE_MAX)
		return -EINVAL;
	if (rq->level != COPVM_BOOST_NONE &&
	    (rq->box_ns == 0 || rq->box_ns > AGENT_BOX_NS_LIMIT))
		return -EINVAL;
	if (rq->reserved != 0)
		return -EINVAL;
	return 0;
}

/* Boosts entry `ti' at the request of connection `ci'. */
static int do_boost(int ti, int ci, const struct agent_req *rq,
		    struct agent_reply *rp)
{
	struct agent_entry *e = &agent_tab->ent[ti];
	uint64_t now = agent_now(), box = rq->box_ns;
	int nice = rq->nice, rc;

	if (task_gone(e))
		return -ESRCH;
	if (rq->level == COPVM_BOOST_NONE) {
		end_boost(e);
		return 0;
	}
	if (rq->level == COPVM_BOOST_SLICE && !(caps & AGENT_CAP_SLICE))
		return -EOPNOTSUPP;
	if (rq->level >= COPVM_BOOST_NICE && !(caps & AGENT_CAP_NICE))
		return -EOPNOTSUPP;
	if (box > conf->box_max_ns)
		box = conf->box_max_ns;
	if (nice < conf->nice_floor)
		nice = conf->nice_floor;
	rp->box_ns = box;
	if (e->want_level == rq->level &&
	    (rq->level != COPVM_BOOST_NICE || e->want_nice == nice)) {
		/* The same boost again, in force or held: the box moves. */
		e->until_ns = now + box;
		e->booster = ci;
		stat_add(&agent_tab->stats.applied);
		return 0;
	}
	charge_share(e, now);
	if (e->state == ENT_BOOSTED)
		boost_undo(e);
	e->want_level = rq->level;
	e->want_nice = nice;
	e->until_ns = now + box;
	e->booster = ci;
	if (share_allows(e)) {
		rc = put_in_force(e);
		if (rc) {
			e->want_level = COPVM_BOOST_NONE;
			return rc;
		}
	} else {
		/* Held until the share's debt is paid (serve_timer). */
		hold(e);
	}
	stat_add(&agent_tab->stats.applied);
	return 0;
}

/* The entry of registered pid `pid', or -1. */
static int find_pid(pid_t pid)
{
	int j;

	if (pid <= 0)
		return -1;
	for (j = 0; j < nconns_hi; j++)
		if (agent_tab->ent[j].state != ENT_FREE &&
		    agent_tab->ent[j].pid == pid)
			return j;
	return -1;
}

static int do_peer(int ci, const struct agent_req *rq, struct agent_reply *rp)
{
	uid_t ruid, euid;
	int ti;

	if (agent_tab->ent[ci].state == ENT_FREE)
		return -EPERM;	/* only registered tasks boost others */
	ti = find_pid(rq->pid);
	if (ti < 0 || task_gone(&agent_tab->ent[ti]))
		return -ESRCH;
	/* The uid it registered with and the uid it has now. */
	if (agent_tab->ent[ti].uid != conns[ci].uid ||
	    boost_uids(rq->pid, &ruid, &euid) < 0 ||
	    ruid != conns[ci].uid || euid != conns[ci].uid)
		return -EPERM;
	return do_boost(ti, ci, rq, rp);
}

static int dispatch(int ci, const struct agent_req *rq, struct agent_reply *rp)
{
	int rc;

	switch (rq->op) {
	case AGENT_OP_REGISTER:
		return do_register(ci, rq, rp);
	case AGENT_OP_APPLY:
		rc = check_args(rq);
		if (rc)
			return rc;
		if (agent_tab->ent[ci].state == ENT_FREE)
			return -ESRCH;
		return do_boost(ci, ci, rq, rp);
	case AGENT_OP_BOOST_PEER:
		rc = check_args(rq);
		return rc ? rc : do_peer(ci, rq, rp);
	case AGENT_OP_UNREGISTER:
		if (agent_tab->ent[ci].state == ENT_FREE)
			return -ESRCH;
		unregister(ci);
		return 0;
	case AGENT_OP_STATS:
		rp->stats.applied = agent_tab->stats.applied;
		rp->stats.undone = agent_tab->stats.undone;
		rp->stats.demotions = agent_tab->stats.demotions;
		rp->stats.refused = agent_tab->stats.refused;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* Reads and answers one datagram; 0 to go on, 1 when none is left,
 * -1 when the connection is finished. */
static int serve_one(int ci)
{
	struct agent_req rq;
	char pad[sizeof(rq) + 1];
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = pad, .iov_len = sizeof(pad) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct agent_reply rp;
	struct cmsghdr *cm;
	ssize_t n;
	int st;

	n = recvmsg(conns[ci].fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 1 : -1;
	if (n == 0)
		return -1;
	memset(&rq, 0, sizeof(rq));
	memcpy(&rq, pad, (size_t)n < sizeof(rq) ? (size_t)n : sizeof(rq));
	memset(&rp, 0, sizeof(rp));
	rp.version = AGENT_PROTO_VERSION;
	if (n >= 8) {
		rp.op = rq.op;
		rp.seq = rq.seq;
	}
	/* A passed descriptor is garbage here: close it at once. */
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			int *fds = (int *)CMSG_DATA(cm);
			size_t k, nf = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (k = 0; k < nf; k++)
				close(fds[k]);
		}
	}
	/* MSG_CTRUNC is no error: the kernel closes descriptors that did
	 * not fit, and the credentials always come first. */
	if ((size_t)n != sizeof(rq) || (mh.msg_flags & MSG_TRUNC))
		st = -EBADMSG;
	else if (rq.version != AGENT_PROTO_VERSION)
		st = -EPROTONOSUPPORT;
	else
		st = 0;
	for (cm = CMSG_FIRSTHDR(&mh); !st && cm; cm = CMSG_NXTHDR(&mh, cm)) {
		struct ucred uc;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_CREDENTIALS)
			continue;
		memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
		/* Sent by another process through an inherited socket. */
		if (uc.pid != conns[ci].pid || uc.uid != conns[ci].uid)
			st = -EPERM;
	}
	if (!st)
		st = dispatch(ci, &rq, &rp);
	if (st == -EPERM || st == -EAGAIN || st == -ESRCH)
		stat_add(&agent_tab->stats.refused);
	if (conf->verbose && st)
		agent_log("pid %d op %u: %s", (int)conns[ci].pid, rp.op,
			  strerror(-st));
	rp.status = st;
	rp.caps = caps;
	rp.nice_floor = conf->nice_floor;
	rp.box_max_us = (uint32_t)(conf->box_max_ns / 1000);
	if (send(conns[ci].fd, &rp, sizeof(rp), MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    errno != EAGAIN)
		return -1;
	return 0;
}

void serve_conn(int ci)
{
	int k, rc = 0;

	if (ci < 0 || ci >= AGENT_MAX_TASKS || conns[ci].fd < 0)
		return;
	/* A few datagrams per turn, so one client cannot starve others. */
	for (k = 0; k < 16 && rc == 0; k++)
		rc = serve_one(ci);
	if (rc < 0)
		conn_close(ci);
}

void serve_pidfd(int ci)
{
	struct agent_entry *e = &agent_tab->ent[ci];

	if (ci < 0 || ci >= AGENT_MAX_TASKS || e->state == ENT_FREE)
		return;
	if (conf->verbose)
		agent_log("pid %d exited", (int)e->pid);
	unregister(ci);
}

void serve_timer(void)
{
	uint64_t now = agent_now(), exp;
	int j, sample = sample_at && now >= sample_at;

	if (read(tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		agent_log("timerfd: %s", strerror(errno));
	armed_at = 0;	/* a one-shot timer, spent */
	if (sample)
		sample_at = 0;	/* serve_rearm() plans the next one */
	for (j = 0; j < nconns_hi; j++) {
		struct agent_entry *e = &agent_tab->ent[j];

		if (e->state == ENT_FREE || e->want_level == COPVM_BOOST_NONE)
			continue;
		if (task_gone(e)) {
			__atomic_store_n(&e->state, ENT_REG, __ATOMIC_RELEASE);
			e->want_level = COPVM_BOOST_NONE;
			continue;
		}
		if (now >= e->until_ns) {
			end_boost(e);
			continue;
		}
		if (!sample)
			continue;
		charge_share(e, now);
		if (strong_in_force(e) && !share_allows(e)) {
			hold(e);
			if (conf->verbose)
				agent_log("pid %d held for %llu us: share spent",
					  (int)e->pid, (unsigned long long)
					  (cosched_bucket_wait_ns(&e->share) / 1000));
		} else if ((e->state != ENT_BOOSTED ||
			    e->level < e->want_level) && share_allows(e) &&
			   put_in_force(e) != 0) {
			e->want_level = COPVM_BOOST_NONE;
		}
	}
}

/* When entry `e' next needs a sample, CLOCK_MONOTONIC; UINT64_MAX for
 * none.  A strong boost in force cannot spend its tokens, its own or its
 * user's as last charged, in less wall time than they hold, since a task
 * runs on one CPU at most; a held one may resume once its debts are
 * paid.  Never sooner than -t after its last charge, so that the agent
 * wakes at most that often for it. */
static uint64_t sample_due(const struct agent_entry *e)
{
	uint64_t wait, w;

	if (e->want_level <= COPVM_BOOST_SLICE)
		return UINT64_MAX;
	if (strong_in_force(e)) {
		int64_t t = e->share.tokens_ns, tu = users_tokens_ns(e->user);

		if (tu < t)
			t = tu;
		wait = t > 0 ? (uint64_t)t : 0;
	} else {
		wait = cosched_bucket_wait_ns(&e->share);
		w = users_wait_ns(e->user);
		if (w > wait)
			wait = w;
	}
	if (wait < conf->sample_ns)
		wait = conf->sample_ns;
	return e->share.at_ns + wait;
}

void serve_rearm(void)
{
	struct itimerspec its;
	uint64_t next = UINT64_MAX, due;
	int j;

	sample_at = 0;
	for (j = 0; j < nconns_hi; j++) {
		struct agent_entry *e = &agent_tab->ent[j];

		if (e->state == ENT_FREE || e->want_level == COPVM_BOOST_NONE)
			continue;
		if (e->until_ns < next)
			next = e->until_ns;
		due = sample_due(e);
		if (due != UINT64_MAX && (!sample_at || due < sample_at))
			sample_at = due;
	}
	if (sample_at && sample_at < next)
		next = sample_at;
	if (next == UINT64_MAX)
		next = 0;	/* disarmed */
	else if (next == 0)
		next = 1;
	if (next == armed_at)
		return;
	armed_at = next;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = next / 1000000000ull;
	its.it_value.tv_nsec = next % 1000000000ull;
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void serve_shutdown(void)
{
	int j;

	for (j = 0; j < nconns_hi; j++)
		if (conns[j].fd >= 0)
			conn_close(j);
}

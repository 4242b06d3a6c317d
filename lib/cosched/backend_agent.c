/*
 * backend_agent.c - boosts through copvm-agent, the privileged helper
 * (agent/, docs/agent.md): one SOCK_SEQPACKET connection per task, one
 * request and one reply per operation (common/agent_proto.h).  The agent
 * undoes every boost at the end of its box, so self_timed is 1.
 *
 * The socket is $COPVM_AGENT_SOCK, or /run/copvm-agent/agent.sock.  It is
 * close-on-exec, and it belongs to the process that opened it: the
 * agent knows a connection by its SO_PEERCRED, so a child that inherits
 * it after fork never uses it (the engine calls attach again, which opens
 * the child's own).  If the agent goes away, the task puts itself back at
 * SCHED_OTHER and its base nice (always permitted: it only lowers its
 * own priority) and every later call fails with -ENOTCONN.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent_proto.h"
#include "backend.h"
#include "copvm.h"
#include "cosched_page.h"
#include "sched_attr.h"

/* The longest a round trip may take before the agent counts as hung. */
#define AGENT_RTT_TIMEOUT_MS	250

static int agent_fd = -1;
static pid_t agent_owner;	/* the process that opened agent_fd */
static int agent_lost;		/* the agent went away: -ENOTCONN */
static uint32_t agent_seq;
static struct cosched_page *agent_page;

static const char *sock_path(void)
{
	const char *p = getenv(AGENT_SOCK_ENV);

	return p && *p ? p : AGENT_SOCK_DEFAULT;
}

/* Opens a connection without ever waiting for a missing agent: a
 * missing socket is -ENOENT, a stale one -ECONNREFUSED at once. */
static int agent_connect(void)
{
	struct sockaddr_un sa;
	struct timeval tv = { 0, AGENT_RTT_TIMEOUT_MS * 1000 };
	const char *path = sock_path();
	int fd, err;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Blocking from here, with a bound: one send and one recv per
	 * operation and no poll. */
	if (fcntl(fd, F_SETFL, 0) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* One request on `fd' and its reply in `rp'; the reply's status, or a
 * negative errno for the transport: -EPIPE (agent gone) or -ETIMEDOUT. */
static int round_trip(int fd, struct agent_req *rq, struct agent_reply *rp)
{
	ssize_t n;

	rq->version = AGENT_PROTO_VERSION;
	rq->seq = ++agent_seq;
	do
		n = send(fd, rq, sizeof(*rq), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -EPIPE;
	for (;;) {
		n = recv(fd, rp, sizeof(*rp), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -EPIPE;
		if (n == 0)
			return -EPIPE;
		/* A late reply to an earlier, timed-out request. */
		if ((size_t)n == sizeof(*rp) && rp->seq == rq->seq)
			return rp->status;
	}
}

/* The agent is gone or hung: back to plain scheduling by ourselves.
 * Lowering one's own policy to SCHED_OTHER and raising one's nice need
 * no privilege; SCHED_RESET_ON_FORK, once set, must be kept. */
static void agent_give_up(void)
{
	struct copvm_sched_attr a;
	int nice = agent_page ? agent_page->base_nice : 0;

	if (copvm_sched_getattr(0, &a) == 0) {
		uint64_t flags = a.sched_flags & SCHED_FLAG_RESET_ON_FORK;

		memset(&a, 0, sizeof(a));
		a.sched_policy = SCHED_OTHER;
		a.sched_flags = flags;
		a.sched_nice = nice;
		if (copvm_sched_setattr(0, &a) == 0)
			goto closed;
	}
	/* Kernels without sched_setattr. */
	{
		struct sched_param sp = { .sched_priority = 0 };

		sched_setscheduler(getpid(), SCHED_OTHER, &sp);
		setpriority(PRIO_PROCESS, getpid(), nice);
	}
closed:
	close(agent_fd);
	agent_fd = -1;
	agent_lost = 1;
}

/* A round trip on this process's own connection; -ENOTCONN when there
 * is none (agent lost, or a forked child that did not attach). */
static int request(struct agent_req *rq, struct agent_reply *rp)
{
	int rc;

	if (agent_lost || agent_fd < 0 || agent_owner != getpid())
		return -ENOTCONN;
	rc = round_trip(agent_fd, rq, rp);
	if (rc == -EPIPE || rc == -ETIMEDOUT) {
		agent_give_up();
		return -ENOTCONN;
	}
	return rc;
}

static int agent_probe(struct cosched_caps *caps)
{
	struct agent_req rq;
	struct agent_reply rp;
	int fd, rc;

	memset(caps, 0, sizeof(*caps));
	fd = agent_connect();
	if (fd < 0)
		return fd == -EAGAIN ? -EBUSY : fd;
	memset(&rq, 0, sizeof(rq));
	rq.op = AGENT_OP_STATS;
	rc = round_trip(fd, &rq, &rp);
	close(fd);
	if (rc == -EPIPE || rc == -ETIMEDOUT)
		return -ECONNREFUSED;
	if (rc)
		return rc;
	caps->slice = !!(rp.caps & AGENT_CAP_SLICE);
	caps->nice_floor = rp.caps & AGENT_CAP_NICE ? rp.nice_floor : 0;
	caps->rt = !!(rp.caps & AGENT_CAP_RT);
	caps->peers = !!(rp.caps & AGENT_CAP_PEERS);
	caps->charged = 1;	/* its token bucket (agent/serve.c) */
	caps->box_max_ns = (uint64_t)rp.box_max_us * 1000;
	return 0;
}

static int agent_attach(struct cosched_page *page, uint32_t share_ppm)
{
	struct agent_req rq;
	struct agent_reply rp;
	int fd, rc;

	/* After fork the inherited descriptor is the parent's connection:
	 * closing our copy leaves the parent's open. */
	if (agent_fd >= 0 && agent_owner != getpid()) {
		close(agent_fd);
		agent_fd = -1;
	}
	if (agent_fd >= 0)
		return 0;
	fd = agent_connect();
	if (fd < 0)
		return fd;
	agent_fd = fd;
	agent_owner = getpid();
	agent_lost = 0;
	agent_page = page;
	memset(&rq, 0, sizeof(rq));
	rq.op = AGENT_OP_REGISTER;
	rq.share_ppm = share_ppm;
	rc = request(&rq, &rp);
	if (rc && agent_fd >= 0) {
		close(agent_fd);
		agent_fd = -1;
	}
	return rc;
}

static int agent_apply(int level, int nice, uint64_t box_ns)
{
	struct agent_req rq;
	struct agent_reply rp;

	memset(&rq, 0, sizeof(rq));
	rq.op = AGENT_OP_APPLY;
	rq.level = level;
	rq.nice = nice;
	rq.box_ns = box_ns;
	return request(&rq, &rp);
}

static int agent_boost_peer(int pid, int tid, int level, int nice,
			    uint64_t box_ns)
{
	struct agent_req rq;
	struct agent_reply rp;

	memset(&rq, 0, sizeof(rq));
	rq.op = AGENT_OP_BOOST_PEER;
	rq.pid = pid;
	rq.tid = tid;
	rq.level = level;
	rq.nice = nice;
	rq.box_ns = box_ns;
	return request(&rq, &rp);
}

static void agent_detach(void)
{
	struct agent_req rq;
	struct agent_reply rp;

	if (agent_fd >= 0 && agent_owner == getpid() && !agent_lost) {
		memset(&rq, 0, sizeof(rq));
		rq.op = AGENT_OP_UNREGISTER;
		request(&rq, &rp);
	}
	if (agent_fd >= 0)
		close(agent_fd);
	agent_fd = -1;
	agent_page = NULL;
}

const struct cosched_backend_ops cosched_backend_agent = {
	.name = "agent",
	.id = COPVM_BACKEND_AGENT,
	.self_timed = 1,
	.probe = agent_probe,
	.attach = agent_attach,
	.apply = agent_apply,
	.boost_peer = agent_boost_peer,
	.detach = agent_detach,
};

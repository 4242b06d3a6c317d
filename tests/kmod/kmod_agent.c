/*
 * kmod_agent.c - the ioctl suite's child agents (kmod_agent.h): fork,
 * drop to a user, register, then obey orders read from a pipe.
 */
#include "kmod_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"
#include "pvm_cosched.h"

static void agent_obey(const struct agent_order *o, struct agent_reply *r,
		       int *fd)
{
	struct pvm_cosched_boost b = { .pid = o->pid, .level = o->level,
				       .nice = o->nice, .box_ns = o->box_ns };
	struct pvm_cosched_report rep = { .level = o->level, .nice = o->nice,
					  .box_ns = o->box_ns };
	struct pvm_cosched_limits l = { .nice_floor = -5,
					.box_max_ns = 20000000,
					.share_max_ppm = 500000,
					.window_ns = 100000000,
					.sample_ns = 2000000,
					.user_share_ppm = 100000,
					.node_share_ppm = 100000 };
	struct pvm_cosched_stats st = { .flags = 0 };
	pid_t holder;

	switch (o->op) {
	case AGENT_BOOST:
		r->ret = kt_ioctl(*fd, PVM_COSCHED_IOC_BOOST, &b);
		r->level = b.level;
		r->nice = b.nice;
		r->box_ns = b.box_ns;
		break;
	case AGENT_REPORT:
		r->ret = kt_ioctl(*fd, PVM_COSCHED_IOC_REPORT, &rep);
		r->level = rep.level;
		r->nice = rep.nice;
		r->box_ns = rep.box_ns;
		break;
	case AGENT_SET_LIMITS:
		r->ret = kt_ioctl(*fd, PVM_COSCHED_IOC_SET_LIMITS, &l);
		break;
	case AGENT_STATS:
		r->ret = kt_ioctl(*fd, PVM_COSCHED_IOC_STATS, &st);
		r->level = st.my_level;
		r->users = st.users;
		r->part_ppm = st.my_part_ppm;
		break;
	case AGENT_CLOSE:
		r->ret = close(*fd) < 0 ? -errno : 0;
		*fd = -1;
		break;
	case AGENT_HOLD:
		holder = fork();
		if (holder == 0) {
			for (;;)
				pause();
		}
		r->ret = holder < 0 ? -errno : 0;
		r->pid = holder;
		break;
	default:
		r->ret = -EINVAL;
	}
}

static void agent_main(int uid, int in, int out)
{
	struct pvm_cosched_register reg = {
		.abi_version = PVM_COSCHED_ABI_VERSION };
	struct agent_order o;
	struct agent_reply r = { 0 };
	int fd = -1;

	if (uid >= 0 && (setgroups(0, NULL) < 0 || setgid(uid) < 0 ||
			 setuid(uid) < 0)) {
		r.ret = -errno;
		goto hello;
	}
	fd = open(PVM_COSCHED_DEVICE, O_RDWR);
	if (fd < 0)
		r.ret = -errno;
	else
		r.ret = kt_ioctl(fd, PVM_COSCHED_IOC_REGISTER, &reg);
hello:
	r.pid = getpid();
	if (write(out, &r, sizeof(r)) != sizeof(r) || r.ret)
		_exit(1);
	while (read(in, &o, sizeof(o)) == sizeof(o)) {
		if (o.op == AGENT_EXIT)
			_exit(0);
		memset(&r, 0, sizeof(r));
		agent_obey(&o, &r, &fd);
		if (write(out, &r, sizeof(r)) != sizeof(r))
			break;
	}
	_exit(0);
}

int agent_start(struct agent *a, int uid)
{
	int down[2], up[2];
	struct agent_reply r;

	if (pipe(down) < 0)
		return -errno;
	if (pipe(up) < 0) {
		close(down[0]);
		close(down[1]);
		return -errno;
	}
	a->pid = fork();
	if (a->pid < 0)
		return -errno;
	if (a->pid == 0) {
		close(down[1]);
		close(up[0]);
		agent_main(uid, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	a->to = down[1];
	a->from = up[0];
	if (read(a->from, &r, sizeof(r)) != sizeof(r))
		r.ret = -EPIPE;
	if (r.ret)
		agent_stop(a);
	return r.ret;
}

int agent_do(struct agent *a, const struct agent_order *o,
	     struct agent_reply *r)
{
	memset(r, 0, sizeof(*r));
	if (write(a->to, o, sizeof(*o)) != sizeof(*o))
		return -EPIPE;
	if (o->op == AGENT_EXIT)
		return 0;
	if (read(a->from, r, sizeof(*r)) != sizeof(*r))
		return -EPIPE;
	return 0;
}

void agent_stop(struct agent *a)
{
	if (a->pid <= 0)
		return;
	kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	close(a->to);
	close(a->from);
	a->pid = 0;
}

/*
 * kmod_agent.h - a child process of the ioctl suite that runs as a given
 * user, holds its own registered fd of /dev/pvm_cosched and carries out
 * the suite's orders (boost a pid, report, read its stats, close, exit,
 * fork a holder of its fd) one at a time over a pair of pipes, so that the suite can put
 * two users or a dying task on either side of an ioctl.
 */
#ifndef COPVM_KMOD_AGENT_H
#define COPVM_KMOD_AGENT_H

#include <stdint.h>
#include <sys/types.h>

enum agent_op {
	AGENT_BOOST = 1,	/* BOOST `pid' at level/nice/box */
	AGENT_REPORT,		/* REPORT at level/nice/box */
	AGENT_SET_LIMITS,	/* SET_LIMITS with the module's defaults */
	AGENT_CLOSE,		/* close the fd */
	AGENT_HOLD,		/* fork a child that keeps the fd open */
	AGENT_EXIT,		/* exit at once */
	AGENT_STATS,		/* STATS: the users and its user's part */
};

struct agent_order {
	int op;
	int pid;
	int level;
	int nice;
	uint64_t box_ns;
};

struct agent_reply {
	int ret;		/* 0 or -errno */
	int level;		/* written back by the module */
	int nice;
	int pid;		/* AGENT_HOLD: the holder's pid */
	uint64_t box_ns;
	uint32_t users;		/* AGENT_STATS: users with registrations */
	uint32_t part_ppm;	/* AGENT_STATS: its user's part */
};

struct agent {
	pid_t pid;
	int to, from;
};

/* Forks an agent running as `uid' (-1: as the caller) that opens and
 * registers its fd; 0, or -errno of the fork, open or REGISTER. */
int agent_start(struct agent *a, int uid);

/* Sends one order and waits for its reply; 0 or -EPIPE if the agent
 * is gone (AGENT_EXIT has no reply). */
int agent_do(struct agent *a, const struct agent_order *o,
	     struct agent_reply *r);

/* Ends the agent (if alive) and reaps it. */
void agent_stop(struct agent *a);

#endif /* COPVM_KMOD_AGENT_H */

/*
 * agent.h - state shared by the parts of copvm-agent: its configuration,
 * the boost table (one entry per connection, kept in a shared anonymous
 * mapping so the watchdog child can revert every boost after the agent
 * is killed), and the functions of boost.c (the scheduling levers),
 * table.c (the table and the watchdog) and priv.c (privilege drop).
 */
#ifndef COPVM_AGENT_H
#define COPVM_AGENT_H

#include <stdint.h>
#include <sys/types.h>

#include "agent_proto.h"
#include "cosched_bucket.h"

#define AGENT_MAX_TASKS		1024	/* connections, hence entries */
#define AGENT_SLICE_NS		100000	/* the SLICE level's request */
#define AGENT_RTTIME_FACTOR	10	/* RLIMIT_RTTIME = 10 x the max box */
/* The share of a task that names none (-d), ppm of a CPU: the local
 * jobs kept about 0.9 of their LIN share at 5 %, with one boosted task
 * per CPU (docs/results/efficacy/). */
#define AGENT_SHARE_DEFAULT_PPM	50000
#define AGENT_SHARE_DEFAULT_TEXT	"5"
/* The node's boost budget (-U), ppm of each CPU: all users' boosts
 * together, split evenly among the users with registered tasks. */
#define AGENT_USER_SHARE_PPM	100000
#define AGENT_USER_SHARE_TEXT	"10"

struct agent_conf {
	const char *sock_path;
	const char *user;	/* run as this user when started as root */
	int foreground;
	int nice_floor;		/* -n: lowest nice set, -20..0 */
	uint64_t box_max_ns;	/* -b: longest box granted */
	uint32_t share_max_ppm;	/* -p: the most CPU share a task is granted */
	uint32_t share_default_ppm;	/* -d: for a task that names none */
	uint64_t window_ns;	/* -w: a share's burst is share x window */
	uint64_t sample_ns;	/* -t: CPU sampled at most this often */
	uint32_t user_share_ppm;	/* -U: most all users' boosts take of
					 * each CPU, split among the users */
	int rt_self;		/* the agent runs SCHED_FIFO 2 (not -R) */
	int no_backstop;	/* -B: drop CAP_SYS_RESOURCE (as a container
				 * without it would) */
	int verbose;		/* -v: log every registration and refusal */
	int slice_ok;		/* the kernel honours slice requests */
	uint64_t default_slice_ns;	/* the slice of a task without request */
};

/* One task's scheduling attributes, as sched_getattr reports them. */
struct agent_sched {
	int32_t policy;
	int32_t prio;		/* RT priority */
	int32_t nice;
	uint32_t flags;		/* SCHED_FLAG_RESET_ON_FORK only */
	uint64_t runtime;	/* the slice (6.12+) */
};

/* Entry states; written last (release) so a reader sees whole entries. */
#define ENT_FREE	0
#define ENT_REG		1	/* registered, not boosted */
#define ENT_BOOSTED	2	/* a boost is in force */

/*
 * One registered task.  The fields above `pidfd' are all the watchdog
 * needs to revert a boost: the identity (pid + start time, since the
 * watchdog cannot share the agent's pidfds) and what to restore.
 */
struct agent_entry {
	int state;
	int32_t pid;
	uint64_t start_time;	/* /proc/PID/stat field 22, clock ticks */
	uint32_t uid;
	int32_t level;		/* COPVM_BOOST_* in force */
	struct agent_sched base;	/* before the boost */
	struct agent_sched set;		/* what the agent set */
	int rttime_set;		/* our RLIMIT_RTTIME is in force */
	uint64_t rttime_cur;	/* the soft limit it replaced */
	uint64_t rttime_val;	/* the soft limit we set */

	/* The agent's own bookkeeping.  A boost asked for (want_level)
	 * is in force (ENT_BOOSTED) while the share's tokens last, and
	 * held (ENT_REG) while they are paid back, until its box ends. */
	int pidfd;
	int booster;		/* connection that asked for the boost */
	uint64_t until_ns;	/* end of the box, CLOCK_MONOTONIC */
	int32_t want_level;	/* the boost asked for; NONE: no box */
	int32_t want_nice;	/* its nice, for COPVM_BOOST_NICE */
	struct cosched_bucket share;	/* CPU the task may use boosted */
	int user;		/* its user's slot in users.c */
	clockid_t cpu_clock;	/* its CPU-time clock (boost_cpu_clock) */
	uint64_t cpu_mark_ns;	/* that clock at the last sample */
};

struct agent_shared {
	struct agent_stats stats;
	struct agent_entry ent[AGENT_MAX_TASKS];
};

extern struct agent_shared *agent_tab;

/* boost.c */
/* Reads task `pid''s scheduling attributes into `s'; 0 or -errno. */
int boost_get(pid_t pid, struct agent_sched *s);
/* Puts `e' at `level' (and `nice' for COPVM_BOOST_NICE; RT becomes nice
 * at the floor where RLIMIT_RTTIME cannot be set); the entry records what
 * it set.  0 or -errno; nothing is left half applied. */
int boost_apply(struct agent_entry *e, int level, int nice,
		const struct agent_conf *conf);
/* Reverts `e''s boost if the task still has what the agent set, and
 * marks it not boosted; 1 if reverted, 0 if left alone. */
int boost_undo(struct agent_entry *e);
/* Restores the RLIMIT_RTTIME the agent replaced, if still ours. */
void boost_rttime_restore(struct agent_entry *e);
/* The CPU-time clock of process `pid' (its threads together), which any
 * process may read: one system call a sample.  0 or -errno. */
int boost_cpu_clock(pid_t pid, clockid_t *clock);
/* The CPU time read from `clock' (boost_cpu_clock); 0 or -errno. */
int boost_cpu_ns(clockid_t clock, uint64_t *ns);
/* The start time (clock ticks since boot) of `pid', 0 if unreadable. */
uint64_t boost_start_time(pid_t pid);
/* The real and effective uid of process `pid'; 0 or -errno. */
int boost_uids(pid_t pid, uid_t *ruid, uid_t *euid);
/* Fills conf->slice_ok and conf->default_slice_ns from the agent's own
 * attributes; call before any slice request is made. */
void boost_detect(struct agent_conf *conf);

/* table.c */
/* Maps the shared table; 0 or -errno. */
int table_create(void);
/* Reverts every live boost and RLIMIT_RTTIME of the table, checking each
 * task's identity by its start time; returns how many were reverted. */
int table_revert_all(void);
/* Forks the watchdog, which reverts the table when the agent dies; it
 * runs at SCHED_FIFO 2 when `rt'.  0 or -errno. */
int watchdog_start(int rt);

/* epoll tags: the type in the high 32 bits, the slot in the low. */
#define AGENT_EV_LISTEN		1
#define AGENT_EV_CONN		2
#define AGENT_EV_PIDFD		3
#define AGENT_EV_TIMER		4
#define AGENT_EV_SIGNAL		5

/* serve.c */
/* Sets up the connection table; `ep' is the epoll set, `timer' the
 * timerfd of boxes and budget samples.  0 or -errno. */
int serve_init(const struct agent_conf *c, int ep, int timer);
/* Accepts every pending connection on listening socket `lfd'. */
void serve_accept(int lfd);
/* Answers the requests waiting on connection `ci'; closes it (undoing
 * its boosts) on EOF or error. */
void serve_conn(int ci);
/* The task registered on connection `ci' exited: forgets it. */
void serve_pidfd(int ci);
/* The timerfd fired: ends expired boxes, charges each boosted task's CPU
 * to its share, holds a boost whose share is spent and resumes one whose
 * debt is paid. */
void serve_timer(void);
/* Arms the timerfd for the next box end or share sample, if any. */
void serve_rearm(void);
/* Closes every connection, reverting every boost and RLIMIT_RTTIME. */
void serve_shutdown(void);

/* priv.c */
/* Switches to `user' keeping only CAP_SYS_NICE and CAP_SYS_RESOURCE (not
 * the latter if `no_backstop'), if running as root; 0 or -errno. */
int priv_drop(const char *user, int no_backstop);
/* Non-zero when CAP_SYS_NICE is in the effective set. */
int priv_has_nice(void);
/* Non-zero when CAP_SYS_RESOURCE is in the effective set: RLIMIT_RTTIME
 * can be set on any user's task, so RT boosts are granted to all. */
int priv_has_backstop(void);

/* users.c */
/* Sets the node's budget: `per_cpu_ppm' of each CPU for all users, split
 * evenly among those with registered tasks, bursts of each user's part
 * of `window_ns'; forgets every user. */
void users_init(uint32_t per_cpu_ppm, uint64_t window_ns);
/* Takes a reference on uid `uid''s bucket (made full at `now' if new);
 * a user's first reference splits the budget anew.  Its slot, or -1
 * when the table is full. */
int users_get(uint32_t uid, uint64_t now);
/* Drops a reference taken by users_get; a user's last one splits the
 * budget anew among the others at `now' (its debt stays on record). */
void users_put(int u, uint64_t now);
/* Charges `used_ns' of one task's boosted CPU to user slot `u'. */
void users_charge(int u, uint64_t now, uint64_t used_ns);
/* Non-zero while user slot `u''s boosts may be in force. */
int users_allow(int u);
/* User slot `u''s part of the budget now, ppm of each CPU; 0 when the
 * slot holds nobody. */
uint32_t users_part_ppm(int u);
/* User slot `u''s tokens as last charged, in ns of CPU over the CPUs
 * (users_charge): its boosted tasks together, one per CPU at most,
 * cannot spend them in less wall time.  0 for nobody. */
int64_t users_tokens_ns(int u);
/* How long from its last charge until user slot `u''s debt is paid. */
uint64_t users_wait_ns(int u);

/* main.c */
/* Writes a log line to stderr: "copvm-agent: ...". */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t agent_now(void);

#endif /* COPVM_AGENT_H */

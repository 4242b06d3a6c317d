/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the pvm_cosched module share: the record of an open
 * file (a registered task once REGISTER succeeded), of its user and of a
 * watch, the lock, limits and counters, and the calls between the records
 * (pcs_state.c), the boost engine and its undo thread (pcs_boost.c), the
 * watches (pcs_watch.c) and the device (pcs_dev.c).  Private to the
 * module; its ABI is uapi/pvm_cosched.h.  One rt_mutex, pcs_lock,
 * serialises all records: the ioctls are short and rare compared with a
 * task's messages.
 */
#ifndef PCS_INTERNAL_H
#define PCS_INTERNAL_H

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/rtmutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/version.h>
#include <linux/wait.h>

#include "uapi/pvm_cosched.h"
#include "pvm_cosched_checks.h"
#include "pvm_cosched_bucket.h"

/* EEVDF takes sched_attr.sched_runtime as a task's slice from 6.12. */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#define PCS_HAVE_SLICE	1
#else
#define PCS_HAVE_SLICE	0
#endif

#define PCS_SLICE_NS	(NSEC_PER_MSEC / 10)	/* EEVDF's shortest slice */
#define PCS_FIFO_PRIO	1			/* the RT boost's priority */

/* The boosted CPU of one user's registered tasks, under pcs_lock. */
struct pcs_user {
	struct list_head node;		/* in pcs_users */
	kuid_t uid;
	u32 tasks;			/* registrations pointing here */
	struct cosched_bucket share;	/* charged CPU / online CPUs,
					 * refilled at the user's part
					 */
};

struct pcs_file;

/* A file the registered task asked to be boosted on input to (WATCH). */
struct pcs_watch {
	wait_queue_entry_t wait;	/* in the file's wait queue */
	poll_table pt;			/* finds that queue */
	wait_queue_head_t *head;	/* the queue joined, or NULL */
	bool heads_extra;		/* its poll named a second one */
	struct file *file;		/* held while watched */
	struct pcs_file *owner;
	struct pcs_request req;		/* the boost on input */
};

/* One open file; a registered task once REGISTER succeeded. */
struct pcs_file {
	struct list_head node;		/* in pcs_registered, under pcs_lock */
	struct pid *opener;		/* the process that opened the file */
	struct pid *task;		/* the registered task, or NULL */
	struct pcs_user *user;		/* its user's record, with task */
	s32 tid;
	s32 base_nice;			/* restored by an undo */
	u64 base_slice;			/* its own slice request, 0: none */
	bool base_rof;			/* its own SCHED_RESET_ON_FORK */
	u64 freq_milli;
	u64 my_applied;
	/* The boost granted, the one in force and the share, under
	 * pcs_lock.  A strong boost granted (want_level) is in force
	 * (level) while the shares allow it, held at the slice level or
	 * none otherwise.
	 */
	s32 want_level;
	s32 want_nice;
	s32 level;
	s32 set_nice;			/* the nice the module set */
	ktime_t box_end;
	u64 exec_mark;			/* sum_exec_runtime last charged */
	struct cosched_bucket share;
	struct hrtimer box_timer;
	struct list_head due;		/* in pcs_due, under pcs_due_lock */
	/* The watches, under pcs_lock; the boost input asked for, in
	 * pcs_arrived until the undo thread grants it, under pcs_due_lock.
	 */
	struct pcs_watch *watch[PVM_COSCHED_MAX_WATCH];
	struct list_head arrived;
	struct pcs_request arrival;
	u64 my_arrivals;
};

/* The module-wide counters STATS reports, under pcs_lock. */
struct pcs_counts {
	u32 registered;
	u64 boosted_now;
	u64 applied;
	u64 undone_box;
	u64 undone_release;
	u64 demotions;
	u64 refused;
	u64 clamped;
};

/* pcs_state.c: the lock, the records, the limits and the counters. */
extern struct rt_mutex pcs_lock;
extern struct list_head pcs_registered;	/* pcs_file.node */
extern struct list_head pcs_users;	/* pcs_user.node */
extern struct pvm_cosched_limits pcs_limits;
extern struct pcs_counts pcs_count;
extern u32 pcs_active_users;		/* users with registered tasks */

/* pcs_boost.c: true if the undo thread runs at SCHED_FIFO above
 * PCS_FIFO_PRIO, the condition of any RT boost.
 */
extern bool pcs_fifo_undo;

/* True if the caller is the process that opened the file. */
static inline bool pcs_caller_is_opener(struct pcs_file *f)
{
	return task_tgid(current) == f->opener;
}

/* pcs_state.c: the registrations and the users' records. */
void pcs_prune_exited(void);
struct pcs_file *pcs_find(struct pid *pid);
struct pcs_user *pcs_user_get(void);
void pcs_users_rebalance(bool all);
int pcs_find_target(s32 nr, struct pcs_file **tf, struct task_struct **tp);
void pcs_unregister(struct pcs_file *f, struct task_struct *p);

/* pcs_boost.c: the levels, the shares, the time boxes, the undo thread. */
void pcs_set_level(struct pcs_file *f, s32 level);
void pcs_charge(struct pcs_file *f, struct task_struct *p, ktime_t now);
void pcs_unboost(struct pcs_file *f, struct task_struct *p);
int pcs_boost(struct pcs_file *by, struct pcs_file *f,
	      struct task_struct *p, struct pcs_request *r);
void pcs_box_init(struct pcs_file *f);
void pcs_undo_arrival(struct pcs_file *f, const struct pcs_request *r);
void pcs_undo_forget(struct pcs_file *f);
int pcs_undo_start(void);
void pcs_undo_stop(void);

/* pcs_watch.c: WATCH, and the watches of a registration. */
void pcs_watch_prune(struct pcs_file *f, bool all);
long pcs_ioc_watch(struct pcs_file *f, void __user *arg);

#endif /* PCS_INTERNAL_H */

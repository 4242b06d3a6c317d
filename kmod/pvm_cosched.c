// SPDX-License-Identifier: GPL-2.0
/*
 * The copvm kernel module: /dev/pvm_cosched, bounded and time-boxed scheduling
 * boosts for an ordinary user's PVM tasks (copvm's coscheduling).
 *
 * A task opens the device and registers itself; it then reports its
 * message frequency and asks for a boost of itself (REPORT), or of a
 * registered task of the same user it is about to talk to (BOOST).  A
 * boost is a short EEVDF slice (6.12+), a lower nice down to a floor, or
 * SCHED_FIFO if the administrator allows it, and lasts at most a time
 * box.  Every boost carries SCHED_RESET_ON_FORK, so no child or thread
 * inherits it; an undo gives the task back its own flag.  The box is an
 * hrtimer that wakes the module's undo thread, a kthread at SCHED_FIFO
 * above the boosts' priority 1, so a boosted task that spins cannot
 * delay its own undo; the records' lock is an rt_mutex, so a task that
 * holds it lends the thread its priority.  Without that thread at its
 * priority the module grants no SCHED_FIFO (nice at most) and says so.
 *
 * A strong boost (nice, RT) takes CPU from others, so it is bounded by a
 * rate, the policy copvm-agent runs too: each task has a token bucket
 * (pvm_cosched_bucket.h) of the share it registered with, and each user
 * (real uid) one of a share of each CPU.  While a strong boost is in
 * force, a periodic hrtimer wakes the undo thread every sample_ns, which
 * charges the task's sum_exec_runtime to both; when either is spent the
 * boost is held at the slice level (6.12+; no boost before), never
 * refused, and is put back at the first sample after the debt is repaid,
 * as long as its box lasts.  So N tasks of one user do not get N shares,
 * and a boosted task that blocks spends nothing.  An undo restores the
 * task's base only if the task is still at what the module set.  Every
 * boost is undone when its fd is released (which includes the task's
 * exit); a record whose task has gone while its fd lives on (a forked
 * child holds it) is found dead by resolving its struct pid again and is
 * forgotten.  Unload is refused by the kernel while an fd is open, so no
 * record and no boost outlives the module.
 *
 * A task may also WATCH its own sockets and eventfds: the module joins
 * each file's wait queue (as epoll does, ahead of the task's own waits),
 * and input that finds the task blocked hands it to the undo thread,
 * which boosts it at once, as a REPORT would, before the task runs: DCS's
 * boost on arrival with no system call.  The module holds the file while
 * it watches it, and lets it go at WATCH_DEL, unregistering, release, or
 * once the task has closed it (seen at its next request or input).
 *
 * One rt_mutex serialises all records: the ioctls are short and rare
 * compared with a task's messages.  The ABI is uapi/pvm_cosched.h.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/rtmutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <uapi/linux/sched/types.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/version.h>

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
	struct cosched_bucket share;	/* charged CPU / online CPUs */
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

static DEFINE_RT_MUTEX(pcs_lock);
static LIST_HEAD(pcs_registered);
static LIST_HEAD(pcs_users);

/* Records whose box timer fired, and whether the sample timer did, for
 * the undo thread.
 */
static DEFINE_SPINLOCK(pcs_due_lock);
static LIST_HEAD(pcs_due);
static LIST_HEAD(pcs_arrived);
static bool pcs_sample_due;
static struct hrtimer pcs_sample_timer;
static struct task_struct *pcs_undoer;
/* True if the undo thread runs at SCHED_FIFO above PCS_FIFO_PRIO: the
 * condition of any RT boost.
 */
static bool pcs_fifo_undo;

static struct pvm_cosched_limits pcs_limits = {
	.nice_floor = -5,
	.allow_rt = 0,
	.box_max_ns = 20 * NSEC_PER_MSEC,
	.share_max_ppm = PCS_SHARE_ONE / 2,
	.window_ns = 100 * NSEC_PER_MSEC,
	.sample_ns = 2 * NSEC_PER_MSEC,
	.user_share_ppm = PCS_SHARE_ONE / 10,
};

static struct {
	u32 registered;
	u64 boosted_now;
	u64 applied;
	u64 undone_box;
	u64 undone_release;
	u64 demotions;
	u64 refused;
	u64 clamped;
} pcs_count;

enum pcs_undo_reason { PCS_UNDO_ASKED, PCS_UNDO_BOX };

/* True if the caller is the process that opened the file. */
static bool pcs_caller_is_opener(struct pcs_file *f)
{
	return task_tgid(current) == f->opener;
}

/* True if the caller may boost `p': the same user as the caller (its
 * euid or uid is our euid), or CAP_SYS_NICE in p's user namespace.
 */
static bool pcs_may_act_on(struct task_struct *p)
{
	const struct cred *mine = current_cred();
	const struct cred *theirs;
	struct user_namespace *ns;
	bool ok;

	rcu_read_lock();
	theirs = __task_cred(p);
	ok = uid_eq(mine->euid, theirs->euid) ||
	     uid_eq(mine->euid, theirs->uid);
	ns = get_user_ns(theirs->user_ns);
	rcu_read_unlock();
	if (!ok)
		ok = ns_capable(ns, CAP_SYS_NICE);
	put_user_ns(ns);
	return ok;
}

static void pcs_set_level(struct pcs_file *f, s32 level)
{
	if (f->level == PVM_COSCHED_BOOST_NONE &&
	    level != PVM_COSCHED_BOOST_NONE)
		pcs_count.boosted_now++;
	else if (f->level != PVM_COSCHED_BOOST_NONE &&
		 level == PVM_COSCHED_BOOST_NONE)
		pcs_count.boosted_now--;
	f->level = level;
}

/* Puts p at SCHED_NORMAL with `nice' and EEVDF slice `slice' (0: the
 * default; ignored before 6.12), or at SCHED_FIFO PCS_FIFO_PRIO (its
 * nice and slice kept); SCHED_RESET_ON_FORK set if `rof'.  0 or -errno.
 */
static int pcs_setattr(struct task_struct *p, u32 policy, s32 nice,
		       u64 slice, bool rof)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		.sched_flags = rof ? SCHED_FLAG_RESET_ON_FORK : 0,
	};

	if (policy == SCHED_FIFO) {
		attr.sched_priority = PCS_FIFO_PRIO;
	} else {
		attr.sched_nice = nice;
		attr.sched_runtime = PCS_HAVE_SLICE ? slice : 0;
	}
	return sched_setattr_nocheck(p, &attr);
}

/* p's own slice request (0: none, or a kernel without them). */
static u64 pcs_slice_of(struct task_struct *p)
{
#if PCS_HAVE_SLICE
	return p->se.custom_slice ? p->se.slice : 0;
#else
	return 0;
#endif
}

/* True if p still has the slice the module set. */
static bool pcs_has_our_slice(struct task_struct *p)
{
#if PCS_HAVE_SLICE
	return p->policy == SCHED_NORMAL && p->se.custom_slice &&
	       p->se.slice == PCS_SLICE_NS;
#else
	return false;
#endif
}

/* Restores p's base where p is still at what the module set: its nice
 * (or, after a slice, the nice it has now), its slice request (or, after
 * a nice or RT boost, the one it has now) and its own reset-on-fork flag.
 */
static void pcs_revert(struct pcs_file *f, struct task_struct *p)
{
	switch (f->level) {
	case PVM_COSCHED_BOOST_SLICE:
		if (pcs_has_our_slice(p))
			pcs_setattr(p, SCHED_NORMAL, task_nice(p),
				    f->base_slice, f->base_rof);
		break;
	case PVM_COSCHED_BOOST_NICE:
		if (p->policy == SCHED_NORMAL && task_nice(p) == f->set_nice)
			pcs_setattr(p, SCHED_NORMAL, f->base_nice,
				    pcs_slice_of(p), f->base_rof);
		break;
	case PVM_COSCHED_BOOST_RT:
		if (p->policy == SCHED_FIFO && p->rt_priority == PCS_FIFO_PRIO)
			pcs_setattr(p, SCHED_NORMAL, f->base_nice,
				    pcs_slice_of(p), f->base_rof);
		break;
	}
}

/* True if `level' takes CPU from others (nice, RT): the levels that the
 * share bounds.  A slice boost takes no CPU from anyone.
 */
static bool pcs_strong(s32 level)
{
	return level > PVM_COSCHED_BOOST_SLICE;
}

/* Brings f's share and its user's up to `now': the CPU its task p ran
 * since the last mark is charged if a strong boost was in force (to the
 * user as a share of each online CPU), and the mark moves.  The runtime
 * of a task running on another CPU lags by up to a tick.
 */
static void pcs_charge(struct pcs_file *f, struct task_struct *p,
		       ktime_t now)
{
	u64 exec = READ_ONCE(p->se.sum_exec_runtime);
	u64 used = 0;

	if (pcs_strong(f->level) && exec > f->exec_mark)
		used = exec - f->exec_mark;
	f->exec_mark = exec;
	cosched_bucket_charge(&f->share, ktime_to_ns(now), used);
	cosched_bucket_charge(&f->user->share, ktime_to_ns(now),
			      div_u64(used, num_online_cpus()));
}

/* Takes f's boost in force off p, then charges the CPU p ran under it
 * until then: changing a task's attributes brings its runtime up to
 * date, so the charge loses no tick's lag to the level that follows.
 */
static void pcs_unboost(struct pcs_file *f, struct task_struct *p)
{
	if (f->level == PVM_COSCHED_BOOST_NONE)
		return;
	pcs_revert(f, p);
	pcs_charge(f, p, ktime_get());
	pcs_set_level(f, PVM_COSCHED_BOOST_NONE);
}

/* True if user record u has no task and a full bucket: forgetting it
 * gives its user nothing.  A record with a debt, or tokens to refill, is
 * kept for the user's next REGISTER, so that closing and registering
 * again does not refill a user's share.
 */
static bool pcs_user_idle(struct pcs_user *u)
{
	return !u->tasks &&
	       cosched_bucket_charge(&u->share, ktime_get_ns(), 0) >=
	       (s64)u->share.cap_ns;
}

/* Input on a watched file, in the waker's context with the queue's lock
 * held: if the owner is blocked, hands it to the undo thread to boost.
 * The owner outlives the watch: its watches leave their queues before
 * its task is forgotten.
 */
static int pcs_watch_wake(wait_queue_entry_t *wait, unsigned int mode,
			  int sync, void *key)
{
	struct pcs_watch *w = container_of(wait, struct pcs_watch, wait);
	struct pcs_file *f = w->owner;
	__poll_t mask = key_to_poll(key);
	struct task_struct *p;
	unsigned long flags;
	bool blocked;

	if (mask && !(mask & (EPOLLIN | EPOLLRDNORM)))
		return 0;
	rcu_read_lock();
	p = pid_task(f->task, PIDTYPE_PID);
	blocked = p && !task_is_running(p);
	rcu_read_unlock();
	if (!blocked)
		return 0;
	spin_lock_irqsave(&pcs_due_lock, flags);
	f->arrival = w->req;
	if (list_empty(&f->arrived))
		list_add_tail(&f->arrived, &pcs_arrived);
	spin_unlock_irqrestore(&pcs_due_lock, flags);
	wake_up_process(pcs_undoer);
	return 0;
}

/* The file's poll names a wait queue: the watch joins the first, ahead of
 * the task's own waits (a priority entry), so it sees input before the
 * task is woken.
 */
static void pcs_watch_queue(struct file *file, wait_queue_head_t *head,
			    poll_table *pt)
{
	struct pcs_watch *w = container_of(pt, struct pcs_watch, pt);

	if (w->head) {
		w->heads_extra = true;
		return;
	}
	w->head = head;
	init_waitqueue_func_entry(&w->wait, pcs_watch_wake);
	add_wait_queue_priority(head, &w->wait);
}

/* Ends watch i of f: leaves the queue (no wake runs after that), lets
 * the file go.  Under pcs_lock.
 */
static void pcs_unwatch(struct pcs_file *f, int i)
{
	struct pcs_watch *w = f->watch[i];

	if (!w)
		return;
	if (w->head)
		remove_wait_queue(w->head, &w->wait);
	fput(w->file);
	kfree(w);
	f->watch[i] = NULL;
}

/* Ends the watches of files that only the module still holds (the task
 * closed them); every watch if `all'.  Under pcs_lock.
 */
static void pcs_watch_prune(struct pcs_file *f, bool all)
{
	int i;

	for (i = 0; i < PVM_COSCHED_MAX_WATCH; i++)
		if (f->watch[i] &&
		    (all || file_count(f->watch[i]->file) == 1))
			pcs_unwatch(f, i);
}

/* Forgets a registration whose task has exited (p NULL) or whose file
 * is released: charges its user for its last boosted CPU (also at the
 * task's exit, which releases the file while p can still be found),
 * undoes its boost and unlinks it.
 */
static void pcs_unregister(struct pcs_file *f, struct task_struct *p)
{
	pcs_watch_prune(f, true);
	if (p)
		pcs_charge(f, p, ktime_get());
	if (f->want_level != PVM_COSCHED_BOOST_NONE ||
	    f->level != PVM_COSCHED_BOOST_NONE) {
		if (p)
			pcs_unboost(f, p);
		pcs_set_level(f, PVM_COSCHED_BOOST_NONE);
		f->want_level = PVM_COSCHED_BOOST_NONE;
		pcs_count.undone_release++;
	}
	list_del_init(&f->node);
	put_pid(f->task);
	f->task = NULL;
	f->user->tasks--;
	if (pcs_user_idle(f->user)) {
		list_del(&f->user->node);
		kfree(f->user);
	}
	f->user = NULL;
	pcs_count.registered--;
}

/* True if f's granted boost may be in force: a slice always, a strong
 * boost while its own share and its user's last.
 */
static bool pcs_share_allows(struct pcs_file *f)
{
	return !pcs_strong(f->want_level) ||
	       (cosched_bucket_allows(&f->share) &&
		cosched_bucket_allows(&f->user->share));
}

/* Ends f's boost, in force or held, counted as `why'. */
static void pcs_undo(struct pcs_file *f, struct task_struct *p,
		     enum pcs_undo_reason why)
{
	if (f->want_level == PVM_COSCHED_BOOST_NONE &&
	    f->level == PVM_COSCHED_BOOST_NONE)
		return;
	f->want_level = PVM_COSCHED_BOOST_NONE;
	pcs_unboost(f, p);
	if (why == PCS_UNDO_BOX)
		pcs_count.undone_box++;
}

/* Puts level r on p (whose registration is f), with reset-on-fork. */
static int pcs_apply(struct pcs_file *f, struct task_struct *p,
		     struct pcs_request *r)
{
	switch (r->level) {
	case PVM_COSCHED_BOOST_SLICE:
		return pcs_setattr(p, SCHED_NORMAL, task_nice(p), PCS_SLICE_NS,
				   true);
	case PVM_COSCHED_BOOST_NICE:
		f->set_nice = r->nice;
		return pcs_setattr(p, SCHED_NORMAL, r->nice, pcs_slice_of(p),
				   true);
	case PVM_COSCHED_BOOST_RT:
		return pcs_setattr(p, SCHED_FIFO, 0, 0, true);
	}
	return 0;
}

/* Holds f's strong boost on p: back to the slice level where the kernel
 * has slices, else to none, until the shares allow it again.
 */
static void pcs_hold(struct pcs_file *f, struct task_struct *p)
{
	struct pcs_request r = { PVM_COSCHED_BOOST_SLICE };

	pcs_unboost(f, p);
	if (PCS_HAVE_SLICE && p->policy == SCHED_NORMAL && !pcs_apply(f, p, &r))
		pcs_set_level(f, PVM_COSCHED_BOOST_SLICE);
	pcs_count.demotions++;
}

/* Puts f's granted boost in force on p, from none or a held slice: 0 or
 * -errno (-EPERM if p is no longer at SCHED_NORMAL).
 */
static int pcs_resume(struct pcs_file *f, struct task_struct *p)
{
	struct pcs_request r = { f->want_level, f->want_nice };
	int err;

	pcs_unboost(f, p);
	if (p->policy != SCHED_NORMAL)
		return -EPERM;
	err = pcs_apply(f, p, &r);
	if (err)
		return err;
	f->exec_mark = READ_ONCE(p->se.sum_exec_runtime);
	pcs_set_level(f, f->want_level);
	return 0;
}

/* Keeps the sample timer running while a strong boost is granted. */
static void pcs_sample_start(void)
{
	if (!hrtimer_active(&pcs_sample_timer))
		hrtimer_start(&pcs_sample_timer,
			      ns_to_ktime(pcs_limits.sample_ns),
			      HRTIMER_MODE_REL_HARD);
}

/* The box timer (hard interrupt context): hands f to the undo thread. */
static enum hrtimer_restart pcs_box_expired(struct hrtimer *timer)
{
	struct pcs_file *f = container_of(timer, struct pcs_file, box_timer);
	unsigned long flags;

	spin_lock_irqsave(&pcs_due_lock, flags);
	if (list_empty(&f->due))
		list_add_tail(&f->due, &pcs_due);
	spin_unlock_irqrestore(&pcs_due_lock, flags);
	wake_up_process(pcs_undoer);
	return HRTIMER_NORESTART;
}

/* The sample timer (hard interrupt context): asks the undo thread for a
 * sample of the shares.
 */
static enum hrtimer_restart pcs_sample_expired(struct hrtimer *timer)
{
	unsigned long flags;

	spin_lock_irqsave(&pcs_due_lock, flags);
	pcs_sample_due = true;
	spin_unlock_irqrestore(&pcs_due_lock, flags);
	wake_up_process(pcs_undoer);
	return HRTIMER_NORESTART;
}

/* The end of f's time box, under pcs_lock: undoes the boost, in force
 * or held, unless it was renewed meanwhile.
 */
static void pcs_box_end(struct pcs_file *f)
{
	struct task_struct *p;
	ktime_t now = ktime_get();

	if (f->want_level == PVM_COSCHED_BOOST_NONE || !f->task ||
	    ktime_before(now, f->box_end))
		return;
	p = get_pid_task(f->task, PIDTYPE_PID);
	if (!p) {
		pcs_unregister(f, NULL);
		return;
	}
	pcs_charge(f, p, now);
	pcs_undo(f, p, PCS_UNDO_BOX);
	put_task_struct(p);
}

/* One sample of the shares, under pcs_lock: charges every task granted a
 * strong boost, holds the boosts whose share or user's share is spent,
 * puts back those whose debts are repaid, and plans the next sample
 * while any is granted.
 */
static void pcs_sample(void)
{
	ktime_t now = ktime_get();
	struct pcs_file *f, *next;
	struct task_struct *p;
	bool any = false;

	list_for_each_entry_safe(f, next, &pcs_registered, node) {
		if (!pcs_strong(f->want_level))
			continue;
		p = get_pid_task(f->task, PIDTYPE_PID);
		if (!p) {
			pcs_unregister(f, NULL);
			continue;
		}
		pcs_charge(f, p, now);
		if (pcs_strong(f->level) && !pcs_share_allows(f))
			pcs_hold(f, p);
		else if (f->level != f->want_level && pcs_share_allows(f) &&
			 pcs_resume(f, p))
			pcs_undo(f, p, PCS_UNDO_ASKED);
		put_task_struct(p);
		any = true;
	}
	if (any)
		hrtimer_start(&pcs_sample_timer,
			      ns_to_ktime(pcs_limits.sample_ns),
			      HRTIMER_MODE_REL_HARD);
}

/* Takes the next record off pcs_due, or NULL. */
static struct pcs_file *pcs_next_due(void)
{
	struct pcs_file *f;

	spin_lock_irq(&pcs_due_lock);
	f = list_first_entry_or_null(&pcs_due, struct pcs_file, due);
	if (f)
		list_del_init(&f->due);
	spin_unlock_irq(&pcs_due_lock);
	return f;
}

/* Takes the next record off pcs_arrived with the boost its input asked
 * for, or NULL.
 */
static struct pcs_file *pcs_next_arrived(struct pcs_request *r)
{
	struct pcs_file *f;

	spin_lock_irq(&pcs_due_lock);
	f = list_first_entry_or_null(&pcs_arrived, struct pcs_file, arrived);
	if (f) {
		list_del_init(&f->arrived);
		*r = f->arrival;
	}
	spin_unlock_irq(&pcs_due_lock);
	return f;
}

static int pcs_boost(struct pcs_file *by, struct pcs_file *f,
		     struct task_struct *p, struct pcs_request *r);

/* Input reached a watch of f while its task was blocked: grants the
 * watch's boost as a REPORT would, under pcs_lock.
 */
static void pcs_arrival(struct pcs_file *f, struct pcs_request *r)
{
	struct task_struct *p;

	if (!f->task)
		return;
	p = get_pid_task(f->task, PIDTYPE_PID);
	if (!p) {
		pcs_unregister(f, NULL);
		return;
	}
	if (pcs_boost(f, f, p, r) == 0)
		f->my_arrivals++;
	put_task_struct(p);
	pcs_watch_prune(f, false);
}

/* The undo thread: ends the boxes the timers handed it, then samples the
 * shares if the sample timer fired.  A record is taken off the list and
 * handled under pcs_lock, which pcs_release takes before it unlinks and
 * frees one.
 */
static int pcs_undo_thread(void *unused)
{
	struct pcs_request r;
	struct pcs_file *f;
	bool idle, sample;

	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		spin_lock_irq(&pcs_due_lock);
		sample = pcs_sample_due;
		pcs_sample_due = false;
		idle = list_empty(&pcs_due) && list_empty(&pcs_arrived) &&
		       !sample;
		spin_unlock_irq(&pcs_due_lock);
		if (idle) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		rt_mutex_lock(&pcs_lock);
		while ((f = pcs_next_arrived(&r)))
			pcs_arrival(f, &r);
		while ((f = pcs_next_due()))
			pcs_box_end(f);
		if (sample)
			pcs_sample();
		rt_mutex_unlock(&pcs_lock);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Clamps request r of task f to the limits and to this kernel
 * (pvm_cosched_checks.h), counting a clamped boost.  No RT without the
 * undo thread at its priority.
 */
static void pcs_clamp(struct pcs_file *f, struct pcs_request *r)
{
	struct pvm_cosched_limits l = pcs_limits;
	s32 asked = r->level;

	l.allow_rt = l.allow_rt && pcs_fifo_undo;
	pcs_clamp_request(&l, PCS_HAVE_SLICE, f->base_nice, r);
	if (asked != PVM_COSCHED_BOOST_NONE && r->clamped)
		pcs_count.clamped++;
}

/* Grants p (registered as f) the boost r asked by the file `by', within
 * the limits, for r's box; r is updated to what is granted.  A strong
 * boost is put in force while the shares allow it and held otherwise,
 * never refused for its CPU.  0 or -EPERM.
 */
static int pcs_boost(struct pcs_file *by, struct pcs_file *f,
		     struct task_struct *p, struct pcs_request *r)
{
	ktime_t now = ktime_get();
	bool ours = f->level == PVM_COSCHED_BOOST_RT &&
		    p->policy == SCHED_FIFO;
	int err;

	if (p->policy != SCHED_NORMAL && !ours) {
		pcs_count.refused++;
		return -EPERM;
	}
	pcs_charge(f, p, now);
	if (f->want_level == PVM_COSCHED_BOOST_NONE) {
		f->base_nice = task_nice(p);
		f->base_slice = pcs_slice_of(p);
		f->base_rof = p->sched_reset_on_fork;
	}
	if (r->level != PVM_COSCHED_BOOST_NONE)
		pcs_clamp(f, r);
	if (r->level == PVM_COSCHED_BOOST_NONE) {
		pcs_undo(f, p, PCS_UNDO_ASKED);
		r->box_ns = 0;
		return 0;
	}
	if (r->level != f->want_level ||
	    (r->level == PVM_COSCHED_BOOST_NICE && r->nice != f->want_nice)) {
		pcs_unboost(f, p);
		f->want_level = r->level;
		f->want_nice = r->nice;
		if (!pcs_share_allows(f)) {
			pcs_hold(f, p);
		} else {
			err = pcs_resume(f, p);
			if (err) {
				f->want_level = PVM_COSCHED_BOOST_NONE;
				return err;
			}
		}
	}
	/* else the same boost again, in force or held: the box moves */
	f->box_end = ktime_add_ns(now, r->box_ns);
	hrtimer_start(&f->box_timer, ns_to_ktime(r->box_ns),
		      HRTIMER_MODE_REL_HARD);
	if (pcs_strong(f->want_level))
		pcs_sample_start();
	pcs_count.applied++;
	by->my_applied++;
	return 0;
}

/* Drops the registrations of tasks that have exited while their files
 * live on in another process.
 */
static void pcs_prune_exited(void)
{
	struct pcs_file *f, *next;

	list_for_each_entry_safe(f, next, &pcs_registered, node) {
		struct task_struct *p = get_pid_task(f->task, PIDTYPE_PID);

		if (p)
			put_task_struct(p);
		else
			pcs_unregister(f, NULL);
	}
}

static struct pcs_file *pcs_find(struct pid *pid)
{
	struct pcs_file *f;

	list_for_each_entry(f, &pcs_registered, node)
		if (f->task == pid)
			return f;
	return NULL;
}

/* The record of the caller's user (its real uid), made if need be with
 * a full share of the limits in force, with one more task; NULL without
 * memory.  Forgets the idle records of other users.  Under pcs_lock.
 */
static struct pcs_user *pcs_user_get(void)
{
	kuid_t uid = current_uid();
	struct pcs_user *u, *next;

	list_for_each_entry_safe(u, next, &pcs_users, node) {
		if (uid_eq(u->uid, uid))
			goto found;
		if (pcs_user_idle(u)) {
			list_del(&u->node);
			kfree(u);
		}
	}
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return NULL;
	u->uid = uid;
	cosched_bucket_init(&u->share, pcs_limits.user_share_ppm,
			    pcs_limits.window_ns, ktime_get_ns());
	list_add(&u->node, &pcs_users);
found:
	u->tasks++;
	return u;
}

static long pcs_ioc_register(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_register reg;
	struct pid *me;
	long err = 0;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	if (reg.abi_version != PVM_COSCHED_ABI_VERSION)
		return -EPROTONOSUPPORT;
	if (pcs_check_register(&reg))
		return -EINVAL;
	me = get_task_pid(current, PIDTYPE_PID);
	rt_mutex_lock(&pcs_lock);
	pcs_prune_exited();
	if (f->task || pcs_find(me)) {
		err = -EALREADY;
		goto out;
	}
	reg.base_nice = task_nice(current);
	reg.caps = PVM_COSCHED_CAP_PEERS | PVM_COSCHED_CAP_WATCH;
	if (PCS_HAVE_SLICE)
		reg.caps |= PVM_COSCHED_CAP_SLICE;
	if (pcs_limits.nice_floor < 0)
		reg.caps |= PVM_COSCHED_CAP_NICE;
	if (pcs_limits.allow_rt && pcs_fifo_undo)
		reg.caps |= PVM_COSCHED_CAP_RT;
	reg.nice_floor = pcs_limits.nice_floor;
	reg.box_max_ns = pcs_limits.box_max_ns;
	reg.share_ppm = pcs_share_for(&pcs_limits, reg.share_ppm);
	if (copy_to_user(arg, &reg, sizeof(reg))) {
		err = -EFAULT;
		goto out;
	}
	f->user = pcs_user_get();
	if (!f->user) {
		err = -ENOMEM;
		goto out;
	}
	f->task = me;
	me = NULL;
	f->tid = reg.tid;
	f->base_nice = reg.base_nice;
	cosched_bucket_init(&f->share, reg.share_ppm, pcs_limits.window_ns,
			    ktime_get_ns());
	f->exec_mark = current->se.sum_exec_runtime;
	list_add_tail(&f->node, &pcs_registered);
	pcs_count.registered++;
out:
	rt_mutex_unlock(&pcs_lock);
	put_pid(me);
	return err;
}

/* Copies REPORT's peers in and checks them: 0, -EFAULT or -EINVAL.
 * They are not kept: nothing in the module uses them (kmod/README.md).
 */
static int pcs_copy_peers(const struct pvm_cosched_report *rep, s32 *peers)
{
	if (copy_from_user(peers, u64_to_user_ptr(rep->peers_ptr),
			   rep->npeers * sizeof(*peers)))
		return -EFAULT;
	return pcs_check_peers(peers, rep->npeers);
}

static long pcs_ioc_report(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_report rep;
	struct pcs_request r;
	s32 peers[PVM_COSCHED_MAX_PEERS];
	struct task_struct *p;
	long err;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&rep, arg, sizeof(rep)))
		return -EFAULT;
	err = pcs_check_report(&rep);
	if (err)
		return err;
	err = pcs_copy_peers(&rep, peers);
	if (err)
		return err;
	r = (struct pcs_request){ rep.level, rep.nice, rep.box_ns };
	rt_mutex_lock(&pcs_lock);
	if (!f->task) {
		err = -ENOTCONN;
		goto out;
	}
	pcs_watch_prune(f, false);
	p = get_pid_task(f->task, PIDTYPE_PID);
	if (!p) {
		err = -ESRCH;
		goto out;
	}
	f->freq_milli = rep.freq_milli;
	err = pcs_boost(f, f, p, &r);
	rep.nice = task_nice(p);
	put_task_struct(p);
out:
	rt_mutex_unlock(&pcs_lock);
	if (err)
		return err;
	rep.level = r.level;
	rep.box_ns = r.box_ns;
	return copy_to_user(arg, &rep, sizeof(rep)) ? -EFAULT : 0;
}

/* Finds the registration and task of pid `nr' (the caller's pid
 * namespace), under pcs_lock: 0 or -ESRCH.
 */
static int pcs_find_target(s32 nr, struct pcs_file **tf,
			   struct task_struct **tp)
{
	struct pid *pid = find_get_pid(nr);
	int err = -ESRCH;

	*tf = pid ? pcs_find(pid) : NULL;
	*tp = *tf ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	if (*tp)
		err = 0;
	put_pid(pid);
	return err;
}

static long pcs_ioc_boost(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_boost b;
	struct pcs_request r;
	struct pcs_file *tf;
	struct task_struct *p;
	long err;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	err = pcs_check_boost(&b);
	if (err)
		return err;
	r = (struct pcs_request){ b.level, b.nice, b.box_ns };
	rt_mutex_lock(&pcs_lock);
	if (!f->task) {
		err = -ENOTCONN;
		goto out;
	}
	err = pcs_find_target(b.pid, &tf, &p);
	if (err)
		goto out;
	if (pcs_may_act_on(p)) {
		err = pcs_boost(f, tf, p, &r);
	} else {
		pcs_count.refused++;
		err = -EPERM;
	}
	b.nice = task_nice(p);
	put_task_struct(p);
out:
	rt_mutex_unlock(&pcs_lock);
	if (err)
		return err;
	b.level = r.level;
	b.box_ns = r.box_ns;
	return copy_to_user(arg, &b, sizeof(b)) ? -EFAULT : 0;
}

/* The slot of f's watch of `file', or -1. */
static int pcs_watch_find(struct pcs_file *f, struct file *file)
{
	int i;

	for (i = 0; i < PVM_COSCHED_MAX_WATCH; i++)
		if (f->watch[i] && f->watch[i]->file == file)
			return i;
	return -1;
}

/* WATCH_ADD: joins the wait queue of the caller's file `fd' (one that
 * polls, through a single queue), taking a reference on it; WATCH_DEL
 * ends that watch.  Under pcs_lock, with the watches of closed files
 * pruned first.
 */
static long pcs_ioc_watch(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_watch wa;
	struct pcs_watch *w = NULL;
	struct file *file;
	long err = 0;
	int i;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&wa, arg, sizeof(wa)))
		return -EFAULT;
	if (pcs_check_watch(&wa))
		return -EINVAL;
	file = fget(wa.fd);
	if (!file)
		return -EBADF;
	rt_mutex_lock(&pcs_lock);
	if (!f->task) {
		err = -ENOTCONN;
		goto out;
	}
	pcs_watch_prune(f, false);
	i = pcs_watch_find(f, file);
	if (wa.op == PVM_COSCHED_WATCH_DEL) {
		if (i < 0)
			err = -ENOENT;
		else
			pcs_unwatch(f, i);
		goto out;
	}
	if (i >= 0) {
		err = -EEXIST;
		goto out;
	}
	for (i = 0; i < PVM_COSCHED_MAX_WATCH && f->watch[i]; i++)
		;
	if (i == PVM_COSCHED_MAX_WATCH) {
		err = -ENOSPC;
		goto out;
	}
	if (!file->f_op->poll) {
		err = -EINVAL;
		goto out;
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		err = -ENOMEM;
		goto out;
	}
	w->owner = f;
	w->file = file;
	w->req.level = wa.level;
	w->req.nice = wa.nice;
	w->req.box_ns = wa.box_ns;
	f->watch[i] = w;
	init_poll_funcptr(&w->pt, pcs_watch_queue);
	vfs_poll(file, &w->pt);
	if (!w->head || w->heads_extra) {
		pcs_unwatch(f, i);	/* drops the file */
		err = -EINVAL;
	}
	file = NULL;			/* the watch's, or dropped */
out:
	rt_mutex_unlock(&pcs_lock);
	if (file)
		fput(file);
	return err;
}

static long pcs_ioc_stats(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_stats st;
	struct task_struct *p;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&st.flags, arg, sizeof(st.flags)))
		return -EFAULT;
	if (st.flags)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	rt_mutex_lock(&pcs_lock);
	pcs_prune_exited();
	st.registered = pcs_count.registered;
	st.boosted_now = pcs_count.boosted_now;
	st.applied = pcs_count.applied;
	st.undone_box = pcs_count.undone_box;
	st.undone_release = pcs_count.undone_release;
	st.demotions = pcs_count.demotions;
	st.refused = pcs_count.refused;
	st.clamped = pcs_count.clamped;
	st.my_applied = f->my_applied;
	st.my_freq_milli = f->freq_milli;
	st.my_level = f->level;
	st.my_arrivals = f->my_arrivals;
	p = f->task ? get_pid_task(f->task, PIDTYPE_PID) : NULL;
	st.my_nice = task_nice(p ? p : current);
	if (p)
		put_task_struct(p);
	st.limits = pcs_limits;
	rt_mutex_unlock(&pcs_lock);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/* New limits apply to the next request; boosts in force keep theirs,
 * and tasks their shares, but every user's bucket takes the new user
 * share and window at once.
 */
static long pcs_ioc_set_limits(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_limits l;
	struct pcs_user *u;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if (!pcs_limits_valid(&l))
		return -EINVAL;
	if (!capable(CAP_SYS_NICE))
		return -EPERM;
	rt_mutex_lock(&pcs_lock);
	pcs_limits = l;
	list_for_each_entry(u, &pcs_users, node)
		cosched_bucket_set_share(&u->share, l.user_share_ppm,
					 l.window_ns, ktime_get_ns());
	rt_mutex_unlock(&pcs_lock);
	return 0;
}

static long pcs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pcs_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case PVM_COSCHED_IOC_REGISTER:
		return pcs_ioc_register(f, uarg);
	case PVM_COSCHED_IOC_REPORT:
		return pcs_ioc_report(f, uarg);
	case PVM_COSCHED_IOC_BOOST:
		return pcs_ioc_boost(f, uarg);
	case PVM_COSCHED_IOC_STATS:
		return pcs_ioc_stats(f, uarg);
	case PVM_COSCHED_IOC_SET_LIMITS:
		return pcs_ioc_set_limits(f, uarg);
	case PVM_COSCHED_IOC_WATCH:
		return pcs_ioc_watch(f, uarg);
	default:
		return -ENOTTY;
	}
}

static int pcs_open(struct inode *inode, struct file *file)
{
	struct pcs_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	INIT_LIST_HEAD(&f->node);
	f->opener = get_task_pid(current, PIDTYPE_TGID);
	INIT_LIST_HEAD(&f->due);
	INIT_LIST_HEAD(&f->arrived);
	hrtimer_init(&f->box_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	f->box_timer.function = pcs_box_expired;
	file->private_data = f;
	return 0;
}

/* Unlinks the registration first, so no BOOST can re-arm its timer,
 * ends its watches, so no input hands it to the undo thread, stops the
 * timer, takes the record off the undo thread's lists (under pcs_lock,
 * so the thread is not handling it), then undoes what is in force.
 */
static int pcs_release(struct inode *inode, struct file *file)
{
	struct pcs_file *f = file->private_data;
	struct task_struct *p;

	rt_mutex_lock(&pcs_lock);
	list_del_init(&f->node);
	pcs_watch_prune(f, true);
	rt_mutex_unlock(&pcs_lock);
	hrtimer_cancel(&f->box_timer);
	rt_mutex_lock(&pcs_lock);
	spin_lock_irq(&pcs_due_lock);
	list_del_init(&f->due);
	list_del_init(&f->arrived);
	spin_unlock_irq(&pcs_due_lock);
	if (f->task) {
		p = get_pid_task(f->task, PIDTYPE_PID);
		pcs_unregister(f, p);
		if (p)
			put_task_struct(p);
	}
	rt_mutex_unlock(&pcs_lock);
	put_pid(f->opener);
	kfree(f);
	return 0;
}

static const struct file_operations pcs_fops = {
	.owner = THIS_MODULE,
	.open = pcs_open,
	.release = pcs_release,
	.unlocked_ioctl = pcs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice pcs_device = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pvm_cosched",
	.fops = &pcs_fops,
	.mode = 0666,
};

/* Starts the undo thread at SCHED_FIFO (sched_set_fifo: above every
 * boost), then the device.
 */
static int __init pcs_init(void)
{
	int err;

	hrtimer_init(&pcs_sample_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	pcs_sample_timer.function = pcs_sample_expired;
	pcs_undoer = kthread_run(pcs_undo_thread, NULL, "pvm_cosched");
	if (IS_ERR(pcs_undoer))
		return PTR_ERR(pcs_undoer);
	sched_set_fifo(pcs_undoer);
	pcs_fifo_undo = pcs_undoer->policy == SCHED_FIFO &&
			pcs_undoer->rt_priority > PCS_FIFO_PRIO;
	if (!pcs_fifo_undo)
		pr_warn("pvm_cosched: the undo thread is not at SCHED_FIFO above %d: no RT boosts, nice at most\n",
			PCS_FIFO_PRIO);
	err = misc_register(&pcs_device);
	if (err)
		kthread_stop(pcs_undoer);
	return err;
}

/* The kernel refuses unload while a file is open, and each release has
 * undone its boosts and stopped its timer: nothing is left to revert.
 * The sample timer, idle once no boost is granted, is stopped before the
 * thread it wakes; the users' records kept for their debts go.
 */
static void __exit pcs_exit(void)
{
	struct pcs_user *u, *next;

	misc_deregister(&pcs_device);
	hrtimer_cancel(&pcs_sample_timer);
	kthread_stop(pcs_undoer);
	list_for_each_entry_safe(u, next, &pcs_users, node)
		kfree(u);
}

module_init(pcs_init);
module_exit(pcs_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("copvm");
MODULE_DESCRIPTION("Bounded, time-boxed scheduling boosts for PVM tasks");
MODULE_VERSION("1");

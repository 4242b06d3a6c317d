// SPDX-License-Identifier: GPL-2.0
/*
 * The boost engine of pvm_cosched: grants, holds and undoes a registered
 * task's boost, a short EEVDF slice (6.12+), a lower nice down to a floor,
 * or SCHED_FIFO if the administrator allows it, for at most a time box.
 * Every boost carries SCHED_RESET_ON_FORK, so no child or thread inherits
 * it; an undo gives the task back its own flag, and restores its base only
 * if the task is still at what the module set.
 *
 * The box is an hrtimer that wakes the module's undo thread, a kthread at
 * SCHED_FIFO above the boosts' priority 1, so a boosted task that spins
 * cannot delay its own undo; the records' lock is an rt_mutex, so a task
 * that holds it lends the thread its priority.  Without that thread at
 * its priority the module grants no SCHED_FIFO (nice at most) and says
 * so.  The thread also grants the boosts that input on a watched file
 * asked for (pcs_watch.c).
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
 * and a boosted task that blocks spends nothing.
 */
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <uapi/linux/sched/types.h>
#include <linux/spinlock.h>

#include "pcs_internal.h"

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
bool pcs_fifo_undo;

enum pcs_undo_reason { PCS_UNDO_ASKED, PCS_UNDO_BOX };

/* Sets the level in force on f's record, counting the boosts in force
 * (STATS' boosted_now).  Under pcs_lock.
 */
void pcs_set_level(struct pcs_file *f, s32 level)
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
void pcs_charge(struct pcs_file *f, struct task_struct *p, ktime_t now)
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
void pcs_unboost(struct pcs_file *f, struct task_struct *p)
{
	if (f->level == PVM_COSCHED_BOOST_NONE)
		return;
	pcs_revert(f, p);
	pcs_charge(f, p, ktime_get());
	pcs_set_level(f, PVM_COSCHED_BOOST_NONE);
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
int pcs_boost(struct pcs_file *by, struct pcs_file *f,
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

/* Readies the time box of a new file's record f, and its links to the
 * undo thread's lists.
 */
void pcs_box_init(struct pcs_file *f)
{
	INIT_LIST_HEAD(&f->due);
	INIT_LIST_HEAD(&f->arrived);
	hrtimer_init(&f->box_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	f->box_timer.function = pcs_box_expired;
}

/* Hands f to the undo thread to grant it boost r, which input on a watch
 * asked for (any context: pcs_due_lock is taken with interrupts off).
 */
void pcs_undo_arrival(struct pcs_file *f, const struct pcs_request *r)
{
	unsigned long flags;

	spin_lock_irqsave(&pcs_due_lock, flags);
	f->arrival = *r;
	if (list_empty(&f->arrived))
		list_add_tail(&f->arrived, &pcs_arrived);
	spin_unlock_irqrestore(&pcs_due_lock, flags);
	wake_up_process(pcs_undoer);
}

/* Takes f off the undo thread's lists, under pcs_lock (so the thread is
 * not handling it) once f's box timer is stopped and its watches ended.
 */
void pcs_undo_forget(struct pcs_file *f)
{
	spin_lock_irq(&pcs_due_lock);
	list_del_init(&f->due);
	list_del_init(&f->arrived);
	spin_unlock_irq(&pcs_due_lock);
}

/* Starts the undo thread at SCHED_FIFO (sched_set_fifo: above every
 * boost) and readies the sample timer: 0 or -errno.
 */
int pcs_undo_start(void)
{
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
	return 0;
}

/* Stops the sample timer, idle once no boost is granted, then the undo
 * thread it wakes.  No file may be open.
 */
void pcs_undo_stop(void)
{
	hrtimer_cancel(&pcs_sample_timer);
	kthread_stop(pcs_undoer);
}

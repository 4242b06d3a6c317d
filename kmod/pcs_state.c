// SPDX-License-Identifier: GPL-2.0
/*
 * The records of pvm_cosched: the registered tasks (one per open file) and
 * their users' records, the lock that serialises them, the limits in force
 * and the counters.  A record whose task has gone while its file lives on
 * (a forked child holds it) is found dead by resolving its struct pid
 * again and is forgotten.  A user's record (real uid) outlives its last
 * registration until its share's bucket is full again, so that closing and
 * registering again refills nothing.  The users with registered tasks
 * split the node's budget evenly: their buckets' parts are computed again
 * whenever their number changes.
 */
#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/sched/task.h>

#include "pcs_internal.h"

DEFINE_RT_MUTEX(pcs_lock);
LIST_HEAD(pcs_registered);
LIST_HEAD(pcs_users);

struct pvm_cosched_limits pcs_limits = {
	.nice_floor = -5,
	.allow_rt = 0,
	.box_max_ns = 20 * NSEC_PER_MSEC,
	.share_max_ppm = PCS_SHARE_ONE / 2,
	.window_ns = 100 * NSEC_PER_MSEC,
	.sample_ns = 2 * NSEC_PER_MSEC,
	.user_share_ppm = PCS_SHARE_ONE / 10,
	.node_share_ppm = PCS_SHARE_ONE / 10,
};

struct pcs_counts pcs_count;

/* The users with registered tasks: the node budget's divisor. */
u32 pcs_active_users;

/* Gives every user with registered tasks its part of the limits in force
 * (pcs_user_part) from now on; each bucket keeps its tokens or its debt,
 * within its new cap, so a user whose part grows gains no burst by it.
 * A record without tasks keeps the rate it had, repaying its debt at it
 * (it boosts nothing meanwhile); with `all' (new limits) it takes the new
 * window too.  Under pcs_lock.
 */
void pcs_users_rebalance(bool all)
{
	u32 part = pcs_user_part(&pcs_limits, pcs_active_users);
	u64 now = ktime_get_ns();
	struct pcs_user *u;

	list_for_each_entry(u, &pcs_users, node) {
		if (u->tasks && (all || u->share.share_ppm != part))
			cosched_bucket_set_share(&u->share, part,
						 pcs_limits.window_ns, now);
		else if (!u->tasks && all)
			cosched_bucket_set_share(&u->share, u->share.share_ppm,
						 pcs_limits.window_ns, now);
	}
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

/* The record of the caller's user (its real uid), made if need be with
 * a full bucket at its part of the limits in force, with one more task;
 * NULL without memory.  A user's first task splits the node's budget
 * again.  Forgets the idle records of other users.  Under pcs_lock.
 */
struct pcs_user *pcs_user_get(void)
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
	cosched_bucket_init(&u->share,
			    pcs_user_part(&pcs_limits, pcs_active_users + 1),
			    pcs_limits.window_ns, ktime_get_ns());
	list_add(&u->node, &pcs_users);
found:
	if (u->tasks++ == 0) {
		/* new, or back while its record repays a debt */
		pcs_active_users++;
		pcs_users_rebalance(false);
	}
	return u;
}

/* The registration whose task is `pid' (a task is registered on one
 * file only), or NULL.  Under pcs_lock.
 */
struct pcs_file *pcs_find(struct pid *pid)
{
	struct pcs_file *f;

	list_for_each_entry(f, &pcs_registered, node)
		if (f->task == pid)
			return f;
	return NULL;
}

/* Finds the registration and task of pid `nr' (the caller's pid
 * namespace), under pcs_lock: 0 or -ESRCH.
 */
int pcs_find_target(s32 nr, struct pcs_file **tf, struct task_struct **tp)
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

/* Forgets a registration whose task has exited (p NULL) or whose file
 * is released: charges its user for its last boosted CPU (also at the
 * task's exit, which releases the file while p can still be found),
 * undoes its boost and unlinks it.
 */
void pcs_unregister(struct pcs_file *f, struct task_struct *p)
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
	if (--f->user->tasks == 0) {
		pcs_active_users--;
		pcs_users_rebalance(false);
	}
	if (pcs_user_idle(f->user)) {
		list_del(&f->user->node);
		kfree(f->user);
	}
	f->user = NULL;
	pcs_count.registered--;
}

/* Drops the registrations of tasks that have exited while their files
 * live on in another process.
 */
void pcs_prune_exited(void)
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

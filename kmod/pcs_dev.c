// SPDX-License-Identifier: GPL-2.0
/*
 * The copvm kernel module's device, /dev/pvm_cosched: bounded and
 * time-boxed scheduling boosts for an ordinary user's PVM tasks (copvm's
 * coscheduling).  A task opens the device and registers itself; it then
 * reports its message frequency and asks for a boost of itself (REPORT),
 * or of a registered task of the same user it is about to talk to (BOOST),
 * or for a boost on input to its own files (WATCH, pcs_watch.c).  Each
 * ioctl checks its caller and arguments here and hands the boost to
 * pcs_boost.c.  Every boost is undone when its file is released (which
 * includes the task's exit); unload is refused by the kernel while a file
 * is open, so no record and no boost outlives the module.  The ABI is
 * uapi/pvm_cosched.h.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "pcs_internal.h"

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

static long pcs_ioc_report(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_report rep;
	struct pcs_request r;
	struct task_struct *p;
	long err;

	if (!pcs_caller_is_opener(f))
		return -EPERM;
	if (copy_from_user(&rep, arg, sizeof(rep)))
		return -EFAULT;
	err = pcs_check_report(&rep);
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
	st.users = pcs_active_users;
	st.my_part_ppm = f->user ? f->user->share.share_ppm : 0;
	p = f->task ? get_pid_task(f->task, PIDTYPE_PID) : NULL;
	st.my_nice = task_nice(p ? p : current);
	if (p)
		put_task_struct(p);
	st.limits = pcs_limits;
	rt_mutex_unlock(&pcs_lock);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/* New limits apply to the next request; boosts in force keep theirs,
 * and tasks their shares, but every user's bucket takes its part under
 * the new limits, and their window, at once.
 */
static long pcs_ioc_set_limits(struct pcs_file *f, void __user *arg)
{
	struct pvm_cosched_limits l;

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
	pcs_users_rebalance(true);
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
	pcs_box_init(f);
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
	pcs_undo_forget(f);
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

	err = pcs_undo_start();
	if (err)
		return err;
	err = misc_register(&pcs_device);
	if (err)
		pcs_undo_stop();
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
	pcs_undo_stop();
	list_for_each_entry_safe(u, next, &pcs_users, node)
		kfree(u);
}

module_init(pcs_init);
module_exit(pcs_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("copvm");
MODULE_DESCRIPTION("Bounded, time-boxed scheduling boosts for PVM tasks");
MODULE_VERSION("1");

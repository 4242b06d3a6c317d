// SPDX-License-Identifier: GPL-2.0
/*
 * WATCH in pvm_cosched: a registered task's own sockets and eventfds that
 * boost it on input.  The module joins each file's wait queue (as epoll
 * does, ahead of the task's own waits), and input that finds the task
 * blocked hands it to the undo thread (pcs_boost.c), which boosts it at
 * once, as a REPORT would, before the task runs: DCS's boost on arrival
 * with no system call.  The module holds the file while it watches it, and
 * lets it go at WATCH_DEL, unregistering, release, or once the task has
 * closed it (seen at its next request or input).
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "pcs_internal.h"

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
	bool blocked;

	if (mask && !(mask & (EPOLLIN | EPOLLRDNORM)))
		return 0;
	rcu_read_lock();
	p = pid_task(f->task, PIDTYPE_PID);
	blocked = p && !task_is_running(p);
	rcu_read_unlock();
	if (!blocked)
		return 0;
	pcs_undo_arrival(f, &w->req);
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
void pcs_watch_prune(struct pcs_file *f, bool all)
{
	int i;

	for (i = 0; i < PVM_COSCHED_MAX_WATCH; i++)
		if (f->watch[i] &&
		    (all || file_count(f->watch[i]->file) == 1))
			pcs_unwatch(f, i);
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
long pcs_ioc_watch(struct pcs_file *f, void __user *arg)
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

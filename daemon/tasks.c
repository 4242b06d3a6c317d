/*
 * tasks.c - a task's life in the daemon: REGISTER, EXIT and leaving
 * (the table and tids: tasktab.c; contexts: contexts.c).
 *
 * A task enters the table either when spawn.c reserves a tid for a child
 * it is about to start (flag PVMD_TF_SPAWNED; the child later REGISTERs
 * presenting that tid) or when a task started from a shell REGISTERs (a
 * fresh tid).
 *
 * A task leaves the table exactly once, through pvmd_task_gone(): on
 * EXIT, when its control connection closes, when its process is reaped,
 * or when it is killed.  That one place unlinks its socket, drops its
 * mailbox entries, sends the PvmTaskExit notifies and frees its contexts;
 * a slave tells the master, which keeps the mailbox, and fires the
 * notifies once the master has answered, so that a watcher that looks
 * at the mailbox after the notify never finds the task's entries.
 *
 * REGISTER hands the task the machine's secret (for the handshake of its
 * direct routes over TCP).  A task started by a spawn that covers several
 * hosts is answered only when the whole list of its siblings is known
 * (pvmd_tasks_siblings), so pvm_siblings() is right from the start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"

/* Hands a newly registered task the messages that waited for it. */
static void flush_held(struct pvmd_task *t)
{
	struct pvmd_held *h;

	while (t->conn && (h = t->held)) {
		t->held = h->next;
		pvmd_conn_send(t->conn, &h->f, h->body, h->len);
		free(h);
	}
	if (!t->held)
		t->held_tail = NULL;
}

/* Marks the task gone: unlinks it and its socket, drops its mailbox
 * entries, sends the PvmTaskExit notifies on it, frees its contexts.
 * Frees `t'; its connection (if any) stays open but unregistered. */
void pvmd_task_gone(struct pvmd_task *t, const char *why)
{
	int tid = t->tid;

	pvmd_task_unlink(t);
	pvmd_gang_task_gone(tid);	/* never left stopped */
	if (t->conn) {
		if (t->conn->deferred)
			pvmd_mbox_conn_gone(t->conn);
		t->conn->task = NULL;
		t->conn = NULL;
	}
	pvmd_log("t%x (%s) gone: %s", (unsigned)tid, t->aout, why);
	if (t->sibs_host)
		pvmd_output_announce(tid);	/* let its output be read */
	pvmd_task_free(t);
	pvmd_task_unlink_sock(tid);
	pvmd_mbox_task_gone(tid);
	if (pvmd.slave) {
		/* the master drops its mailbox entries first; its exit
		 * notifies fire when the master says so (DD_GONE_ACK) */
		struct pvmi_wbuf w = { 0 };

		pvmi_w_int(&w, tid);
		pvmd_peer_send_dd(PVMI_MASTER_INDEX, PVMI_DD_TASKGONE, &w);
		pvmi_w_free(&w);
	} else {
		pvmd_notify_task_gone(tid);
	}
	pvmd_ctx_free_owner(tid);
	pvmd_output_kick();
}

static void reply_register(struct pvmd_conn *c, struct pvmd_task *t)
{
	struct pvmi_wbuf w = { 0 };
	int32_t self = t->tid;

	pvmi_w_int(&w, t->tid);
	pvmi_w_int(&w, t->ptid);
	pvmi_w_int(&w, t->ctx);
	pvmi_w_int(&w, t->outtid);
	pvmi_w_int(&w, t->outcode);
	pvmi_w_int(&w, t->outctx);
	pvmi_w_int(&w, t->trctid);
	pvmi_w_int(&w, t->trccode);
	pvmi_w_int(&w, t->trcctx);
	if (t->nsib > 0) {
		pvmi_w_int(&w, t->nsib);
		pvmi_w_ints(&w, t->sibs, (size_t)t->nsib);
	} else {
		/* not spawned: its only sibling is itself */
		pvmi_w_int(&w, 1);
		pvmi_w_ints(&w, &self, 1);
	}
	pvmi_w_bytes(&w, pvmd.secret, PVMI_SECRET_LEN);
	pvmi_w_int(&w, pvmd.tcp_port ? PVMI_REG_NET : 0);
	pvmd_session_write(&w);
	pvmd_reply(c, PVMI_OP_REGISTER, &w);
	flush_held(t);
}

/* Sets the sibling list of each task of this host among `tids'; those
 * that waited for it (a spawn over several hosts) get their REGISTER
 * answered and their output read from now on. */
void pvmd_tasks_siblings(const int32_t *tids, int n)
{
	struct pvmd_task *t;
	int i, held;

	for (i = 0; i < n; i++) {
		t = pvmd_task_find(tids[i]);
		if (!t)
			continue;
		free(t->sibs);
		t->nsib = 0;
		t->sibs = malloc((size_t)(n ? n : 1) * sizeof(*t->sibs));
		if (t->sibs) {
			memcpy(t->sibs, tids, (size_t)n * sizeof(*t->sibs));
			t->nsib = n;
		}
		if (!t->sibs_host)
			continue;
		t->sibs_host = 0;
		held = t->conn && t->conn->deferred;
		if (held) {
			t->conn->deferred = 0;
			reply_register(t->conn, t);
			pvmd_conn_resume(t->conn);
		}
		pvmd_output_announce(t->tid);
	}
}

/* Host `index', which was to send some tasks their siblings, is gone:
 * they go on with what they have. */
void pvmd_tasks_siblings_host_gone(int index)
{
	struct pvmd_task *t;
	int32_t tid;

	for (t = pvmd_task_first(); t; t = t->next) {
		if (t->sibs_host != index)
			continue;
		tid = t->tid;
		pvmd_tasks_siblings(&tid, 1);
	}
}

/* REGISTER: a claimed tid is honoured only if spawn.c reserved it and no
 * one registered it yet; any other task (started from a shell, or e.g. a
 * forked child of a spawned task that inherited its COPVM_TID) gets a
 * fresh tid and no parent. */
void pvmd_op_register(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmd_task *t = NULL;
	int32_t pid, claimed;
	char *name, *sess = NULL;

	pid = pvmi_r_int(r);
	claimed = pvmi_r_int(r);
	name = pvmi_r_str(r);
	if (!r->failed && r->pos < r->len)
		sess = pvmi_r_str(r);	/* the claim's daemon run */
	if (!pvmd_body_ok(r)) {
		free(sess);
		free(name);
		pvmd_reply_status(c, PVMI_OP_REGISTER, PvmBadMsg);
		return;
	}
	if (c->task) {
		free(sess);	/* (leaked before: found by fuzz_dispatch) */
		free(name);
		pvmd_reply_status(c, PVMI_OP_REGISTER, PvmExists);
		return;
	}
	if (c->peer_pid > 0)
		pid = c->peer_pid;
	if (claimed && sess && strcmp(sess, pvmd.sessname)) {
		pvmd_log("pid %ld claimed t%x of an earlier daemon run (%s): "
			 "given a fresh tid", (long)pid, (unsigned)claimed,
			 sess);
		claimed = 0;
	}
	free(sess);
	if (claimed) {
		t = pvmd_task_find(claimed);
		if (t && (t->flags & PVMD_TF_SPAWNED) &&
		    !(t->flags & PVMD_TF_CONN)) {
			t->flags |= PVMD_TF_CONN;
		} else {
			pvmd_log("pid %ld claimed t%x, which is not a pending "
				 "spawn: given a fresh tid", (long)pid,
				 (unsigned)claimed);
			t = NULL;
		}
	}
	if (!t) {
		t = pvmd_task_new(pid, name, PVMD_TF_CONN);
		if (!t) {
			free(name);
			pvmd_reply_status(c, PVMI_OP_REGISTER, PvmOutOfRes);
			return;
		}
	}
	free(name);
	t->conn = c;
	c->task = t;
	pvmd_dbg(PVMD_DBG_TASK, "t%x registered (pid %ld)", (unsigned)t->tid,
		 (long)pid);
	if (t->sibs_host) {
		c->deferred = 1;	/* answered by pvmd_tasks_siblings */
		return;
	}
	reply_register(c, t);
}

/* EXIT: answers, then the task is gone (the connection stays open). */
void pvmd_op_exit(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_EXIT, PvmBadMsg);
		return;
	}
	pvmd_reply_status(c, PVMI_OP_EXIT, PvmOk);
	if (c->task)
		pvmd_task_gone(c->task, "pvm_exit");
}

/*
 * tasks.c - the task table, task ids, and the REGISTER and EXIT
 * requests (contexts: contexts.c).
 *
 * Tids of this host are dtid | n with n counting up from 1 and wrapping
 * at PVMI_TID_LOCAL_MASK, skipping tids in use, so a tid is reused only
 * after the whole space went round.  A task enters the table either when
 * spawn.c reserves a tid for a child it is about to start (flag
 * PVMD_TF_SPAWNED; the child later REGISTERs presenting that tid) or when
 * a task started from a shell REGISTERs (a fresh tid).
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

/* A message that came (from another host, through the daemons) before
 * its task registered; a local sender's wait in the task's socket. */
struct pvmd_held {
	struct pvmd_held *next;
	struct pvmi_frame f;
	size_t len;
	unsigned char body[];
};

static struct pvmd_task *tasks;		/* sorted by tid */
static int ntasks;
static int next_local = 1;

/* Returns the task with tid `tid', or NULL. */
struct pvmd_task *pvmd_task_find(int tid)
{
	struct pvmd_task *t;

	for (t = tasks; t && t->tid <= tid; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

/* Returns a task whose process is `pid', or NULL. */
struct pvmd_task *pvmd_task_by_pid(pid_t pid)
{
	struct pvmd_task *t;

	if (pid <= 0)
		return NULL;
	for (t = tasks; t; t = t->next)
		if (t->pid == pid)
			return t;
	return NULL;
}

/* First task of the table (sorted by tid), for iteration via ->next. */
struct pvmd_task *pvmd_task_first(void)
{
	return tasks;
}

/* Number of tasks in the table. */
int pvmd_task_count(void)
{
	return ntasks;
}

static int alloc_tid(void)
{
	int i, tid;

	for (i = 0; i < PVMI_TID_LOCAL_MASK; i++) {
		tid = pvmd.dtid | next_local;
		if (++next_local > PVMI_TID_LOCAL_MASK)
			next_local = 1;
		if (!pvmd_task_find(tid))
			return tid;
	}
	return 0;
}

/* Creates a task under a fresh tid; NULL when out of tids or memory. */
struct pvmd_task *pvmd_task_new(pid_t pid, const char *aout, int flags)
{
	struct pvmd_task *t, **pp;
	int tid = alloc_tid();

	if (!tid) {
		pvmd_log("out of task ids");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->aout = strdup(aout ? aout : "");
	if (!t->aout) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->pid = pid;
	t->flags = flags;
	for (pp = &tasks; *pp && (*pp)->tid < tid; pp = &(*pp)->next)
		;
	t->next = *pp;
	*pp = t;
	ntasks++;
	pvmd_gang_task_new();
	pvmd_cwatch_task_new();
	return t;
}

static void unlink_task(struct pvmd_task *t)
{
	struct pvmd_task **pp;

	for (pp = &tasks; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			ntasks--;
			return;
		}
	}
}

static void free_held(struct pvmd_task *t)
{
	struct pvmd_held *h;

	while ((h = t->held)) {
		t->held = h->next;
		free(h);
	}
	t->held_tail = NULL;
}

static void free_task(struct pvmd_task *t)
{
	free_held(t);
	free(t->aout);
	free(t->sibs);
	free(t);
}

/* Keeps a message for a task that has not registered yet. */
int pvmd_task_hold(struct pvmd_task *t, const struct pvmi_frame *f,
		   const void *body, size_t len)
{
	struct pvmd_held *h = malloc(sizeof(*h) + len);

	if (!h)
		return -1;
	h->next = NULL;
	h->f = *f;
	h->len = len;
	if (len)
		memcpy(h->body, body, len);
	if (!t->held_tail)
		t->held_tail = &t->held;
	*t->held_tail = h;
	t->held_tail = &h->next;
	return 0;
}

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

/* Builds the path of a task's socket into `buf'; 0, or -1 if too long
 * for a sockaddr_un. */
int pvmd_task_sockpath(int tid, char *buf, size_t size)
{
	struct sockaddr_un sa;
	int n;

	n = snprintf(buf, size, "%s/" PVMI_TASK_SOCK_FMT, pvmd.sessdir,
		     (unsigned)tid);
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof(sa.sun_path))
		return -1;
	return 0;
}

static void unlink_sock(int tid)
{
	char path[4200];

	if (pvmd_task_sockpath(tid, path, sizeof(path)) == 0 &&
	    unlink(path) < 0 && errno != ENOENT)
		pvmd_log("cannot remove %s: %s", path, strerror(errno));
}

/* Marks the task gone: unlinks it and its socket, drops its mailbox
 * entries, sends the PvmTaskExit notifies on it, frees its contexts.
 * Frees `t'; its connection (if any) stays open but unregistered. */
void pvmd_task_gone(struct pvmd_task *t, const char *why)
{
	int tid = t->tid;

	unlink_task(t);
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
	free_task(t);
	unlink_sock(tid);
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

/* Frees a task that never ran (spawn failure), with no side effects. */
void pvmd_task_discard(struct pvmd_task *t)
{
	unlink_task(t);
	pvmd_gang_task_gone(t->tid);
	free_task(t);
}

/* Unlinks the sockets of every task still in the table (at exit). */
void pvmd_task_unlink_all(void)
{
	struct pvmd_task *t;

	for (t = tasks; t; t = t->next)
		unlink_sock(t->tid);
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

	for (t = tasks; t; t = t->next) {
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

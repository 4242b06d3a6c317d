/*
 * ops.c - the small requests: host and task queries, signals, contexts,
 * halt, and the host-table requests of a single-host virtual machine.
 *
 * While copvm's virtual machine has one host, "a host" is this one: its
 * name as gethostname() (or -n) gives it, "localhost" or ".".  ADDHOSTS
 * answers PvmDupHost for this host and PvmNotImpl for any other (the log
 * says multi-host support is a later issue); DELHOSTS refuses to delete
 * this host (PvmBadParam) and answers PvmNoHost for hosts that are not in
 * the machine.  Neither ever claims a success it did not achieve.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvmd.h"

#define MAX_HOSTNAMES	4096

/* Whether a tid or dtid belongs to this host. */
static int on_this_host(int tid)
{
	return tid > 0 && PVMI_TID_HOST(tid) == PVMI_TID_HOST(pvmd.dtid);
}

/* CONFIG: one host, one architecture. */
void pvmd_op_config(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_CONFIG, PvmBadMsg);
		return;
	}
	pvmi_w_int(&w, 1);
	pvmi_w_int(&w, 1);
	pvmi_w_int(&w, pvmd.dtid);
	pvmi_w_str(&w, pvmd.hostname);
	pvmi_w_str(&w, PVMI_ARCH_NAME);
	pvmi_w_int(&w, pvmd.opts.speed);
	pvmi_w_int(&w, PVMI_DSIG);
	pvmd_reply(c, PVMI_OP_CONFIG, &w);
}

/* MSTAT: PvmOk for this host, PvmNoHost for any other name. */
void pvmd_op_mstat(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	char *host = pvmi_r_str(r);
	int st;

	if (!pvmd_body_ok(r))
		st = PvmBadMsg;
	else
		st = pvmd_is_self(host) ? PvmOk : PvmNoHost;
	free(host);
	pvmd_reply_status(c, PVMI_OP_MSTAT, st);
}

/* PSTAT: PvmOk when the tid is this daemon or a task in the table. */
void pvmd_op_pstat(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	int32_t tid = pvmi_r_int(r);
	int st;

	if (!pvmd_body_ok(r))
		st = PvmBadMsg;
	else if (tid == pvmd.dtid || pvmd_task_find(tid))
		st = PvmOk;
	else
		st = PvmNoTask;
	pvmd_reply_status(c, PVMI_OP_PSTAT, st);
}

static void put_task(struct pvmi_wbuf *w, const struct pvmd_task *t)
{
	pvmi_w_int(w, t->tid);
	pvmi_w_int(w, t->ptid);
	pvmi_w_int(w, pvmd.dtid);
	pvmi_w_int(w, t->flags);
	pvmi_w_int(w, (int32_t)t->pid);
	pvmi_w_str(w, t->aout);
}

/* TASKS: 0 or this daemon's tid lists every task; a tid of this host
 * lists that task (none if it does not exist, as stock answers); any
 * other host is PvmNoHost. */
void pvmd_op_tasks(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_task *t;
	int32_t which = pvmi_r_int(r);

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_TASKS, PvmBadMsg);
		return;
	}
	if (which == 0 || which == pvmd.dtid) {
		pvmi_w_int(&w, pvmd_task_count());
		for (t = pvmd_task_first(); t; t = t->next)
			put_task(&w, t);
	} else if (!on_this_host(which)) {
		pvmd_reply_status(c, PVMI_OP_TASKS, PvmNoHost);
		return;
	} else if ((t = pvmd_task_find(which))) {
		pvmi_w_int(&w, 1);
		put_task(&w, t);
	} else {
		pvmi_w_int(&w, 0);
	}
	pvmd_reply(c, PVMI_OP_TASKS, &w);
}

/* HOSTSYNC: this host's clock. */
void pvmd_op_hostsync(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	struct timeval tv;
	int32_t host = pvmi_r_int(r);

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_HOSTSYNC, PvmBadMsg);
		return;
	}
	if (host != pvmd.dtid) {
		pvmd_reply_status(c, PVMI_OP_HOSTSYNC, PvmNoHost);
		return;
	}
	gettimeofday(&tv, NULL);
	pvmi_w_int(&w, PvmOk);
	pvmi_w_int(&w, (int32_t)tv.tv_sec);
	pvmi_w_int(&w, (int32_t)tv.tv_usec);
	pvmd_reply(c, PVMI_OP_HOSTSYNC, &w);
}

/* TIDTOHOST: this daemon's tid for itself and its tasks, else PvmNoTask. */
void pvmd_op_tidtohost(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	int32_t tid = pvmi_r_int(r);
	int st;

	if (!pvmd_body_ok(r))
		st = PvmBadMsg;
	else if (tid == pvmd.dtid || pvmd_task_find(tid))
		st = pvmd.dtid;
	else
		st = PvmNoTask;
	pvmd_reply_status(c, PVMI_OP_TIDTOHOST, st);
}

/* Reads "int cnt, str names[cnt]"; returns cnt (names malloc'd) or -1. */
static int read_names(struct pvmi_rbuf *r, char ***names)
{
	int32_t cnt = pvmi_r_int(r);
	char **v;
	int i;

	*names = NULL;
	if (r->failed || cnt < 0 || cnt > MAX_HOSTNAMES ||
	    (size_t)cnt > (r->len - r->pos) / PVMI_ITEM_HDR_LEN)
		return -1;
	v = calloc((size_t)cnt + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < cnt; i++)
		v[i] = pvmi_r_str(r);
	*names = v;
	if (!pvmd_body_ok(r))
		return -1;
	return cnt;
}

static void free_names(char **names, int cnt)
{
	int i;

	if (!names)
		return;
	for (i = 0; i < cnt && names[i]; i++)
		free(names[i]);
	free(names);
}

static void host_table_op(struct pvmd_conn *c, struct pvmi_rbuf *r, int op)
{
	struct pvmi_wbuf w = { 0 };
	int32_t *res;
	char **names;
	int cnt, i, self;

	cnt = read_names(r, &names);
	if (cnt < 0) {
		free_names(names, MAX_HOSTNAMES);
		pvmd_reply_status(c, op, PvmBadMsg);
		return;
	}
	res = calloc((size_t)cnt + 1, sizeof(*res));
	if (!res) {
		free_names(names, cnt);
		pvmd_reply_status(c, op, PvmNoMem);
		return;
	}
	for (i = 0; i < cnt; i++) {
		self = pvmd_is_self(names[i]);
		if (op == PVMI_OP_ADDHOSTS) {
			res[i] = self ? PvmDupHost : PvmNotImpl;
			if (!self)
				pvmd_log("addhosts %s: multi-host virtual "
					 "machines are not implemented yet "
					 "(a later issue)", names[i]);
		} else {
			res[i] = self ? PvmBadParam : PvmNoHost;
		}
	}
	pvmi_w_int(&w, 0);		/* no host added or deleted */
	pvmi_w_ints(&w, res, (size_t)cnt);
	pvmd_reply(c, op, &w);
	free(res);
	free_names(names, cnt);
}

/* ADDHOSTS: see the top of the file. */
void pvmd_op_addhosts(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	host_table_op(c, r, PVMI_OP_ADDHOSTS);
}

/* DELHOSTS: see the top of the file. */
void pvmd_op_delhosts(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	host_table_op(c, r, PVMI_OP_DELHOSTS);
}

/* Signals a task's process, never anything but a real child pid. */
static int signal_task(const struct pvmd_task *t, int sig)
{
	if (t->pid <= 1 || t->pid == getpid())
		return PvmNoTask;
	if (kill(t->pid, sig) < 0)
		return errno == ESRCH ? PvmNoTask : PvmSysErr;
	return PvmOk;
}

/* KILL: SIGTERM to the task's process; the task is gone at once. */
void pvmd_op_kill(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmd_task *t;
	int32_t tid = pvmi_r_int(r);

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_KILL, PvmBadMsg);
		return;
	}
	if (tid == pvmd.dtid) {
		pvmd_reply_status(c, PVMI_OP_KILL, PvmBadParam);
		return;
	}
	t = pvmd_task_find(tid);
	if (!t) {
		pvmd_reply_status(c, PVMI_OP_KILL, PvmNoTask);
		return;
	}
	signal_task(t, SIGTERM);
	pvmd_reply_status(c, PVMI_OP_KILL, PvmOk);
	pvmd_task_gone(t, "killed (pvm_kill)");
}

/* SENDSIG: any signal number the kernel knows (0 probes). */
void pvmd_op_sendsig(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmd_task *t;
	int32_t tid = pvmi_r_int(r);
	int32_t sig = pvmi_r_int(r);
	int st;

	if (!pvmd_body_ok(r))
		st = PvmBadMsg;
	else if (sig < 0 || sig >= NSIG)
		st = PvmBadParam;
	else if (!(t = pvmd_task_find(tid)))
		st = PvmNoTask;
	else
		st = signal_task(t, sig);
	pvmd_reply_status(c, PVMI_OP_SENDSIG, st);
}

/* NEWCTX: a context no one else holds. */
void pvmd_op_newctx(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_NEWCTX, PvmBadMsg);
		return;
	}
	pvmd_reply_status(c, PVMI_OP_NEWCTX, pvmd_ctx_new(c->task->tid));
}

/* FREECTX: PvmBadParam for a context that was not allocated. */
void pvmd_op_freectx(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	int32_t ctx = pvmi_r_int(r);

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_FREECTX, PvmBadMsg);
		return;
	}
	pvmd_reply_status(c, PVMI_OP_FREECTX, pvmd_ctx_free(ctx));
}

/* HALT: answer the caller, then stop everything (loop.c). */
void pvmd_op_halt(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_HALT, PvmBadMsg);
		return;
	}
	pvmd_log("halt requested by t%x", (unsigned)c->task->tid);
	pvmd_reply_status(c, PVMI_OP_HALT, PvmOk);
	pvmd_halt(c);
}

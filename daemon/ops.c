/*
 * ops.c - the small requests: task queries, signals, contexts, clocks,
 * halt, and the address of a task for a direct route.
 *
 * A request about a task or host of another host of the machine is
 * handed to that host's daemon (remote.c) and answered from there; one
 * about a host that is not in the machine gets the answer stock gives
 * for it (PvmNoTask for a task, PvmNoHost for a host).  A request that
 * came from another daemon (a proxy) is only ever answered from here.
 * HOSTSYNC, CONFIG, MSTAT and TIDTOHOST need no other daemon beyond
 * that; the host table is hosttab.c's, ADDHOSTS and DELHOSTS addhost.c's.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvmd.h"

/* Whether a tid or dtid belongs to this host. */
static int on_this_host(int tid)
{
	return tid > 0 && PVMI_TID_HOST(tid) == PVMI_TID_HOST(pvmd.dtid);
}

/* Where a request about `tid' must go: 0 to answer it here, a host index
 * to hand it to, -1 when `tid''s host is not in the machine. */
static int owner_of(struct pvmd_conn *c, int tid)
{
	int index = PVMI_TID_INDEX(tid);

	if (tid <= 0 || index == pvmd.index || c->kind == PVMD_CONN_PROXY)
		return 0;
	return pvmd_host_get(index) ? index : -1;
}

/* PSTAT: PvmOk when the tid is a daemon of the machine or a task. */
void pvmd_op_pstat(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	int32_t tid = pvmi_r_int(r);
	int st, owner = owner_of(c, tid);

	if (!pvmd_body_ok(r)) {
		st = PvmBadMsg;
	} else if (owner > 0 && PVMI_TID_LOCAL(tid) == 0) {
		st = PvmOk;		/* a daemon of the table */
	} else if (owner > 0) {
		pvmd_forward_relay(c, owner, PVMI_OP_PSTAT, r, PvmNoTask);
		return;
	} else if (owner == 0 && (tid == pvmd.dtid || pvmd_task_find(tid))) {
		st = PvmOk;
	} else {
		st = PvmNoTask;
	}
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

/* TASKS: 0 lists every task of the machine (host by host, in index
 * order), a daemon's tid the tasks of that host, a tid that task (none if
 * it does not exist, as stock answers); a host not in the machine is
 * PvmNoHost. */
void pvmd_op_tasks(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_task *t;
	int32_t which = pvmi_r_int(r);
	int owner = owner_of(c, which);

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_TASKS, PvmBadMsg);
		return;
	}
	if (which == 0 && pvmd_hosts_multi() &&
	    c->kind != PVMD_CONN_PROXY) {
		pvmd_remote_tasks_all(c);
		return;
	}
	if (owner > 0) {
		pvmd_forward_relay(c, owner, PVMI_OP_TASKS, r, PvmNoHost);
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
		if (PVMI_TID_LOCAL(host) == 0 && owner_of(c, host) > 0)
			pvmd_forward_relay(c, owner_of(c, host),
					   PVMI_OP_HOSTSYNC, r, PvmNoHost);
		else
			pvmd_reply_status(c, PVMI_OP_HOSTSYNC, PvmNoHost);
		return;
	}
	gettimeofday(&tv, NULL);
	pvmi_w_int(&w, PvmOk);
	pvmi_w_int(&w, (int32_t)tv.tv_sec);
	pvmi_w_int(&w, (int32_t)tv.tv_usec);
	pvmd_reply(c, PVMI_OP_HOSTSYNC, &w);
}

/* TIDTOHOST: this daemon's tid for itself and its tasks, the host's
 * dtid for a tid of another host of the machine, else PvmNoTask. */
void pvmd_op_tidtohost(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	int32_t tid = pvmi_r_int(r);
	int st;

	if (!pvmd_body_ok(r))
		st = PvmBadMsg;
	else if (tid == pvmd.dtid || pvmd_task_find(tid))
		st = pvmd.dtid;
	else if (owner_of(c, tid) > 0)
		st = PVMI_TID_HOST(tid);
	else
		st = PvmNoTask;
	pvmd_reply_status(c, PVMI_OP_TIDTOHOST, st);
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

/* KILL: SIGTERM to the task's process, and nothing more, as in stock: a
 * task that catches it stays in the table until it ends (its connection
 * closes or it is reaped); one whose process cannot be found is gone. */
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
	if (owner_of(c, tid) > 0) {
		pvmd_forward_relay(c, owner_of(c, tid), PVMI_OP_KILL, r,
				   PvmNoTask);
		return;
	}
	t = pvmd_task_find(tid);
	if (!t) {
		pvmd_reply_status(c, PVMI_OP_KILL, PvmNoTask);
		return;
	}
	if (signal_task(t, SIGTERM) == PvmNoTask) {
		pvmd_reply_status(c, PVMI_OP_KILL, PvmOk);
		pvmd_task_gone(t, "killed (pvm_kill), no process");
		return;
	}
	pvmd_reply_status(c, PVMI_OP_KILL, PvmOk);
}

/* SENDSIG: any signal number the kernel knows (0 probes). */
void pvmd_op_sendsig(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmd_task *t;
	int32_t tid = pvmi_r_int(r);
	int32_t sig = pvmi_r_int(r);
	int st;

	if (!pvmd_body_ok(r)) {
		st = PvmBadMsg;
	} else if (sig < 0 || sig >= NSIG) {
		st = PvmBadParam;
	} else if (owner_of(c, tid) > 0) {
		pvmd_forward_relay(c, owner_of(c, tid), PVMI_OP_SENDSIG, r,
				   PvmNoTask);
		return;
	} else if (!(t = pvmd_task_find(tid)))
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

/* HALT: answer the caller, then stop everything (loop.c).  A slave
 * asks the master, which halts every host; the caller is spared. */
void pvmd_op_halt(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_HALT, PvmBadMsg);
		return;
	}
	pvmd_log("halt requested by t%x", (unsigned)c->task->tid);
	if (pvmd.slave) {
		if (c->kind == PVMD_CONN_PROXY) {
			pvmd_reply_status(c, PVMI_OP_HALT, PvmBadParam);
			return;
		}
		pvmd_remote_halt_caller(c);
		pvmd_forward_relay(c, PVMI_MASTER_INDEX, PVMI_OP_HALT, r,
				   PvmSysErr);
		return;
	}
	pvmd_reply_status(c, PVMI_OP_HALT, PvmOk);
	pvmd_halt(c->kind == PVMD_CONN_PROXY ? NULL : c);
}

struct route_wait {
	struct pvmd_hold hold;
	int index;
};

static void route_reply(struct pvmd_conn *c, int st, const char *addr,
			int port)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, st);
	pvmi_w_str(&w, addr);
	pvmi_w_int(&w, port);
	pvmd_reply(c, PVMI_OP_ROUTE, &w);
}

static void route_done(void *arg, int index, struct pvmi_rbuf *r)
{
	struct route_wait *rw = arg;
	struct pvmd_conn *c = pvmd_unhold(&rw->hold);
	struct pvmd_host *h = pvmd_host_get(rw->index);
	int32_t st = PvmNoHost, port = 0;
	char *addr;

	if (r) {
		st = pvmi_r_int(r);
		addr = pvmi_r_str(r);
		port = pvmi_r_int(r);
		free(addr);
		if (r->failed)
			st = PvmSysErr;
	}
	if (c) {
		route_reply(c, st, h ? h->addr : "", st == PvmOk ? port : 0);
		pvmd_conn_resume(c);
	}
	free(rw);
}

/* ROUTE: records the caller's TCP port, and finds where task `tid' of
 * another host takes direct routes: its host's address as this daemon
 * knows it, and the port its daemon knows. */
void pvmd_op_route(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	struct route_wait *rw;
	struct pvmd_task *t;
	int32_t tid = pvmi_r_int(r), port = pvmi_r_int(r);
	int owner;

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_ROUTE, PvmBadMsg);
		return;
	}
	if (c->kind == PVMD_CONN_TASK && port > 0 && port < 65536)
		c->task->tcp_port = port;
	owner = owner_of(c, tid);
	if (tid == 0) {
		route_reply(c, PvmOk, "", 0);
	} else if (owner < 0 || (owner == 0 && !on_this_host(tid))) {
		route_reply(c, PvmNoHost, "", 0);
	} else if (owner == 0) {
		t = pvmd_task_find(tid);
		route_reply(c, !t ? PvmNoTask : !t->tcp_port ? PvmNoEntry :
			    PvmOk, pvmd.addr, t ? t->tcp_port : 0);
	} else if (!(rw = calloc(1, sizeof(*rw)))) {
		pvmd_reply_status(c, PVMI_OP_ROUTE, PvmNoMem);
	} else {
		rw->index = owner;
		pvmi_w_int(&w, tid);
		pvmi_w_int(&w, 0);
		if (pvmd_forward(owner, c->task->tid, PVMI_OP_ROUTE, w.data,
				 w.len, route_done, rw) < 0) {
			free(rw);
			route_reply(c, PvmNoHost, "", 0);
		} else {
			pvmd_hold(&rw->hold, c);
		}
		pvmi_w_free(&w);
	}
}

/*
 * dispatch.c - from a received frame to the handler of its op.
 *
 * Each op has one handler that reads its request body with codec.h and
 * answers with pvmd_reply()/pvmd_reply_status() (reply.c; or, for a
 * mailbox WaitForInfo, later).  The checks common to all ops live here:
 *   - only PVMI_KIND_REQUEST frames are requests; anything else a task
 *     sends on its control connection is logged and ignored;
 *   - an op outside the table is answered with PvmBadParam;
 *   - every op but REGISTER needs a registered task, else PvmSysErr;
 *   - while halting, requests other than EXIT get PvmSysErr.
 * A handler that finds the body malformed (wrong item types or counts,
 * missing or extra items) answers PvmBadMsg and changes nothing.
 *
 * A PVMI_KIND_USER frame from a task is a message for another task: it is
 * delivered to a task of this host or handed to the daemon of the
 * destination's host (pvmd_route_user, reply.c), with src forced to the
 * sender's tid.  Frames from other daemons go to dd.c; requests they carry
 * come back here through pvmd_dispatch_op(), limited to the ops marked
 * `remote' below.
 */
#include <string.h>

#include "pvmd.h"

typedef void (*pvmd_op_fn)(struct pvmd_conn *c, struct pvmi_rbuf *r);

struct op_desc {
	pvmd_op_fn fn;
	const char *name;
	int needs_task;
	int remote;		/* may come from another daemon */
};

static const struct op_desc ops[PVMI_OP_MAX] = {
	[PVMI_OP_REGISTER] = { pvmd_op_register, "REGISTER", 0, 0 },
	[PVMI_OP_EXIT] = { pvmd_op_exit, "EXIT", 1, 0 },
	[PVMI_OP_SPAWN] = { pvmd_op_spawn, "SPAWN", 1, 1 },
	[PVMI_OP_KILL] = { pvmd_op_kill, "KILL", 1, 1 },
	[PVMI_OP_SENDSIG] = { pvmd_op_sendsig, "SENDSIG", 1, 1 },
	[PVMI_OP_TASKS] = { pvmd_op_tasks, "TASKS", 1, 1 },
	[PVMI_OP_CONFIG] = { pvmd_op_config, "CONFIG", 1, 0 },
	[PVMI_OP_MSTAT] = { pvmd_op_mstat, "MSTAT", 1, 0 },
	[PVMI_OP_PSTAT] = { pvmd_op_pstat, "PSTAT", 1, 1 },
	[PVMI_OP_NOTIFY] = { pvmd_op_notify, "NOTIFY", 1, 1 },
	[PVMI_OP_MBOX_PUT] = { pvmd_op_mbox_put, "MBOX_PUT", 1, 1 },
	[PVMI_OP_MBOX_GET] = { pvmd_op_mbox_get, "MBOX_GET", 1, 1 },
	[PVMI_OP_MBOX_DEL] = { pvmd_op_mbox_del, "MBOX_DEL", 1, 1 },
	[PVMI_OP_MBOX_LIST] = { pvmd_op_mbox_list, "MBOX_LIST", 1, 1 },
	[PVMI_OP_NEWCTX] = { pvmd_op_newctx, "NEWCTX", 1, 0 },
	[PVMI_OP_FREECTX] = { pvmd_op_freectx, "FREECTX", 1, 0 },
	[PVMI_OP_HALT] = { pvmd_op_halt, "HALT", 1, 1 },
	[PVMI_OP_HOSTSYNC] = { pvmd_op_hostsync, "HOSTSYNC", 1, 1 },
	[PVMI_OP_ADDHOSTS] = { pvmd_op_addhosts, "ADDHOSTS", 1, 1 },
	[PVMI_OP_DELHOSTS] = { pvmd_op_delhosts, "DELHOSTS", 1, 1 },
	[PVMI_OP_TIDTOHOST] = { pvmd_op_tidtohost, "TIDTOHOST", 1, 0 },
	[PVMI_OP_ROUTE] = { pvmd_op_route, "ROUTE", 1, 1 },
	[PVMI_OP_COSCHED] = { pvmd_op_cosched, "COSCHED", 1, 1 },
};

#define conn_tid pvmd_conn_tid

/* A message from a registered task to another task: route it, and stop
 * reading the sender while the way it took is congested. */
static void user_frame(struct pvmd_conn *c, const struct pvmi_frame *f,
		       const unsigned char *body)
{
	struct pvmi_frame g = *f;
	struct pvmd_conn *d;

	if (!c->task) {
		pvmd_dbg(PVMD_DBG_MSG, "message from an unregistered "
			 "connection (pid %ld) dropped", (long)c->peer_pid);
		return;
	}
	g.src = c->task->tid;
	d = pvmd_route_user(&g, body, g.len);
	if (d)
		pvmd_conn_block_on(c, d);
}

/* Runs the handler of request `op' for a proxy (remote.c); returns -1
 * when that op may not come from another daemon. */
int pvmd_dispatch_op(struct pvmd_conn *c, int op, struct pvmi_rbuf *r)
{
	if (op <= 0 || op >= PVMI_OP_MAX || !ops[op].fn || !ops[op].remote)
		return -1;
	pvmd_dbg(PVMD_DBG_MSG, "%s for t%x from host %d", ops[op].name,
		 (unsigned)conn_tid(c), c->host);
	if (pvmd.halting) {
		pvmd_reply_status(c, op, PvmSysErr);
		return 0;
	}
	ops[op].fn(c, r);
	return 0;
}

/* Handles one complete frame received on `c'. */
void pvmd_dispatch(struct pvmd_conn *c, const struct pvmi_frame *f,
		   const unsigned char *body)
{
	const struct op_desc *d;
	struct pvmi_rbuf r;
	int op = f->tag;

	if (c->kind == PVMD_CONN_PEER) {
		pvmd_dd_dispatch(c, f, body);
		return;
	}
	if (f->kind == PVMI_KIND_USER) {
		user_frame(c, f, body);
		return;
	}
	if (f->kind != PVMI_KIND_REQUEST) {
		pvmd_dbg(PVMD_DBG_MSG, "ignored a frame of kind %u (tag %d, "
			 "%u bytes) from t%x", f->kind, f->tag, f->len,
			 (unsigned)conn_tid(c));
		return;
	}
	if (op <= 0 || op >= PVMI_OP_MAX || !ops[op].fn) {
		pvmd_dbg(PVMD_DBG_MSG, "unknown op %d from pid %ld", op,
			 (long)c->peer_pid);
		pvmd_reply_status(c, op, PvmBadParam);
		return;
	}
	d = &ops[op];
	pvmd_dbg(PVMD_DBG_MSG, "%s from t%x (%u bytes)", d->name,
		 (unsigned)conn_tid(c), f->len);
	if (d->needs_task && !c->task) {
		pvmd_reply_status(c, op, PvmSysErr);
		return;
	}
	if (pvmd.halting && op != PVMI_OP_EXIT) {
		pvmd_reply_status(c, op, PvmSysErr);
		return;
	}
	pvmi_r_init(&r, body, f->len);
	d->fn(c, &r);
}

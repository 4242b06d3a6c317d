/*
 * dispatch.c - from a received frame to the handler of its op, and the
 * helpers every handler uses to answer.
 *
 * Each op has one handler that reads its request body with codec.h and
 * answers with pvmd_reply()/pvmd_reply_status() (or, for a mailbox
 * WaitForInfo, later).  The checks common to all ops live here:
 *   - only PVMI_KIND_REQUEST frames are requests; anything else a task
 *     sends on its control connection is logged and ignored;
 *   - an op outside the table is answered with PvmBadParam;
 *   - every op but REGISTER needs a registered task, else PvmSysErr;
 *   - while halting, requests other than EXIT get PvmSysErr.
 * A handler that finds the body malformed (wrong item types or counts,
 * missing or extra items) answers PvmBadMsg and changes nothing.
 */
#include <string.h>

#include "pvmd.h"

typedef void (*pvmd_op_fn)(struct pvmd_conn *c, struct pvmi_rbuf *r);

struct op_desc {
	pvmd_op_fn fn;
	const char *name;
	int needs_task;
};

static const struct op_desc ops[PVMI_OP_MAX] = {
	[PVMI_OP_REGISTER] = { pvmd_op_register, "REGISTER", 0 },
	[PVMI_OP_EXIT] = { pvmd_op_exit, "EXIT", 1 },
	[PVMI_OP_SPAWN] = { pvmd_op_spawn, "SPAWN", 1 },
	[PVMI_OP_KILL] = { pvmd_op_kill, "KILL", 1 },
	[PVMI_OP_SENDSIG] = { pvmd_op_sendsig, "SENDSIG", 1 },
	[PVMI_OP_TASKS] = { pvmd_op_tasks, "TASKS", 1 },
	[PVMI_OP_CONFIG] = { pvmd_op_config, "CONFIG", 1 },
	[PVMI_OP_MSTAT] = { pvmd_op_mstat, "MSTAT", 1 },
	[PVMI_OP_PSTAT] = { pvmd_op_pstat, "PSTAT", 1 },
	[PVMI_OP_NOTIFY] = { pvmd_op_notify, "NOTIFY", 1 },
	[PVMI_OP_MBOX_PUT] = { pvmd_op_mbox_put, "MBOX_PUT", 1 },
	[PVMI_OP_MBOX_GET] = { pvmd_op_mbox_get, "MBOX_GET", 1 },
	[PVMI_OP_MBOX_DEL] = { pvmd_op_mbox_del, "MBOX_DEL", 1 },
	[PVMI_OP_MBOX_LIST] = { pvmd_op_mbox_list, "MBOX_LIST", 1 },
	[PVMI_OP_NEWCTX] = { pvmd_op_newctx, "NEWCTX", 1 },
	[PVMI_OP_FREECTX] = { pvmd_op_freectx, "FREECTX", 1 },
	[PVMI_OP_HALT] = { pvmd_op_halt, "HALT", 1 },
	[PVMI_OP_HOSTSYNC] = { pvmd_op_hostsync, "HOSTSYNC", 1 },
	[PVMI_OP_ADDHOSTS] = { pvmd_op_addhosts, "ADDHOSTS", 1 },
	[PVMI_OP_DELHOSTS] = { pvmd_op_delhosts, "DELHOSTS", 1 },
	[PVMI_OP_TIDTOHOST] = { pvmd_op_tidtohost, "TIDTOHOST", 1 },
};

static int conn_tid(const struct pvmd_conn *c)
{
	return c->task ? c->task->tid : 0;
}

/* Handles one complete frame received on `c'. */
void pvmd_dispatch(struct pvmd_conn *c, const struct pvmi_frame *f,
		   const unsigned char *body)
{
	const struct op_desc *d;
	struct pvmi_rbuf r;
	int op = f->tag;

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

/* True when a request body was read without error and to its end. */
int pvmd_body_ok(const struct pvmi_rbuf *r)
{
	return !r->failed && r->pos == r->len;
}

static void send_frame(struct pvmd_conn *c, int kind, int dst, int tag,
		       int ctx, const struct pvmi_wbuf *w)
{
	struct pvmi_frame f;

	memset(&f, 0, sizeof(f));
	f.magic = PVMI_FRAME_MAGIC;
	f.len = (uint32_t)w->len;
	f.src = pvmd.dtid;
	f.dst = dst;
	f.tag = tag;
	f.ctx = ctx;
	f.enc = PvmDataDefault;
	f.kind = (uint32_t)kind;
	pvmd_conn_send(c, &f, w->data, w->len);
}

/* Sends a reply frame for `op' whose body is `w' (freed); a body that
 * could not be built is replaced by a PvmNoMem status. */
void pvmd_reply(struct pvmd_conn *c, int op, struct pvmi_wbuf *w)
{
	if (w->failed) {
		pvmi_w_free(w);
		pvmd_reply_status(c, op, PvmNoMem);
		return;
	}
	send_frame(c, PVMI_KIND_REPLY, conn_tid(c), op, 0, w);
	pvmi_w_free(w);
}

/* Sends a reply for `op' carrying only a status. */
void pvmd_reply_status(struct pvmd_conn *c, int op, int status)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, status);
	send_frame(c, PVMI_KIND_REPLY, conn_tid(c), op, 0, &w);
	pvmi_w_free(&w);
}

/* Sends a PVMI_KIND_USER message from the daemon to local task `dst'
 * (`w' is not freed); returns 0, or -1 when that task is not connected. */
int pvmd_send_user(int dst, int tag, int ctx, struct pvmi_wbuf *w)
{
	struct pvmd_task *t = pvmd_task_find(dst);

	if (!t || !t->conn || t->conn->dead || w->failed)
		return -1;
	send_frame(t->conn, PVMI_KIND_USER, dst, tag, ctx, w);
	return 0;
}

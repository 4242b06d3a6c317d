/*
 * reply.c - what the daemon sends to tasks: the answers to requests, the
 * messages tasks send each other, and the daemon's own messages.
 *
 * A reply goes back on the connection the request came from (a proxy's
 * goes back to the daemon that asked, conn.c).  A task's message to a
 * task of this host is queued on that task's connection, or kept for it
 * until it has registered (tasktab.c keeps it, tasks.c hands it over); a
 * message to a task of another host goes to the daemon of that host
 * (peer.c).  Every request handler uses this file; it calls only the
 * connections, the links and the tables.
 */
#include <string.h>

#include "pvmd.h"

/* The tid of the task `c' speaks for (a proxy's remote task too). */
int pvmd_conn_tid(const struct pvmd_conn *c)
{
	return c->task ? c->task->tid : 0;
}

#define conn_tid pvmd_conn_tid

/* True when a request body was read without error and to its end. */
int pvmd_body_ok(const struct pvmi_rbuf *r)
{
	return !r->failed && r->pos == r->len;
}

/* The header of a frame of this daemon's, of `kind', carrying `w'. */
static void daemon_frame(struct pvmi_frame *f, int kind, int dst, int tag,
			 int ctx, const struct pvmi_wbuf *w)
{
	memset(f, 0, sizeof(*f));
	f->magic = PVMI_FRAME_MAGIC;
	f->len = (uint32_t)w->len;
	f->src = pvmd.dtid;
	f->dst = dst;
	f->tag = tag;
	f->ctx = ctx;
	f->enc = PvmDataDefault;
	f->kind = (uint32_t)kind;
}

static void send_frame(struct pvmd_conn *c, int kind, int dst, int tag,
		       int ctx, const struct pvmi_wbuf *w)
{
	struct pvmi_frame f;

	daemon_frame(&f, kind, dst, tag, ctx, w);
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

/* Delivers a USER frame to a local task, or hands it to the daemon of
 * the destination's host; returns the connection it was queued on. */
struct pvmd_conn *pvmd_route_user(const struct pvmi_frame *f,
				  const void *body, size_t len)
{
	struct pvmd_task *t;
	int index = PVMI_TID_INDEX(f->dst);

	if (f->dst <= 0 || PVMI_TID_LOCAL(f->dst) == 0) {
		pvmd_dbg(PVMD_DBG_MSG, "message from t%x to t%x dropped: not "
			 "a task", (unsigned)f->src, (unsigned)f->dst);
		return NULL;
	}
	if (index != pvmd.index)
		return pvmd_peer_send(index, f, body, len);
	t = pvmd_task_find(f->dst);
	if (t && ((!t->conn && (t->flags & PVMD_TF_SPAWNED) &&
		   !(t->flags & PVMD_TF_CONN)) || t->sibs_host || t->held)) {
		/* spawned, not registered (or not answered) yet: it gets
		 * the message right after its REGISTER answer, in order */
		pvmd_task_hold(t, f, body, len);
		return NULL;
	}
	if (!t || !t->conn || t->conn->dead) {
		pvmd_dbg(PVMD_DBG_MSG, "message from t%x to t%x dropped: no "
			 "such task", (unsigned)f->src, (unsigned)f->dst);
		return NULL;
	}
	pvmd_conn_send(t->conn, f, body, len);
	return t->conn;
}

/* Sends a PVMI_KIND_USER message from the daemon to task `dst' of any
 * host (`w' is not freed); returns 0, or -1 when it cannot be sent. */
int pvmd_send_user(int dst, int tag, int ctx, struct pvmi_wbuf *w)
{
	struct pvmi_frame f;
	struct pvmd_task *t;

	if (w->failed)
		return -1;
	if (PVMI_TID_INDEX(dst) == pvmd.index) {
		t = pvmd_task_find(dst);
		if (!t || !t->conn || t->conn->dead)
			return -1;
		send_frame(t->conn, PVMI_KIND_USER, dst, tag, ctx, w);
		return 0;
	}
	if (!pvmd_host_get(PVMI_TID_INDEX(dst)))
		return -1;
	daemon_frame(&f, PVMI_KIND_USER, dst, tag, ctx, w);
	pvmd_peer_send(PVMI_TID_INDEX(dst), &f, w->data, w->len);
	return 0;
}

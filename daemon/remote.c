/*
 * remote.c - requests one daemon hands to another (the frames that arrive
 * from other daemons: dd.c).
 *
 * A task asks its own daemon for everything.  When the answer belongs to
 * another host (a task or host there, the mailbox on the master, a share
 * of a spawn), the daemon forwards the request (DD_REQUEST with a fresh
 * reqid and the asking task's tid) and answers the task when the other
 * daemon's DD_REPLY comes back.  Meanwhile the task's connection is held
 * (struct pvmd_hold): it reads no further request, so its requests and
 * answers stay in order, as on one host.  If the other host leaves the
 * machine first, the waiting requests fail.
 *
 * The daemon that receives a DD_REQUEST runs the ordinary handler of the
 * op on a proxy: a struct pvmd_conn of kind PROXY whose task is a stand-in
 * carrying the remote tid, so handlers see the asking task as they would
 * a local one; the handler's reply goes back as DD_REPLY.  A handler may
 * keep the proxy waiting (a mailbox WaitForInfo, hosts being added), as it
 * would keep a local task waiting.  Only the ops dispatch.c marks
 * `remote' are accepted (it runs them through the hook wiring.c gives);
 * a proxy never forwards again.
 */
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

struct fwd {
	struct fwd *next;
	int reqid;
	int index;
	pvmd_fwd_done done;
	void *arg;
};

struct relay {
	struct pvmd_hold hold;
	int op, fail;
};

struct proxy {
	struct pvmd_conn conn;
	struct pvmd_task task;
	struct proxy *next;
};

struct gather_part {
	int index;
	int n;
	unsigned char *raw;
	size_t len;
};

struct gather {
	struct pvmd_hold hold;
	int left, nparts;
	struct gather_part *parts;
};

struct gather_arg {
	struct gather *g;
	int part;
};

static struct fwd *fwds;
static int next_reqid = 1;
static struct pvmd_hold *holds;
static struct proxy *proxies;
static struct pvmd_conn *halt_caller;
static const struct pvmd_remote_hooks *hooks;

/* Gives the proxies the dispatcher of their requests (wiring.c). */
void pvmd_remote_set_hooks(const struct pvmd_remote_hooks *h)
{
	hooks = h;
}

/* Holds `c' (pvmd.h). */
void pvmd_hold(struct pvmd_hold *h, struct pvmd_conn *c)
{
	h->c = c;
	h->next = holds;
	holds = h;
	c->deferred = 1;
}

/* Ends the hold; returns the connection to answer, or NULL. */
struct pvmd_conn *pvmd_unhold(struct pvmd_hold *h)
{
	struct pvmd_hold **pp;
	struct pvmd_conn *c = h->c;

	for (pp = &holds; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	}
	h->c = NULL;
	if (c && c->dead)
		c = NULL;
	if (c)
		c->deferred = 0;
	return c;
}

/* A connection closes: its holds lose it. */
void pvmd_remote_conn_gone(struct pvmd_conn *c)
{
	struct pvmd_hold *h;

	for (h = holds; h; h = h->next)
		if (h->c == c)
			h->c = NULL;
	if (halt_caller == c)
		halt_caller = NULL;
}

/* Hands a request to host `index' (pvmd.h). */
int pvmd_forward(int index, int tid, int op, const void *body, size_t len,
		 pvmd_fwd_done done, void *arg)
{
	struct pvmi_wbuf w = { 0 };
	struct fwd *p;

	if (!pvmd_host_get(index) || index == pvmd.index)
		return -1;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->reqid = next_reqid++;
	if (next_reqid <= 0)
		next_reqid = 1;
	p->index = index;
	p->done = done;
	p->arg = arg;
	p->next = fwds;
	fwds = p;
	pvmi_w_int(&w, p->reqid);
	pvmi_w_int(&w, tid);
	pvmi_w_int(&w, op);
	pvmi_w_bytes(&w, body, len);
	pvmd_dbg(PVMD_DBG_NET, "request %d (op %d of t%x) to host %d",
		 p->reqid, op, (unsigned)tid, index);
	pvmd_peer_send_dd(index, PVMI_DD_REQUEST, &w);
	pvmi_w_free(&w);
	return 0;
}

static void relay_done(void *arg, int index, struct pvmi_rbuf *r)
{
	struct relay *rl = arg;
	struct pvmd_conn *c = pvmd_unhold(&rl->hold);
	struct pvmi_wbuf w = { 0 };

	if (c) {
		if (r) {
			pvmi_w_raw(&w, r->data + r->pos, r->len - r->pos);
			pvmd_reply(c, rl->op, &w);
		} else {
			pvmd_reply_status(c, rl->op, rl->fail);
		}
		pvmd_conn_resume(c);
	}
	free(rl);
}

/* Forwards `c''s request to `index' and relays the answer. */
void pvmd_forward_relay(struct pvmd_conn *c, int index, int op,
			const struct pvmi_rbuf *r, int fail)
{
	struct relay *rl = calloc(1, sizeof(*rl));

	if (!rl) {
		pvmd_reply_status(c, op, PvmNoMem);
		return;
	}
	rl->op = op;
	rl->fail = fail;
	if (pvmd_forward(index, pvmd_conn_tid(c), op, r->data, r->len,
			 relay_done, rl) < 0) {
		free(rl);
		pvmd_reply_status(c, op, fail);
		return;
	}
	pvmd_hold(&rl->hold, c);
}

/* ---- the other side: proxies ---- */

/* A proxy's frame: its REPLY goes back as DD_REPLY, once. */
void pvmd_proxy_send(struct pvmd_conn *c, const struct pvmi_frame *f,
		     const void *body, size_t len)
{
	struct pvmi_wbuf w = { 0 };

	if (f->kind != PVMI_KIND_REPLY || c->replied || c->dead)
		return;
	c->replied = 1;
	c->deferred = 0;
	pvmi_w_int(&w, c->reqid);
	pvmi_w_bytes(&w, body, len);
	pvmd_peer_send_dd(c->host, PVMI_DD_REPLY, &w);
	pvmi_w_free(&w);
}

/* Runs a DD_REQUEST of host `from' on a proxy (see the top). */
void pvmd_remote_request(struct pvmd_conn *from, struct pvmi_rbuf *r)
{
	int32_t reqid = pvmi_r_int(r), tid = pvmi_r_int(r), op = pvmi_r_int(r);
	const void *p;
	struct pvmi_rbuf ir;
	struct proxy *px;
	size_t n = 0;

	p = pvmi_r_bytes(r, &n);
	if (!pvmd_body_ok(r)) {
		pvmd_log("bad request from host %d dropped", from->host);
		return;
	}
	px = calloc(1, sizeof(*px));
	if (!px)
		return;
	px->conn.kind = PVMD_CONN_PROXY;
	px->conn.w.fd = -1;
	px->conn.host = from->host;
	px->conn.reqid = reqid;
	px->conn.task = &px->task;
	px->task.tid = tid;
	px->task.conn = &px->conn;
	px->task.aout = (char *)"";
	px->next = proxies;
	proxies = px;
	pvmi_r_init(&ir, p, n);
	if (hooks->run_op(&px->conn, op, &ir) < 0) {
		pvmd_log("host %d asked for op %d, which it may not",
			 from->host, op);
		pvmd_reply_status(&px->conn, op, PvmBadParam);
	}
	if (!px->conn.replied && !px->conn.deferred)
		pvmd_reply_status(&px->conn, op, PvmSysErr);
}

/* Hands a DD_REPLY of host `from' to the request it answers. */
void pvmd_remote_reply(struct pvmd_conn *from, struct pvmi_rbuf *r)
{
	int32_t reqid = pvmi_r_int(r);
	struct fwd **pp, *p;
	struct pvmi_rbuf ir;
	const void *b;
	size_t n = 0;

	b = pvmi_r_bytes(r, &n);
	if (!pvmd_body_ok(r))
		return;
	for (pp = &fwds; (p = *pp); pp = &p->next) {
		if (p->reqid == reqid && p->index == from->host) {
			*pp = p->next;
			pvmi_r_init(&ir, b, n);
			p->done(p->arg, p->index, &ir);
			free(p);
			return;
		}
	}
	pvmd_dbg(PVMD_DBG_NET, "reply %d from host %d matches nothing",
		 reqid, from->host);
}

/* Frees the proxies answered or dropped during the turn. */
void pvmd_remote_turn_end(void)
{
	struct proxy **pp, *px;

	for (pp = &proxies; (px = *pp);) {
		if (px->conn.replied || px->conn.dead) {
			*pp = px->next;
			free(px);
		} else {
			pp = &px->next;
		}
	}
}

/* Host `index' left: fails what waits for it, drops its proxies. */
void pvmd_remote_host_gone(int index)
{
	struct fwd **pp, *p;
	struct proxy *px;

	for (pp = &fwds; (p = *pp);) {
		if (p->index != index) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->done(p->arg, index, NULL);
		free(p);
		pp = &fwds;	/* `done' may have changed the list */
	}
	for (px = proxies; px; px = px->next)
		if (px->conn.host == index && !px->conn.replied)
			pvmd_conn_close(&px->conn, "host left");
}

/* Task `tid' of another host is gone: drops the proxies held for it. */
void pvmd_remote_task_gone(int tid)
{
	struct proxy *px;

	for (px = proxies; px; px = px->next)
		if (px->task.tid == tid && !px->conn.replied)
			pvmd_conn_close(&px->conn, "task gone");
}

/* ---- TASKS over every host ---- */

static void gather_finish(struct gather *g)
{
	struct pvmd_conn *c = pvmd_unhold(&g->hold);
	struct pvmi_wbuf w = { 0 };
	int i, total = 0;

	for (i = 0; i < g->nparts; i++)
		total += g->parts[i].n;
	if (c) {
		pvmi_w_int(&w, total);
		for (i = 0; i < g->nparts; i++)
			pvmi_w_raw(&w, g->parts[i].raw, g->parts[i].len);
		pvmd_reply(c, PVMI_OP_TASKS, &w);
		pvmd_conn_resume(c);
	}
	for (i = 0; i < g->nparts; i++)
		free(g->parts[i].raw);
	free(g->parts);
	free(g);
}

static void gather_done(void *arg, int index, struct pvmi_rbuf *r)
{
	struct gather_arg *ga = arg;
	struct gather_part *part = &ga->g->parts[ga->part];
	struct gather *g = ga->g;
	int32_t n;

	free(ga);
	if (r) {
		n = pvmi_r_int(r);
		if (!r->failed && n > 0) {
			part->len = r->len - r->pos;
			part->raw = malloc(part->len ? part->len : 1);
			if (part->raw) {
				memcpy(part->raw, r->data + r->pos, part->len);
				part->n = n;
			} else {
				part->len = 0;
			}
		}
	}
	if (--g->left == 0)
		gather_finish(g);
}

/* The rows of this host's tasks, as TASKS answers them. */
static void local_rows(struct gather_part *part)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_task *t;

	for (t = pvmd_task_first(); t; t = t->next) {
		pvmi_w_int(&w, t->tid);
		pvmi_w_int(&w, t->ptid);
		pvmi_w_int(&w, pvmd.dtid);
		pvmi_w_int(&w, t->flags);
		pvmi_w_int(&w, (int32_t)t->pid);
		pvmi_w_str(&w, t->aout);
		part->n++;
	}
	if (w.failed) {
		part->n = 0;
		pvmi_w_free(&w);
		return;
	}
	part->raw = w.data;
	part->len = w.len;
}

/* Answers TASKS for every host, in host-table order. */
void pvmd_remote_tasks_all(struct pvmd_conn *c)
{
	struct pvmi_wbuf q = { 0 };
	struct gather_arg *ga;
	struct pvmd_host *h;
	struct gather *g;
	int i = 0;

	g = calloc(1, sizeof(*g));
	if (!g || !(g->parts = calloc((size_t)pvmd_host_count(),
				      sizeof(*g->parts)))) {
		free(g);
		pvmd_reply_status(c, PVMI_OP_TASKS, PvmNoMem);
		return;
	}
	g->nparts = pvmd_host_count();
	g->left = 1;		/* until every request is out */
	pvmd_hold(&g->hold, c);
	for (h = pvmd_host_next(0); h && i < g->nparts;
	     h = pvmd_host_next(h->index), i++) {
		g->parts[i].index = h->index;
		if (h->index == pvmd.index) {
			local_rows(&g->parts[i]);
			continue;
		}
		ga = malloc(sizeof(*ga));
		if (!ga)
			continue;
		ga->g = g;
		ga->part = i;
		pvmi_w_free(&q);
		pvmi_w_int(&q, h->dtid);
		g->left++;
		if (pvmd_forward(h->index, pvmd_conn_tid(c), PVMI_OP_TASKS,
				 q.data, q.len, gather_done, ga) < 0) {
			g->left--;
			free(ga);
		}
	}
	pvmi_w_free(&q);
	if (--g->left == 0)
		gather_finish(g);
}

/* Slave: remembers the task that asked for the halt, to spare it. */
void pvmd_remote_halt_caller(struct pvmd_conn *c)
{
	halt_caller = c;
}

/* Slave: the master halts the machine; the task that asked is spared. */
void pvmd_remote_halt(void)
{
	pvmd_log("the master halts the machine");
	pvmd_halt(halt_caller);
}

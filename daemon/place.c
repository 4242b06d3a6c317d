/*
 * place.c - the SPAWN request: which hosts start the tasks of one
 * pvm_spawn, and a spawn spread over several hosts (spawn.c starts this
 * host's share).
 *
 * The hosts a spawn may use: all of them (PvmTaskDefault), the one `where'
 * names (PvmTaskHost; "." is this one), those of architecture `where'
 * (PvmTaskArch), or the complement of that set (PvmHostCompl), always in
 * host-index order.  How many each starts follows what stock PVM 3.4.6
 * does, as observed (docs/multihost.md): the daemon keeps a round-robin
 * position, first the host after its own.  The spawn starts at the first
 * usable host at or after that position.  Fewer tasks than hosts: one
 * each on consecutive hosts, and the position moves past the last one
 * used.  At least as many tasks as hosts: task j goes to the
 * floor(j * nhosts / count)-th host counted from the start, and the
 * position stays on the start.  The tids come back grouped by host, in
 * that order.
 *
 * When every task lands here the spawn is done at once, as on one host.
 * Otherwise this host starts its share, the other daemons get theirs as a
 * SPAWN with PVMD_SPAWN_PART (remote.c), and the task is answered when all
 * have replied: started tids first, errors last.  Only then is the list
 * of siblings complete; every host that started some gets it
 * (DD_SIBLINGS), and the new tasks, which were held at REGISTER, go on.
 */
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

struct part {
	int index;
	int count;
	int nok;
	int32_t *res;
	int done;
};

struct placing {
	struct pvmd_hold hold;
	int count;
	int nparts, left;
	struct part *parts;
};

struct part_arg {
	struct placing *pl;
	int part;
};

static int rr_next;		/* host index to start from; 0: after us */

static void free_strv(char **v, int n)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Frees what a decoded request holds. */
void pvmd_spawn_req_free(struct spawn_req *q)
{
	free(q->file);
	free(q->where);
	free_strv(q->argv, q->argc);
	free_strv(q->env, q->envc);
}

/* Reads "int n, str v[n]" with n bounded by the bytes left; 0 or -1. */
static int read_strv(struct pvmi_rbuf *r, int *n, char ***v)
{
	int32_t cnt = pvmi_r_int(r);
	int i;

	*n = 0;
	*v = NULL;
	if (r->failed || cnt < 0 ||
	    (size_t)cnt > (r->len - r->pos) / PVMI_ITEM_HDR_LEN)
		return -1;
	*v = calloc((size_t)cnt + 1, sizeof(char *));
	if (!*v)
		return -1;
	*n = cnt;
	for (i = 0; i < cnt; i++)
		(*v)[i] = pvmi_r_str(r);
	return r->failed ? -1 : 0;
}

static int read_req(struct pvmi_rbuf *r, struct spawn_req *q)
{
	q->file = pvmi_r_str(r);
	q->flags = pvmi_r_int(r);
	q->where = pvmi_r_str(r);
	q->count = pvmi_r_int(r);
	if (read_strv(r, &q->argc, &q->argv) < 0 ||
	    read_strv(r, &q->envc, &q->env) < 0)
		return -1;
	q->ctx = pvmi_r_int(r);
	q->outtid = pvmi_r_int(r);
	q->outcode = pvmi_r_int(r);
	q->outctx = pvmi_r_int(r);
	q->trctid = pvmi_r_int(r);
	q->trccode = pvmi_r_int(r);
	q->trcctx = pvmi_r_int(r);
	return pvmd_body_ok(r) ? 0 : -1;
}

/* Encodes `q' with a new count and host into `w' (a SPAWN request for
 * another daemon: that host's share, siblings to come later). */
void pvmd_spawn_encode(const struct spawn_req *q, int count,
		       const char *host, struct pvmi_wbuf *w)
{
	int i;

	pvmi_w_str(w, q->file);
	pvmi_w_int(w, (q->flags & ~(PvmTaskArch | PvmHostCompl)) |
		   PvmTaskHost | PVMD_SPAWN_PART);
	pvmi_w_str(w, host);
	pvmi_w_int(w, count);
	pvmi_w_int(w, q->argc);
	for (i = 0; i < q->argc; i++)
		pvmi_w_str(w, q->argv[i]);
	pvmi_w_int(w, q->envc);
	for (i = 0; i < q->envc; i++)
		pvmi_w_str(w, q->env[i]);
	pvmi_w_int(w, q->ctx);
	pvmi_w_int(w, q->outtid);
	pvmi_w_int(w, q->outcode);
	pvmi_w_int(w, q->outctx);
	pvmi_w_int(w, q->trctid);
	pvmi_w_int(w, q->trccode);
	pvmi_w_int(w, q->trcctx);
}

/* Fills `e' with the indices of the hosts `q' may use; returns how many. */
static int eligible(const struct spawn_req *q, int *e)
{
	struct pvmd_host *h, *named = NULL;
	int n = 0, in;

	if (q->flags & PvmTaskHost)
		named = pvmd_host_find(q->where);
	for (h = pvmd_host_next(0); h; h = pvmd_host_next(h->index)) {
		if (q->flags & PvmTaskHost)
			in = h == named;
		else if (q->flags & PvmTaskArch)
			in = !strcmp(h->arch, q->where);
		else
			in = 1;
		if (q->flags & PvmHostCompl)
			in = !in;
		if (in)
			e[n++] = h->index;
	}
	return n;
}

/* Splits `count' tasks over the `n' usable hosts `e' (see the top);
 * fills parts[] in result order and returns how many parts there are. */
static int split(const int *e, int n, int count, struct part *parts)
{
	int start = 0, i, j, k, np = 0, from = rr_next;

	if (!from)
		from = pvmd.index + 1;
	for (i = 0; i < n; i++)
		if (e[i] >= from)
			break;
	start = i < n ? i : 0;
	if (count < n) {
		for (j = 0; j < count; j++) {
			parts[np].index = e[(start + j) % n];
			parts[np++].count = 1;
		}
		rr_next = e[(start + count) % n];
		return np;
	}
	for (i = 0; i < n; i++) {
		parts[i].index = e[(start + i) % n];
		parts[i].count = 0;
	}
	for (j = 0; j < count; j++) {
		k = (int)((long long)j * n / count);
		parts[k].count++;
	}
	rr_next = e[start];
	return n;
}

static void reply_spawn(struct pvmd_conn *c, const int32_t *res, int nok,
			int count)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, nok);
	pvmi_w_ints(&w, res, (size_t)count);
	pvmd_reply(c, PVMI_OP_SPAWN, &w);
}

/* Every part answered: the tids to the task, the siblings to the hosts. */
static void finish(struct placing *pl)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_conn *c = pvmd_unhold(&pl->hold);
	int32_t *res = calloc((size_t)pl->count, sizeof(*res));
	int i, j, nok = 0, nerr = 0;

	if (!res) {
		if (c)
			pvmd_reply_status(c, PVMI_OP_SPAWN, PvmNoMem);
		goto out;
	}
	for (i = 0; i < pl->nparts; i++) {
		for (j = 0; j < pl->parts[i].nok; j++)
			res[nok++] = pl->parts[i].res[j];
		for (j = pl->parts[i].nok; j < pl->parts[i].count; j++)
			res[pl->count - 1 - nerr++] = pl->parts[i].res[j];
	}
	if (c) {
		reply_spawn(c, res, nok, pl->count);
		pvmd_conn_resume(c);
	}
	pvmi_w_int(&w, nok);
	pvmi_w_ints(&w, res, (size_t)nok);
	for (i = 0; i < pl->nparts; i++)
		if (pl->parts[i].index != pvmd.index && pl->parts[i].nok)
			pvmd_peer_send_dd(pl->parts[i].index, PVMI_DD_SIBLINGS,
					  &w);
	pvmi_w_free(&w);
	pvmd_tasks_siblings(res, nok);
	free(res);
out:
	for (i = 0; i < pl->nparts; i++)
		free(pl->parts[i].res);
	free(pl->parts);
	free(pl);
}

static void part_done(void *arg, int index, struct pvmi_rbuf *r)
{
	struct part_arg *pa = arg;
	struct placing *pl = pa->pl;
	struct part *p = &pl->parts[pa->part];
	int32_t nok = PvmHostFail;
	int j;

	free(pa);
	if (r) {
		nok = pvmi_r_int(r);
		if (r->failed || nok > p->count ||
		    (nok >= 0 && pvmi_r_ints(r, p->res, (size_t)p->count)))
			nok = PvmSysErr;
	}
	if (nok < 0) {
		for (j = 0; j < p->count; j++)
			p->res[j] = nok;
		nok = 0;
	}
	p->nok = nok;
	if (--pl->left == 0)
		finish(pl);
}

/* Hands part `i' to its host; returns 0, or -1 when it failed at once. */
static int send_part(struct placing *pl, int i, const struct spawn_req *q,
		     int tid)
{
	struct pvmi_wbuf w = { 0 };
	struct part *p = &pl->parts[i];
	struct part_arg *pa = malloc(sizeof(*pa));
	struct pvmd_host *h = pvmd_host_get(p->index);
	int rc = -1;

	if (pa && h) {
		pa->pl = pl;
		pa->part = i;
		pvmd_spawn_encode(q, p->count, h->name, &w);
		rc = w.failed ? -1 : pvmd_forward(p->index, tid, PVMI_OP_SPAWN,
						  w.data, w.len, part_done, pa);
		pvmi_w_free(&w);
	}
	if (rc < 0)
		free(pa);
	return rc;
}

/* Spreads SPAWN request `q' of `c' over the hosts (see the top). */
void pvmd_place_spawn(struct pvmd_conn *c, struct spawn_req *q)
{
	struct placing *pl = NULL;
	int *e = NULL, n, i, j, ptid, tid = pvmd_conn_tid(c);

	ptid = (q->flags & PvmNoSpawnParent) ? PvmParentNotSet : tid;
	e = calloc((size_t)pvmd_host_count() + 1, sizeof(*e));
	pl = calloc(1, sizeof(*pl));
	if (!e || !pl || !(pl->parts = calloc((size_t)pvmd_host_count() +
					      (size_t)q->count + 1,
					      sizeof(*pl->parts)))) {
		pvmd_reply_status(c, PVMI_OP_SPAWN, PvmNoMem);
		goto fail;
	}
	pl->count = q->count;
	n = eligible(q, e);
	if (n == 0) {
		pl->nparts = 1;
		pl->parts[0].index = 0;
		pl->parts[0].count = q->count;
	} else {
		pl->nparts = split(e, n, q->count, pl->parts);
	}
	for (i = 0; i < pl->nparts; i++) {
		pl->parts[i].res = calloc((size_t)pl->parts[i].count + 1,
					  sizeof(int32_t));
		if (!pl->parts[i].res) {
			pvmd_reply_status(c, PVMI_OP_SPAWN, PvmNoMem);
			goto fail;
		}
	}
	if (n == 0) {
		for (j = 0; j < q->count; j++)
			pl->parts[0].res[j] = PvmNoHost;
		reply_spawn(c, pl->parts[0].res, 0, q->count);
		goto fail;
	}
	if (pl->nparts == 1 && pl->parts[0].index == pvmd.index) {
		/* all here: done at once, as on a host of its own */
		struct part *p = &pl->parts[0];

		p->nok = pvmd_spawn_here(q, ptid, 0, p->res, p->count);
		pvmd_tasks_siblings(p->res, p->nok);
		reply_spawn(c, p->res, p->nok, p->count);
		for (j = 0; j < p->nok; j++)
			pvmd_output_announce(p->res[j]);
		goto fail;
	}
	pvmd_hold(&pl->hold, c);
	pl->left = 1;		/* until every part is out */
	for (i = 0; i < pl->nparts; i++) {
		struct part *p = &pl->parts[i];

		if (p->index == pvmd.index) {
			p->nok = pvmd_spawn_here(q, ptid, pvmd.index, p->res,
						 p->count);
		} else if (send_part(pl, i, q, tid) == 0) {
			pl->left++;
		} else {
			for (j = 0; j < p->count; j++)
				p->res[j] = PvmNoHost;
		}
	}
	free(e);
	pvmd_spawn_req_free(q);
	if (--pl->left == 0)
		finish(pl);
	return;
fail:
	if (pl) {
		for (i = 0; pl->parts && i < pl->nparts; i++)
			free(pl->parts[i].res);
		free(pl->parts);
	}
	free(pl);
	free(e);
	pvmd_spawn_req_free(q);
}

/* SPAWN: a task's request is spread over the hosts (above); another
 * daemon's (PVMD_SPAWN_PART) is answered "int started, ints[count]" with
 * the started tids first, then the error code of each slot that failed.
 * A task may not set PVMD_SPAWN_PART itself. */
void pvmd_op_spawn(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct spawn_req q;
	struct pvmi_wbuf w = { 0 };
	int32_t *res;
	int nok, ptid;

	memset(&q, 0, sizeof(q));
	if (read_req(r, &q) < 0) {
		pvmd_reply_status(c, PVMI_OP_SPAWN, PvmBadMsg);
		goto out;
	}
	if (q.count < 1 || q.count > PVMI_TID_LOCAL_MASK) {
		pvmd_reply_status(c, PVMI_OP_SPAWN, PvmBadParam);
		goto out;
	}
	if (c->kind != PVMD_CONN_PROXY || !(q.flags & PVMD_SPAWN_PART)) {
		q.flags &= ~PVMD_SPAWN_PART;
		if (c->kind != PVMD_CONN_PROXY) {
			pvmd_place_spawn(c, &q);	/* takes q over */
			return;
		}
	}
	res = calloc((size_t)q.count, sizeof(*res));
	if (!res) {
		pvmd_reply_status(c, PVMI_OP_SPAWN, PvmNoMem);
		goto out;
	}
	ptid = (q.flags & PvmNoSpawnParent) ? PvmParentNotSet :
						 pvmd_conn_tid(c);
	nok = pvmd_spawn_here(&q, ptid, c->host, res, q.count);
	pvmi_w_int(&w, nok);
	pvmi_w_ints(&w, res, (size_t)q.count);
	pvmd_reply(c, PVMI_OP_SPAWN, &w);
	free(res);
out:
	pvmd_spawn_req_free(&q);
}

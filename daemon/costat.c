/*
 * costat.c - COSCHED, the coscheduling pages of the machine's tasks for
 * the live view (copvm-cosched top, through copvm_cosched_gather): this
 * host's pages as copvm-cosched -r lines (common/cosched_cmd.c reads and
 * formats them), or every host's, gathered through remote.c's forwarding
 * and answered host by host in host-table order.  A host that has not
 * answered within COSTAT_WAIT_MS, or that left, gets a record saying
 * PvmHostFail; an older daemon that does not know the op answers
 * PvmBadParam, which its record carries; a malformed answer, PvmBadMsg.
 * So a lost, old or faulty host shows as such, spoils no other host's
 * record, and never holds the asking task longer than the wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cosched_cmd.h"
#include "pvmd.h"

/* How long the asker waits for the other hosts' records. */
#define COSTAT_WAIT_MS	1500

struct costat_part {
	int dtid, status;
	unsigned char *raw;	/* the host's record, as it answered it */
	size_t len;
};

struct costat_gather {
	struct pvmd_hold hold;
	struct costat_gather *next;
	long long deadline;
	int left;		/* forwards not yet answered or failed */
	int finished;		/* answered; freed once `left' is 0 */
	int nparts;
	struct costat_part *parts;
};

struct costat_arg {
	struct costat_gather *g;
	int part;
};

static struct costat_gather *gathers;

/* This host's record: int dtid, int status, str name, int time high,
 * int time low (CLOCK_MONOTONIC ns of the snapshot), str lines. */
static void local_record(struct pvmi_wbuf *w)
{
	struct csr_list l = { 0 };
	struct timespec ts;
	struct csr_dir d;
	char *text = NULL;
	size_t len = 0;
	uint64_t ns;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	f = open_memstream(&text, &len);
	if (f && csr_open(&d, pvmd.dir) == 0 && csr_load(&d, &l) == 0)
		csr_print(f, &l, pvmd.hostname, 1);
	if (f)
		csr_close(&d);
	csr_list_free(&l);
	if (f)
		fclose(f);
	pvmi_w_int(w, pvmd.dtid);
	pvmi_w_int(w, PvmOk);
	pvmi_w_str(w, pvmd.hostname);
	pvmi_w_u64(w, ns);
	pvmi_w_str(w, text ? text : "");
	free(text);
}

/* The record of a host that did not answer with one. */
static void failed_record(struct pvmi_wbuf *w, int dtid, int status)
{
	struct pvmd_host *h = pvmd_host_get(PVMI_TID_INDEX(dtid));

	pvmi_w_int(w, dtid);
	pvmi_w_int(w, status);
	pvmi_w_str(w, h ? h->name : "");
	pvmi_w_u64(w, 0);		/* no time: no answer */
	pvmi_w_str(w, "");
}

static void gather_free(struct costat_gather *g)
{
	struct costat_gather **pp;
	int i;

	for (pp = &gathers; *pp; pp = &(*pp)->next) {
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	}
	for (i = 0; i < g->nparts; i++)
		free(g->parts[i].raw);
	free(g->parts);
	free(g);
}

/* Answers the asker with what came; the rest says PvmHostFail. */
static void gather_finish(struct costat_gather *g)
{
	struct pvmd_conn *c = pvmd_unhold(&g->hold);
	struct pvmi_wbuf w = { 0 };
	struct costat_part *p;
	int i;

	g->finished = 1;
	if (c) {
		pvmi_w_int(&w, g->nparts);
		for (i = 0; i < g->nparts; i++) {
			p = &g->parts[i];
			if (p->raw)
				pvmi_w_raw(&w, p->raw, p->len);
			else if (p->dtid == pvmd.dtid)
				local_record(&w);
			else
				failed_record(&w, p->dtid, p->status);
		}
		pvmd_reply(c, PVMI_OP_COSCHED, &w);
		pvmd_conn_resume(c);
	}
	if (g->left == 0)
		gather_free(g);
}

/* True when `r' holds exactly one well-formed record of host `dtid'
 * (local_record's layout), so that a faulty daemon spoils its own row
 * only. */
static int record_ok(struct pvmi_rbuf r, int dtid)
{
	char *name, *lines;
	int32_t d;

	d = pvmi_r_int(&r);
	pvmi_r_int(&r);
	name = pvmi_r_str(&r);
	pvmi_r_int(&r);
	pvmi_r_int(&r);
	lines = pvmi_r_str(&r);
	free(name);
	free(lines);
	return !r.failed && r.pos == r.len && d == dtid;
}

static void gather_done(void *arg, int index, struct pvmi_rbuf *r)
{
	struct costat_arg *ga = arg;
	struct costat_gather *g = ga->g;
	struct costat_part *p = &g->parts[ga->part];
	int32_t n;

	free(ga);
	g->left--;
	if (g->finished) {
		if (g->left == 0)
			gather_free(g);
		return;
	}
	if (r) {
		n = pvmi_r_int(r);
		if (r->failed)
			p->status = PvmBadMsg;
		else if (n < 0)
			p->status = n;
		else if (n != 1 || !record_ok(*r, p->dtid))
			p->status = PvmBadMsg;
		else if ((p->raw = malloc(r->len - r->pos))) {
			p->len = r->len - r->pos;
			memcpy(p->raw, r->data + r->pos, p->len);
		} else {
			p->status = PvmNoMem;
		}
	}
	if (g->left == 0)
		gather_finish(g);
}

/* Asks host `h' for its record into part `i' of `g'. */
static void gather_ask(struct costat_gather *g, int i, struct pvmd_conn *c)
{
	struct pvmi_wbuf q = { 0 };
	struct costat_arg *ga = malloc(sizeof(*ga));

	if (!ga)
		return;
	ga->g = g;
	ga->part = i;
	pvmi_w_int(&q, g->parts[i].dtid);
	g->left++;
	if (pvmd_forward(PVMI_TID_INDEX(g->parts[i].dtid), pvmd_conn_tid(c),
			 PVMI_OP_COSCHED, q.data, q.len, gather_done, ga) < 0) {
		g->left--;
		free(ga);
	}
	pvmi_w_free(&q);
}

/* Gathers the records of every host (which = 0) or of host `which'. */
static void gather(struct pvmd_conn *c, int which)
{
	struct costat_gather *g;
	struct pvmd_host *h;
	int i = 0, n = which ? 1 : pvmd_host_count();

	g = calloc(1, sizeof(*g));
	if (!g || !(g->parts = calloc((size_t)n, sizeof(*g->parts)))) {
		free(g);
		pvmd_reply_status(c, PVMI_OP_COSCHED, PvmNoMem);
		return;
	}
	g->nparts = n;
	g->deadline = pvmd_now_ms() + COSTAT_WAIT_MS;
	g->next = gathers;
	gathers = g;
	pvmd_hold(&g->hold, c);
	g->left = 1;		/* until every request is out */
	for (h = pvmd_host_next(0); h && i < n; h = pvmd_host_next(h->index)) {
		if (which && h->dtid != which)
			continue;
		g->parts[i].dtid = h->dtid;
		g->parts[i].status = PvmHostFail;
		if (h->index != pvmd.index)
			gather_ask(g, i, c);
		i++;
	}
	g->nparts = i;
	pvmd_tick_within(COSTAT_WAIT_MS);
	if (--g->left == 0)
		gather_finish(g);
}

/* COSCHED (proto.h): this host's record, or the gathered records of
 * every host or of another one; a proxy only ever answers its own. */
void pvmd_op_cosched(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	int32_t which = pvmi_r_int(r);
	struct pvmd_host *h;

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_COSCHED, PvmBadMsg);
		return;
	}
	if (which == pvmd.dtid ||
	    (which == 0 && c->kind == PVMD_CONN_PROXY)) {
		pvmi_w_int(&w, 1);
		local_record(&w);
		pvmd_reply(c, PVMI_OP_COSCHED, &w);
		return;
	}
	h = which ? pvmd_host_get(PVMI_TID_INDEX(which)) : NULL;
	if (c->kind == PVMD_CONN_PROXY || which < 0 ||
	    (which && (!h || h->dtid != which))) {
		pvmd_reply_status(c, PVMI_OP_COSCHED, PvmNoHost);
		return;
	}
	gather(c, which);
}

/* The loop's tick: answers the gathers whose wait for other hosts is
 * over, and asks for another tick by the next one's deadline. */
void pvmd_costat_tick(void)
{
	struct costat_gather *g, *next;
	long long now = pvmd_now_ms();

	for (g = gathers; g; g = next) {
		next = g->next;
		if (g->finished)
			continue;
		if (now >= g->deadline)
			gather_finish(g);
		else
			pvmd_tick_within((int)(g->deadline - now));
	}
}

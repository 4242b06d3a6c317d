/*
 * pvmgs.c - the group server: one PVM task that holds every dynamic
 * group of the virtual machine.
 *
 * libgpvm3 starts it on first use (client.c) and finds it through a
 * mailbox entry the server owns, so the entry disappears with it.  If an
 * entry exists already, another server won the race and this one exits.
 * The server then answers requests (gs_proto.h) one at a time, in the
 * reserved group context, and asks the daemon to tell it when a member
 * task exits so that the task's instances are freed and no barrier waits
 * for it (gs_db.c).  It keeps running until the virtual machine halts.
 *
 * Usage: pvmgs (no arguments; started by the library, not by hand).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs.h"
#include "gs_proto.h"
#include "pvm3.h"

static int mytid;

/* Tasks whose exit the daemon will report (each asked for once). */
static int *known;
static int nknown, known_cap;

/* Scratch arrays for multicasts and the name being read. */
static int *dest;
static int dest_cap;
static char *namebuf;
static size_t name_cap;

static int *dest_room(int n)
{
	if (n > dest_cap) {
		int *d = realloc(dest, (size_t)n * sizeof(int));

		if (!d)
			return NULL;
		dest = d;
		dest_cap = n;
	}
	return dest;
}

/* Packs <result> of gs_proto.h into the active send buffer. */
static void pack_result(const struct gs_group *g, int status, int frozen,
			int table)
{
	int v[3];

	v[0] = status;
	v[1] = frozen;
	v[2] = table && g ? g->nslots : 0;
	pvm_pkint(v, 3, 1);
	if (v[2] > 0)
		pvm_pkint(g->slots, v[2], 1);
}

static void reply(int tid, int serial, const struct gs_group *g,
		  int status, int table)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&serial, 1, 1);
	pack_result(g, status, g ? g->frozen : 0, table);
	pvm_send(tid, GS_TAG_REPLY);
}

void gs_send_release(struct gs_group *g, struct gs_sync *s, int status,
		     int table)
{
	int i, *d = dest_room(s->n);

	pvm_initsend(PvmDataDefault);
	pvm_pkint(&s->n, 1, 1);
	for (i = 0; i < s->n; i++) {
		pvm_pkint(&s->w[i].tid, 1, 1);
		pvm_pkint(&s->w[i].serial, 1, 1);
		if (d)
			d[i] = s->w[i].tid;
	}
	pack_result(g, status, g->frozen, table);
	if (d) {
		pvm_mcast(d, s->n, GS_TAG_RELEASE);
	} else {
		for (i = 0; i < s->n; i++)
			pvm_send(s->w[i].tid, GS_TAG_RELEASE);
	}
	s->n = 0;
}

void gs_send_inval(struct gs_group *g, int except)
{
	int i, n = 0, *d;

	if (g->nwatch == 0)
		return;
	d = dest_room(g->nwatch);
	if (d) {
		for (i = 0; i < g->nwatch; i++)
			if (g->watchers[i] != except)
				d[n++] = g->watchers[i];
	}
	g->nwatch = 0;
	if (n == 0)
		return;
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(g->name);
	pvm_mcast(d, n, GS_TAG_INVAL);
}

/* Makes sure the daemon tells us when member `tid' exits. */
static void watch_task(int tid)
{
	int i;

	for (i = 0; i < nknown; i++)
		if (known[i] == tid)
			return;
	if (nknown == known_cap) {
		int ncap = known_cap ? 2 * known_cap : 64;
		int *k = realloc(known, (size_t)ncap * sizeof(int));

		if (!k)
			return;
		known = k;
		known_cap = ncap;
	}
	if (pvm_notify(PvmTaskExit, GS_TAG_EXIT, 1, &tid) >= 0)
		known[nknown++] = tid;
}

static void forget_task(int tid)
{
	int i;

	for (i = 0; i < nknown; i++) {
		if (known[i] == tid) {
			known[i] = known[--nknown];
			break;
		}
	}
	gs_task_gone(tid);
}

/* Reads the group name of a request of `len' bytes; NULL if malformed. */
static const char *read_name(int len)
{
	if ((size_t)len + 1 > name_cap) {
		char *n = realloc(namebuf, (size_t)len + 1);

		if (!n)
			return NULL;
		namebuf = n;
		name_cap = (size_t)len + 1;
	}
	return pvm_upkstr(namebuf) < 0 ? NULL : namebuf;
}

static void request(int src, int len)
{
	struct gs_group *g;
	const char *name;
	int v[2], arg, r, table = 0;

	if (pvm_upkint(v, 2, 1) < 0)
		return;
	name = read_name(len);
	if (!name || pvm_upkint(&arg, 1, 1) < 0) {
		reply(src, v[1], NULL, PvmBadMsg, 0);
		return;
	}
	switch (v[0]) {
	case GS_OP_JOIN:
		r = gs_join(name, src);
		if (r >= 0)
			watch_task(src);
		break;
	case GS_OP_LEAVE:
		r = gs_leave(name, src);
		break;
	case GS_OP_GETINST:
		g = gs_find(name);
		r = !g ? PvmNoGroup : gs_inst_of(g, arg);
		if (g && r < 0)
			r = PvmNotInGroup;
		break;
	case GS_OP_GETTID:
		g = gs_find(name);
		r = !g ? PvmNoGroup :
		    (arg < 0 || arg >= g->nslots || !g->slots[arg]) ?
		    PvmNoInst : g->slots[arg];
		break;
	case GS_OP_GSIZE:
		g = gs_find(name);
		r = g ? g->nmembers : PvmNoGroup;
		break;
	case GS_OP_BARRIER:
		r = gs_barrier(name, src, v[1], arg);
		if (r == PvmOk)
			return;		/* answered by the release */
		break;
	case GS_OP_FREEZE:
		r = gs_freeze(name, src, v[1], arg);
		if (r == PvmOk)
			return;
		break;
	case GS_OP_LIST:
		g = gs_find(name);
		r = !g ? PvmNoGroup : gs_watch(g, src);
		if (r == PvmOk) {
			r = g->nmembers;
			table = 1;
		}
		break;
	case GS_OP_DUMP:
		gs_dump(stdout, mytid);
		r = PvmOk;
		break;
	default:
		r = PvmBadParam;
		break;
	}
	/* The group may be gone (last member left): look it up again. */
	reply(src, v[1], gs_find(name), r, table);
}

/* Leaves the server's tid in the mailbox; fails if a server is there. */
static int announce(void)
{
	int b = pvm_initsend(PvmDataDefault);

	if (b < 0 || pvm_pkint(&mytid, 1, 1) < 0)
		return -1;
	return pvm_putinfo(GS_MBOX, b, PvmMboxDefault) < 0 ? -1 : 0;
}

int main(void)
{
	int b, len, tag, src, tid;

	mytid = pvm_mytid();
	if (mytid < 0)
		return 1;
	pvm_setopt(PvmAutoErr, 0);
	pvm_setcontext(GS_CTX);
	if (announce() < 0) {
		pvm_exit();
		return 0;
	}
	for (;;) {
		b = pvm_recv(-1, -1);
		if (b < 0)
			break;		/* the daemon is gone */
		len = tag = src = 0;
		pvm_bufinfo(b, &len, &tag, &src);
		if (tag == GS_TAG_REQ) {
			request(src, len);
		} else if (tag == GS_TAG_EXIT) {
			if (pvm_upkint(&tid, 1, 1) >= 0)
				forget_task(tid);
		}
	}
	pvm_exit();
	return 0;
}

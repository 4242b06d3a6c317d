/*
 * client.c - libgpvm3's side of the group server: finding or starting
 * the server, one request/answer exchange, and the task's copies of
 * group member tables.
 *
 * The server is a task.  Its tid is read from a mailbox entry it owns;
 * when there is none, the library spawns the server program (from
 * $COPVM_PVMGS, else by name through the daemon's spawn path, else from
 * the installed bindir) and waits until it has registered.  Two tasks
 * starting at once may start two servers: only one can own the entry,
 * the other exits.  The library asks the daemon to tell it when the
 * server exits, so that no call waits for an answer that cannot come.
 *
 * Every exchange happens in the reserved context of gs_proto.h with
 * buffers of its own; the caller's active send and receive buffers and
 * its context are put back afterwards.  Messages the server sends
 * unasked (a copy went stale) are handled whenever the library reads
 * from the server, and before a copy is used.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpvmi.h"
#include "gs_proto.h"

#ifndef COPVM_BINDIR
#define COPVM_BINDIR	"/usr/local/bin"
#endif

/* How long a started server may take to register, and how often the
 * mailbox is looked at meanwhile. */
#define START_TIMEOUT_MS	10000
#define START_POLL_US		1000

/* Not PVM error codes: the server exited before answering; a started
 * server was another PVM's (stopped again); it exited before
 * registering. */
#define SERVER_LOST		(-1000)
#define SERVER_FOREIGN		(-1001)
#define SERVER_GONE		(-1002)

/* The mailbox class stock PVM's group server registers under: a server
 * that writes it is stock's, which does not speak our protocol. */
#define STOCK_GS_MBOX		"pvmgs"

GPVMI_EXPORT int gstid = -1;
GPVMI_EXPORT struct timeval *pvmgs_tmout;

static int owner;		/* our tid when gstid and the copies were got */
static int serial;		/* of the last request */
static struct gpvmi_group *copies;

/* The caller's buffers and context while the library talks to the
 * server. */
struct saved {
	int ctx, sbuf, rbuf;
};

int gpvmi_quiet(int code)
{
	if (code < 0)
		pvm_errno = code;
	return code;
}

static void enter(struct saved *s)
{
	s->sbuf = pvm_setsbuf(0);
	s->rbuf = pvm_setrbuf(0);
	s->ctx = pvm_setcontext(GS_CTX);
}

static void leave(struct saved *s)
{
	pvm_setcontext(s->ctx < 0 ? 0 : s->ctx);
	pvm_setsbuf(s->sbuf < 0 ? 0 : s->sbuf);
	pvm_setrbuf(s->rbuf < 0 ? 0 : s->rbuf);
}

static void free_copy(struct gpvmi_group *g)
{
	free(g->name);
	free(g->slots);
	free(g->others);
	free(g);
}

void gpvmi_group_drop(const char *group)
{
	struct gpvmi_group **pp, *g;

	for (pp = &copies; (g = *pp); pp = &g->next) {
		if (!strcmp(g->name, group)) {
			*pp = g->next;
			free_copy(g);
			return;
		}
	}
}

/* Enrols if needed; after pvm_exit or a fork the task has a new tid, and
 * what it knew (server watch, copies) belonged to the old one. */
static int self(void)
{
	int me = pvm_mytid();

	if (me < 0)
		return PvmSysErr;
	if (me != owner) {
		while (copies) {
			struct gpvmi_group *g = copies;

			copies = g->next;
			free_copy(g);
		}
		gstid = -1;
		owner = me;
	}
	return me;
}

/* Unpacks a string whose length the message bounds; NULL on failure. */
static char *unpack_name(int len)
{
	char *s = malloc((size_t)len + 1);

	if (s && pvm_upkstr(s) < 0) {
		free(s);
		s = NULL;
	}
	return s;
}

/* Handles a message nobody waits for: a stale copy, the server's exit.
 * Anything else (a late answer to an abandoned request) is dropped. */
static void unasked(int bufid)
{
	int len = 0, tag = -1, src = 0, tid = 0;
	char *name;

	pvm_bufinfo(bufid, &len, &tag, &src);
	if (tag == GS_TAG_INVAL && src == gstid) {
		name = unpack_name(len);
		if (name)
			gpvmi_group_drop(name);
		free(name);
	} else if (tag == GS_TAG_SRVEXIT && pvm_upkint(&tid, 1, 1) >= 0 &&
		   tid == gstid) {
		gstid = -1;
	}
}

/* Reads every message waiting in the group context (in it already). */
static void drain(void)
{
	int b;

	while ((b = pvm_nrecv(-1, -1)) > 0) {
		unasked(b);
		pvm_freebuf(b);
	}
}

/* The tid stored in the server's mailbox entry, or PvmNotFound. */
static int registered(void)
{
	int b = pvm_recvinfo(GS_MBOX, 0, PvmMboxDefault), tid = 0;

	if (b <= 0)
		return PvmNotFound;
	pvm_setrbuf(b);
	if (pvm_upkint(&tid, 1, 1) < 0)
		tid = 0;
	pvm_freebuf(b);
	return tid > 0 ? tid : PvmNotFound;
}

/* Spawns `prog' with its output and trace going to the daemon, not to
 * whoever catches ours: the server outlives its starter.  Returns the
 * new tid or the spawn's error (PvmNoFile when there is no such file). */
static int spawn_one(const char *prog)
{
	int otid, ttid, tid = 0, n;

	otid = pvm_setopt(PvmOutputTid, 0);
	ttid = pvm_setopt(PvmTraceTid, 0);
	n = pvm_spawn((char *)prog, NULL, PvmTaskDefault | PvmNoSpawnParent,
		      "", 1, &tid);
	pvm_setopt(PvmOutputTid, otid < 0 ? 0 : otid);
	pvm_setopt(PvmTraceTid, ttid < 0 ? 0 : ttid);
	if (n == 1 && tid > 0)
		return tid;
	if (n < 0)
		return n;
	return tid < 0 ? tid : PvmSysErr;
}

/* Whether stock PVM's group server has registered in the machine. */
static int stock_server_seen(void)
{
	int b = pvm_recvinfo(STOCK_GS_MBOX, 0, PvmMboxDefault);

	if (b <= 0)
		return 0;
	pvm_freebuf(b);
	return 1;
}

/* Waits until a server has registered; `tid' is the one we started.
 * Returns the server's tid, SERVER_FOREIGN when ours turned out to be
 * stock's (it is stopped), SERVER_GONE when it exited unregistered, or
 * PvmSysErr after START_TIMEOUT_MS. */
static int await_server(int tid)
{
	struct timespec ts = { 0, START_POLL_US * 1000L };
	int waited, r;

	for (waited = 0; waited < START_TIMEOUT_MS * 1000;
	     waited += START_POLL_US) {
		r = registered();
		if (r > 0)
			return r;
		if ((waited / START_POLL_US) % 16 == 15) {
			/* A server that lost the race to another exits at
			 * once. */
			if (pvm_pstat(tid) == PvmNoTask) {
				r = registered();
				return r > 0 ? r : SERVER_GONE;
			}
			/* Stock's server says who it is in its own way. */
			if (stock_server_seen()) {
				pvm_kill(tid);
				return SERVER_FOREIGN;
			}
		}
		nanosleep(&ts, NULL);
	}
	return PvmSysErr;
}

/* Tells why server program `prog' was not used (`why': SERVER_FOREIGN
 * or SERVER_GONE), on stderr as the library's other errors. */
static void report_server(const char *prog, int why)
{
	if (why == SERVER_FOREIGN)
		fprintf(stderr, "libgpvm3 [t%x]: the group server \"%s\" that "
			"was started is stock PVM's, not copvm's (it "
			"registered as stock's pvmgs does), and was stopped: "
			"put copvm's pvmgs first on the spawn path "
			"(~/pvm3/bin/ARCH) or name it in %s\n",
			(unsigned)pvm_mytid(), prog, GS_ENV_PROGRAM);
	else
		fprintf(stderr, "libgpvm3 [t%x]: the group server \"%s\" "
			"exited without registering: it is not copvm's, or "
			"could not start (name copvm's pvmgs in %s)\n",
			(unsigned)pvm_mytid(), prog, GS_ENV_PROGRAM);
}

/* Starts copvm's server: $COPVM_PVMGS, else "pvmgs" through the spawn
 * path, else the installed one; a candidate that is not copvm's server
 * is reported and the next one tried.  The server's tid, or an error. */
static int start_server(void)
{
	const char *env = getenv(GS_ENV_PROGRAM);
	char installed[PATH_MAX];
	const char *cand[2];
	int n = 0, i, rc = PvmNoFile, failed = 0;

	if (env && *env) {
		cand[n++] = env;
	} else {
		cand[n++] = GS_PROGRAM;
		snprintf(installed, sizeof(installed), "%s/%s", COPVM_BINDIR,
			 GS_PROGRAM);
		cand[n++] = installed;
	}
	for (i = 0; i < n; i++) {
		rc = spawn_one(cand[i]);
		if (rc > 0) {
			rc = await_server(rc);
			if (rc != SERVER_FOREIGN && rc != SERVER_GONE)
				return rc;
			report_server(cand[i], rc);
			failed = 1;
			continue;
		}
		if (rc != PvmNoFile)
			break;
	}
	/* nothing usable: a rejected server is a system error */
	if (rc == SERVER_FOREIGN || rc == SERVER_GONE ||
	    (failed && rc == PvmNoFile))
		return PvmSysErr;
	return rc;
}

/* The server's tid (in the group context already), found or started;
 * asks the daemon for a message when it exits. */
static int locate(void)
{
	int tid;

	if (gstid > 0)
		return gstid;
	tid = registered();
	if (tid < 0)
		tid = start_server();
	if (tid < 0) {
		pvm_errno = tid;
		pvm_perror("gs_getgstid() failed to start group server");
		return PvmSysErr;
	}
	if (pvm_notify(PvmTaskExit, GS_TAG_SRVEXIT, 1, &tid) < 0)
		return PvmSysErr;
	gstid = tid;
	return tid;
}

int gpvmi_server(void)
{
	struct saved s;
	int rc;

	if (self() < 0)
		return PvmSysErr;
	enter(&s);
	rc = locate();
	leave(&s);
	return rc;
}

/* Reads <result> (gs_proto.h) from the active receive buffer. */
static int read_result(struct gpvmi_reply *rep)
{
	int v[3];

	if (pvm_upkint(v, 3, 1) < 0 || v[2] < 0)
		return PvmBadMsg;
	rep->status = v[0];
	rep->frozen = v[1];
	rep->nslots = v[2];
	if (v[2] == 0)
		return PvmOk;
	rep->slots = malloc((size_t)v[2] * sizeof(int));
	if (!rep->slots)
		return PvmNoMem;
	if (pvm_upkint(rep->slots, v[2], 1) < 0) {
		free(rep->slots);
		rep->slots = NULL;
		return PvmBadMsg;
	}
	return PvmOk;
}

/* Whether a release names (me, ser) among its waiters. */
static int released(int me, int ser)
{
	int n = 0, pair[2], i, found = 0;

	if (pvm_upkint(&n, 1, 1) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (pvm_upkint(pair, 2, 1) < 0)
			return 0;
		if (pair[0] == me && pair[1] == ser)
			found = 1;
	}
	return found;
}

/* Waits for the answer to request `ser', handling anything else the
 * server or the daemon sends meanwhile.  SERVER_LOST when the daemon
 * reports the server's exit first. */
static int await_answer(int srv, int me, int ser, struct gpvmi_reply *rep)
{
	int b, len, tag, src, v, rc;

	for (;;) {
		b = pvmgs_tmout ? pvm_trecv(-1, -1, pvmgs_tmout) :
				  pvm_recv(-1, -1);
		if (b == 0)
			return PvmSysErr;	/* pvmgs_tmout ran out */
		if (b < 0)
			return b;
		len = tag = src = 0;
		pvm_bufinfo(b, &len, &tag, &src);
		if (src == srv && tag == GS_TAG_REPLY) {
			if (pvm_upkint(&v, 1, 1) < 0 || v != ser) {
				pvm_freebuf(b);
				continue;
			}
		} else if (src == srv && tag == GS_TAG_RELEASE) {
			if (!released(me, ser)) {
				pvm_freebuf(b);
				continue;
			}
		} else {
			unasked(b);
			pvm_freebuf(b);
			if (gstid != srv)
				return SERVER_LOST;
			continue;
		}
		rc = read_result(rep);
		pvm_freebuf(b);
		return rc;
	}
}

/* Sends request `op' to server `srv' and waits for its answer. */
static int exchange(int srv, int me, int op, const char *group, int arg,
		    struct gpvmi_reply *rep)
{
	int mid, rc, ser;

	if (++serial <= 0)
		serial = 1;
	ser = serial;
	mid = pvm_mkbuf(PvmDataDefault);
	if (mid < 0)
		return mid;
	pvm_setsbuf(mid);
	pvm_pkint(&op, 1, 1);
	pvm_pkint(&ser, 1, 1);
	pvm_pkstr((char *)group);
	rc = pvm_pkint(&arg, 1, 1);
	if (rc >= 0)
		rc = pvm_send(srv, GS_TAG_REQ);
	pvm_freebuf(mid);
	if (rc >= 0)
		rc = await_answer(srv, me, ser, rep);
	return rc;
}

/* A server that exits takes its groups with it; the request goes once
 * more, to a new server (which knows no group: stale requests find
 * PvmNoGroup rather than waiting forever). */
int gpvmi_call(int op, const char *group, int arg, struct gpvmi_reply *rep)
{
	struct saved s;
	int me, srv, rc, tries;

	memset(rep, 0, sizeof(*rep));
	me = self();
	if (me < 0)
		return PvmSysErr;
	enter(&s);
	for (tries = 0; tries < 2; tries++) {
		srv = locate();
		if (srv < 0) {
			rc = srv;
			break;
		}
		rc = exchange(srv, me, op, group, arg, rep);
		if (rc != SERVER_LOST)
			break;
	}
	if (rc == SERVER_LOST)
		rc = PvmSysErr;
	leave(&s);
	return rc;
}

static struct gpvmi_group *find(const char *group)
{
	struct gpvmi_group *g;

	for (g = copies; g; g = g->next)
		if (!strcmp(g->name, group))
			return g;
	return NULL;
}

struct gpvmi_group *gpvmi_group_frozen(const char *group)
{
	struct gpvmi_group *g;

	if (self() < 0)
		return NULL;
	g = find(group);
	return g && g->frozen ? g : NULL;
}

struct gpvmi_group *gpvmi_group_store(const char *group,
				      struct gpvmi_reply *rep)
{
	struct gpvmi_group *g = calloc(1, sizeof(*g));
	int i, me = owner;

	if (!g || !(g->name = strdup(group)) ||
	    !(g->others = malloc((size_t)(rep->nslots + 1) * sizeof(int)))) {
		if (g)
			free(g->name);
		free(g);
		return NULL;
	}
	g->slots = rep->slots;
	g->nslots = rep->nslots;
	rep->slots = NULL;
	g->frozen = rep->frozen;
	g->myinst = -1;
	for (i = 0; i < g->nslots; i++) {
		if (g->slots[i] <= 0)
			continue;
		g->nmembers++;
		if (g->slots[i] == me)
			g->myinst = i;
		else
			g->others[g->nothers++] = g->slots[i];
	}
	gpvmi_group_drop(group);
	g->next = copies;
	copies = g;
	return g;
}

struct gpvmi_group *gpvmi_group_get(const char *group, int *rc)
{
	struct gpvmi_reply rep;
	struct gpvmi_group *g;
	struct saved s;
	int r;

	if (self() < 0) {
		*rc = PvmSysErr;
		return NULL;
	}
	g = find(group);
	if (g && g->frozen)
		return g;
	if (g && gstid > 0) {
		/* Only the server's notices can make our copy stale. */
		enter(&s);
		drain();
		leave(&s);
		g = find(group);
	}
	if (g)
		return g;
	r = gpvmi_call(GS_OP_LIST, group, 0, &rep);
	if (r == PvmOk && rep.status < 0)
		r = rep.status;
	if (r < 0) {
		free(rep.slots);
		*rc = r;
		return NULL;
	}
	g = gpvmi_group_store(group, &rep);
	free(rep.slots);
	if (!g)
		*rc = PvmNoMem;
	return g;
}

int gpvmi_dump(void)
{
	struct gpvmi_reply rep;
	int rc = gpvmi_call(GS_OP_DUMP, "", 0, &rep);

	free(rep.slots);
	return rc < 0 ? rc : rep.status;
}

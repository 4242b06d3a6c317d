/*
 * route.c - the virtual circuit of every destination: how a message to a
 * task travels, decided once, in one place (decide()), and remembered.
 *
 * The first message to a task decides its route and its transport:
 * ourselves (queued at once, never remembered: a forked child enrols
 * under a new tid); a task of this host over a circuit that
 * transport/registry.c's pick carries (shm, else unix), or through the
 * daemon for good when it or we are out of descriptors; a task of
 * another host directly when a circuit with it is up (it keeps its own
 * transport) or when PvmRouteDirect asks and one comes up within
 * DIRECT_OPEN_MS (io_uring, else tcp), else through the daemons.  The
 * route is kept while the task is enrolled, so one sender's messages to
 * one receiver all take the same way and stay in order.
 *
 * The circuit record keeps the link in use (conn.c clears it when the
 * link goes: a steady send is one hash lookup and conn.c's one send),
 * the frame header prebuilt at its first message (VCC, bufcache.h's
 * switch; a later message only patches length, tag and encoding), and
 * its precommunication queue: the frames sent HELD ahead of their
 * pvm_send (pvmi_route_stage(), precomm.c), each released or cancelled
 * by a small RELEASE frame on the same circuit (pvmi_route_release()).
 * A send whose link broke, or whose link is gone, goes through one
 * failure path (outcome()): the message is dropped and the send still
 * succeeds, as stock PVM documents for a task that exited.  A multicast
 * starts the copies on circuits whose transport batches (io_uring)
 * together, in one submission, before it waits for any.
 *
 * Every task of a machine of several hosts listens on TCP: its daemon
 * may have made the socket before it started, else the library opens
 * one when it enrols or first asks for a route, and tells the daemon its
 * port.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "be.h"
#include "bufcache.h"
#include "codec.h"
#include "conn.h"
#include "conn_tcp.h"
#include "conn_unix.h"
#include "daemon_link.h"
#include "proto.h"
#include "pvmi.h"
#include "route.h"
#include "transport/registry.h"

#define CIRCUIT_BUCKETS	256
#define DIRECT_OPEN_MS	10000

/* How a destination is reached: ourselves, a circuit of this host
 * (LINK_OUT, opened by tid), a direct circuit with another host
 * (LINK_BOTH, found by its peer), or the daemons. */
enum via { VIA_SELF, VIA_HOST, VIA_NET, VIA_DAEMON };

/* A frame sent HELD on a circuit (pvmi_route_stage()), to be released
 * or cancelled by its tag. */
struct held {
	struct held *next;
	int tag;
	int ctx;			/* the context it was sent in */
	unsigned long serial;		/* the link it went on */
};

/* The virtual circuit of one destination. */
struct circuit {
	struct circuit *next;		/* hash chain */
	int tid;
	int via;			/* enum via, decided once */
	const struct pvmi_transport *tp;	/* VIA_HOST, VIA_NET: what
					 * carries the frames (shm, unix,
					 * uring, tcp), decided with via */
	int stand_in;			/* not in the table (no memory):
					 * watches no link */
	struct link *link;		/* VIA_HOST, VIA_NET: the link in use,
					 * NULL until (re)found; conn.c
					 * clears it when the link is freed */
	struct held *held;		/* precommunication: the frames sent
					 * HELD on it, not yet released */
	/* VCC: the prebuilt frame header (see the top) */
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	int hdr_ready;			/* hdr holds this tid's header */
	int hdr_src, hdr_ctx;		/* ... built for this source, context */
};

static struct circuit *table[CIRCUIT_BUCKETS];
static struct held *spare;		/* released entries, kept for reuse:
					 * a steady precommunication
					 * allocates nothing */
static struct circuit self_circuit = { .via = VIA_SELF };
static int reported_port;		/* port the daemon knows, 0: none */
static int networked;

static struct circuit *find(int tid)
{
	struct circuit *c;

	for (c = table[(unsigned)tid % CIRCUIT_BUCKETS]; c; c = c->next)
		if (c->tid == tid)
			return c;
	return NULL;
}
/* Tells the daemon the port we listen on, asking for `tid''s route at
 * the same time; returns the daemon's status, with its answer in
 * addr/port. */
static int ask_daemon(int tid, int port, char *addr, size_t size,
		      int *peer_port)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	char *a;
	int rc;

	/* pvmi_call, not pvmi_request: this also runs while enrolling */
	pvmi_w_int(&w, tid);
	pvmi_w_int(&w, port);
	rc = pvmi_call(PVMI_OP_ROUTE, &w, &r);
	pvmi_w_free(&w);
	if (rc != PvmOk)
		return rc;
	rc = pvmi_r_int(&r);
	if (r.failed)
		return PvmSysErr;
	if (port)
		reported_port = port;	/* the daemon records it first */
	if (rc != PvmOk)
		return rc;
	a = pvmi_r_str(&r);
	*peer_port = pvmi_r_int(&r);
	if (r.failed || !a) {
		free(a);
		return PvmSysErr;
	}
	strncpy(addr, a, size - 1);
	addr[size - 1] = '\0';
	free(a);
	return PvmOk;
}

/* Makes sure we listen on TCP and the daemon knows the port; returns the
 * port to report with the next ROUTE request (0 when already known). */
static int own_port(void)
{
	int port = pvmi_conn_tcp_listen();

	return port && port != reported_port ? port : 0;
}

/* Tries to open a direct circuit for `c' over the transport picked for
 * other hosts, once the daemon said where the peer listens (c->tp is
 * set then); PvmOk when it is up. */
static int open_direct(struct circuit *c)
{
	char addr[64];
	int port = 0, rc;

	rc = ask_daemon(c->tid, own_port(), addr, sizeof(addr), &port);
	if (rc != PvmOk || !port || !*addr)
		return PvmSysErr;
	c->tp = pvmi_transport_pick(PVMI_REACH_NET, 1);
	return pvmi_conn_tcp_open(c->tid, addr, port, c->tp, DIRECT_OPEN_MS);
}

/* After REGISTER: the secret, the flags, and a TCP socket the daemon made
 * for us (or -1).  Opens our listener in a machine of several hosts. */
void pvmi_route_enrolled(const unsigned char *secret, int flags, int tcp_fd)
{
	char addr[64];
	int port;

	pvmi_conn_set_secret(secret);
	networked = (flags & PVMI_REG_NET) != 0;
	if (tcp_fd >= 0) {
		pvmi_conn_tcp_adopt(tcp_fd);
		reported_port = pvmi_conn_tcp_listen();
		return;
	}
	if (networked && (port = own_port()))
		ask_daemon(0, port, addr, sizeof(addr), &port);
}

/* Forgets every circuit (on leaving the machine). */
void pvmi_route_reset(void)
{
	struct circuit *c;
	int i;

	struct held *h;

	for (i = 0; i < CIRCUIT_BUCKETS; i++) {
		while ((c = table[i])) {
			table[i] = c->next;
			if (c->link)
				c->link->watch = NULL;
			while ((h = c->held)) {	/* their links close too */
				c->held = h->next;
				free(h);
			}
			free(c);
		}
	}
	while ((h = spare)) {
		spare = h->next;
		free(h);
	}
	reported_port = 0;
	networked = 0;
}

/* The one routing decision for task `tid', not ourselves (see the top):
 * sets c->via and, for a circuit, c->tp, the transport that carries it
 * (the first of transport/registry.c's for its reach that works here:
 * shm or unix on this host, io_uring or tcp to another; a direct circuit
 * that is already up keeps its own).  May block up to DIRECT_OPEN_MS
 * opening a direct circuit. */
static void decide(struct circuit *c)
{
	int tid = c->tid;
	struct link *l;

	c->tp = NULL;
	if (PVMI_TID_HOST(tid) == PVMI_TID_HOST(pvmi.mytid)) {
		if (pvmi_conn_unix_busy(tid)) {
			c->via = VIA_DAEMON;
			return;
		}
		c->via = VIA_HOST;
		c->tp = pvmi_transport_pick(PVMI_REACH_HOST, 1);
		return;
	}
	c->via = VIA_NET;
	l = pvmi_conn_tcp_link(tid);
	if (l) {			/* up already: it carries both ways */
		c->tp = l->pipe.tp;
		if (!c->stand_in)
			pvmi_link_watch(l, &c->link);
		return;
	}
	if (pvmi.route == PvmRouteDirect && open_direct(c) == PvmOk)
		return;
	c->via = VIA_DAEMON;
	c->tp = NULL;
}

/* The circuit of `tid', decided and remembered at the first message.
 * Out of memory, `tmp' (a stand-in watching no link) carries one message
 * and the route is decided again next time, which keeps the order: the
 * links are found again by their peer. */
static struct circuit *circuit(int tid, struct circuit *tmp)
{
	struct circuit *c;
	unsigned b = (unsigned)tid % CIRCUIT_BUCKETS;

	if (tid == pvmi.mytid)
		return &self_circuit;
	c = find(tid);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		memset(tmp, 0, sizeof(*tmp));
		tmp->tid = tid;
		tmp->stand_in = 1;
		decide(tmp);
		return tmp;
	}
	c->tid = tid;
	decide(c);
	c->next = table[b];
	table[b] = c;
	return c;
}

/* Queues a copy of `m' for ourselves; PVMI_ROUTE_NOT_SENT, or PvmNoMem
 * when no copy could be made. */
static int send_self(const struct pvmi_msg *m, int tag)
{
	struct pvmi_msg *c;
	unsigned char *body;
	size_t len;

	body = pvmi_msg_flatten(m, &len);
	if (!body)
		return PvmNoMem;
	c = pvmi_msg_from_body(body, len, m->enc);
	if (!c) {
		pvmi_buf_free(body);
		return PvmNoMem;
	}
	c->src = pvmi.mytid;
	c->dst = pvmi.mytid;
	c->tag = tag;
	c->ctx = pvmi.ctx;
	c->wid = m->wid;
	pvmi_conn_deliver(c);
	return PVMI_ROUTE_NOT_SENT;
}

/* What a send on circuit `c' whose link broke or is gone (conn.c's
 * PvmNoTask) means, the one failure path of a circuit: the message is
 * dropped, as stock does for a task that exited; to a task of this host
 * it was not sent (PVMI_ROUTE_NOT_SENT), to one of another host it was
 * dropped on the way (PVMI_ROUTE_DROPPED; route.h says what the caller
 * makes of each).  Other results pass as they are. */
static int outcome(const struct circuit *c, int rc)
{
	if (rc != PvmNoTask)
		return rc;
	return c->via == VIA_HOST ? PVMI_ROUTE_NOT_SENT : PVMI_ROUTE_DROPPED;
}

/* The link of circuit `c' of this host, found or opened (c->tp carries
 * it); NULL with *rc set when there is none: PvmNoTask (the task is
 * gone), PvmOutOfRes (it or we are out of descriptors), or another
 * error. */
static struct link *host_link(struct circuit *c, int *rc)
{
	struct link *l = c->link;

	if (l)				/* watched already */
		return l;
	if (!(l = pvmi_link_find(LINK_OUT, c->tid))) {
		*rc = pvmi_conn_unix_open(c->tid, c->tp, &l);
		if (*rc != PvmOk)
			return NULL;
	}
	if (!c->stand_in)
		pvmi_link_watch(l, &c->link);
	return l;
}

/* The direct circuit of `c' in use, found again if it changed; NULL
 * when there is none (the task is gone). */
static struct link *net_link(struct circuit *c)
{
	struct link *l = c->link;

	if (!l || !pvmi_conn_tcp_usable(l)) {
		l = pvmi_conn_tcp_link(c->tid);
		if (l && !c->stand_in) {
			pvmi_link_watch(l, &c->link);
			c->tp = l->pipe.tp;
		}
	}
	return l;
}

/* Sends frame `f' (header `hdr', or NULL) of `m' on the link of circuit
 * `c', found or opened: conn.c's one send. */
static int send_link(struct circuit *c, struct pvmi_frame *f,
		     const unsigned char *hdr, const struct pvmi_msg *m)
{
	struct link *l;
	int rc = PvmNoTask;

	l = c->via == VIA_HOST ? host_link(c, &rc) : net_link(c);
	if (!l && rc == PvmOutOfRes) {
		/* it (or we) is out of descriptors: the daemon carries this
		 * destination from now on (no frame went on a circuit
		 * before, so the order holds) */
		if (!c->stand_in) {
			c->via = VIA_DAEMON;
			c->tp = NULL;
		}
		if (f->kind != PVMI_KIND_USER)	/* a HELD one */
			return PVMI_ROUTE_NOT_SENT;
		return pvmi_conn_send_daemon(f, m);
	}
	if (l)
		rc = pvmi_conn_send(l, f, hdr, m);
	return outcome(c, rc);
}

/* The header of frame `f' on circuit `c', prebuilt once and patched
 * (VCC); NULL when VCC is off or `c' is a stand-in (the frame is then
 * encoded as it goes). */
static const unsigned char *prebuilt(struct circuit *c,
				     const struct pvmi_frame *f)
{
	if (c->stand_in || f->kind != PVMI_KIND_USER)
		return NULL;
	if (!pvmi_vcc_enabled()) {
		c->hdr_ready = 0;	/* and no short path (route_send_fast) */
		return NULL;
	}
	if (!c->hdr_ready || c->hdr_src != f->src || c->hdr_ctx != f->ctx) {
		pvmi_frame_encode(f, c->hdr);
		c->hdr_src = f->src;
		c->hdr_ctx = f->ctx;
		c->hdr_ready = 1;
		return c->hdr;
	}
	put_be32(c->hdr + 4, f->len);
	put_be32(c->hdr + 16, (uint32_t)f->tag);
	put_be32(c->hdr + 24, (uint32_t)f->enc);
	put_be32(c->hdr + 28, (uint32_t)f->wid);
	return c->hdr;
}

/* The frame of user message `m' (NULL: no body) to `tid'. */
static void user_frame(struct pvmi_frame *f, int tid, int tag, int enc,
		       const struct pvmi_msg *m)
{
	/* every field written: no memset first */
	f->magic = PVMI_FRAME_MAGIC;
	f->len = m ? (uint32_t)m->len : 0;
	f->src = pvmi.mytid;
	f->dst = tid;
	f->tag = tag;
	f->ctx = pvmi.ctx;
	f->enc = enc;
	f->wid = m ? m->wid : 0;
	f->kind = PVMI_KIND_USER;
}

/* Sends `m' (frame `f') on circuit `c' by its route. */
static int send_on(struct circuit *c, struct pvmi_frame *f,
		   const unsigned char *hdr, const struct pvmi_msg *m)
{
	if (c->via == VIA_HOST || c->via == VIA_NET)
		return send_link(c, f, hdr ? hdr : prebuilt(c, f), m);
	return pvmi_conn_send_daemon(f, m);
}

/* Sends message `m' to `tid' with `tag' over the circuit of `tid'
 * (route.h). */
int pvmi_route_send(struct pvmi_msg *m, int tid, int tag)
{
	struct circuit tmp, *c = circuit(tid, &tmp);
	struct pvmi_frame f;

	/* a body lent by a ring (msg.h) is read by writes that may wait and
	 * read input meanwhile, which may free its record: ours first */
	if (m->lend && pvmi_msg_own(m))
		return PvmNoMem;
	if (c->via == VIA_SELF)
		return send_self(m, tag);
	user_frame(&f, tid, tag, m->enc, m);
	return send_on(c, &f, NULL, m);
}

/* Sends `m' to `tid' the short way when nothing in the way has changed
 * (route.h). */
int pvmi_route_send_fast(const struct pvmi_msg *m, int tid, int tag)
{
	struct circuit *c = find(tid);
	struct link *l;
	int (*whole)(struct pvmi_pipe *, const unsigned char *, const void *,
		     size_t);
	const void *body = NULL;
	size_t len = 0;
	int rc;

	/* what the cache rests on, each checked here: a circuit of this
	 * host (hostwatch.c never loses it) whose link conn.c has not
	 * cleared, is whole between frames and has a short way; a header
	 * prebuilt for this source and context; no held frame on it */
	if (!c || c->via != VIA_HOST || !(l = c->link) || !c->hdr_ready ||
	    c->hdr_src != pvmi.mytid || c->hdr_ctx != pvmi.ctx || c->held ||
	    m->nfrag > 1 || l->busy || l->dead ||
	    !(whole = l->pipe.tp->send_whole))
		return PVMI_ROUTE_SLOW;
	if (m->nfrag) {
		body = m->frags[0].data;
		len = m->frags[0].len;
	}
	put_be32(c->hdr + 4, (uint32_t)len);
	put_be32(c->hdr + 16, (uint32_t)tag);
	put_be32(c->hdr + 24, (uint32_t)m->enc);
	put_be32(c->hdr + 28, (uint32_t)m->wid);
	rc = whole(&l->pipe, c->hdr, body, len);
	if (rc == 1)
		return PvmOk;
	if (rc == 0)			/* nothing written: as before */
		return PVMI_ROUTE_SLOW;
	return outcome(c, pvmi_conn_broke(l));
}

/* The copies of a multicast that travel together (pvmi_route_mcast). */
struct batch {
	struct pvmi_link_copy *copy;
	int *who;			/* index of each copy's task */
	int n;
};

/* Adds the copy for tids[i] on circuit `c' to `b' when its direct
 * circuit batches; 1 when taken (or dropped: no circuit, rcs[i] set),
 * 0 when it must go alone. */
static int batch_add(struct batch *b, struct circuit *c, int i, int tag,
		     const struct pvmi_msg *m, int *rcs)
{
	struct pvmi_link_copy *k = b->copy + b->n;
	struct link *l;

	if (!b->copy || c->via != VIA_NET || c->stand_in)
		return 0;
	l = net_link(c);
	if (!l) {
		rcs[i] = outcome(c, PvmNoTask);	/* gone: dropped */
		return 1;
	}
	if (!c->tp->queue || !c->tp->submit)
		return 0;
	k->l = l;
	user_frame(&k->f, c->tid, tag, m->enc, m);
	k->hdr = prebuilt(c, &k->f);
	k->rc = PvmOk;
	b->who[b->n++] = i;
	return 1;
}

/* Sends `m' to each of `n' tasks, the direct circuits that batch all
 * started before any is waited for (route.h). */
void pvmi_route_mcast(struct pvmi_msg *m, const int *tids, int n, int tag,
		      int *rcs)
{
	struct batch b = { 0 };
	struct circuit tmp, *c;
	struct pvmi_frame f;
	int i, rc;

	if (m->lend && pvmi_msg_own(m)) {	/* as pvmi_route_send */
		for (i = 0; i < n; i++)
			rcs[i] = PvmNoMem;
		return;
	}
	if (n > 1) {
		b.copy = malloc((size_t)n * sizeof(*b.copy));
		b.who = malloc((size_t)n * sizeof(*b.who));
		if (!b.copy || !b.who) {	/* then one by one */
			free(b.copy);
			b.copy = NULL;
		}
	}
	for (i = 0; i < n; i++) {
		c = circuit(tids[i], &tmp);
		if (c->via == VIA_SELF) {
			rcs[i] = send_self(m, tag);
			continue;
		}
		if (batch_add(&b, c, i, tag, m, rcs))
			continue;
		user_frame(&f, tids[i], tag, m->enc, m);
		rcs[i] = send_on(c, &f, NULL, m);
	}
	rc = b.n ? pvmi_conn_send_many(b.copy, b.n, m) : PvmOk;
	for (i = 0; i < b.n; i++) {
		c = circuit(tids[b.who[i]], &tmp);
		rcs[b.who[i]] = rc != PvmOk ? rc : outcome(c, b.copy[i].rc);
	}
	free(b.copy);
	free(b.who);
}

/* Sends `m' to `tid' ahead of its send, held by the receiver; the
 * circuit remembers it (route.h). */
int pvmi_route_stage(const struct pvmi_msg *m, int tid, int tag)
{
	struct circuit tmp, *c = circuit(tid, &tmp);
	struct pvmi_frame f;
	struct held *h;
	int i, rc;

	if (c->stand_in || (c->via != VIA_HOST && c->via != VIA_NET))
		return PVMI_ROUTE_NOT_SENT;
	for (i = 0; i < m->nfrag; i++)
		if (!m->frags[i].cap)	/* in place: read at send time */
			return PVMI_ROUTE_NOT_SENT;
	h = spare ? spare : malloc(sizeof(*h));
	if (!h)
		return PvmNoMem;
	if (h == spare)
		spare = h->next;
	user_frame(&f, tid, tag, m->enc, m);
	f.kind = PVMI_KIND_HELD;
	rc = send_on(c, &f, NULL, m);
	if (rc != PvmOk || !c->link) {	/* !c->link: dropped on the way */
		h->next = spare;
		spare = h;
		return rc == PvmNoMem ? PvmNoMem : PVMI_ROUTE_NOT_SENT;
	}
	h->tag = tag;
	h->ctx = f.ctx;
	h->serial = c->link->serial;
	h->next = c->held;
	c->held = h;
	return PvmOk;
}

/* Releases (go) or cancels (!go) the message held for (tid, tag)
 * (route.h). */
int pvmi_route_release(int tid, int tag, int go)
{
	struct circuit *c = tid == pvmi.mytid ? NULL : find(tid);
	struct held **p, *h;
	struct pvmi_frame f;

	for (p = c ? &c->held : NULL; p && *p && (*p)->tag != tag;
	     p = &(*p)->next)
		;
	if (!p || !*p)
		return PVMI_ROUTE_HELD_LOST;
	h = *p;
	*p = h->next;
	h->next = spare;
	spare = h;
	if (!c->link || c->link->serial != h->serial)
		return PVMI_ROUTE_HELD_LOST;
	user_frame(&f, tid, tag, go ? 1 : 0, NULL);
	f.ctx = h->ctx;
	f.kind = PVMI_KIND_RELEASE;
	return send_on(c, &f, NULL, NULL);
}

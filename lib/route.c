/*
 * route.c - the virtual circuit of every destination: how a message to a
 * task travels, decided once, in one place, and remembered.
 *
 * The first message to a task decides its route (decide()):
 *   - ourselves: the message is queued at once (never remembered: a
 *     forked child enrols under a new tid);
 *   - a task of this host: its unix circuit (conn_unix.c), opened at the
 *     first message and reused for every later one (virtual circuit
 *     caching); one circuit per (sender, receiver) pair keeps each
 *     sender's messages in order.  When the receiver is out of
 *     descriptors (it marked itself busy, or its backlog is full) or we
 *     are, the daemon carries that destination instead, for good;
 *   - a task of another host: direct, over a TCP circuit (conn_tcp.c),
 *     when one with that task is already up (it connected to us: both
 *     ends then use it), or when this task asks for direct routes
 *     (PvmRouteDirect) and the other accepts them (it listens and did not
 *     set PvmDontRoute) and the circuit comes up within DIRECT_OPEN_MS;
 *     otherwise through the daemons: the frame goes to our daemon, which
 *     hands it to the daemon of the receiver's host.
 * Virtual circuit caching (VCC, bufcache.h's switch): a circuit also
 * keeps its frame header prebuilt, encoded at its first message; a later
 * message only patches its length, tag and encoding into it.  The packet
 * buffers themselves are the size-class pools of bufcache.c: a PVM send
 * buffer is packed before its destination is known, so body memory is
 * pooled per process, not per circuit.
 *
 * A multicast (pvm_mcast, pvmi_route_mcast()) sends its copies in the
 * order of its list, except that the copies for direct circuits whose
 * transport batches (io_uring) are all started, and submitted to the
 * kernel in one system call, before the multicast waits for any; each
 * receiver still gets one copy, so no sender's order changes.
 *
 * Precommunication (precomm.c) sends a message on its circuit ahead of
 * its pvm_send as a HELD frame (pvmi_route_stage()), which the receiver
 * keeps out of its queue, and later releases or cancels it with a small
 * RELEASE frame on the same circuit (pvmi_route_release()): the copy into
 * the kernel is done while the task waits, and program order holds, as
 * the receiver delivers the message only when the release arrives.
 *
 * The route is kept for as long as this task is enrolled, so that each
 * sender's messages to one receiver all take the same way and stay in
 * order.  The circuit record also keeps the link in use (conn.c clears
 * it when the link goes), so a steady-state send is one hash lookup and
 * no scan of the links.  A message on a route that has died (the task
 * ended) is dropped, and the send still succeeds, as stock PVM documents
 * for messages to a task that has exited.
 *
 * Every task of a machine of several hosts listens on TCP: its daemon
 * may have made the socket before it started (so that a peer can connect
 * before it runs), else the library opens one when it enrols, or when it
 * first asks for a route, and tells the daemon its port.
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

#define CIRCUIT_BUCKETS	256
#define DIRECT_OPEN_MS	10000

enum via { VIA_SELF, VIA_UNIX, VIA_TCP, VIA_DAEMON };

/* The virtual circuit of one destination. */
struct circuit {
	struct circuit *next;		/* hash chain */
	int tid;
	int via;			/* enum via, decided once */
	int stand_in;			/* not in the table (no memory):
					 * watches no link */
	struct link *link;		/* VIA_UNIX, VIA_TCP: the link in use,
					 * NULL until (re)found; conn.c
					 * clears it when the link is freed */
	/* VCC: the prebuilt frame header (see the top) */
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	int hdr_ready;			/* hdr holds this tid's header */
	int hdr_src, hdr_ctx;		/* ... built for this source, context */
};

static struct circuit *table[CIRCUIT_BUCKETS];
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

/* Tries to open a direct circuit to `tid'; PvmOk when it is up. */
static int open_direct(int tid)
{
	char addr[64];
	int port = 0, rc;

	rc = ask_daemon(tid, own_port(), addr, sizeof(addr), &port);
	if (rc != PvmOk || !port || !*addr)
		return PvmSysErr;
	return pvmi_conn_tcp_open(tid, addr, port, DIRECT_OPEN_MS);
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

	for (i = 0; i < CIRCUIT_BUCKETS; i++) {
		while ((c = table[i])) {
			table[i] = c->next;
			if (c->link)
				c->link->watch = NULL;
			free(c);
		}
	}
	reported_port = 0;
	networked = 0;
}

/* The one routing decision for task `tid', not ourselves (see the top).
 * May block up to DIRECT_OPEN_MS opening a direct circuit. */
static int decide(int tid)
{
	if (PVMI_TID_HOST(tid) == PVMI_TID_HOST(pvmi.mytid))
		return pvmi_conn_unix_busy(tid) ? VIA_DAEMON : VIA_UNIX;
	if (pvmi_conn_tcp_up(tid) ||
	    (pvmi.route == PvmRouteDirect && open_direct(tid) == PvmOk))
		return VIA_TCP;
	return VIA_DAEMON;
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
		tmp->via = decide(tid);
		tmp->stand_in = 1;
		return tmp;
	}
	c->tid = tid;
	c->via = decide(tid);
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

/* Sends on the unix circuit of `c', opening it if needed. */
static int send_unix(struct circuit *c, struct pvmi_frame *f,
		     const unsigned char *hdr, const struct pvmi_msg *m)
{
	struct link *l;
	int rc;

	l = c->link;
	if (!l && !(l = pvmi_link_find(LINK_OUT, c->tid))) {
		rc = pvmi_conn_unix_open(c->tid, &l);
		if (rc == PvmOutOfRes) {
			/* it (or we) is out of descriptors: the daemon
			 * carries this destination from now on (no frame went
			 * on a circuit before, so the order holds) */
			if (!c->stand_in)
				c->via = VIA_DAEMON;
			if (f->kind != PVMI_KIND_USER)	/* a HELD one */
				return PVMI_ROUTE_NOT_SENT;
			return pvmi_conn_send_daemon(f, m);
		}
		if (rc != PvmOk)
			return rc == PvmNoTask ? PVMI_ROUTE_NOT_SENT : rc;
	}
	if (!c->stand_in)
		pvmi_link_watch(l, &c->link);
	rc = pvmi_conn_unix_send(l, f, hdr, m);
	return rc == PvmNoTask ? PVMI_ROUTE_NOT_SENT : rc;
}

/* The direct circuit of `c' in use, found again if it changed; NULL
 * when there is none (the task is gone). */
static struct link *tcp_link(struct circuit *c)
{
	struct link *l = c->link;

	if (!l || !pvmi_conn_tcp_usable(l)) {
		l = pvmi_conn_tcp_link(c->tid);
		if (l && !c->stand_in)
			pvmi_link_watch(l, &c->link);
	}
	return l;
}

/* Sends on the direct circuit of `c'; a message for a circuit that is
 * gone is dropped and counts as sent. */
static int send_tcp(struct circuit *c, struct pvmi_frame *f,
		    const unsigned char *hdr, const struct pvmi_msg *m)
{
	struct link *l = tcp_link(c);
	int rc;

	if (!l)
		return PvmOk;
	rc = pvmi_conn_tcp_send(l, f, hdr, m);
	return rc == PvmNoTask ? PvmOk : rc;
}

/* The header of frame `f' on circuit `c', prebuilt once and patched
 * (VCC); NULL when VCC is off or `c' is a stand-in (the frame is then
 * encoded as it goes). */
static const unsigned char *prebuilt(struct circuit *c,
				     const struct pvmi_frame *f)
{
	if (c->stand_in || f->kind != PVMI_KIND_USER || !pvmi_vcc_enabled())
		return NULL;
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
	memset(f, 0, sizeof(*f));
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
	switch (c->via) {
	case VIA_UNIX:
		return send_unix(c, f, hdr ? hdr : prebuilt(c, f), m);
	case VIA_TCP:
		return send_tcp(c, f, hdr ? hdr : prebuilt(c, f), m);
	default:
		return pvmi_conn_send_daemon(f, m);
	}
}

/* Sends message `m' to `tid' with `tag' over the circuit of `tid'
 * (route.h). */
int pvmi_route_send(struct pvmi_msg *m, int tid, int tag)
{
	struct circuit tmp, *c = circuit(tid, &tmp);
	struct pvmi_frame f;

	if (c->via == VIA_SELF)
		return send_self(m, tag);
	user_frame(&f, tid, tag, m->enc, m);
	return send_on(c, &f, NULL, m);
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

	if (!b->copy || c->via != VIA_TCP || c->stand_in)
		return 0;
	l = tcp_link(c);
	if (!l) {
		rcs[i] = PvmOk;		/* gone: dropped, as send_tcp() */
		return 1;
	}
	if (!pvmi_conn_tcp_batches(l))
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
	rc = b.n ? pvmi_conn_tcp_send_many(b.copy, b.n, m) : PvmOk;
	for (i = 0; i < b.n; i++)
		rcs[b.who[i]] = rc != PvmOk ? rc :
				b.copy[i].rc == PvmNoTask ? PvmOk :
				b.copy[i].rc;
	free(b.copy);
	free(b.who);
}

/* Sends `m' to `tid' ahead of its send, held by the receiver
 * (route.h). */
int pvmi_route_stage(const struct pvmi_msg *m, int tid, int tag,
		     struct pvmi_route_staged *st)
{
	struct circuit tmp, *c = circuit(tid, &tmp);
	struct pvmi_frame f;
	int i, rc;

	if (c->stand_in || (c->via != VIA_UNIX && c->via != VIA_TCP))
		return PVMI_ROUTE_NOT_SENT;
	for (i = 0; i < m->nfrag; i++)
		if (!m->frags[i].cap)	/* in place: read at send time */
			return PVMI_ROUTE_NOT_SENT;
	user_frame(&f, tid, tag, m->enc, m);
	f.kind = PVMI_KIND_HELD;
	rc = send_on(c, &f, NULL, m);
	if (rc != PvmOk)
		return rc == PvmNoMem ? PvmNoMem : PVMI_ROUTE_NOT_SENT;
	if (!c->link)			/* dropped on the way */
		return PVMI_ROUTE_NOT_SENT;
	st->tid = tid;
	st->tag = tag;
	st->ctx = f.ctx;
	st->serial = c->link->serial;
	return PvmOk;
}

/* Releases (go) or cancels (!go) a held message (route.h). */
int pvmi_route_release(const struct pvmi_route_staged *st, int go)
{
	struct circuit tmp, *c = circuit(st->tid, &tmp);
	struct pvmi_frame f;

	if (c->stand_in || !c->link || c->link->serial != st->serial)
		return PVMI_ROUTE_HELD_LOST;
	user_frame(&f, st->tid, st->tag, go ? 1 : 0, NULL);
	f.ctx = st->ctx;
	f.kind = PVMI_KIND_RELEASE;
	return send_on(c, &f, NULL, NULL);
}

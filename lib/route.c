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
 *     sender's messages in order;
 *   - a task of another host: direct, over a TCP circuit (conn_tcp.c),
 *     when one with that task is already up (it connected to us: both
 *     ends then use it), or when this task asks for direct routes
 *     (PvmRouteDirect) and the other accepts them (it listens and did not
 *     set PvmDontRoute) and the circuit comes up within DIRECT_OPEN_MS;
 *     otherwise through the daemons: the frame goes to our daemon, which
 *     hands it to the daemon of the receiver's host.
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
#include <stdlib.h>
#include <string.h>

#include "auth.h"
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
	/* Not used yet; issue 11's VCC and precommunication fill them:
	 * the prebuilt frame header, the cached packet buffers (the VCC
	 * pool) and the messages indicated but not yet sent. */
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	int hdr_ready;			/* hdr holds this tid's header */
	void *bufs;
	void *precomm;
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
		return VIA_UNIX;
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
	pvmi_conn_deliver(c);
	return PVMI_ROUTE_NOT_SENT;
}

/* Sends on the unix circuit of `c', opening it if needed. */
static int send_unix(struct circuit *c, struct pvmi_frame *f,
		     const struct pvmi_msg *m)
{
	struct link *l;
	int rc;

	l = c->link;
	if (!l && !(l = pvmi_link_find(LINK_OUT, c->tid))) {
		rc = pvmi_conn_unix_open(c->tid, &l);
		if (rc != PvmOk)
			return rc == PvmNoTask ? PVMI_ROUTE_NOT_SENT : rc;
	}
	if (!c->stand_in)
		pvmi_link_watch(l, &c->link);
	rc = pvmi_conn_unix_send(l, f, m);
	return rc == PvmNoTask ? PVMI_ROUTE_NOT_SENT : rc;
}

/* Sends on the direct circuit of `c'; a message for a circuit that is
 * gone is dropped and counts as sent. */
static int send_tcp(struct circuit *c, struct pvmi_frame *f,
		    const struct pvmi_msg *m)
{
	struct link *l = c->link;
	int rc;

	if (!l || !pvmi_conn_tcp_usable(l)) {
		l = pvmi_conn_tcp_link(c->tid);
		if (!l)
			return PvmOk;
		if (!c->stand_in)
			pvmi_link_watch(l, &c->link);
	}
	rc = pvmi_conn_tcp_send(l, f, m);
	return rc == PvmNoTask ? PvmOk : rc;
}

/* Sends message `m' to `tid' with `tag' over the circuit of `tid'
 * (route.h). */
int pvmi_route_send(struct pvmi_msg *m, int tid, int tag)
{
	struct circuit tmp, *c = circuit(tid, &tmp);
	struct pvmi_frame f = { 0 };

	if (c->via == VIA_SELF)
		return send_self(m, tag);
	f.src = pvmi.mytid;
	f.dst = tid;
	f.tag = tag;
	f.ctx = pvmi.ctx;
	f.enc = m->enc;
	f.kind = PVMI_KIND_USER;
	switch (c->via) {
	case VIA_UNIX:
		return send_unix(c, &f, m);
	case VIA_TCP:
		return send_tcp(c, &f, m);
	default:
		f.magic = PVMI_FRAME_MAGIC;
		return pvmi_conn_send_daemon(&f, m);
	}
}

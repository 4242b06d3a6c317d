/*
 * route.c - how a message to a task of another host travels.
 *
 * Tasks of this host are always reached over their unix circuits
 * (conn.c).  For a task of another host the route is chosen at the first
 * message and kept for as long as this task is enrolled, so that each
 * sender's messages to one receiver all take the same way and stay in
 * order:
 *   - direct, over a TCP circuit, when one with that task is already up
 *     (it connected to us: both ends then use it), or when this task asks
 *     for direct routes (PvmRouteDirect) and the other accepts them (it
 *     listens and did not set PvmDontRoute) and the circuit comes up
 *     within DIRECT_OPEN_MS;
 *   - otherwise through the daemons: the frame goes to our daemon, which
 *     hands it to the daemon of the receiver's host.
 * A message on a route that has died (the task ended) is dropped, and the
 * send still succeeds, as stock PVM documents for messages to a task that
 * has exited.
 *
 * Every task of a machine of several hosts listens on TCP: its daemon
 * may have made the socket before it started (so that a peer can connect
 * before it runs), else the library opens one when it enrols, or when it
 * first asks for a route, and tells the daemon its port.
 */
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "codec.h"
#include "conn_tcp.h"
#include "daemon_link.h"
#include "proto.h"
#include "pvmi.h"
#include "route.h"

#define ROUTE_BUCKETS	256
#define DIRECT_OPEN_MS	10000

enum { VIA_DAEMON, VIA_DIRECT };

struct route {
	struct route *next;
	int tid;
	int via;
};

static struct route *table[ROUTE_BUCKETS];
static int reported_port;		/* port the daemon knows, 0: none */
static int networked;

static struct route *find(int tid)
{
	struct route *r;

	for (r = table[(unsigned)tid % ROUTE_BUCKETS]; r; r = r->next)
		if (r->tid == tid)
			return r;
	return NULL;
}

static void remember(int tid, int via)
{
	struct route *r = malloc(sizeof(*r));
	unsigned b = (unsigned)tid % ROUTE_BUCKETS;

	if (!r)
		return;		/* decided again next time; still ordered */
	r->tid = tid;
	r->via = via;
	r->next = table[b];
	table[b] = r;
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

/* Forgets every route (on leaving the machine). */
void pvmi_route_reset(void)
{
	struct route *r;
	int i;

	for (i = 0; i < ROUTE_BUCKETS; i++) {
		while ((r = table[i])) {
			table[i] = r->next;
			free(r);
		}
	}
	reported_port = 0;
	networked = 0;
}

/* Sends frame `f' with `m' to `dst', a task of another host (see the
 * top).  PvmOk (also when dropped), or PvmSysErr when the daemon is
 * unreachable. */
int pvmi_route_send(int dst, struct pvmi_frame *f, const struct pvmi_msg *m)
{
	struct route *r = find(dst);
	int via, rc;

	if (r) {
		via = r->via;
	} else {
		via = VIA_DAEMON;
		if (pvmi_conn_tcp_up(dst) ||
		    (pvmi.route == PvmRouteDirect && open_direct(dst) == PvmOk))
			via = VIA_DIRECT;
		remember(dst, via);
	}
	if (via == VIA_DAEMON) {
		f->magic = PVMI_FRAME_MAGIC;
		return pvmi_conn_send_daemon(f, m);
	}
	rc = pvmi_conn_send_tcp(dst, f, m);
	return rc == PvmNoTask ? PvmOk : rc;
}

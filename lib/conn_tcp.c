/*
 * conn_tcp.c - direct TCP circuits between tasks of different hosts.
 *
 * A circuit is a link of conn.c (LINK_BOTH) that carries frames both ways:
 * once a task has connected to another, both send on it, as stock PVM's
 * direct routes do.  Every circuit, either way, starts with the handshake
 * of common/auth.h (PVMI_AUTH_TASK, id = tid) under the machine's secret,
 * which the task got from its daemon at REGISTER; until it is done no
 * frame is read, and a peer that fails it, or is not the task it should
 * be, is dropped.  A task runs at most TCP_MAX_UNAUTH inbound handshakes
 * at a time (a newcomer pushes the oldest out) and gives each
 * TCP_AUTH_MS; one that set PvmDontRoute accepts none.
 *
 * Connecting (pvmi_conn_tcp_open) blocks the sender until the circuit is
 * up or DIRECT timeout passes, but keeps reading input meanwhile, so two
 * tasks connecting to each other at once both get through.
 *
 * A circuit's transport is the one route.c decided for a circuit it
 * opens, and the same rule (transport/registry.c) for one accepted
 * here: io_uring (transport/uring.c) when this process's ring works and
 * COPVM_URING is not 0, else plain sockets (transport/tcp.c); the two
 * speak the same bytes on the wire, so either end may use either.
 *
 * conn.c reads and writes the circuits like any link; it hears of this
 * file only through the hooks of its links (the handshake is the link's
 * gate) and through the endpoint registered here (the listener, the
 * expiry of handshakes, the reset when everything closes).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "cosched/cosched.h"
#include "cosched_page.h"
#include "conn.h"
#include "conn_tcp.h"
#include "proto.h"
#include "pvmi.h"
#include "transport/registry.h"

#define TCP_MAX_UNAUTH	16	/* inbound handshakes at once */
#define TCP_AUTH_MS	10000	/* time an inbound handshake may take */

/* A circuit's handshake: the link's gate while it runs. */
struct gate {
	struct pvmi_auth auth;
	long long end;			/* its deadline (ms) */
};

static void tcp_accept(void);
static void tcp_expire(void);
static void tcp_reset(int unlink_tid);
static long auth_input(struct link *l, const unsigned char *data,
		       size_t len);
static void auth_end(struct link *l);

static struct pvmi_conn_endpoint tcp_ep = {
	.fd = -1,
	.accept = tcp_accept,
	.round = tcp_expire,
	.close = tcp_reset,
};

static const struct pvmi_link_hooks tcp_hooks = {
	.gate_input = auth_input,
	.release = auth_end,
};

static unsigned char secret[PVMI_SECRET_LEN];
static int have_secret;
static int nunauth;

#define GATE(l)	((struct gate *)(l)->gate)

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A new circuit is carried by `tp': the coscheduling page shows it. */
static const struct pvmi_transport *noted(const struct pvmi_transport *tp)
{
	pvmi_cosched_note_transports(0, tp->xport);
	return tp;
}

/* Forgets a link's handshake state. */
static void auth_end(struct link *l)
{
	if (!l->gate)
		return;
	pvmi_auth_clear(&GATE(l)->auth);
	free(l->gate);
	pvmi_link_set_gate(l, NULL);
	nunauth--;
}

/* Writes the handshake bytes the state holds; small enough for a fresh
 * circuit's empty buffer, so a short write means the circuit is broken. */
static int auth_out(struct link *l)
{
	struct pvmi_auth *a = &GATE(l)->auth;
	struct iovec iov;
	ssize_t n;

	if (!a->outlen)
		return 0;
	iov.iov_base = a->out;
	iov.iov_len = a->outlen;
	do
		n = l->pipe.tp->writev(l->pipe.fd, &iov, 1);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)a->outlen)
		return -1;
	a->outlen = 0;
	return 0;
}

/* Feeds the `len' bytes at `data' to the handshake of `l' (its
 * gate_input hook); returns how many it took, or -1. */
static long auth_input(struct link *l, const unsigned char *data,
		       size_t len)
{
	struct pvmi_auth *a;
	size_t want, used = 0;
	int st, kind, id;

	while (l->gate) {
		a = &GATE(l)->auth;
		want = pvmi_auth_want(a);
		if (len - used < want)
			return used;
		st = pvmi_auth_feed(a, data + used);
		used += want;
		if (st == PVMI_AUTH_FAIL || auth_out(l) < 0)
			return -1;
		if (st != PVMI_AUTH_DONE)
			continue;
		kind = a->peer_kind;
		id = a->peer_id;
		auth_end(l);
		if (kind != PVMI_AUTH_TASK || id <= 0 ||
		    (l->peer && id != l->peer) || id == pvmi.mytid)
			return -1;
		l->peer = id;
	}
	return used;
}

static int start_auth(struct link *l, int role, long long end)
{
	struct gate *g = malloc(sizeof(*g));

	if (!g)
		return -1;
	pvmi_link_set_gate(l, g);
	nunauth++;
	pvmi_conn_endpoint_add(&tcp_ep);	/* for tcp_expire() */
	GATE(l)->end = end;
	if (pvmi_auth_init(&GATE(l)->auth, secret, role, PVMI_AUTH_TASK,
			   pvmi.mytid) < 0)
		return -1;
	return auth_out(l);
}

static void oldest_inbound(struct link *l, void *arg)
{
	struct link **o = arg;

	if (l->gate && l->hooks == &tcp_hooks && !l->dead &&
	    (!*o || l->serial < (*o)->serial))
		*o = l;
}

/* Accepts direct circuits from tasks of other hosts (see the top). */
static void tcp_accept(void)
{
	struct link *l, *old;
	int fd;

	if (tcp_ep.fd < 0)
		return;
	for (;;) {
		fd = pvmi_transport_tcp.accept(tcp_ep.fd);
		if (fd < 0) {
			/* out of descriptors: rest rather than spin; the
			 * peer's open times out and it routes through the
			 * daemons */
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				pvmi_conn_endpoint_rest(&tcp_ep);
			return;
		}
		if (!have_secret || pvmi.route == PvmDontRoute) {
			close(fd);
			continue;
		}
		if (nunauth >= TCP_MAX_UNAUTH) {
			old = NULL;
			pvmi_link_each(oldest_inbound, &old);
			if (old) {
				auth_end(old);
				old->dead = 1;
			}
		}
		/* the same rule as route.c's for circuits it opens */
		l = pvmi_link_add(fd, LINK_BOTH, 0,
				  noted(pvmi_transport_pick(PVMI_REACH_NET, 1)),
				  &tcp_hooks);
		if (!l) {
			close(fd);
			continue;
		}
		if (start_auth(l, PVMI_AUTH_ACCEPTOR,
			       now_ms() + TCP_AUTH_MS) < 0)
			l->dead = 1;
	}
}

static void expire_one(struct link *l, void *arg)
{
	if (l->gate && l->hooks == &tcp_hooks &&
	    *(long long *)arg > GATE(l)->end)
		l->dead = 1;
}

/* Marks links whose handshake is overdue dead (after each pump round). */
static void tcp_expire(void)
{
	long long now;

	if (!nunauth)
		return;
	now = now_ms();
	pvmi_link_each(expire_one, &now);
}

/* Closes the listener and forgets the secret (everything closes). */
static void tcp_reset(int unlink_tid)
{
	if (tcp_ep.fd >= 0) {
		close(tcp_ep.fd);
		tcp_ep.fd = -1;
	}
	memset(secret, 0, sizeof(secret));
	have_secret = 0;
}

struct find {
	int tid;
	struct link *l;
};

static void find_up(struct link *l, void *arg)
{
	struct find *q = arg;

	if (!q->l && l->hooks == &tcp_hooks && l->peer == q->tid && !l->gate &&
	    !l->connecting && !l->dead)
		q->l = l;
}

/* The authenticated TCP circuit with task `tid', or NULL: a scan
 * (conn_tcp.h). */
struct link *pvmi_conn_tcp_link(int tid)
{
	struct find q = { .tid = tid };

	pvmi_link_each(find_up, &q);
	return q.l;
}

static void end_host(struct link *l, void *arg)
{
	if (l->hooks == &tcp_hooks && PVMI_TID_HOST(l->peer) == *(int *)arg)
		l->dead = 1;
}

/* Ends the circuits with the tasks of host `dtid' (conn_tcp.h). */
void pvmi_conn_tcp_host_gone(int dtid)
{
	pvmi_link_each(end_host, &dtid);
}

/* Non-zero while `l' is a TCP circuit that can carry frames
 * (conn_tcp.h). */
int pvmi_conn_tcp_usable(const struct link *l)
{
	return l->hooks == &tcp_hooks && !l->gate && !l->connecting &&
	       !l->dead;
}

/* Waits for a connecting circuit to be writable; 0, or -1 on failure or
 * when `end' passes.  The link may vanish meanwhile: found by serial. */
static int wait_connected(unsigned long serial, long long end)
{
	struct pollfd p;
	struct link *l;
	int err, left;
	socklen_t len = sizeof(err);

	for (;;) {
		l = pvmi_link_by_serial(serial);
		if (!l)
			return -1;
		p.fd = l->pipe.fd;
		p.events = POLLOUT;
		if (poll(&p, 1, 0) > 0)
			break;
		left = (int)(end - now_ms());
		if (left <= 0)
			return -1;
		pvmi_link_pump(left, l->pipe.fd);
	}
	if (getsockopt(l->pipe.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
		return -1;
	l->connecting = 0;
	return 0;
}

/* Connects to task `tid' over transport `tp' and runs the handshake,
 * reading input meanwhile; PvmOk once the circuit is up (conn_tcp.h). */
int pvmi_conn_tcp_open(int tid, const char *addr, int port,
		       const struct pvmi_transport *tp, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;
	unsigned long serial;
	struct link *l;
	int fd, left;

	if (pvmi_conn_tcp_link(tid))
		return PvmOk;
	if (!have_secret ||
	    pvmi_transport_tcp.connect(addr, port, &fd) != PvmOk)
		return PvmSysErr;
	l = pvmi_link_add(fd, LINK_BOTH, tid, noted(tp), &tcp_hooks);
	if (!l) {
		close(fd);
		return PvmNoMem;
	}
	l->connecting = 1;
	serial = l->serial;
	if (wait_connected(serial, end) < 0 ||
	    !(l = pvmi_link_by_serial(serial)) ||
	    start_auth(l, PVMI_AUTH_INITIATOR, end) < 0)
		goto fail;
	for (;;) {
		l = pvmi_link_by_serial(serial);
		if (!l)
			return PvmSysErr;
		if (!l->gate)
			return PvmOk;
		left = (int)(end - now_ms());
		if (left <= 0)
			break;
		pvmi_link_pump(left, -1);
	}
fail:
	l = pvmi_link_by_serial(serial);
	if (l)
		pvmi_link_drop(l);
	return PvmSysErr;
}

/* Makes sure this task listens on TCP; returns the port, 0 on failure
 * (conn_tcp.h). */
int pvmi_conn_tcp_listen(void)
{
	int fd;

	if (tcp_ep.fd < 0) {
		if (pvmi_transport_tcp.listen(0, &fd) != PvmOk)
			return 0;
		tcp_ep.fd = fd;
		pvmi_conn_endpoint_add(&tcp_ep);
	}
	return pvmi_transport_tcp.port(tcp_ep.fd);
}

/* Adopts the listening socket the spawning daemon made for us
 * (conn_tcp.h). */
void pvmi_conn_tcp_adopt(int fd)
{
	if (tcp_ep.fd >= 0 && tcp_ep.fd != fd)
		close(tcp_ep.fd);
	tcp_ep.fd = fd;
	pvmi_conn_endpoint_add(&tcp_ep);
}

/* Sets the machine's secret, which every TCP circuit must prove
 * (conn_tcp.h). */
void pvmi_conn_set_secret(const unsigned char *key)
{
	memcpy(secret, key, PVMI_SECRET_LEN);
	have_secret = 1;
	pvmi_conn_endpoint_add(&tcp_ep);	/* forgotten at close */
}

static void unacked(struct link *l, void *arg)
{
	int q;

	if (l->hooks == &tcp_hooks && !l->dead && !l->gate && !l->connecting &&
	    ioctl(l->pipe.fd, SIOCOUTQ, &q) == 0 && q > 0)
		*(int *)arg = 1;
}

/* Waits (within `timeout_ms') until everything sent on TCP circuits has
 * been acknowledged by the other hosts (conn_tcp.h). */
void pvmi_conn_tcp_drain(int timeout_ms)
{
	long long end = now_ms() + timeout_ms;
	int busy;

	do {
		busy = 0;
		pvmi_link_each(unacked, &busy);
		if (busy)
			pvmi_link_pump(1, -1);
	} while (busy && now_ms() < end);
}

/*
 * peer.c - TCP connections between daemons.
 *
 * A daemon listens on one TCP port (a slave from the start, the master
 * from its first pvm_addhosts or hostfile host).  Every connection, either
 * way, first runs the handshake of common/auth.h as PVMI_AUTH_DAEMON with
 * the host index as id; until it is done no frame is parsed, and a peer
 * that fails it, sends garbage or stalls (PEER_AUTH_MS) is dropped
 * without an answer.  At most PEER_MAX_UNAUTH handshakes run at once, so a
 * stranger cannot eat the daemon's descriptors: past that, the oldest
 * handshake under way is dropped for the newcomer (a real daemon is done
 * in a round trip, so flooding does not keep it out).  Who may connect as
 * whom:
 *   - the master accepts host indices it is starting (addhost.c) and
 *     hosts of its table;
 *   - a slave accepts any other host index (a slave that has just joined
 *     may reach us before the master's new table does); the handshake has
 *     proved the peer holds the machine's secret.
 *
 * Each host has at most one "send link" (links[]): the first connection
 * to it that completed the handshake, whichever side opened it.  Every
 * frame to that host goes there, so frames from here to there stay in
 * order.  A second connection (both sides connected at once) is still
 * read.  Frames for a host with no link yet wait in a queue while a
 * connection is made (slaves connect to each other only when needed).
 *
 * When the send link of a host closes: on the master the host has failed
 * and is removed; on a slave, losing the master means the machine is
 * gone (the slave halts), losing another slave means nothing until the
 * master says so.  The host's removal, like the question whether a host
 * is being started, belongs to the modules above (hooks from wiring.c).
 *
 * A host that vanishes without closing anything (a cut cable, a frozen
 * machine) is found by silence: every daemon sends DD_BEAT on each link
 * every fifth of the host timeout (COPVM_HOST_TIMEOUT_MS), and a host
 * none of whose connections brought a byte for the whole timeout is
 * declared dead by closing them all, which is then the broken link
 * above.  The beats come from the daemon, which is never boosted away,
 * so a loaded host still beats.  A connection we do not read (flow
 * control) is not judged: its silence would be ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"

#define PEER_AUTH_MS		10000	/* handshake deadline */
#define PEER_MAX_UNAUTH		32	/* handshakes at once */
#define PEER_LINGER_MS		2000	/* flushing a link we closed */
#define PEER_TIMEOUT_MS		15000	/* silence that kills a host */
#define PEER_TIMEOUT_MIN	200	/* below: beats too dense */

struct waitq {
	struct waitq_item *head, *tail;
	size_t bytes;
};

struct waitq_item {
	struct waitq_item *next;
	size_t len;			/* header + body */
	unsigned char data[];
};

static struct pvmd_watch listen_w = { .fd = -1 };
static const struct pvmd_peer_hooks *hooks;
static struct pvmd_conn *links[PVMI_MAX_HOSTS];
static struct pvmd_conn *dialing[PVMI_MAX_HOSTS];
static struct waitq *waiting[PVMI_MAX_HOSTS];
static int nunauth;
static long long beat_sent[PVMI_MAX_HOSTS];	/* last DD_BEAT (ms) */
static int timeout_ms = -1;			/* -1: not read yet */

/* Gives the links the functions they report to (wiring.c). */
void pvmd_peer_set_hooks(const struct pvmd_peer_hooks *h)
{
	hooks = h;
}

/* The silence after which a host is declared dead (pvmd.h); read once
 * from COPVM_HOST_TIMEOUT_MS. */
int pvmd_peer_timeout_ms(void)
{
	const char *e;
	char *end;
	long v;

	if (timeout_ms >= 0)
		return timeout_ms;
	timeout_ms = PEER_TIMEOUT_MS;
	e = getenv("COPVM_HOST_TIMEOUT_MS");
	if (e && *e) {
		v = strtol(e, &end, 10);
		if (*end || v < 0 || v > 3600000 ||
		    (v > 0 && v < PEER_TIMEOUT_MIN))
			pvmd_log("COPVM_HOST_TIMEOUT_MS=%s is not 0 or %d..3600000"
				 " ms: using %d", e, PEER_TIMEOUT_MIN,
				 PEER_TIMEOUT_MS);
		else
			timeout_ms = (int)v;
	}
	return timeout_ms;
}

/* The silence after which host `index' is declared dead: its ht= on
 * the master, else our setting (a slave got its ht= as that). */
static int host_timeout_ms(int index)
{
	struct pvmd_host *h = pvmd_host_get(index);

	return h && h->htmo ? h->htmo : pvmd_peer_timeout_ms();
}

/* How often the link to `index' beats: a fifth of the timeout (of the
 * default one when ours is off, for peers whose timeout is on). */
static int beat_ms(int index)
{
	int t = host_timeout_ms(index);

	return (t ? t : PEER_TIMEOUT_MS) / 5;
}

static void tune(int fd)
{
	int on = 1, idle = 30, intvl = 10, cnt = 3;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

static void waitq_drop(int index)
{
	struct waitq *q = waiting[index];
	struct waitq_item *it;

	if (!q)
		return;
	while ((it = q->head)) {
		q->head = it->next;
		free(it);
	}
	free(q);
	waiting[index] = NULL;
}

/* Moves the frames waiting for `index' onto its new link. */
static void waitq_flush(int index, struct pvmd_conn *c)
{
	struct waitq *q = waiting[index];
	struct waitq_item *it;
	struct pvmi_frame f;

	if (!q)
		return;
	while ((it = q->head)) {
		q->head = it->next;
		pvmi_frame_decode(it->data, &f);
		pvmd_conn_send(c, &f, it->data + PVMI_FRAME_HDR_LEN,
			       it->len - PVMI_FRAME_HDR_LEN);
		free(it);
	}
	free(q);
	waiting[index] = NULL;
}

static int waitq_add(int index, const struct pvmi_frame *f, const void *body,
		     size_t len)
{
	struct waitq *q = waiting[index];
	struct waitq_item *it;

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return -1;
		waiting[index] = q;
	}
	it = malloc(sizeof(*it) + PVMI_FRAME_HDR_LEN + len);
	if (!it)
		return -1;
	it->next = NULL;
	it->len = PVMI_FRAME_HDR_LEN + len;
	pvmi_frame_encode(f, it->data);
	if (len)
		memcpy(it->data + PVMI_FRAME_HDR_LEN, body, len);
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	q->bytes += it->len;
	return 0;
}

static int start_auth(struct pvmd_conn *c, int role)
{
	c->auth = malloc(sizeof(*c->auth));
	if (!c->auth || pvmi_auth_init(c->auth, pvmd.secret, role,
				       PVMI_AUTH_DAEMON, pvmd.index) < 0) {
		pvmd_conn_close(c, "cannot start the handshake");
		return -1;
	}
	nunauth++;
	c->deadline = pvmd_now_ms() + PEER_AUTH_MS;
	pvmd_tick_within(PEER_AUTH_MS);
	if (c->auth->outlen) {
		pvmd_conn_send_raw(c, c->auth->out, c->auth->outlen);
		c->auth->outlen = 0;
	}
	return 0;
}

static void end_auth(struct pvmd_conn *c)
{
	if (!c->auth)
		return;
	pvmi_auth_clear(c->auth);
	free(c->auth);
	c->auth = NULL;
	nunauth--;
}

static void oldest_unauth(struct pvmd_conn *c, void *arg)
{
	struct pvmd_conn **o = arg;

	/* the list is newest first: on a tie the later one is older */
	if (c->auth && !c->host && (!*o || c->deadline <= (*o)->deadline))
		*o = c;
}

static void on_accept(struct pvmd_watch *w, uint32_t events)
{
	struct pvmd_conn *c, *old;
	int fd;

	for (;;) {
		fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* out of descriptors: drop one, or the listener
			 * stays readable and the loop spins (loop.c) */
			if (errno == EMFILE || errno == ENFILE)
				pvmd_shed_connection(w->fd);
			return;
		}
		if (pvmd.halting) {
			close(fd);
			continue;
		}
		if (nunauth >= PEER_MAX_UNAUTH) {
			old = NULL;
			pvmd_conn_each(PVMD_CONN_PEER, oldest_unauth, &old);
			if (!old) {
				close(fd);
				continue;
			}
			pvmd_log("too many TCP handshakes under way: dropped "
				 "the oldest");
			pvmd_conn_close(old, "handshake crowded out");
		}
		tune(fd);
		c = pvmd_conn_new_kind(fd, PVMD_CONN_PEER, EPOLLIN);
		if (c)
			start_auth(c, PVMI_AUTH_ACCEPTOR);
	}
}

/* Opens our TCP listener (once), on `bind_addr' if it can, else on every
 * address; 0 or -1. */
int pvmd_peer_listen(const char *bind_addr)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd, on = 1;

	if (listen_w.fd >= 0)
		return 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	if (!bind_addr || inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (bind_addr && *bind_addr)
			pvmd_log("cannot listen on %s (%s): listening on "
				 "every address", bind_addr, strerror(errno));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		sa.sin_port = 0;
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			goto fail;
	}
	if (listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		goto fail;
	pvmd.tcp_port = ntohs(sa.sin_port);
	listen_w.fd = fd;
	listen_w.on_event = on_accept;
	if (pvmd.epfd >= 0 && pvmd_watch_add(&listen_w, EPOLLIN) < 0) {
		listen_w.fd = -1;
		goto fail;
	}
	pvmd_log("listening for daemons on TCP port %d, %s", pvmd.tcp_port,
		 sa.sin_addr.s_addr == htonl(INADDR_ANY) ? "every address" :
		 inet_ntoa(sa.sin_addr));
	if (pvmd_host_get(pvmd.index))
		pvmd_host_get(pvmd.index)->port = pvmd.tcp_port;
	return 0;
fail:
	pvmd_log("cannot listen on TCP: %s", strerror(errno));
	close(fd);
	return -1;
}

/* The address our TCP listener is bound to (pvmd.h). */
int pvmd_peer_listen_addr(char *out, size_t size)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (listen_w.fd < 0 ||
	    getsockname(listen_w.fd, (struct sockaddr *)&sa, &len) < 0 ||
	    sa.sin_family != AF_INET || sa.sin_addr.s_addr == htonl(INADDR_ANY))
		return -1;
	return inet_ntop(AF_INET, &sa.sin_addr, out, (socklen_t)size) ? 0 : -1;
}

/* Watches the listener once the loop exists (a slave opens it first). */
void pvmd_peer_loop_ready(void)
{
	if (listen_w.fd >= 0)
		pvmd_watch_add(&listen_w, EPOLLIN);
}

/* Makes `c' the send link of its host and flushes what waited. */
static void become_link(struct pvmd_conn *c)
{
	int index = c->host;

	if (!links[index] || links[index]->dead) {
		links[index] = c;
		waitq_flush(index, c);
	}
	if (dialing[index] == c)
		dialing[index] = NULL;
	c->last_rx = pvmd_now_ms();
	pvmd_tick_within(0);	/* start beating */
}

/* The handshake of `c' is done: check who it is. */
static int authenticated(struct pvmd_conn *c)
{
	int kind = c->auth->peer_kind, id = c->auth->peer_id;
	int dialed = c->host;

	end_auth(c);
	if (kind != PVMI_AUTH_DAEMON || id <= 0 || id >= PVMI_MAX_HOSTS ||
	    id == pvmd.index || (dialed && id != dialed)) {
		pvmd_log("TCP peer is not the daemon expected (kind %d, "
			 "host %d): dropped", kind, id);
		return -1;
	}
	if (!dialed && !pvmd.slave && !pvmd_host_get(id) &&
	    !hooks->expected(id)) {
		pvmd_log("daemon of host %d connected, but no such host is "
			 "in the machine or starting: dropped", id);
		return -1;
	}
	c->host = id;
	pvmd_dbg(PVMD_DBG_NET, "link with host %d up (%s)", id,
		 dialed ? "we connected" : "it connected");
	become_link(c);
	return 0;
}

/* Consumes handshake bytes from `c''s input (see pvmd.h). */
int pvmd_peer_auth_input(struct pvmd_conn *c)
{
	size_t want;
	int st;

	while (c->auth) {
		want = pvmi_auth_want(c->auth);
		if (c->in_len < want)
			return 0;
		st = pvmi_auth_feed(c->auth, c->in + c->in_start);
		c->in_start += want;
		c->in_len -= want;
		if (c->auth->outlen) {
			pvmd_conn_send_raw(c, c->auth->out, c->auth->outlen);
			c->auth->outlen = 0;
		}
		if (st == PVMI_AUTH_FAIL) {
			pvmd_log("TCP peer failed the handshake: dropped");
			pvmd_conn_close(c, "handshake failed");
			return -1;
		}
		if (st == PVMI_AUTH_DONE && authenticated(c) < 0) {
			pvmd_conn_close(c, "not an expected daemon");
			return -1;
		}
	}
	return 1;
}

/* Starts a connection to host `index'. */
static void dial(int index)
{
	struct pvmd_host *h = pvmd_host_get(index);
	struct sockaddr_in sa;
	struct pvmd_conn *c;
	int fd;

	if (dialing[index] || !h || !h->port)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)h->port);
	if (inet_pton(AF_INET, h->addr, &sa.sin_addr) != 1) {
		pvmd_log("host %s has no usable address (\"%s\")", h->name,
			 h->addr);
		waitq_drop(index);
		return;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	tune(fd);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	    errno != EINPROGRESS) {
		pvmd_log("cannot connect to host %s (%s:%d): %s", h->name,
			 h->addr, h->port, strerror(errno));
		close(fd);
		waitq_drop(index);
		return;
	}
	c = pvmd_conn_new_kind(fd, PVMD_CONN_PEER, EPOLLOUT);
	if (!c)
		return;
	c->host = index;
	c->connecting = 1;
	c->deadline = pvmd_now_ms() + PEER_AUTH_MS;
	pvmd_tick_within(PEER_AUTH_MS);
	dialing[index] = c;
	pvmd_dbg(PVMD_DBG_NET, "connecting to host %d (%s:%d)", index,
		 h->addr, h->port);
}

/* A connect() under way on `c' ended. */
void pvmd_peer_connect_done(struct pvmd_conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->w.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		pvmd_log("cannot connect to host %d: %s", c->host,
			 strerror(err));
		pvmd_conn_close(c, "connect failed");
		return;
	}
	c->connecting = 0;
	if (start_auth(c, PVMI_AUTH_INITIATOR) == 0)
		pvmd_conn_resume(c);
}

/* Adopts a connected, authenticated socket as the link to `index'. */
struct pvmd_conn *pvmd_peer_adopt(int fd, int index)
{
	struct pvmd_conn *c;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	tune(fd);
	c = pvmd_conn_new_kind(fd, PVMD_CONN_PEER, EPOLLIN);
	if (!c)
		return NULL;
	c->host = index;
	become_link(c);
	return c;
}

/* Sends a frame to the daemon of host `index' (see pvmd.h). */
struct pvmd_conn *pvmd_peer_send(int index, const struct pvmi_frame *f,
				 const void *body, size_t len)
{
	struct pvmd_conn *c;

	if (index <= 0 || index >= PVMI_MAX_HOSTS || index == pvmd.index)
		return NULL;
	c = links[index];
	if (c && !c->dead) {
		pvmd_conn_send(c, f, body, len);
		return c;
	}
	if (!pvmd_host_get(index)) {
		pvmd_dbg(PVMD_DBG_NET, "frame for host %d dropped: not in "
			 "the machine", index);
		return NULL;
	}
	if (waitq_add(index, f, body, len) < 0) {
		pvmd_log("out of memory queueing for host %d", index);
		return NULL;
	}
	dial(index);
	return NULL;
}

/* Sends a DAEMON frame with op `op' and body `w' (not freed). */
struct pvmd_conn *pvmd_peer_send_dd(int index, int op,
				    const struct pvmi_wbuf *w)
{
	struct pvmi_frame f;

	if (w->failed)
		return NULL;
	memset(&f, 0, sizeof(f));
	f.magic = PVMI_FRAME_MAGIC;
	f.len = (uint32_t)w->len;
	f.src = pvmd.dtid;
	f.dst = PVMI_DAEMON_TID(index);
	f.tag = op;
	f.enc = PvmDataDefault;
	f.kind = PVMI_KIND_DAEMON;
	return pvmd_peer_send(index, &f, w->data, w->len);
}

/* The link to host `index' if one is up, else NULL. */
struct pvmd_conn *pvmd_peer_link(int index)
{
	if (index <= 0 || index >= PVMI_MAX_HOSTS)
		return NULL;
	return links[index] && !links[index]->dead ? links[index] : NULL;
}

/* Another open, authenticated connection to the host of `c'. */
static void find_other(struct pvmd_conn *o, void *arg)
{
	struct pvmd_conn **pc = arg;

	if (o != pc[0] && o->host == pc[0]->host && !o->auth &&
	    !o->connecting && !o->linger && !pc[1])
		pc[1] = o;
}

/* A peer connection closed (see the top of the file). */
void pvmd_peer_closed(struct pvmd_conn *c)
{
	struct pvmd_conn *pc[2] = { c, NULL };
	int index = c->host, was_link;

	end_auth(c);
	if (index <= 0 || index >= PVMI_MAX_HOSTS)
		return;
	if (dialing[index] == c) {
		dialing[index] = NULL;
		if (!links[index])
			waitq_drop(index);
	}
	was_link = links[index] == c;
	if (!was_link)
		return;
	links[index] = NULL;
	pvmd_conn_each(PVMD_CONN_PEER, find_other, pc);
	if (pc[1]) {
		links[index] = pc[1];
		return;
	}
	if (c->linger || pvmd.halting)
		return;
	if (!pvmd.slave) {
		hooks->host_lost(index, "its daemon's link broke");
	} else if (index == PVMI_MASTER_INDEX) {
		pvmd_log("lost the link to the master: halting");
		pvmd_halt(NULL);
	}
}

static void linger_one(struct pvmd_conn *c, void *arg)
{
	int index = *(int *)arg;

	if (c->host != index || c->linger)
		return;
	if (c->auth || c->connecting || !c->oq_head) {
		c->linger = 1;
		pvmd_conn_close(c, "host left");
		return;
	}
	c->linger = 1;
	c->deadline = pvmd_now_ms() + PEER_LINGER_MS;
	pvmd_tick_within(PEER_LINGER_MS);
}

/* Closes the links to host `index' once what is queued on them is out
 * (a DD_HALT to a deleted host), and drops what waited for a link. */
void pvmd_peer_forget(int index)
{
	if (index <= 0 || index >= PVMI_MAX_HOSTS)
		return;
	links[index] = NULL;
	dialing[index] = NULL;
	waitq_drop(index);
	pvmd_conn_each(PVMD_CONN_PEER, linger_one, &index);
}

/* What the tick learns of the hosts: the last time each was heard. */
struct tick_state {
	long long now;
	long long heard[PVMI_MAX_HOSTS];	/* 0: no open link */
};

static void tick_one(struct pvmd_conn *c, void *arg)
{
	struct tick_state *ts = arg;
	long long now = ts->now;

	if (c->linger && !c->oq_head) {
		pvmd_conn_close(c, "host left");
		return;
	}
	if ((c->auth || c->connecting || c->linger) && c->deadline &&
	    now >= c->deadline) {
		pvmd_log("TCP connection %s host %d timed out",
			 c->linger ? "to departed" : "handshake with",
			 c->host);
		pvmd_conn_close(c, "timed out");
		return;
	}
	if (c->auth || c->connecting || c->linger) {
		pvmd_tick_within((int)(c->deadline - now) + 1);
		return;
	}
	if (c->host <= 0 || c->host >= PVMI_MAX_HOSTS)
		return;
	if (c->blocked_on || c->deferred)	/* not read: not judged */
		c->last_rx = now;
	if (c->last_rx > ts->heard[c->host])
		ts->heard[c->host] = c->last_rx;
}

static void close_host(struct pvmd_conn *c, void *arg)
{
	if (c->host == *(int *)arg)
		pvmd_conn_close(c, "host silent");
}

/* Beats on every link, and declares dead the hosts silent too long. */
static void beat_and_judge(struct tick_state *ts)
{
	struct pvmi_wbuf w = { 0 };
	int i, beat, timeout, any = 0;
	long long silent, next = PEER_TIMEOUT_MS;

	for (i = 1; i < PVMI_MAX_HOSTS; i++) {
		if (!ts->heard[i] || i == pvmd.index)
			continue;
		beat = beat_ms(i);
		timeout = host_timeout_ms(i);
		silent = ts->now - ts->heard[i];
		if (timeout && silent >= timeout && !pvmd.halting) {
			pvmd_log("host %d silent for %lld ms (timeout %d ms): "
				 "declared dead", i, silent, timeout);
			pvmd_conn_each(PVMD_CONN_PEER, close_host, &i);
			continue;
		}
		any = 1;
		if (timeout && timeout - silent < next)
			next = timeout - silent;
		if (!links[i] || links[i]->dead)
			continue;
		if (ts->now - beat_sent[i] >= beat) {
			pvmd_peer_send_dd(i, PVMI_DD_BEAT, &w);
			beat_sent[i] = ts->now;
		}
		if (beat_sent[i] + beat - ts->now < next)
			next = beat_sent[i] + beat - ts->now;
	}
	if (any)
		pvmd_tick_within(next > 0 ? (int)next + 1 : 1);
}

/* Drops connections whose handshake (or lingering) is overdue, beats,
 * and declares silent hosts dead (see the top). */
void pvmd_peer_tick(void)
{
	struct tick_state ts;

	memset(&ts, 0, sizeof(ts));
	ts.now = pvmd_now_ms();
	pvmd_conn_each(PVMD_CONN_PEER, tick_one, &ts);
	beat_and_judge(&ts);
}

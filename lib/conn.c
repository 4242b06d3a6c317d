/*
 * conn.c - links and the event pump of a task.
 *
 * Every link carries whole frames (wire.h) over its transport's pipe
 * (transport/transport.h).  Sends (conn_send.c) block until the
 * transport has taken the whole frame but keep reading incoming frames
 * through the pump here while they wait, so two tasks sending large
 * messages to each other cannot deadlock.  The pipes hand complete
 * frames to conn_frame.c: user messages go to the sink, other
 * frames to the link's hooks (conn.h); while a handshake is under way
 * (l->gate) the bytes go to the link's owner instead.
 *
 * The pump lets the transports bring their pipes' in-memory state up to
 * date (prepare: io_uring reaps its completions), looks at every pipe
 * that can be looked at without a system call (poll_ready), then waits
 * in poll() on the pipes' and the endpoints' fds; before a wait that may
 * block it arms such pipes (their transport then wakes an fd in the poll
 * set).  While pipes that arm exist (rings; a stream's poll_ready only
 * tells of frames a bounded look left staged), a round of a receive's spin
 * (pvmi_pump_spin) or one with input already in memory calls poll() only
 * when a gap has passed since the last (4 us, doubling while the sockets
 * stay quiet, up to 256 us), so a spin on a ring is not a string of
 * system calls and the sockets still get their turn; such a round of a
 * spin reads the rings' links in place, gathering no fds (spin_round).
 * Between rounds a spin looks at the rings only (pvmi_conn_spin_hint).
 * After a round that neither blocks nor spins (pvm_nrecv, pvm_probe) the
 * rings are left armed, since the caller may next wait on the fds of
 * pvm_getfds(): their first, an epoll set (pollset.c) kept equal to what
 * the pump polls, holds the eventfd the rings' writers then ring.
 *
 * This file names no transport: the links come from daemon_link.c,
 * conn_unix.c and conn_tcp.c with the transport route.c decided, the
 * listening fds from the endpoints those modules register, and the
 * process-wide wait fds (shm's eventfd, io_uring's ring) from the
 * tables of the links' transports.  A send that breaks its link frees
 * it and says PvmNoTask (pvmi_conn_send): the one failure path of a
 * circuit, which route.c reads.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bufcache.h"
#include "conn.h"
#include "cosched/arrival.h"
#include "cosched/cosched.h"
#include "pollset.h"
#include "pvmi.h"
#include "transport/registry.h"

#define MAX_ENDPOINTS	8	/* three today: daemon, unix, tcp */
#define MAX_TRANSPORTS	8	/* two today: shm, uring */
/* While rings are looked at in memory, the time a round leaves the
 * sockets unpolled: it starts at POLL_GAP_NS and doubles after each
 * poll() that found nothing, up to POLL_GAP_MAX_NS, so a steady spin on
 * the rings is almost free of system calls while socket traffic is
 * still seen within a few microseconds once it flows. */
/* Rounds a pump that leaves the rings armed runs again at most, for
 * input that came while it armed them. */
#define REARM_ROUNDS	8
#define POLL_GAP_NS	4000
#define POLL_GAP_MAX_NS	256000

static struct link **links;
static int nlinks, linkcap;
static unsigned long next_serial;
static struct pvmi_conn_endpoint *endpoints[MAX_ENDPOINTS];
static int nendpoints;
/* The transports of the links made so far that have work of their own
 * for the whole process (transport.h): their wait fds are polled with
 * the rest, they prepare each round and release when everything
 * closes. */
static struct {
	const struct pvmi_transport *tp;
	int fd;				/* its wait_fd(), -1: none */
} tps[MAX_TRANSPORTS];
static int ntps;
static int nprepare;		/* of them, those with a prepare */
static void (*sink)(struct pvmi_msg *m);
static int spinning;		/* in pvmi_pump_spin() */
/* The link a look last found input on (pvmi_conn_spin_hint), looked at
 * first; while fresh, the next round reads it alone (spin_round). */
static struct link *hinted;
static int hint_fresh, hinted_rounds;
#define HINTED_MAX	16	/* such rounds in a row at most */
static int left_armed;		/* rings a pump round left armed */
static long last_poll_ns;	/* the pump's last poll() (see the top) */
static long poll_gap = POLL_GAP_NS;
static long spin_now;		/* its caller's clock reading */
static int held;		/* back-pressure: see pvmi_conn_hold() */
static int sated;		/* see pvmi_conn_sated() */
static int draining;		/* in pvmi_conn_drain_peers() */
static int wanted_peer = PVMI_WANT_NONE;
static int writing_peer;	/* peer of the write waiting for room */
/* A link, endpoint or wait fd came or went since the pollset's last
 * sync: an fd number it lists may now name another file. */
static int pollset_dirty;

static int conn_paused(void *arg);
static int conn_sated(void *arg);
static long conn_spin(void *arg, long lin_ns);
static int pollset_sync(void);
/* pollset_sync() once a program asked for the set (pvm_getfds; conn.h). */
int pvmi_conn_pollset_update(void)
{
	return pvmi_pollset_fd() < 0 ? 0 : pollset_sync();
}

/* What every pipe hands its frames and handshake bytes to. */
static const struct pvmi_pipe_sink conn_sink = {
	.frame = pvmi_conn_frame,
	.frame_lent = pvmi_conn_frame_lent,
	.gate = pvmi_conn_gate,
	.paused = conn_paused,
	.sated = conn_sated,
	.spin_ns = conn_spin,
};

/* Sets the taker of incoming user messages (conn.h). */
void pvmi_conn_set_sink(void (*deliver)(struct pvmi_msg *m))
{
	sink = deliver;
}

/* Hands `m' to the sink, or drops it when there is none (conn.h). */
void pvmi_conn_deliver(struct pvmi_msg *m)
{
	if (sink)
		sink(m);
	else
		pvmi_msg_free(m);
}

/* Holds or releases the input of unwanted links (conn.h). */
void pvmi_conn_hold(int on)
{
	held = on;
}

/* Says whether the receive under way has its match queued (conn.h). */
void pvmi_conn_sated(int on)
{
	sated = on;
}

/* Sets the peer a held pump still reads; returns the previous one
 * (conn.h). */
int pvmi_conn_want(int tid)
{
	int old = wanted_peer;

	wanted_peer = tid;
	return old;
}

/* Whether a pump reads `l' now (see pvmi_conn_hold()): a link being
 * written (busy: a TCP circuit carries both ways) is read too. */
static inline int link_wanted(const struct link *l)
{
	if (!held || wanted_peer == PVMI_WANT_ANY || l->role == LINK_DAEMON ||
	    l->gate || !l->peer || l->busy)
		return 1;
	return l->peer == wanted_peer || l->peer == writing_peer;
}

/* Sets the peer a write waits on; returns the previous one (conn.h). */
int pvmi_conn_writing(int peer)
{
	int old = writing_peer;

	writing_peer = peer;
	return old;
}

/* Registers an endpoint once (conn.h); again, its fd may have
 * changed. */
void pvmi_conn_endpoint_add(struct pvmi_conn_endpoint *ep)
{
	pollset_dirty = 1;
	if (!ep->listed) {
		if (nendpoints == MAX_ENDPOINTS)
			abort();	/* a module too many: raise it */
		ep->listed = 1;
		endpoints[nendpoints++] = ep;
	}
	pvmi_conn_pollset_update();
}

static long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Rests `ep' for PVMI_REST_MS (conn.h). */
void pvmi_conn_endpoint_rest(struct pvmi_conn_endpoint *ep)
{
	ep->rest_until = mono_ns() / 1000000 + PVMI_REST_MS;
}

/* Milliseconds `ep' still rests, 0 when it is polled again. */
static int rest_left(struct pvmi_conn_endpoint *ep)
{
	long long left;

	if (!ep->rest_until)
		return 0;
	left = ep->rest_until - mono_ns() / 1000000;
	if (left <= 0) {
		ep->rest_until = 0;
		return 0;
	}
	return (int)left;
}

/* Input may now come on `fd' (-1: none new): the coscheduling engine's
 * arrival watch learns of the file, and the epoll set of pvm_getfds() is
 * rebuilt.  With input_going(), the one place where both hear of the
 * files input comes on, so neither can miss one. */
static void input_coming(int fd)
{
	pvmi_cosched_input_added(fd);
	pollset_dirty = 1;
	pvmi_conn_pollset_update();
}

/* Input stops coming on `fd' (-1: none), still open; the caller has
 * taken its link out of links[] already, or closed the poll set. */
static void input_going(int fd)
{
	if (fd >= 0)
		pvmi_cosched_input_gone(fd);
	pollset_dirty = 1;
	pvmi_conn_pollset_update();
}

/* Takes note of transport `tp', whose pipe is being made: one with
 * process-wide work joins tps[], its wait fd asked again. */
static void tp_note(const struct pvmi_transport *tp)
{
	int i;

	if (!tp->wait_fd && !tp->prepare && !tp->woken && !tp->release)
		return;
	for (i = 0; i < ntps && tps[i].tp != tp; i++)
		;
	if (i == ntps) {
		if (ntps == MAX_TRANSPORTS)
			abort();	/* raise MAX_TRANSPORTS */
		tps[ntps++].tp = tp;
		if (tp->prepare)
			nprepare++;
	}
	tps[i].fd = tp->wait_fd ? tp->wait_fd() : -1;
	input_coming(tps[i].fd);
}

/* Adds a link; NULL when out of memory (the caller closes `fd'). */
struct link *pvmi_link_add(int fd, int role, int peer,
			   const struct pvmi_transport *tp,
			   const struct pvmi_link_hooks *hooks)
{
	struct link *l;

	tp_note(tp);

	if (nlinks == linkcap) {
		int ncap = linkcap ? 2 * linkcap : 16;
		struct link **nl = realloc(links, ncap * sizeof(*nl));

		if (!nl)
			return NULL;
		links = nl;
		linkcap = ncap;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	pvmi_pipe_init(&l->pipe, fd, tp, &conn_sink, l);
	l->role = role;
	l->peer = peer;
	l->hooks = hooks;
	l->serial = ++next_serial;
	links[nlinks++] = l;
	input_coming(role != LINK_OUT ? fd : -1);	/* input reaches us on it */
	return l;
}

/* Closes and frees a link, telling its owner first (conn.h). */
void pvmi_link_drop(struct link *l)
{
	int i;

	for (i = 0; i < nlinks; i++) {
		if (links[i] == l) {
			links[i] = links[--nlinks];
			break;
		}
	}
	input_going(l->role != LINK_OUT ? l->pipe.fd : -1);	/* still open */
	if (hinted == l)
		hinted = NULL;
	if (l->hooks && l->hooks->release)
		l->hooks->release(l);
	pvmi_link_held_free(l);
	if (l->watch && *l->watch == l)
		*l->watch = NULL;
	l->pipe.tp->close(&l->pipe);
	free(l);
}

/* Sets or clears the handshake state of `l' (conn.h). */
void pvmi_link_set_gate(struct link *l, void *gate)
{
	l->gate = gate;
	l->pipe.gated = gate != NULL;
}

/* Calls `fn' on every link (which must not add or drop links). */
void pvmi_link_each(void (*fn)(struct link *l, void *arg), void *arg)
{
	int i;

	for (i = 0; i < nlinks; i++)
		fn(links[i], arg);
}

/* The first live link of `role' with `peer' (conn.h). */
struct link *pvmi_link_find(int role, int peer)
{
	int i;

	for (i = 0; i < nlinks; i++)
		if (links[i]->role == role && links[i]->peer == peer &&
		    !links[i]->dead)
			return links[i];
	return NULL;
}

/* The live link with serial `serial' (conn.h). */
struct link *pvmi_link_by_serial(unsigned long serial)
{
	int i;

	for (i = 0; i < nlinks; i++)
		if (links[i]->serial == serial && !links[i]->dead)
			return links[i];
	return NULL;
}

/* Points *ref at `l' until `l' is freed (conn.h). */
void pvmi_link_watch(struct link *l, struct link **ref)
{
	l->watch = ref;
	*ref = l;
}

/* Closes every link and endpoint (conn.h). */
void pvmi_conn_close_all(int unlink_tid)
{
	int i;

	pvmi_pollset_close();
	while (nlinks)
		pvmi_link_drop(links[nlinks - 1]);
	free(links);
	links = NULL;
	linkcap = 0;
	for (i = 0; i < nendpoints; i++) {
		if (endpoints[i]->close)
			endpoints[i]->close(unlink_tid);
		endpoints[i]->listed = 0;
	}
	nendpoints = 0;
	for (i = 0; i < ntps; i++) {
		input_going(tps[i].fd);	/* the poll set is closed already */
		if (tps[i].tp->release)
			tps[i].tp->release();
	}
	ntps = 0;
	nprepare = 0;
}

/* Closes the circuits this task only writes on (conn.h). */
void pvmi_conn_close_out(void)
{
	int i;

	for (i = nlinks - 1; i >= 0; i--)
		if (i < nlinks && links[i]->role == LINK_OUT && !links[i]->busy)
			pvmi_link_drop(links[i]);
}

static int link_read(struct link *l);

/* Lets every transport bring its pipes' in-memory state up to date (its
 * prepare, transport.h); 1 when one says the round must not block. */
static int prepare_all(void)
{
	int i, hot = 0;

	if (!nprepare)
		return 0;
	for (i = 0; i < ntps; i++)
		if (tps[i].tp->prepare && tps[i].tp->prepare())
			hot = 1;
	return hot;
}

/* Lets the transport whose wait fd is `fd' take what woke it. */
static void tp_woken(int fd)
{
	int i;

	for (i = 0; i < ntps; i++)
		if (tps[i].fd == fd && tps[i].tp->woken)
			tps[i].tp->woken();
}

static void accept_all(void)
{
	int i;

	for (i = 0; i < nendpoints; i++)
		if (endpoints[i]->fd >= 0 && !rest_left(endpoints[i]))
			endpoints[i]->accept();
	for (i = 0; i < ntps; i++)
		if (tps[i].fd >= 0)
			tp_woken(tps[i].fd);
}

/* Reads everything already waiting from other tasks, accepting new
 * circuits first.  Run before a message from the daemon is queued: a task
 * writes its messages before it leaves, so its last messages are in our
 * socket buffers by the time the daemon reports its exit, and must be
 * queued before that report (stock routes both through the daemon and
 * keeps this order).  For a task of another host that used a direct
 * route this holds as far as its messages reached our host before the
 * report did; pvm_exit() waits until its circuits are acknowledged. */
void pvmi_conn_drain_peers(void)
{
	int i;

	accept_all();
	prepare_all();
	draining = 1;	/* whole: no batch bound (conn_sated) */
	for (i = 0; i < nlinks; i++) {
		if ((links[i]->role != LINK_IN &&
		     links[i]->role != LINK_BOTH) ||
		    links[i]->dead || links[i]->connecting)
			continue;
		if (link_read(links[i]) < 0)
			links[i]->dead = 1;
	}
	draining = 0;
}

/* Reads what waits on `l'; 1 if anything arrived, 0 if not, < 0 when the
 * link ended or broke (the caller marks it dead). */
static int link_read(struct link *l)
{
	return l->pipe.tp->progress(&l->pipe);
}

/* Non-zero when the transport of `l' sees input without a system call. */
static int link_ready(struct link *l)
{
	return l->pipe.tp->poll_ready && l->pipe.tp->poll_ready(&l->pipe) > 0;
}

/* Asks the transport of `l' to wake this task through a polled fd
 * (on), or withdraws that (off); 1 when input is already there. */
static int link_arm(struct link *l, int on)
{
	return l->pipe.tp->arm && l->pipe.tp->arm(&l->pipe, on) > 0;
}

/* Drops the links that ended during a pump round (not those being
 * written: their writer drops them). */
void pvmi_link_sweep(void)
{
	int i;

	for (i = 0; i < nlinks && !links[i]->dead; i++)
		;
	if (i == nlinks)
		return;		/* the common case: none ended */
	for (i = nlinks - 1; i >= 0; i--)
		if (i < nlinks && links[i]->dead && !links[i]->busy)
			pvmi_link_drop(links[i]);
}

/* A held link reads no further than the frame it completed. */
static int conn_paused(void *arg)
{
	return !link_wanted(arg);
}

/* Every link's pipe may stop at its batch bound while the receive under
 * way has its match, except while the daemon's message waits for every
 * circuit to be read whole. */
static int conn_sated(void *arg)
{
	return sated && !draining;
}

/* The spin budget of a send on link `arg' that waits for room: the
 * coscheduling model's bound, from the transport's own `lin_ns'. */
static long conn_spin(void *arg, long lin_ns)
{
	return pvmi_cosched_spin_ns(lin_ns);
}

/* One round of waiting: polls every inbound fd, every endpoint (and
 * `wfd' for writability) for up to `timeout_ms'.  Returns 1 when
 * something was read, accepted or `wfd' became writable, 0 on timeout,
 * PvmSysErr when there is nothing left to wait on (conn.h). */
int pvmi_link_pump(int timeout_ms, int wfd)
{
	struct pollfd stackfds[32], *pfd = stackfds;
	struct link *stackmap[32], **map = stackmap;
	struct pvmi_conn_endpoint *ep[MAX_ENDPOINTS];
	int n = 0, i, r, any = 0, max = nlinks + nendpoints + ntps + 1;
	int nep = nendpoints, hot = 0, rings = 0, rest, late = 0;
	static int rearm_depth;
	long now;

	if (max > 32) {
		pfd = malloc(max * sizeof(*pfd));
		map = malloc(max * sizeof(*map));
		if (!pfd || !map) {
			free(pfd == stackfds ? NULL : pfd);
			free(map == stackmap ? NULL : map);
			return PvmSysErr;
		}
	}
	/* input that sits in memory is found now; what comes after this
	 * stays where poll() sees it (transport.h, poll_ready) */
	hot = prepare_all();
	for (i = 0; i < nlinks; i++) {
		if (links[i]->role == LINK_OUT || links[i]->connecting ||
		    !link_wanted(links[i]))
			continue;
		if (links[i]->pipe.tp->arm)	/* a ring, not a stream */
			rings = 1;
		if (link_ready(links[i]) ||
		    (timeout_ms != 0 && link_arm(links[i], 1)))
			hot = 1;
		pfd[n].fd = links[i]->pipe.fd;	/* -1: poll() skips it */
		pfd[n].events = POLLIN;
		map[n++] = links[i];
	}
	for (i = 0; i < nep; i++) {
		ep[i] = endpoints[i];	/* an accept may add another */
		if (ep[i]->fd < 0)
			continue;
		rest = rest_left(ep[i]);
		if (rest) {		/* out of fds: look again later */
			if (timeout_ms < 0 || timeout_ms > rest)
				timeout_ms = rest;
			continue;
		}
		pfd[n].fd = ep[i]->fd;
		pfd[n].events = POLLIN;
		map[n++] = NULL;
	}
	for (i = 0; i < ntps; i++) {
		if (tps[i].fd < 0)
			continue;
		pfd[n].fd = tps[i].fd;
		pfd[n].events = POLLIN;
		map[n++] = NULL;
	}
	if (wfd >= 0) {
		pfd[n].fd = wfd;
		pfd[n].events = POLLOUT;
		map[n++] = NULL;
	}
	if (n == 0) {
		r = PvmSysErr;
		goto out;
	}
	/* input waiting in memory, or a spin: poll() only now and then, so
	 * sockets are never starved but a spin is not all system calls */
	now = !rings || !(hot || spinning) ? 0 :
	      spinning ? spin_now : mono_ns();
	if (now && now - last_poll_ns < poll_gap) {
		for (i = 0; i < n; i++)
			pfd[i].revents = 0;
		r = 0;
	} else {
		r = poll(pfd, n, hot ? 0 : timeout_ms);
		if (now)
			last_poll_ns = now;
		if (r != 0)
			poll_gap = POLL_GAP_NS;
		else if (now && poll_gap < POLL_GAP_MAX_NS)
			poll_gap *= 2;
	}
	for (i = 0; i < n; i++)
		if (map[i])
			link_arm(map[i], 0);
	if (r < 0 || (r == 0 && !hot)) {
		r = (r < 0 && errno != EINTR) ? PvmSysErr : 0;
		goto out;
	}
	for (i = 0; i < n; i++) {
		int e;

		if (!pfd[i].revents && !(map[i] && link_ready(map[i])))
			continue;
		if (pfd[i].fd == wfd && (pfd[i].events & POLLOUT)) {
			any = 1;
		} else if (!map[i]) {
			for (e = 0; e < nep; e++)
				if (ep[e]->fd == pfd[i].fd)
					ep[e]->accept();
			tp_woken(pfd[i].fd);
			any = 1;
		} else if (!map[i]->dead) {
			if (link_read(map[i]) < 0)
				map[i]->dead = 1;
			any = 1;
		}
	}
	for (i = 0; i < nendpoints; i++)
		if (endpoints[i]->round)
			endpoints[i]->round();
	pvmi_link_sweep();
	r = any;
out:
	if (rings && timeout_ms == 0 && !spinning) {
		/* pvm_nrecv, pvm_probe: leave the rings armed, so that a
		 * program waiting on pvm_getfds()' fds hears of them.  A
		 * ring with input already is not armed, and its writer did
		 * not ring: that input is read by another round, or a
		 * program polling fds[0] would sleep through it. */
		for (i = 0; i < nlinks; i++)
			if (links[i]->role != LINK_OUT &&
			    link_arm(links[i], 1))
				late = 1;
		left_armed = 1;
	}
	pvmi_conn_pollset_update();
	if (pfd != stackfds)
		free(pfd);
	if (map != stackmap)
		free(map);
	if (late && r >= 0 && rearm_depth < REARM_ROUNDS) {
		rearm_depth++;
		i = pvmi_link_pump(0, wfd);
		rearm_depth--;
		r = i < 0 ? i : (r || i);
	}
	return r;
}

/* Whether a spin should run its next pump round now (conn.h). */
int pvmi_conn_spin_hint(void)
{
	struct link *l = hinted;
	int i, rings = 0;

	if (nprepare)
		return 1;
	/* in an exchange, the next input comes where the last did */
	if (l && link_wanted(l) && link_ready(l))
		return hint_fresh = 1;
	for (i = 0; i < nlinks; i++) {
		if (links[i]->role == LINK_OUT || links[i]->connecting ||
		    !links[i]->pipe.tp->poll_ready)
			continue;
		rings |= links[i]->pipe.tp->arm != NULL;
		if (links[i] != l && link_wanted(links[i]) &&
		    link_ready(links[i])) {	/* `l' was looked at above */
			hinted = links[i];
			return hint_fresh = 1;
		}
	}
	return !rings;
}

/* Waits up to `timeout_ms' for input and reads all complete frames
 * (conn.h). */
int pvmi_pump(int timeout_ms)
{
	return pvmi_link_pump(timeout_ms, -1);
}

/* A spin's round that needs no poll() (rings polled, the gap not yet
 * passed or `now' 0; no transport that prepares): what pvmi_link_pump()
 * does then, without gathering fds, the rings' links read in place.  0
 * when it does not apply; else 1, with the round's result in *r. */
static int spin_round(long now, int *r)
{
	struct link *l = hint_fresh ? hinted : NULL;
	int i, any = 0, hot = 0, rings = 0, ready;

	hint_fresh = 0;
	if (nprepare || (now && now - last_poll_ns >= poll_gap))
		return 0;
	/* no walk, no disarming (none left armed), no endpoints' rounds,
	 * no sweep but for a link that ended */
	if (l && !l->dead && !left_armed && hinted_rounds < HINTED_MAX) {
		hinted_rounds++;
		ready = link_read(l);
		if (ready < 0) {
			l->dead = 1;
			pvmi_link_sweep();
		}
		*r = ready != 0;
		return 1;
	}
	hinted_rounds = 0;
	left_armed = 0;
	for (i = 0; i < nlinks; i++) {	/* input read is the round's */
		l = links[i];
		if (l->role == LINK_OUT || l->connecting || !link_wanted(l))
			continue;
		rings |= l->pipe.tp->arm != NULL;
		link_arm(l, 0);	/* what a wait that blocked left armed */
		ready = link_ready(l);
		hot |= ready;
		if (ready && !l->dead) {
			if (link_read(l) < 0)
				l->dead = 1;
			any = 1;
		}
	}
	if (!rings && !hot)
		return 0;	/* no ring polled: every round polls */
	if (hot) {
		for (i = 0; i < nendpoints; i++)
			if (endpoints[i]->round)
				endpoints[i]->round();
		pvmi_link_sweep();
	}
	pvmi_conn_pollset_update();
	*r = any;
	return 1;
}

/* One round of a receive's spin: as pvmi_pump(0), but poll() may be left
 * out while the rings are looked at (conn.h). */
int pvmi_pump_spin(long now_ns)
{
	int r = 0;

	if (spin_round(now_ns, &r) || !now_ns)	/* 0: a look, no poll() */
		return r;
	spinning = 1;
	spin_now = now_ns;
	r = pvmi_link_pump(0, -1);
	spinning = 0;
	return r;
}

/* Stores in `arr' (room for nlinks + nendpoints + ntps) the fds a wait
 * for input needs: the links read (not those only written, still
 * connecting or ended), the endpoints' and the transports' wait fds.
 * Returns their count. */
static int wait_fds(int *arr)
{
	int i, n = 0;

	for (i = 0; i < nlinks; i++)
		if (links[i]->role != LINK_OUT && !links[i]->connecting &&
		    !links[i]->dead && links[i]->pipe.fd >= 0)
			arr[n++] = links[i]->pipe.fd;
	for (i = 0; i < nendpoints; i++)
		if (endpoints[i]->fd >= 0)
			arr[n++] = endpoints[i]->fd;
	for (i = 0; i < ntps; i++)
		if (tps[i].fd >= 0)
			arr[n++] = tps[i].fd;
	return n;
}

/* Brings the epoll set of pvm_getfds() up to date, it being open.  0, or
 * -1 when it could not be (it is tried again later). */
static int pollset_sync(void)
{
	int stack[64], *arr = stack, n, rc;
	int max = nlinks + nendpoints + ntps;

	if (max > 64 && !(arr = malloc(max * sizeof(*arr))))
		return -1;
	n = wait_fds(arr);
	rc = pvmi_pollset_sync(arr, n, pollset_dirty);
	if (rc == 0)
		pollset_dirty = 0;
	if (arr != stack)
		free(arr);
	return rc;
}

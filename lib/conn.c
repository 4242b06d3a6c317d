/*
 * conn.c - links, framing and the event pump of a task.
 *
 * Circuits opened to other tasks are cached per destination and reused
 * for every later message (virtual circuit caching); they only carry
 * frames out.  Circuits accepted from other tasks only carry frames in.
 * One connection per (sender, receiver) pair keeps each sender's messages
 * in order.  Sends block until the kernel has the whole frame but keep
 * reading incoming frames while they wait, so two tasks sending large
 * messages to each other cannot deadlock.
 *
 * Direct routes to tasks of other hosts are TCP circuits (LINK_TCP,
 * route_tcp.c), read and written here like any link once their handshake
 * is done; frames on a circuit must come from the task it authenticated
 * as.  route_link.h is what the two files share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "conn.h"
#include "daemon_watch.h"
#include "proto.h"
#include "pvmi.h"
#include "route_link.h"
#include "rundir_check.h"
#include "transport.h"

#define IOV_INLINE	64

static struct link **links;
static int nlinks, linkcap;
static struct link *daemon_link;
static int listen_fd = -1;
static const struct pvmi_transport *listen_tp = &pvmi_transport_unix;
static unsigned long next_serial;

/* The single outstanding daemon request's reply. */
static int reply_wanted;
static int reply_ready;
static unsigned char *reply_body;
static size_t reply_len;

/* Adds a link; NULL when out of memory (the caller closes `fd'). */
struct link *pvmi_link_add(int fd, int kind, int peer,
			   const struct pvmi_transport *tp)
{
	struct link *l;

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
	l->fd = fd;
	l->kind = kind;
	l->peer = peer;
	l->tp = tp;
	l->serial = ++next_serial;
	links[nlinks++] = l;
	return l;
}

/* Closes and frees a link. */
void pvmi_link_drop(struct link *l)
{
	int i;

	for (i = 0; i < nlinks; i++) {
		if (links[i] == l) {
			links[i] = links[--nlinks];
			break;
		}
	}
	if (l == daemon_link)
		daemon_link = NULL;
	pvmi_tcp_auth_end(l);
	close(l->fd);
	free(l->rx);
	free(l->body);
	free(l);
}

/* Calls `fn' on every link (which must not add or drop links). */
void pvmi_link_each(void (*fn)(struct link *l, void *arg), void *arg)
{
	int i;

	for (i = 0; i < nlinks; i++)
		fn(links[i], arg);
}

static struct link *out_link(int tid)
{
	int i;

	for (i = 0; i < nlinks; i++)
		if (links[i]->kind == LINK_OUT && links[i]->peer == tid)
			return links[i];
	return NULL;
}

/* Connects to this host's pvmd; PvmOk, PvmSysErr when none answers,
 * PvmDenied when another user's process does (conn.h). */
int pvmi_conn_daemon_open(void)
{
	struct sockaddr_un sa;
	int s;

	if (daemon_link)
		return PvmOk;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
			     pvmi_rundir(), PVMI_DAEMON_SOCK) >=
	    sizeof(sa.sun_path))
		return PvmSysErr;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return PvmSysErr;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(s);
		return PvmSysErr;
	}
	if (pvmi_peer_verify(s, sa.sun_path) != PvmOk) {
		close(s);
		return PvmDenied;
	}
	if (fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK) < 0 ||
	    !(daemon_link = pvmi_link_add(s, LINK_DAEMON, 0,
					  &pvmi_transport_unix))) {
		close(s);
		return PvmSysErr;
	}
	return PvmOk;
}

/* Non-zero while the link to the daemon is up
 * (conn.h). */
int pvmi_conn_daemon_up(void)
{
	return daemon_link != NULL;
}

/* Adopts listening fd `fd' as this task's unix endpoint
 * (conn.h). */
void pvmi_conn_set_listener(int fd)
{
	if (listen_fd >= 0 && listen_fd != fd)
		close(listen_fd);
	listen_fd = fd;
}

/* Closes every link and endpoint and forgets the secret; with
 * `unlink_tid' also removes that task's endpoint name (conn.h). */
void pvmi_conn_close_all(int unlink_tid)
{
	while (nlinks)
		pvmi_link_drop(links[nlinks - 1]);
	free(links);
	links = NULL;
	linkcap = 0;
	if (listen_fd >= 0) {
		close(listen_fd);
		listen_fd = -1;
	}
	pvmi_tcp_reset();
	if (unlink_tid)
		listen_tp->unlisten(unlink_tid);
	free(reply_body);
	reply_body = NULL;
	reply_wanted = reply_ready = 0;
}

static int link_read(struct link *l);
static void accept_all(void);

/* Reads everything already waiting from other tasks, accepting new
 * circuits first.  Run before a message from the daemon is queued: a task
 * writes its messages before it leaves, so its last messages are in our
 * socket buffers by the time the daemon reports its exit, and must be
 * queued before that report (stock routes both through the daemon and
 * keeps this order).  For a task of another host that used a direct
 * route this holds as far as its messages reached our host before the
 * report did; pvm_exit() waits until its circuits are acknowledged. */
static void drain_peers(void)
{
	int i;

	if (listen_fd >= 0)
		accept_all();
	pvmi_tcp_accept();
	for (i = 0; i < nlinks; i++) {
		if ((links[i]->kind != LINK_IN && links[i]->kind != LINK_TCP) ||
		    links[i]->dead || links[i]->connecting)
			continue;
		if (link_read(links[i]) < 0)
			links[i]->dead = 1;
	}
}

/* Drops the links that ended during a pump round (not those being
 * written: their writer drops them). */
void pvmi_link_sweep(void)
{
	int i;

	for (i = nlinks - 1; i >= 0; i--)
		if (i < nlinks && links[i]->dead && !links[i]->busy)
			pvmi_link_drop(links[i]);
}

/* Hands a complete frame to its consumer; takes ownership of `body'.
 * Returns -1 for a frame that breaks the protocol on this link. */
static int frame_done(struct link *l, unsigned char *body)
{
	struct pvmi_msg *m;

	if (l->f.kind == PVMI_KIND_REPLY) {
		if (l != daemon_link || !reply_wanted || reply_ready) {
			free(body);
			return -1;
		}
		free(reply_body);
		reply_body = body;
		reply_len = l->f.len;
		reply_ready = 1;
		return 0;
	}
	if (l->f.kind != PVMI_KIND_USER ||
	    (l->kind == LINK_TCP && l->f.src != l->peer)) {
		free(body);
		return -1;
	}
	if (l == daemon_link)
		drain_peers();
	m = pvmi_msg_from_body(body, l->f.len, l->f.enc);
	if (!m) {
		free(body);
		return 0;	/* out of memory: the message is lost */
	}
	m->src = l->f.src;
	m->dst = l->f.dst;
	m->tag = l->f.tag;
	m->ctx = l->f.ctx;
	pvmi_rxq_deliver(m);
	return 0;
}

/* Parses every complete frame in the staging buffer.  A partial large
 * body moves to l->body to be read in place.  Returns -1 on bad data. */
static int parse_staged(struct link *l)
{
	for (;;) {
		size_t avail = l->rxtail - l->rxhead;
		unsigned char *body;

		if (avail < PVMI_FRAME_HDR_LEN)
			break;
		if (pvmi_frame_decode(l->rx + l->rxhead, &l->f))
			return -1;
		body = malloc(l->f.len ? l->f.len : 1);
		if (!body)
			return -1;
		avail -= PVMI_FRAME_HDR_LEN;
		l->rxhead += PVMI_FRAME_HDR_LEN;
		if (avail >= l->f.len) {
			memcpy(body, l->rx + l->rxhead, l->f.len);
			l->rxhead += l->f.len;
			if (frame_done(l, body))
				return -1;
			continue;
		}
		memcpy(body, l->rx + l->rxhead, avail);
		l->body = body;
		l->got = avail;
		l->rxhead = l->rxtail = 0;
		return 0;
	}
	if (l->rxhead == l->rxtail) {
		l->rxhead = l->rxtail = 0;
	} else if (l->rxhead > 0) {
		memmove(l->rx, l->rx + l->rxhead, l->rxtail - l->rxhead);
		l->rxtail -= l->rxhead;
		l->rxhead = 0;
	}
	return 0;
}

/* Reads what is waiting on `l'.  Returns 1 if bytes arrived, 0 if none,
 * -1 when the link ended or broke (the caller drops it). */
static int link_read(struct link *l)
{
	int any = 0;
	ssize_t n;

	if (!l->rx && !(l->rx = malloc(RX_CAP)))
		return -1;
	for (;;) {
		size_t want;

		if (l->body) {
			want = l->f.len - l->got;
			n = l->tp->read(l->fd, l->body + l->got, want);
			if (n > 0) {
				any = 1;
				l->got += n;
				if (l->got == l->f.len) {
					unsigned char *b = l->body;

					l->body = NULL;
					if (frame_done(l, b))
						return -1;
				}
			}
		} else {
			want = RX_CAP - l->rxtail;
			n = l->tp->read(l->fd, l->rx + l->rxtail, want);
			if (n > 0) {
				any = 1;
				l->rxtail += n;
				if (l->auth && pvmi_tcp_auth_input(l) < 0)
					return -1;
				if (!l->auth && parse_staged(l))
					return -1;
			}
		}
		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return any;
			return -1;
		}
		if ((size_t)n < want)
			return any;
	}
}

static void accept_all(void)
{
	int fd;

	while ((fd = listen_tp->accept(listen_fd)) >= 0) {
		if (!pvmi_link_add(fd, LINK_IN, 0, listen_tp))
			close(fd);
	}
}

/* One round of waiting: polls every inbound fd (and `wfd' for
 * writability) for up to `timeout_ms'.  Returns 1 when something was
 * read, accepted or `wfd' became writable, 0 on timeout, PvmSysErr when
 * there is nothing left to wait on. */
int pvmi_link_pump(int timeout_ms, int wfd)
{
	struct pollfd stackfds[32], *pfd = stackfds;
	struct link *stackmap[32], **map = stackmap;
	int n = 0, i, r, any = 0;

	if (nlinks + 3 > 32) {
		pfd = malloc((nlinks + 3) * sizeof(*pfd));
		map = malloc((nlinks + 3) * sizeof(*map));
		if (!pfd || !map) {
			free(pfd == stackfds ? NULL : pfd);
			free(map == stackmap ? NULL : map);
			return PvmSysErr;
		}
	}
	for (i = 0; i < nlinks; i++) {
		if (links[i]->kind == LINK_OUT || links[i]->connecting)
			continue;
		pfd[n].fd = links[i]->fd;
		pfd[n].events = POLLIN;
		map[n++] = links[i];
	}
	if (listen_fd >= 0) {
		pfd[n].fd = listen_fd;
		pfd[n].events = POLLIN;
		map[n++] = NULL;
	}
	if (pvmi_tcp_listen_fd() >= 0) {
		pfd[n].fd = pvmi_tcp_listen_fd();
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
	r = poll(pfd, n, timeout_ms);
	if (r <= 0) {
		r = (r < 0 && errno != EINTR) ? PvmSysErr : 0;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == wfd && (pfd[i].events & POLLOUT)) {
			any = 1;
		} else if (pfd[i].fd == listen_fd && !map[i]) {
			accept_all();
			any = 1;
		} else if (pfd[i].fd == pvmi_tcp_listen_fd() && !map[i]) {
			pvmi_tcp_accept();
			any = 1;
		} else if (map[i] && !map[i]->dead) {
			if (link_read(map[i]) < 0)
				map[i]->dead = 1;
			any = 1;
		}
	}
	pvmi_tcp_expire();
	pvmi_link_sweep();
	r = any;
out:
	if (pfd != stackfds)
		free(pfd);
	if (map != stackmap)
		free(map);
	return r;
}

/* Waits up to `timeout_ms' for input and reads all complete frames
 * (conn.h). */
int pvmi_pump(int timeout_ms)
{
	return pvmi_link_pump(timeout_ms, -1);
}

/* Writes a whole frame (header + iov) to `l', pumping input while the
 * circuit is full.  Returns PvmOk, or -1 when the link broke. */
static int link_write(struct link *l, struct pvmi_frame *f,
		      const struct iovec *body, int nbody)
{
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	struct iovec stackiov[IOV_INLINE], *iov = stackiov;
	int cnt = nbody + 1, i = 0, rc = PvmOk;

	if (cnt > IOV_INLINE && !(iov = malloc(cnt * sizeof(*iov))))
		return PvmNoMem;
	pvmi_frame_encode(f, hdr);
	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof(hdr);
	if (nbody)
		memcpy(iov + 1, body, nbody * sizeof(*iov));
	l->busy++;
	while (i < cnt) {
		ssize_t n = l->tp->writev(l->fd, iov + i,
					  cnt - i > 1024 ? 1024 : cnt - i);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				rc = -1;
				break;
			}
			if (pvmi_link_pump(-1, l->fd) == PvmSysErr || l->dead) {
				rc = -1;
				break;
			}
			continue;
		}
		while (n > 0 && i < cnt) {
			if ((size_t)n >= iov[i].iov_len) {
				n -= iov[i].iov_len;
				i++;
			} else {
				iov[i].iov_base = (char *)iov[i].iov_base + n;
				iov[i].iov_len -= n;
				n = 0;
			}
		}
		while (i < cnt && iov[i].iov_len == 0)
			i++;
	}
	l->busy--;
	if (iov != stackiov)
		free(iov);
	return rc;
}

/* Gathers a message body into iovecs; returns the count or -1. */
static int body_iov(const struct pvmi_msg *m, struct iovec **iovp,
		    struct iovec *stack, int stackn)
{
	int n;

	if (!m || m->nfrag == 0) {
		*iovp = stack;
		return 0;
	}
	if (m->nfrag > stackn) {
		*iovp = malloc(m->nfrag * sizeof(**iovp));
		if (!*iovp)
			return -1;
	} else {
		*iovp = stack;
	}
	n = pvmi_msg_iov(m, *iovp, m->nfrag);
	return n;
}

/* Writes frame `f' with message `m' on `l'; PvmOk, PvmNoMem, or -1 when
 * the link broke (the caller drops it). */
int pvmi_link_send(struct link *l, struct pvmi_frame *f,
		   const struct pvmi_msg *m)
{
	struct iovec stack[IOV_INLINE], *iov;
	int n, rc;

	/* quiets gcc: nothing of it is read when n == 0 */
	stack[0].iov_base = NULL;
	stack[0].iov_len = 0;
	n = body_iov(m, &iov, stack, IOV_INLINE);
	if (n < 0)
		return PvmNoMem;
	f->magic = PVMI_FRAME_MAGIC;
	f->len = m ? m->len : 0;
	rc = link_write(l, f, iov, n);
	if (iov != stack)
		free(iov);
	return rc;
}

/* Sends to task `dst' of this host over its cached unix circuit
 * (conn.h). */
int pvmi_conn_send(int dst, struct pvmi_frame *f, const struct pvmi_msg *m)
{
	struct link *l = out_link(dst);
	int rc, fd;

	if (!l) {
		rc = pvmi_transport_unix.open(dst, &fd);
		if (rc != PvmOk)
			return rc;
		l = pvmi_link_add(fd, LINK_OUT, dst, &pvmi_transport_unix);
		if (!l) {
			close(fd);
			return PvmNoMem;
		}
	}
	rc = pvmi_link_send(l, f, m);
	if (rc == -1) {
		pvmi_link_drop(l);
		return PvmNoTask;
	}
	return rc;
}

/* Sends a frame to the daemon, which hands it on to its destination:
 * the default route to a task of another host (conn.h). */
int pvmi_conn_send_daemon(struct pvmi_frame *f, const struct pvmi_msg *m)
{
	int rc;

	if (!daemon_link)
		return PvmSysErr;
	rc = pvmi_link_send(daemon_link, f, m);
	if (rc == -1) {
		pvmi_link_drop(daemon_link);
		return PvmSysErr;
	}
	return rc;
}


/* Sends daemon request `op' and waits for its reply, reading other
 * input meanwhile (conn.h). */
int pvmi_call(int op, const struct pvmi_wbuf *req, struct pvmi_rbuf *rep)
{
	struct pvmi_frame f = { 0 };
	struct iovec iov;
	int r;

	if (!daemon_link)
		return PvmSysErr;
	if (req->failed)
		return PvmNoMem;
	f.magic = PVMI_FRAME_MAGIC;
	f.len = req->len;
	f.src = pvmi.mytid;
	f.dst = pvmi.dtid;
	f.tag = op;
	f.kind = PVMI_KIND_REQUEST;
	iov.iov_base = req->data;
	iov.iov_len = req->len;
	reply_wanted = 1;
	reply_ready = 0;
	if (link_write(daemon_link, &f, &iov, req->len ? 1 : 0)) {
		pvmi_link_drop(daemon_link);
		reply_wanted = 0;
		return PvmSysErr;
	}
	pvmi_dwatch_begin();
	while (!reply_ready && daemon_link) {
		r = pvmi_link_pump(PVMI_DWATCH_TICK_MS, -1);
		if (r == PvmSysErr)
			break;
		if (!reply_ready && pvmi_dwatch_check() < 0) {
			pvmi_link_drop(daemon_link);	/* a late reply is moot */
			break;
		}
	}
	reply_wanted = 0;
	if (!reply_ready)
		return PvmSysErr;
	reply_ready = 0;
	pvmi_r_init(rep, reply_body, reply_len);
	return PvmOk;
}

/* The fds the library waits on, the daemon link first
 * (conn.h). */
int pvmi_conn_fds(int **fds)
{
	static int *arr;
	int i, n = 0, *extra, nextra = pvmi_compat_fds(&extra);
	int *na = realloc(arr, (nlinks + 3 + nextra) * sizeof(*arr));

	if (!na)
		return PvmNoMem;
	arr = na;
	if (daemon_link)
		arr[n++] = daemon_link->fd;
	if (listen_fd >= 0)
		arr[n++] = listen_fd;
	if (pvmi_tcp_listen_fd() >= 0)
		arr[n++] = pvmi_tcp_listen_fd();
	for (i = 0; i < nlinks; i++)
		if (links[i] != daemon_link && (links[i]->kind == LINK_IN ||
		    (links[i]->kind == LINK_TCP && !links[i]->connecting)))
			arr[n++] = links[i]->fd;
	for (i = 0; i < nextra; i++)
		arr[n++] = extra[i];
	*fds = arr;
	return n;
}

/*
 * conn.c - control connections: input reassembly and output queues.
 *
 * Sockets are nonblocking.  Input is read into a per-connection buffer
 * that grows with the frame being received (never ahead of the bytes that
 * actually arrived, so an absurd but legal length costs nothing until the
 * data comes); complete frames are dispatched in order.  A header that
 * does not decode means the byte stream is broken, and the connection is
 * dropped: there is no way to find the next frame boundary.
 *
 * Output is a queue of encoded frames written as the socket accepts them.
 * A frame queued on an empty queue is written at once, or, when
 * COPVM_URING=1 gives the daemon a ring (ring.c) and the frame is small
 * (BATCH_FRAME_MAX), at the end of the loop turn, together with every
 * other connection's: one system call carries the writes of all of them
 * (flush_pending).  A large frame gains nothing from sharing a system
 * call and loses by waiting: sent at once, its first copy travels while
 * the daemon reads the next (measured, docs/results/uring.md).  A connection closed during
 * the turn first writes what it had queued, as it would have at once.
 * A peer that does not read only ever hurts itself: past PVMD_OQ_HIGH
 * queued bytes the daemon stops reading that peer's requests (and output
 * pipes feeding it pause, see output.c) until the queue drains below
 * PVMD_OQ_LOW.  A connection waiting for a deferred reply (mailbox
 * WaitForInfo) is not read either, which keeps its requests in order.
 *
 * Closing a connection ends the task it carried.  A failed write only
 * marks the connection broken; it is closed at the end of the loop turn,
 * so a send never ends a task under its caller's feet.  Closed
 * connections are freed only after that, since an epoll event for them
 * may still be pending in the same batch.
 *
 * Links to other daemons (PEER) use the same buffers.  They start with
 * the handshake (peer.c consumes its bytes before any frame is parsed),
 * and a full output queue never stops them from being read: two daemons
 * each waiting for the other to read would deadlock.  Instead, when a
 * frame read from one connection is queued on another whose queue is
 * full, the one it came from is not read until the other drains
 * (pvmd_conn_block_on); tasks keep reading while they wait to write, so
 * such waits always end.
 *
 * conn.c names no module above it: a frame, a peer's handshake bytes, a
 * proxy's frame, a close and a drained queue go to the hooks wiring.c
 * gives it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"

#define IN_MIN_ROOM	65536
#define READ_BUDGET	(1u << 20)	/* bytes read per turn, then yield */
#define WRITE_IOV	16
#define BATCH_MAX	64	/* connections per batch through the ring */
#define BATCH_FRAME_MAX	16384	/* larger frames are written at once */

struct pvmd_chunk {
	struct pvmd_chunk *next;
	size_t len, off;
	unsigned char data[];
};

static struct pvmd_conn *conns;
static struct pvmd_conn *pending_head;	/* output to write at turn end */
static int any_broken;

static const struct pvmd_conn_hooks *hooks;

/* Gives the connections the functions they report to (wiring.c). */
void pvmd_conn_set_hooks(const struct pvmd_conn_hooks *h)
{
	hooks = h;
}

/* Marks a connection whose output failed; it is closed at the end of
 * the turn, never inside a send, so that no caller sees a task vanish
 * in the middle of walking a list. */
static void conn_break(struct pvmd_conn *c, const char *why)
{
	if (c->broken || c->dead)
		return;
	pvmd_dbg(PVMD_DBG_LOOP, "connection of pid %ld broken: %s",
		 (long)c->peer_pid, why);
	c->broken = 1;
	any_broken = 1;
}

static struct pvmd_conn *conn_of(struct pvmd_watch *w)
{
	return (struct pvmd_conn *)((char *)w - offsetof(struct pvmd_conn, w));
}

static int paused(const struct pvmd_conn *c)
{
	return c->deferred || c->blocked_on || c->connecting ||
	       (c->was_high && c->kind != PVMD_CONN_PEER);
}

/* Asks epoll for what the connection can use now. */
static void set_interest(struct pvmd_conn *c)
{
	uint32_t ev = 0;

	if (c->dead)
		return;
	if (!paused(c))
		ev |= EPOLLIN;
	if (c->oq_head || c->connecting)
		ev |= EPOLLOUT;
	if (ev != c->events) {
		c->events = ev;
		pvmd_watch_mod(&c->w, ev);
	}
}

/* Dispatches every complete frame in the buffer, unless paused. */
static void run_input(struct pvmd_conn *c)
{
	struct pvmi_frame f;
	unsigned char *p;
	size_t need;

	if (c->auth && !c->dead && hooks->auth_input(c) <= 0)
		return;
	while (!c->dead && !paused(c) && c->in_len >= PVMI_FRAME_HDR_LEN) {
		p = c->in + c->in_start;
		if (pvmi_frame_decode(p, &f) < 0) {
			pvmd_log("bad frame header from %s %ld (magic 0x%08x,"
				 " kind %u, len %u): dropping the connection",
				 c->kind == PVMD_CONN_PEER ? "host" : "pid",
				 c->kind == PVMD_CONN_PEER ? (long)c->host :
				 (long)c->peer_pid, f.magic, f.kind, f.len);
			pvmd_conn_close(c, "broken framing");
			return;
		}
		need = PVMI_FRAME_HDR_LEN + (size_t)f.len;
		if (c->in_len < need)
			break;
		c->in_start += need;
		c->in_len -= need;
		hooks->frame(c, &f, p + PVMI_FRAME_HDR_LEN);
	}
	if (c->in_len == 0) {
		c->in_start = 0;
		/* give back the room a big frame needed */
		if (c->in_cap > 4 * IN_MIN_ROOM) {
			free(c->in);
			c->in = NULL;
			c->in_cap = 0;
		}
	}
	set_interest(c);
}

/* How much room the next read wants: up to the rest of the frame being
 * received, growing at most geometrically. */
static size_t wanted_room(struct pvmd_conn *c)
{
	struct pvmi_frame f;
	size_t need, room = IN_MIN_ROOM;

	if (c->in_len >= PVMI_FRAME_HDR_LEN &&
	    pvmi_frame_decode(c->in + c->in_start, &f) == 0) {
		need = PVMI_FRAME_HDR_LEN + (size_t)f.len;
		if (need > c->in_len) {
			room = need - c->in_len;
			if (room > c->in_len && room > IN_MIN_ROOM)
				room = c->in_len > IN_MIN_ROOM ?
				       c->in_len : IN_MIN_ROOM;
		}
	}
	return room;
}

static int make_room(struct pvmd_conn *c, size_t room)
{
	unsigned char *p;
	size_t cap;

	if (c->in_start && c->in_start + c->in_len + room > c->in_cap) {
		memmove(c->in, c->in + c->in_start, c->in_len);
		c->in_start = 0;
	}
	if (c->in_start + c->in_len + room <= c->in_cap)
		return 0;
	cap = c->in_len + room;
	p = realloc(c->in, cap);
	if (!p)
		return -1;
	c->in = p;
	c->in_cap = cap;
	return 0;
}

static void read_input(struct pvmd_conn *c)
{
	size_t total = 0, room;
	ssize_t n;

	while (!c->dead && !paused(c) && total < READ_BUDGET) {
		room = wanted_room(c);
		if (make_room(c, room) < 0) {
			pvmd_log("out of memory reading from pid %ld",
				 (long)c->peer_pid);
			pvmd_conn_close(c, "out of memory");
			return;
		}
		room = c->in_cap - c->in_start - c->in_len;
		n = read(c->w.fd, c->in + c->in_start + c->in_len, room);
		if (n > 0) {
			c->in_len += (size_t)n;
			total += (size_t)n;
			if (c->kind == PVMD_CONN_PEER)
				c->last_rx = pvmd_now_ms();
			run_input(c);
			continue;
		}
		if (n == 0) {
			pvmd_conn_close(c, c->in_len ?
					"connection closed in mid-frame" :
					"connection closed");
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			pvmd_conn_close(c, strerror(errno));
		return;
	}
}

/* Lets the connections that waited for `d' to drain be read again. */
static void unblock_from(struct pvmd_conn *d)
{
	struct pvmd_conn *c;

	for (c = conns; c; c = c->next) {
		if (c->blocked_on == d) {
			c->blocked_on = NULL;
			c->kick = 1;
			set_interest(c);
		}
	}
}

/* Stops reading `src' until `dst' has drained its output queue. */
void pvmd_conn_block_on(struct pvmd_conn *src, struct pvmd_conn *dst)
{
	if (src == dst || src->kind == PVMD_CONN_PROXY || dst->dead ||
	    !dst->was_high)
		return;
	src->blocked_on = dst;
	set_interest(src);
}

/* Points iov[] at the first WRITE_IOV chunks of the queue; the count. */
static int queued_iov(const struct pvmd_conn *c, struct iovec *iov)
{
	struct pvmd_chunk *ch;
	int i;

	for (i = 0, ch = c->oq_head; ch && i < WRITE_IOV; ch = ch->next, i++) {
		iov[i].iov_base = ch->data + ch->off;
		iov[i].iov_len = ch->len - ch->off;
	}
	return i;
}

/* Drops the first `n' written bytes from the queue. */
static void wrote(struct pvmd_conn *c, size_t n)
{
	struct pvmd_chunk *ch;

	c->oq_bytes -= n;
	while (n && (ch = c->oq_head)) {
		if (n < ch->len - ch->off) {
			ch->off += n;
			break;
		}
		n -= ch->len - ch->off;
		c->oq_head = ch->next;
		free(ch);
	}
	if (!c->oq_head)
		c->oq_tail = NULL;
}

/* Writes as much queued output as the socket takes. */
static void flush(struct pvmd_conn *c)
{
	struct iovec iov[WRITE_IOV];
	ssize_t n;

	while (!c->dead && !c->broken && c->oq_head) {
		n = writev(c->w.fd, iov, queued_iov(c, iov));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn_break(c, strerror(errno));
			break;
		}
		wrote(c, (size_t)n);
	}
	if (c->dead || c->broken)
		return;
	if (c->linger && !c->oq_head) {
		pvmd_conn_close(c, "flushed");
		return;
	}
	if (c->was_high && c->oq_bytes <= PVMD_OQ_LOW) {
		c->was_high = 0;
		c->kick = 1;
		unblock_from(c);
		hooks->drained();
	}
	set_interest(c);
}

static void on_conn_event(struct pvmd_watch *w, uint32_t events)
{
	struct pvmd_conn *c = conn_of(w);

	if (c->dead || c->broken)
		return;
	if (c->connecting) {
		hooks->connect_done(c);
		return;
	}
	if (events & EPOLLERR) {
		pvmd_conn_close(c, "socket error");
		return;
	}
	if (events & EPOLLOUT)
		flush(c);
	if (c->dead || c->broken)
		return;
	if (events & EPOLLIN) {
		read_input(c);
	} else if (events & EPOLLHUP) {
		/* peer gone while we were not reading it */
		pvmd_conn_close(c, "peer hung up");
	}
}

/* Takes ownership of an accepted socket; NULL on failure (fd closed). */
struct pvmd_conn *pvmd_conn_new(int fd, pid_t peer_pid)
{
	struct pvmd_conn *c = pvmd_conn_new_kind(fd, PVMD_CONN_TASK, EPOLLIN);

	if (c)
		c->peer_pid = peer_pid;
	return c;
}

/* Wraps an fd as a connection of `kind' watched for `events'; NULL on
 * failure (fd closed). */
struct pvmd_conn *pvmd_conn_new_kind(int fd, int kind, uint32_t events)
{
	struct pvmd_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		pvmd_log("out of memory accepting a connection");
		close(fd);
		return NULL;
	}
	c->w.fd = fd;
	c->w.on_event = on_conn_event;
	c->kind = kind;
	c->events = events;
	if (pvmd_watch_add(&c->w, c->events) < 0) {
		pvmd_log("epoll_ctl(ADD): %s", strerror(errno));
		close(fd);
		free(c);
		return NULL;
	}
	c->next = conns;
	conns = c;
	return c;
}

/* Puts `c' on the list of connections whose output is written at the
 * end of the turn (with the ring: several in one system call). */
static void mark_pending(struct pvmd_conn *c)
{
	if (c->pending)
		return;
	c->pending = 1;
	c->pending_next = pending_head;
	pending_head = c;
}

/* Writes the output queued during the turn: in one system call through
 * the ring when two or more connections have some, else with writev();
 * then each connection's writev() writes what the batch left (its socket
 * was full, or the batch could not carry it) and does the rest of
 * flush()'s work (EPOLLOUT interest, lingering closes, back-pressure). */
static void flush_pending(void)
{
	struct pvmd_write w[BATCH_MAX];
	struct iovec iov[BATCH_MAX][WRITE_IOV];
	struct pvmd_conn *batch[BATCH_MAX], *c, *list = pending_head;
	int n, i, res;

	pending_head = NULL;
	while (list) {
		for (n = 0; list && n < BATCH_MAX; list = c->pending_next) {
			c = list;
			c->pending = 0;
			if (c->dead || c->broken || c->connecting ||
			    !c->oq_head)
				continue;
			batch[n] = c;
			w[n].fd = c->w.fd;
			w[n].iov = iov[n];
			w[n].iovcnt = queued_iov(c, iov[n]);
			n++;
		}
		if (n >= 2) {
			pvmd_ring_writev(w, n);
			for (i = 0; i < n; i++) {
				res = w[i].res;
				if (res > 0)
					wrote(batch[i], (size_t)res);
				else if (res < 0 && res != -EAGAIN &&
					 res != -EINTR)
					conn_break(batch[i], strerror(-res));
			}
		}
		for (i = 0; i < n; i++)
			flush(batch[i]);
	}
}

/* Queues `hlen' header bytes (a frame header or nothing) and `len' body
 * bytes as one chunk; writes at once when nothing else is queued, or,
 * with the ring, at the end of the turn. */
static void enqueue(struct pvmd_conn *c, const struct pvmi_frame *f,
		    const void *body, size_t len)
{
	size_t hlen = f ? PVMI_FRAME_HDR_LEN : 0;
	struct pvmd_chunk *ch;
	int was_empty;

	if (c->dead || c->broken)
		return;
	ch = malloc(sizeof(*ch) + hlen + len);
	if (!ch) {
		pvmd_log("out of memory queueing %zu bytes", len);
		conn_break(c, "out of memory");
		return;
	}
	ch->next = NULL;
	ch->off = 0;
	ch->len = hlen + len;
	if (f)
		pvmi_frame_encode(f, ch->data);
	if (len)
		memcpy(ch->data + hlen, body, len);
	was_empty = !c->oq_head;
	if (c->oq_tail)
		c->oq_tail->next = ch;
	else
		c->oq_head = ch;
	c->oq_tail = ch;
	c->oq_bytes += ch->len;
	if (c->oq_bytes > PVMD_OQ_HIGH)
		c->was_high = 1;
	if (was_empty && !c->connecting && ch->len <= BATCH_FRAME_MAX &&
	    pvmd_ring_usable())
		mark_pending(c);	/* written at the turn end */
	else if (was_empty && !c->connecting)
		flush(c);
	else
		set_interest(c);
}

/* Queues a frame; body may be NULL when len is 0.  Never blocks; the
 * write is attempted at once when nothing else is queued.  A proxy's
 * frames go back to the daemon that asked (remote.c). */
void pvmd_conn_send(struct pvmd_conn *c, const struct pvmi_frame *f,
		    const void *body, size_t len)
{
	if (c->kind == PVMD_CONN_PROXY) {
		hooks->proxy_send(c, f, body, len);
		return;
	}
	enqueue(c, f, body, len);
}

/* Queues raw bytes (the handshake) ahead of any later frame. */
void pvmd_conn_send_raw(struct pvmd_conn *c, const void *p, size_t len)
{
	if (len)
		enqueue(c, NULL, p, len);
}

static void free_queue(struct pvmd_conn *c)
{
	struct pvmd_chunk *ch;

	while ((ch = c->oq_head)) {
		c->oq_head = ch->next;
		free(ch);
	}
	c->oq_tail = NULL;
	c->oq_bytes = 0;
}

/* Closes a connection and ends the task it carried; freed at turn end. */
void pvmd_conn_close(struct pvmd_conn *c, const char *why)
{
	struct pvmd_task *t = c->task;

	if (c->dead)
		return;
	if (c->pending && c->kind != PVMD_CONN_PROXY) {
		flush(c);		/* what was queued before the close */
		if (c->dead)
			return;
	}
	c->dead = 1;
	if (c->kind == PVMD_CONN_PROXY) {
		hooks->closed(c);
		return;
	}
	pvmd_dbg(PVMD_DBG_LOOP, "connection of %s %ld closed: %s",
		 c->kind == PVMD_CONN_PEER ? "host" : "pid",
		 c->kind == PVMD_CONN_PEER ? (long)c->host :
		 (long)c->peer_pid, why);
	pvmd_watch_del(&c->w);
	close(c->w.fd);
	c->w.fd = -1;
	free_queue(c);
	unblock_from(c);
	if (c->kind == PVMD_CONN_PEER) {
		hooks->peer_closed(c);
		return;
	}
	hooks->closed(c);
	if (t) {
		c->task = NULL;
		t->conn = NULL;
		hooks->task_gone(t, why);
	}
	hooks->drained();
}

/* Resumes reading after a deferred reply was sent; the buffered input
 * runs at the end of the turn, not inside the caller. */
void pvmd_conn_resume(struct pvmd_conn *c)
{
	if (c->dead || c->kind == PVMD_CONN_PROXY)
		return;
	c->kick = 1;
	set_interest(c);
}

/* Ends a turn of the loop: runs the input of resumed connections, then
 * frees the connections closed during the turn. */
void pvmd_conn_turn_end(void)
{
	struct pvmd_conn **pp, *c;
	int again;

	do {
		again = 0;
		flush_pending();
		while (any_broken) {
			any_broken = 0;
			for (c = conns; c; c = c->next)
				if (c->broken && !c->dead)
					pvmd_conn_close(c, "write failed");
		}
		for (c = conns; c; c = c->next) {
			if (c->kick && !c->dead && !c->broken && !paused(c)) {
				c->kick = 0;
				run_input(c);
				again = 1;
			}
		}
	} while (again || any_broken || pending_head);

	for (pp = &conns; (c = *pp);) {
		if (!c->dead) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		pvmd_loop_conn_freed(c);
		if (c->auth) {
			pvmi_auth_clear(c->auth);
			free(c->auth);
		}
		free(c->in);
		free(c);
	}
	hooks->turn_end();
}

/* True when a connection other than `except' still carries a task. */
int pvmd_conn_tasks_left(struct pvmd_conn *except)
{
	struct pvmd_conn *c;

	for (c = conns; c; c = c->next)
		if (c != except && !c->dead && c->task &&
		    c->kind == PVMD_CONN_TASK)
			return 1;
	return 0;
}

/* True when a link to another daemon (not a stranger still in its
 * handshake) is open. */
int pvmd_conn_peers_left(void)
{
	struct pvmd_conn *c;

	for (c = conns; c; c = c->next)
		if (!c->dead && c->kind == PVMD_CONN_PEER && !c->auth &&
		    c->host)
			return 1;
	return 0;
}

/* Calls `fn' on every open connection of `kind'. */
void pvmd_conn_each(int kind, void (*fn)(struct pvmd_conn *c, void *arg),
		    void *arg)
{
	struct pvmd_conn *c, *next;

	for (c = conns; c; c = next) {
		next = c->next;
		if (!c->dead && c->kind == kind)
			fn(c, arg);
	}
}

/* Closes every connection's socket at exit (no task bookkeeping). */
void pvmd_conn_close_all(void)
{
	struct pvmd_conn *c;

	flush_pending();
	for (c = conns; c; c = c->next) {
		if (!c->dead && c->w.fd >= 0) {
			close(c->w.fd);
			c->w.fd = -1;
		}
	}
}

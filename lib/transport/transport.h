/*
 * transport/transport.h - the contract between conn.c and the transports
 * that carry frames between this task and another process.
 *
 * A transport moves whole frames (wire.h: a header, then `len' body
 * bytes) over pipes.  A pipe is one circuit: the state a transport keeps
 * for it lives in struct pvmi_pipe, which conn.c embeds in its link and
 * otherwise leaves alone.  conn.c owns everything above the frame: which
 * pipes exist, what a frame means, the queues, waiting, handshakes.
 *
 * The rules every transport keeps:
 *   - Frames, not bytes, cross this interface.  A pipe hands each
 *     complete incoming frame to its sink (p->sink), once, in the order
 *     the peer sent them; it never calls anything else above it (no
 *     route, no receive queue, no pump) and never user code.
 *   - Nothing here blocks, except open() (see there) and the send() of
 *     shm.c, which waits up to 1 ms for room in a full ring (on its
 *     doorbell, spinning for the budget the sink gives) before it
 *     returns 0.  Waiting is the caller's business: it looks with
 *     poll_ready() where the transport has it, then blocks in poll() on
 *     the pipes' wait fds and the transports' (wait_fd()).
 *   - Who owns a message: send() takes a frame whose header and body the
 *     caller keeps valid and unchanged until send() returns 1; after that
 *     the transport holds no reference and the caller may reuse or free
 *     the body.  A transport that lends the buffers to the kernel
 *     (io_uring) returns 0 while the operation is in flight and 1 once
 *     its completion is reaped.  A body handed to the sink passes to the
 *     sink.
 *   - Errors come back as negative errno values: -EPIPE when the peer
 *     ended the pipe, -EPROTO when it sent something that is not a
 *     frame, -ENOMEM, or the system call's own errno.  After any error
 *     the pipe is dead; the caller closes it.
 *
 * Backends: unix.c (tasks of this host, AF_UNIX sockets) and tcp.c (tasks
 * of other hosts) are byte streams; shm.c starts as unix.c and moves the
 * frames of a same-host circuit into a shared-memory ring; uring.c
 * carries tcp.c's circuits through io_uring.  The framing over their
 * fds is shared, in stream.c, and their socket calls in sock.c.  A
 * transport that needs no system call to look for input (shared-memory
 * rings, io_uring's completion queue) provides poll_ready(); one that
 * completes asynchronously (io_uring) returns 0 from send() until the
 * completion, and one whose one system call can submit the frames of
 * many pipes (io_uring) provides queue() and submit(), with which a
 * multicast (pvm_mcast) starts all its copies before it waits for any.
 *
 * A transport is one file exporting one table (below), registered in
 * registry.c, which picks the transport of a new circuit
 * (registry.h).  What a transport keeps for the whole process (shm's
 * wake eventfd, io_uring's ring) it sets up in probe() and shows the
 * caller only through the table's process-wide operations.
 */
#ifndef COPVM_TRANSPORT_H
#define COPVM_TRANSPORT_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "wire.h"

struct pvmi_pipe;
struct pvmi_lend;

/* Where a pipe hands what arrives; set by the pipe's owner (conn.c). */
struct pvmi_pipe_sink {
	/* A complete frame `f'; `body' (f->len bytes, from pvmi_buf_alloc,
	 * bufcache.h) passes to the sink.  Returns 0, or -1 when the frame breaks the protocol
	 * (the pipe then reports -EPROTO). */
	int (*frame)(void *arg, const struct pvmi_frame *f,
		     unsigned char *body);
	/* Optional: a complete frame `f' whose body the transport lends
	 * (`lend', msg.h: read where it lies until the sink's message gives
	 * it back).  Returns 1 when the sink took it so, 0 when it declines
	 * (nothing done: the transport then copies the body out and calls
	 * frame). */
	int (*frame_lent)(void *arg, const struct pvmi_frame *f,
			  unsigned char *body, struct pvmi_lend *lend);
	/* While p->gated: bytes that arrived before the first frame (a
	 * handshake).  Returns how many it consumed, or -1 to end the pipe.
	 * It clears p->gated when the handshake is done; the bytes after
	 * it are then read as frames. */
	long (*gate)(void *arg, const unsigned char *data, size_t len);
	/* Optional: non-zero when the owner takes no more frames from this
	 * pipe for now (back-pressure).  progress() then returns after the
	 * read that completed a frame; the rest stays in the socket or the
	 * ring, where poll() and poll_ready still see it. */
	int (*paused)(void *arg);
	/* Optional: non-zero when the owner already holds what the receive
	 * under way waits for.  A transport that bounds how much one
	 * progress() takes (shm.c, stream.c) stops at its bound only then,
	 * and otherwise reads on as far as there is input. */
	int (*sated)(void *arg);
	/* Optional: the spin budget of a send that waits for room, in ns:
	 * how long it may spin before it sleeps, given the transport's own
	 * bound `lin_ns'.  The owner answers (its coscheduling model); NULL
	 * means lin_ns.  No system call; called only when a send must wait. */
	long (*spin_ns)(void *arg, long lin_ns);
};

/* One circuit.  The owner sets sink, arg and gated; the rest belongs to
 * the transport. */
struct pvmi_pipe {
	int fd;				/* the fd to wait on, -1: none */
	const struct pvmi_transport *tp;
	const struct pvmi_pipe_sink *sink;
	void *arg;			/* passed to the sink */
	int gated;			/* bytes go to sink->gate, not
					 * framed */
	/* stream.c: reassembly */
	unsigned char *rx;		/* staging buffer, PVMI_STREAM_RX */
	size_t rxhead, rxtail;
	struct pvmi_frame f;		/* header of the frame being read */
	unsigned char *body;		/* its body, read in place */
	size_t got;
	/* other transports' own state */
	void *priv;
};

/* A frame being sent: the encoded header, then the body's iovecs.  The
 * caller fills hdr and iov (iov[0] pointing at hdr) and count; the
 * transport advances `next' and the iovecs as bytes go. */
struct pvmi_tx {
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	struct iovec *iov;
	int count;
	int next;			/* first iovec not yet all sent */
};

/* Which peers a transport reaches (struct pvmi_transport, reach). */
enum pvmi_reach {
	PVMI_REACH_HOST = 1,	/* tasks of this host */
	PVMI_REACH_NET = 2,	/* tasks of other hosts */
};

struct pvmi_transport {
	const char *name;
	int reach;			/* enum pvmi_reach; 0: chosen by
					 * name only (registry.c) */
	int xport;			/* what the coscheduling page shows
					 * for it (COSCHED_XPORT_*,
					 * common/cosched_page.h) */

	/*
	 * The transport as a whole, for the process (each may be NULL:
	 * nothing of the kind).
	 */
	/* May this transport carry circuits here?  With `setup' == 0 it
	 * only reads its switches (environment, build) and has no side
	 * effect; with `setup' != 0 it also sets up what the process needs
	 * for it (once, and again after release()) and says whether that
	 * worked.  1 yes, 0 no; a refusal is silent unless the user asked
	 * for this transport.  Never blocks.  NULL: always yes. */
	int (*probe)(int setup);
	/* The fd that tells of work for the transport as a whole (shm's
	 * wake eventfd, io_uring's completion ring) for the caller to poll
	 * with its pipes' fds, -1 when it has none; asked when a pipe of
	 * the transport is made, after probe(1). */
	int (*wait_fd)(void);
	/* Before a pump round looks at the pipes: brings their in-memory
	 * state up to date (io_uring: moves completions to their pipes) so
	 * that poll_ready() and arm() need only read it.  1 when it moved
	 * something the round must not block on, else 0.  No blocking. */
	int (*prepare)(void);
	/* wait_fd() was readable: takes what woke it (empties the
	 * eventfd, reaps the completions).  Never blocks. */
	void (*woken)(void);
	/* Everything closed (no pipe of the transport is left): frees the
	 * process-wide state; a forked child forgets its parent's the same
	 * way.  Never fails. */
	void (*release)(void);
	/* A circuit of this transport's reach was accepted on `fd', to be
	 * carried by `carrier': a transport that negotiates on the circuit
	 * says its first word here (shm: an invitation to use a ring when
	 * it is the carrier, else a refusal).  Never blocks. */
	void (*accepted)(int fd, const struct pvmi_transport *carrier);

	/*
	 * Endpoints: they deal in fds, from which the caller makes pipes
	 * (pvmi_pipe_init()).
	 */
	/* Opens a circuit to task `tid' and stores a nonblocking fd in *fd.
	 * Never blocks.  Returns PvmOk, PvmNoTask when `tid' has no
	 * endpoint (gone or never existed), PvmOutOfRes when it cannot take
	 * the circuit now (its backlog is full) or we are out of
	 * descriptors, or PvmSysErr.
	 * NULL for transports reached by address (connect). */
	int (*open)(int tid, int *fd);
	/* Starts connecting to `addr' (dotted IPv4) port `port' and stores
	 * the nonblocking fd in *fd; the connection may still be under way
	 * (wait for writability, then check SO_ERROR).  Never blocks.
	 * Returns PvmOk or PvmSysErr.  NULL for transports opened by tid. */
	int (*connect)(const char *addr, int port, int *fd);
	/* Creates the endpoint of task `tid' and stores its listening
	 * nonblocking fd in *fd.  Returns PvmOk or PvmSysErr. */
	int (*listen)(int tid, int *fd);
	/* The port a listening fd of this transport answers on, or 0. */
	int (*port)(int lfd);
	/* Accepts one waiting peer on listening fd `lfd'.  Returns a
	 * nonblocking fd, or -1 with errno set: EAGAIN when none is
	 * waiting, EACCES when the peer is refused (another user), EMFILE
	 * and the like when out of descriptors; never blocks. */
	int (*accept)(int lfd);
	/* Removes the endpoint of task `tid' (its fd is closed by the
	 * caller).  Never fails. */
	void (*unlisten)(int tid);

	/*
	 * Pipes.
	 */
	/* Moves as much of frame `tx' as it can without blocking.  Returns
	 * 1 when the whole frame is taken (the body may be reused), 0 when
	 * not yet (call again once p->fd is writable or progress was made;
	 * keep tx and the body as they are), or a negative errno. */
	int (*send)(struct pvmi_pipe *p, struct pvmi_tx *tx);
	/* Optional: a small frame's fast way, for a transport that can take
	 * a whole frame in one step.  The encoded header `hdr' and the flat
	 * body (`len' bytes at `body') go whole, at once, or not at all:
	 * 1 sent, 0 not taken now (no room, or the pipe is not in the state
	 * for it; nothing was written and the caller uses send()), or a
	 * negative errno as send() says.  Only between frames: never while
	 * a send() of the pipe is part way.  NULL: always send(). */
	int (*send_whole)(struct pvmi_pipe *p, const unsigned char *hdr,
			  const void *body, size_t len);
	/* Batching, for a transport whose submissions are system calls that
	 * can carry many pipes' requests (io_uring); NULL for the others,
	 * whose callers just send().  queue() starts frame `tx' as send()
	 * would, but with no system call: 0 means it waits in memory for
	 * the next submit(), or for any send() or progress() of this
	 * transport, which submit everything queued; 1 or a negative errno
	 * mean what send() says.  submit() hands every frame queued, on
	 * any pipe of the transport, to the kernel in one system call
	 * (more only when its queue is full) and returns 0 or a negative
	 * errno.  After it, the caller finishes each frame with send()
	 * calls exactly as when send() returned 0, keeping tx and the body
	 * as they are until send() returns 1. */
	int (*queue)(struct pvmi_pipe *p, struct pvmi_tx *tx);
	int (*submit)(void);
	/* Reads what is waiting without blocking and hands each complete
	 * frame to the sink.  Returns 1 when anything arrived, 0 when
	 * nothing did, or a negative errno: -EPIPE at the end of the pipe,
	 * reported once everything before it was handed on (possibly by
	 * the next call); a frame cut short by the end is never handed
	 * on. */
	int (*progress)(struct pvmi_pipe *p);
	/* A look for input that makes no system call: 1 when progress()
	 * would find something, 0 when it would not.  NULL when only poll()
	 * on p->fd can tell; the caller then polls the fd.  A stream's
	 * (stream.c) tells only of frames a bounded look left staged, its
	 * new input being for poll(); a transport whose input arrives in
	 * memory (a ring) also has arm(), below.  It
	 * reads this pipe's state only, and changes no other pipe's answer:
	 * a pump that looked at pipe A, then at B, then blocks, must not
	 * find that looking at B took A's input out of sight of poll().  A
	 * transport with a queue shared by its pipes moves that queue into
	 * its pipes' state in its prepare() (above). */
	int (*poll_ready)(struct pvmi_pipe *p);
	/* Before the caller blocks in poll() (on == 1): asks to be woken
	 * through a wait fd the caller already polls, and returns 1 when
	 * input is already there (do not block), else 0.  After poll()
	 * returned (on == 0): withdraws the request; returns 0.  No system
	 * call either way.  NULL when poll() on p->fd is all it takes; a
	 * pipe whose transport has arm() is one whose input arrives in
	 * memory, which conn.c reads between its polls (its poll gap). */
	int (*arm)(struct pvmi_pipe *p, int on);
	/* Frees the pipe's state and closes its fd.  Never fails. */
	void (*close)(struct pvmi_pipe *p);

	/*
	 * Byte streams only (NULL for other transports): raw bytes, for a
	 * handshake before the first frame and for stream.c.
	 */
	/* Writes from `iov'; returns bytes written, or -1 with errno
	 * (EAGAIN when the circuit is full).  Never blocks. */
	ssize_t (*writev)(int fd, const struct iovec *iov, int iovcnt);
	/* Reads up to `len' bytes; returns the count, 0 at end of stream, or
	 * -1 with errno (EAGAIN when nothing is waiting).  Never blocks. */
	ssize_t (*read)(int fd, void *buf, size_t len);
};

/* Same-host tasks: AF_UNIX stream sockets under the per-user directory. */
extern const struct pvmi_transport pvmi_transport_unix;
/* Same-host tasks over shared-memory rings (shm.c): opened, listened
 * and accepted as unix; the frames go through a ring once the peer took
 * the offer, over the socket until then or when it declines. */
extern const struct pvmi_transport pvmi_transport_shm;
/* Tasks of other hosts: TCP (IPv4), no Nagle delay, large buffers. */
extern const struct pvmi_transport pvmi_transport_tcp;
/* Tasks of other hosts over the same TCP circuits, driven by io_uring
 * (uring.c): connected, listened and accepted as tcp; the frames are
 * sent and received through this process's ring.  Use it only once
 * its probe(1) said yes. */
extern const struct pvmi_transport pvmi_transport_uring;

#endif /* COPVM_TRANSPORT_H */

/*
 * conn.h - links and the event pump of a task (conn.c).
 *
 * A link is one circuit with another process: a transport's pipe
 * (transport/transport.h), which carries whole frames, and what conn.c
 * needs to know about it.  conn.c owns the list of links and the pump;
 * it names no transport and runs no handshake: it calls the tables of
 * the links' transports, and polls the wait fds of those that have one
 * for the whole process.  The modules that open links give each one
 * the transport route.c decided and its hooks: daemon_link.c (the link
 * to the pvmd), conn_unix.c (circuits with tasks of this host) and
 * conn_tcp.c (direct circuits with tasks of other hosts).
 *
 * Calls go one way, down into conn.c.  conn.c reports what arrives only
 * through what the modules above registered with it:
 *   - the sink (pvmi_conn_set_sink) takes every complete user message;
 *   - a link's hooks (struct pvmi_link_hooks) take the bytes of a
 *     handshake, frames other than user messages (the daemon's replies)
 *     and the news that the link is freed;
 *   - an endpoint (struct pvmi_conn_endpoint) accepts new circuits on a
 *     listening fd, runs after each pump round and closes with the rest.
 * Registered callbacks rather than events returned to the caller: the
 * pump also runs at the bottom of a send that waits for room, where no
 * caller could take an event.  No callback may call user code, send, or
 * pump: everything here is safe to run from inside a send.
 */
#ifndef COPVM_CONN_H
#define COPVM_CONN_H

#include <stddef.h>
#include <sys/uio.h>

#include "codec.h"
#include "msg.h"
#include "transport/transport.h"
#include "wire.h"

/* What a link carries, which decides how the pump treats it. */
enum link_role {
	LINK_DAEMON,	/* to our pvmd: requests out, replies and relayed
			 * frames in */
	LINK_OUT,	/* frames out only (never polled) */
	LINK_IN,	/* frames in only */
	LINK_BOTH,	/* frames both ways; every frame must come from the
			 * task `peer' */
};

struct link;

/* What the module that opened a link wants to hear about it.  Any hook
 * may be NULL. */
struct pvmi_link_hooks {
	/* `len' bytes arrived at `data' while l->gate is set: consume the
	 * handshake's part and return how much that was; clear the gate
	 * (pvmi_link_set_gate) when it is done, the bytes after it being
	 * read as frames.  -1 to end the link. */
	long (*gate_input)(struct link *l, const unsigned char *data,
			   size_t len);
	/* A complete frame `f' that is not a user message; takes `body'.
	 * 0, or -1 when the frame breaks the protocol (the link ends). */
	int (*frame)(struct link *l, const struct pvmi_frame *f,
		     unsigned char *body);
	/* The link is being freed: forget it and free l->gate. */
	void (*release)(struct link *l);
};

struct link {
	struct pvmi_pipe pipe;		/* the transport's circuit */
	int role;			/* enum link_role */
	int peer;			/* other task (LINK_OUT, LINK_BOTH) */
	const struct pvmi_link_hooks *hooks;	/* NULL: none */
	void *gate;			/* owner's handshake state; while
					 * set, no frame is read */
	int dead;			/* ended; pvmi_link_sweep() frees */
	int connecting;			/* connect() under way */
	int busy;			/* being written: not freed yet */
	unsigned long serial;		/* tells links apart over time */
	struct link **watch;		/* cleared when the link is freed */
	struct pvmi_msg *held;		/* PVMI_KIND_HELD messages not yet
					 * released, oldest first */
	int nheld;
};

/* A listening fd of a module above, and its duties in the pump. */
struct pvmi_conn_endpoint {
	int fd;				/* -1: not listening (yet) */
	/* `fd' is readable: accept what waits (may add links). */
	void (*accept)(void);
	/* After every pump round (e.g. expiring handshakes); may be NULL. */
	void (*round)(void);
	/* Everything closes; with `unlink_tid' != 0 the endpoint's name of
	 * that task goes too.  May be NULL. */
	void (*close)(int unlink_tid);
	int listed;			/* conn.c's: registered */
	long long rest_until;		/* conn.c's: not polled before this
					 * (monotonic ms; see _rest()) */
};

/* Sets the function that takes every complete incoming user message
 * (ownership passes); before one is set such messages are dropped. */
void pvmi_conn_set_sink(void (*deliver)(struct pvmi_msg *m));

/* conn_frame.c: precommunication's held messages.  Keeps `m' on `l'
 * until released; -1 (and `m' freed) past the protocol's limit. */
int pvmi_link_held_keep(struct link *l, struct pvmi_msg *m);
/* Delivers (enc 1) or cancels (enc 0) the held message RELEASE frame `f'
 * names; -1 for a frame that breaks the protocol. */
int pvmi_link_held_release(struct link *l, const struct pvmi_frame *f);
/* Frees what `l' still holds (never released: never sent). */
void pvmi_link_held_free(struct link *l);

/* conn_frame.c: the sink of every link's pipe (transport.h).  A complete
 * frame from link `arg', taking `body'; -1 when it breaks the protocol. */
int pvmi_conn_frame(void *arg, const struct pvmi_frame *f,
		    unsigned char *body);
/* The same for a frame whose body the pipe lends (transport.h's
 * frame_lent): 1 when taken so, 0 when declined. */
int pvmi_conn_frame_lent(void *arg, const struct pvmi_frame *f,
			 unsigned char *body, struct pvmi_lend *lend);
/* Handshake bytes from link `arg', for its owner's gate_input hook: how
 * many it consumed, or -1 to end the link. */
long pvmi_conn_gate(void *arg, const unsigned char *data, size_t len);

/* Back-pressure.  While held (the receive queue is over its limit), a
 * pump reads only the daemon's link, links still in their handshake or
 * whose peer is not known yet, the links of the peer being written to,
 * and those of the wanted peer; the others' input waits in their pipes,
 * so their senders block.  pvmi_conn_drain_peers() reads every link. */
void pvmi_conn_hold(int on);
/* The peer whose links a held pump still reads: a tid, PVMI_WANT_ANY
 * (every link: the hold has no effect) or PVMI_WANT_NONE; returns the
 * previous value, for nested waits to put back. */
int pvmi_conn_want(int tid);
#define PVMI_WANT_ANY	(-1)
#define PVMI_WANT_NONE	0
/* The receive under way has what it waits for in the queue (on), or not
 * or none is under way (off).  While on, a transport may leave input
 * past its batch bound in its pipe (transport.h, `sated'). */
void pvmi_conn_sated(int on);
/* A write to task `peer' waits for room (conn_send.c): a held pump also
 * reads that peer's links.  Sets it (0: none) and returns the previous
 * one, for the write to put back when it is done. */
int pvmi_conn_writing(int peer);
/* Hands message `m' to the sink, as if it had arrived (messages a task
 * sends itself). */
void pvmi_conn_deliver(struct pvmi_msg *m);
/* Registers endpoint `ep' (once; later calls do nothing).  It stays
 * registered until pvmi_conn_close_all().  One per module that listens
 * or needs the pump's rounds: a handful (conn.c's MAX_ENDPOINTS). */
void pvmi_conn_endpoint_add(struct pvmi_conn_endpoint *ep);
/* Stops polling and accepting on `ep' for a short while (the process is
 * out of descriptors: its listener would be readable but unacceptable,
 * and the pump would spin); it is tried again after PVMI_REST_MS. */
void pvmi_conn_endpoint_rest(struct pvmi_conn_endpoint *ep);
#define PVMI_REST_MS	100

/* Adds a link; NULL when out of memory (the caller closes `fd'). */
struct link *pvmi_link_add(int fd, int role, int peer,
			   const struct pvmi_transport *tp,
			   const struct pvmi_link_hooks *hooks);
/* Sets or clears (NULL) the handshake state of `l'; while it is set the
 * bytes arriving on `l' go to its gate_input hook. */
void pvmi_link_set_gate(struct link *l, void *gate);
/* Closes and frees a link at once (its release hook runs first). */
void pvmi_link_drop(struct link *l);
/* Calls `fn' on every link; `fn' must not add or drop links. */
void pvmi_link_each(void (*fn)(struct link *l, void *arg), void *arg);
/* The first live link of `role' with task `peer', or NULL (a scan). */
struct link *pvmi_link_find(int role, int peer);
/* The live link with serial number `serial', or NULL. */
struct link *pvmi_link_by_serial(unsigned long serial);
/* Makes *ref point at `l' and clears it when `l' is freed (one such
 * reference per link; a new one replaces the old). */
void pvmi_link_watch(struct link *l, struct link **ref);
/* Frees the links marked dead, except those being written. */
void pvmi_link_sweep(void);
/* One round of waiting for input for up to `timeout_ms' (and for `wfd'
 * to be writable if >= 0); 1 when anything happened, 0 on timeout,
 * PvmSysErr when nothing can ever arrive.  May free dead links. */
int pvmi_link_pump(int timeout_ms, int wfd);
/* conn_send.c: writes frame `f' with message `m' (NULL: empty) on `l',
 * reading input while it waits; sets f->magic and f->len.  PvmOk, PvmNoMem, or -1 when
 * the link broke (the caller drops it). */
int pvmi_link_send(struct link *l, struct pvmi_frame *f,
		   const struct pvmi_msg *m);
/* Writes frame `f' (magic and len set by the caller) with the `nbody'
 * iovecs of `body', as pvmi_link_send(). */
int pvmi_link_write(struct link *l, struct pvmi_frame *f,
		    const struct iovec *body, int nbody);
/* pvmi_link_send() and pvmi_link_write() with the header already
 * encoded in `hdr' (a circuit's prebuilt one, route.c), its length
 * field matching the body; NULL: encode `f' as they do. */
int pvmi_link_send_hdr(struct link *l, struct pvmi_frame *f,
		       const unsigned char *hdr, const struct pvmi_msg *m);
int pvmi_link_write_hdr(struct link *l, struct pvmi_frame *f,
			const unsigned char *hdr, const struct iovec *body,
			int nbody);
/* One copy of a message for pvmi_link_send_many(): the link, its frame
 * and header (NULL: encode f), and what became of it. */
struct pvmi_link_copy {
	struct link *l;
	struct pvmi_frame f;
	const unsigned char *hdr;
	int rc;			/* out: PvmOk, or -1 when the link broke
				 * (the caller drops it) */
};
/* Writes message `m' (NULL: empty) on each of the `n' links of `c',
 * starting every copy before waiting for any: on a transport with
 * queue() and submit() (transport.h) all of them go to the kernel in
 * one system call.  Then finishes each as pvmi_link_send_hdr() does,
 * reading input while it waits.  Returns PvmOk (see each c[i].rc) or
 * PvmNoMem, when nothing was sent. */
int pvmi_link_send_many(struct pvmi_link_copy *c, int n,
			const struct pvmi_msg *m);
/* The one send of a message on a circuit (route.c): frame `f' with
 * message `m' (NULL: empty) on link `l', its header prebuilt in `hdr'
 * or NULL, through the transport's table, reading input while it waits.
 * PvmOk, PvmNoMem, or PvmNoTask when the link broke: it is then freed
 * (any reference watching it cleared). */
int pvmi_conn_send(struct link *l, struct pvmi_frame *f,
		   const unsigned char *hdr, const struct pvmi_msg *m);
/* The failure path of pvmi_conn_send() for a send that went straight to
 * the transport (route.c's short way) and found `l' broken: `l' is freed
 * (any reference watching it cleared).  Returns PvmNoTask. */
int pvmi_conn_broke(struct link *l);
/* pvmi_conn_send() of message `m' on the `n' circuits of `c' at once
 * (pvmi_link_send_many(): all started before any is waited for):
 * c[i].rc gets PvmOk, or PvmNoTask when that link broke (it is then
 * freed).  PvmOk, or PvmNoMem when nothing was sent. */
int pvmi_conn_send_many(struct pvmi_link_copy *c, int n,
			const struct pvmi_msg *m);
/* Reads everything already waiting on inbound links, accepting new
 * circuits first, with no batch bound (see conn.c, "drain_peers"). */
void pvmi_conn_drain_peers(void);

/* Closes every link and endpoint; with `unlink_tid' != 0 also removes
 * that task's endpoint names. */
void pvmi_conn_close_all(int unlink_tid);
/* Closes the circuits this task only writes on (LINK_OUT), whatever
 * they carry already having been taken by their transports: a task that
 * leaves does it before it tells the daemon, so that its peers see
 * those circuits end before the daemon's notify of its exit. */
void pvmi_conn_close_out(void);

/* Waits up to `timeout_ms' (-1: no limit) for incoming data and reads all
 * complete frames (a ring a batch at a time once the receive under way
 * has its match, pvmi_conn_sated).  Returns 1 if anything was read or
 * accepted, 0 on timeout, PvmSysErr when nothing can ever arrive (no
 * links left). */
int pvmi_pump(int timeout_ms);
/* One round of a receive's spin (lib/wait.c): as pvmi_pump(0), except
 * that while shared-memory rings are polled, poll() on the fds runs only
 * when its gap has passed (conn.c).  `now_ns' is the spin's latest
 * CLOCK_MONOTONIC reading, used instead of reading the clock again.
 * With `now_ns' 0, a look before any clock read: the rings alone. */
int pvmi_pump_spin(long now_ns);
/* Whether a spin should run its next pump round now: input sits in a
 * ring, or there is no ring or a transport only a round looks at (one
 * that prepares).  Looks at memory only: no system call, no clock. */
int pvmi_conn_spin_hint(void);

/* Brings the epoll set of pvm_getfds() (pollset.h) up to date when it
 * is open: 0, or -1 when it could not be (it is tried again later). */
int pvmi_conn_pollset_update(void);

#endif /* COPVM_CONN_H */

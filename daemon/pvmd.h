/*
 * pvmd.h - state and interfaces shared by the modules of the daemon.
 *
 * pvmd is one single-threaded process per user per host.  Everything it
 * does is driven by loop.c: readiness on the listening socket, on task
 * connections (conn.c), on the pipes carrying spawned tasks' output
 * (output.c) and on a signalfd (children exiting, SIGTERM).  Requests are
 * decoded in dispatch.c and answered (reply.c) by ops.c or the module
 * that owns their state: tasks.c, place.c and spawn.c, notify.c, mbox.c.
 * Nothing blocks except the short wait in spawn.c for a freshly forked
 * child to exec.
 *
 * In a virtual machine of several hosts (docs/multihost.md) the daemons
 * also talk to each other over TCP: hosttab.c keeps the host table and
 * hosts.c the membership (the master's copy is the authority), peer.c the
 * authenticated connections between daemons, remote.c the requests one
 * daemon hands to another, dd.c what arrives from them, addhost.c starts
 * slaves (master) and slave.c joins a machine (slave), place.c spreads a
 * spawn over hosts.  Connections of every kind are struct pvmd_conn, told
 * apart by `kind'.
 *
 * The modules form layers, and a module calls only those below it: the
 * state (state.c), the log (log.h) and the tables (tasktab.c, hosttab.c,
 * contexts.c) at the bottom; the loop, the connections and the links;
 * the replies and the request handlers; the dispatchers and main.c on
 * top.  Where a lower module reports an event upwards it calls a hook;
 * wiring.c says which function that is (tools/import-graph.sh checks).
 */
#ifndef COPVM_PVMD_H
#define COPVM_PVMD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "pvm3.h"
#include "wire.h"
#include "codec.h"
#include "proto.h"
#include "log.h"

#define PVMD_SPEED_DEFAULT	1000

/* Task flags as pvm_tasks() reports them in ti_flag (the two bits the
 * stock pvmd shows for local tasks). */
#define PVMD_TF_SPAWNED		0x2	/* started by this daemon */
#define PVMD_TF_CONN		0x4	/* registered over a connection */

/* A connection stops being read while more than this is queued to it,
 * and output pipes feeding it pause too; both resume below the low mark. */
#define PVMD_OQ_HIGH		(4u << 20)
#define PVMD_OQ_LOW		(1u << 20)

/* Anything with a file descriptor in the epoll set. */
struct pvmd_watch {
	int fd;
	void (*on_event)(struct pvmd_watch *w, uint32_t events);
};

struct pvmd_chunk;
struct pvmd_task;
struct pvmi_auth;

enum pvmd_conn_kind {
	PVMD_CONN_TASK,		/* a task (or a tool) on the unix socket */
	PVMD_CONN_PEER,		/* another host's daemon, over TCP */
	PVMD_CONN_PROXY,	/* a request another daemon handed us */
};

/* One connection: a task's control connection, a link to another
 * daemon, or (PROXY: no socket) the stand-in for a remote task whose
 * request is handled here, whose replies go back to the daemon that
 * asked (remote.c). */
struct pvmd_conn {
	struct pvmd_watch w;
	struct pvmd_conn *next;		/* all connections */
	pid_t peer_pid;			/* from SO_PEERCRED */
	unsigned char *in;		/* unparsed input at in[in_start] */
	size_t in_start, in_len, in_cap;
	struct pvmd_chunk *oq_head, *oq_tail;
	size_t oq_bytes;		/* queued output not yet written */
	uint32_t events;		/* what epoll is asked to report */
	int deferred;			/* a reply is pending (mailbox wait) */
	int dead;			/* closed; freed at the turn end */
	int broken;			/* output failed; closed at turn end */
	int was_high;			/* oq_bytes went above PVMD_OQ_HIGH */
	int kick;			/* buffered input to run at turn end */
	struct pvmd_task *task;		/* registered task, or NULL */
	int kind;			/* enum pvmd_conn_kind */
	int host;			/* PEER, PROXY: other host's index */
	struct pvmi_auth *auth;		/* PEER: handshake under way */
	int connecting;			/* PEER: connect() under way */
	long long deadline;		/* PEER: handshake due by then (ms) */
	long long last_rx;		/* PEER: when bytes last came, or
					 * when we last could not read (ms) */
	struct pvmd_conn *blocked_on;	/* not read until that one drains */
	int reqid;			/* PROXY: the asking daemon's id */
	int replied;			/* PROXY: answered, to be freed */
	int linger;			/* PEER: close once the queue is out */
	int pending;			/* on conn.c's list of output to
					 * write at the turn end */
	struct pvmd_conn *pending_next;
};

/* One task of this host. */
struct pvmd_task {
	struct pvmd_task *next;		/* sorted by tid */
	int tid;
	int ptid;			/* 0 when it has no parent */
	pid_t pid;
	int flags;			/* PVMD_TF_* */
	char *aout;			/* program name */
	struct pvmd_conn *conn;		/* control connection, or NULL */
	int ctx;			/* settings given at spawn time */
	int outtid, outcode, outctx;
	int trctid, trccode, trcctx;
	int *sibs;			/* tids started by the same spawn */
	int nsib;
	int sibs_host;			/* host whose spawn will send the
					 * sibling list (0: none pending) */
	int tcp_port;			/* its TCP listener for direct routes */
	struct pvmd_held *held;		/* messages that came before it */
	struct pvmd_held **held_tail;	/* registered (tasktab.c) */
};

/* A message that came (from another host, through the daemons) before
 * its task registered; a local sender's wait in the task's socket.
 * Kept by tasktab.c, handed over by tasks.c. */
struct pvmd_held {
	struct pvmd_held *next;
	struct pvmi_frame f;
	size_t len;
	unsigned char body[];
};

/* Options for this host, from the hostfile or the defaults. */
struct pvmd_hostopts {
	char *ep;			/* executable search path, ':' list */
	char *wd;			/* working directory for tasks */
	char *bx;			/* debugger */
	int speed;
	int htmo;			/* ht=: silence (ms) after which that
					 * host is declared dead; 0: ours */
};

/* A host to add, as a hostfile line or pvm_addhosts() names it. */
struct pvmd_hostspec {
	char *name;
	char *lo, *so, *dx, *ip;	/* login, start-up mode, pvmd path,
					 * address to use */
	struct pvmd_hostopts opts;	/* given to the slave */
};

/* Global daemon state. */
struct pvmd_state {
	int index;			/* host index */
	int dtid;
	uid_t uid;
	char hostname[256];
	char dir[4096];			/* the per-user directory */
	int dirfd;			/* open on it, checked (rundir.h) */
	uint64_t session;		/* this run's id (session.c) */
	char sessname[32];		/* "s<16 hex>" */
	char sessdir[4200];		/* dir/sessname: the task sockets */
	char sockpath[4200];
	char pidpath[4200];
	char logpath[4200];
	char *home;
	int debug;			/* -d mask */
	int foreground;			/* -f */
	int epfd;
	int halting;			/* shutting down, see loop.c */
	struct pvmd_hostopts opts;
	int slave;			/* started by a master (-s) */
	unsigned char secret[32];	/* the machine's (auth.h) */
	int tcp_port;			/* our TCP listener, 0: none yet */
	char addr[64];			/* our address as others reach it */
	char exe[4096];			/* this program, the default dx= */
	int root_defaulted;		/* PVM_ROOT was unset: the default
					 * ep= also has Debian's PVM's bin */
};

extern struct pvmd_state pvmd;

/* ready.c: the readiness signal */
/* Gives the write end of the starter's pipe to pvmd_ready(). */
void pvmd_ready_set_fd(int fd);
/* True while pvmd_hold_ready() holds the signal back. */
int pvmd_ready_is_held(void);
/* Holds the "ready" signal to the starter until pvmd_ready() (the
 * master adds its hostfile's hosts first). */
void pvmd_hold_ready(void);
/* Tells the process that started the daemon that it serves now. */
void pvmd_ready(void);

/* wiring.c */
/* Gives every low-level module the functions of the modules above it
 * that it reports its events to; the first thing main() does. */
void pvmd_wire(void);

/* hostfile.c */
/* Reads `path': fills pvmd.opts from the entry for this host and the
 * `*' defaults, remembers `&' hosts and the last defaults for later
 * pvm_addhosts(), and returns the hosts to start now in *hosts (a
 * malloc'd array of *n lines).  0 or -1. */
int pvmd_hostfile_load(const char *path, char ***hosts, int *n);
/* Parses a host line ("name opt=value ..."), applying the hostfile's
 * last `*' defaults and its `&' entry for that name first.  0, or
 * PvmBadParam for a line with no name or an unsafe name. */
int pvmd_hostspec_parse(const char *line, struct pvmd_hostspec *spec);
/* Frees what a hostspec holds. */
void pvmd_hostspec_free(struct pvmd_hostspec *spec);
/* True when `name' designates this host ("", ".", "localhost" or ours). */
int pvmd_is_self(const char *name);
/* The ip= of this host's own line in the hostfile (the address the
 * master listens on for daemons), or NULL. */
const char *pvmd_hostfile_self_ip(void);
/* True when `a' and `b' name the same host: equal, or equal up to the
 * first dot of the one that has no domain. */
int pvmd_same_name(const char *a, const char *b);

/* loop.c */
/* What the loop reports to the modules above it (wiring.c). */
struct pvmd_loop_hooks {
	/* a task's connection was accepted (conn.c) */
	struct pvmd_conn *(*accepted)(int fd, pid_t peer_pid);
	/* the process of task `t' ended */
	void (*task_gone)(struct pvmd_task *t, const char *why);
	/* another child ended: 1 when it was known (a slave's shell) */
	int (*child_ended)(pid_t pid, int status);
	/* the modules' deadlines are due */
	void (*tick)(void);
	/* a batch of events was run (twice: before and after the ticks) */
	void (*turn_end)(void);
	/* halting, master: tell the slaves */
	void (*halt_slaves)(void);
	/* halting: continue the tasks EXP stopped, before SIGTERM */
	void (*release_tasks)(void);
	/* halting: true while a task other than `caller' is connected */
	int (*tasks_left)(struct pvmd_conn *caller);
	/* halting, master: true while a link to a slave is open */
	int (*peers_left)(void);
};
/* Gives the loop its hooks (before pvmd_loop_init). */
void pvmd_loop_set_hooks(const struct pvmd_loop_hooks *h);
/* Creates the epoll set and signalfd and starts accepting on `lfd'. */
int pvmd_loop_init(int lfd);
/* Accepts one connection on listening `lfd' and drops it, using the
 * spare descriptor: for when accept() says EMFILE (loop.c). */
void pvmd_shed_connection(int lfd);
/* Runs until the daemon has halted; returns the exit status. */
int pvmd_loop_run(void);
/* Adds `w' to the epoll set with `events'; 0 or -1. */
int pvmd_watch_add(struct pvmd_watch *w, uint32_t events);
/* Changes the events reported for `w'. */
void pvmd_watch_mod(struct pvmd_watch *w, uint32_t events);
/* Removes `w' from the epoll set (before its fd is closed). */
void pvmd_watch_del(struct pvmd_watch *w);
/* Starts the halt sequence; `caller' (may be NULL) is spared and gets
 * its queued reply flushed before the daemon exits. */
void pvmd_halt(struct pvmd_conn *caller);
/* Forgets the halt caller when its connection is freed. */
void pvmd_loop_conn_freed(struct pvmd_conn *c);
/* Records a forked child so it is reaped and killed at halt. */
void pvmd_child_add(pid_t pid, int tid);
/* Milliseconds on the monotonic clock. */
long long pvmd_now_ms(void);
/* Asks the loop to call the modules' tick functions at least every
 * `ms' milliseconds from now (deadlines; see loop.c). */
void pvmd_tick_within(int ms);
/* Removes every file the daemon made and exits with `status'. */
void pvmd_cleanup_exit(int status) __attribute__((noreturn));

/* ring.c: the writes of one loop turn to several connections, in one
 * system call (io_uring), when COPVM_URING=1 asks for it. */
struct pvmd_write {
	int fd;
	struct iovec *iov;
	int iovcnt;
	int res;			/* bytes written, or -errno */
	struct msghdr mh;		/* ring.c's own */
};
/* Non-zero when the daemon batches its writes through a ring. */
int pvmd_ring_usable(void);
/* Writes each of w[0..n) without blocking, in one system call, and sets
 * every w[i].res (-EAGAIN: nothing written now). */
void pvmd_ring_writev(struct pvmd_write *w, int n);
/* How many batches went through the ring since the daemon started. */
unsigned long pvmd_ring_batches(void);

/* conn.c */
/* What the connections report to the modules above them (wiring.c). */
struct pvmd_conn_hooks {
	/* a complete frame came on `c' (dispatch.c) */
	void (*frame)(struct pvmd_conn *c, const struct pvmi_frame *f,
		      const unsigned char *body);
	/* handshake bytes of a PEER: 1 frames may follow, 0 more input
	 * needed, -1 `c' was closed (peer.c) */
	int (*auth_input)(struct pvmd_conn *c);
	/* a PEER's connect() ended (peer.c) */
	void (*connect_done)(struct pvmd_conn *c);
	/* a PEER closed (peer.c) */
	void (*peer_closed)(struct pvmd_conn *c);
	/* a frame queued on a PROXY (remote.c) */
	void (*proxy_send)(struct pvmd_conn *c, const struct pvmi_frame *f,
			   const void *body, size_t len);
	/* a TASK or PROXY connection closed: drop what waits on it */
	void (*closed)(struct pvmd_conn *c);
	/* the task a closed connection carried is gone (tasks.c) */
	void (*task_gone)(struct pvmd_task *t, const char *why);
	/* queued output drained: paused output may flow (output.c) */
	void (*drained)(void);
	/* the turn's closed connections were freed (remote.c) */
	void (*turn_end)(void);
};
/* Gives the connections their hooks (before any connection exists). */
void pvmd_conn_set_hooks(const struct pvmd_conn_hooks *h);
/* Takes ownership of an accepted socket; NULL on failure (fd closed). */
struct pvmd_conn *pvmd_conn_new(int fd, pid_t peer_pid);
/* Queues a frame; body may be NULL when len is 0.  Never blocks. */
void pvmd_conn_send(struct pvmd_conn *c, const struct pvmi_frame *f,
		    const void *body, size_t len);
/* Closes a connection (the task it carried is gone); freed later. */
void pvmd_conn_close(struct pvmd_conn *c, const char *why);
/* Resumes reading after a deferred reply was sent or the queue drained. */
void pvmd_conn_resume(struct pvmd_conn *c);
/* Ends a turn of the loop: runs the input of resumed connections, then
 * frees the connections closed during the turn. */
void pvmd_conn_turn_end(void);
/* True when a connection other than `except' still carries a task. */
int pvmd_conn_tasks_left(struct pvmd_conn *except);
/* Closes every connection at exit. */
void pvmd_conn_close_all(void);
/* Queues raw bytes (the handshake) ahead of any later frame. */
void pvmd_conn_send_raw(struct pvmd_conn *c, const void *p, size_t len);
/* Wraps an fd as a connection of `kind'; NULL on failure (fd closed). */
struct pvmd_conn *pvmd_conn_new_kind(int fd, int kind, uint32_t events);
/* Stops reading `src' until `dst' has drained its output queue. */
void pvmd_conn_block_on(struct pvmd_conn *src, struct pvmd_conn *dst);
/* True when a link to another daemon is open (handshakes excluded). */
int pvmd_conn_peers_left(void);
/* Calls `fn' on every open connection of `kind'. */
void pvmd_conn_each(int kind, void (*fn)(struct pvmd_conn *c, void *arg),
		    void *arg);

/* dispatch.c */
/* Handles one complete frame received on `c'. */
void pvmd_dispatch(struct pvmd_conn *c, const struct pvmi_frame *f,
		   const unsigned char *body);
/* Runs request `op' for a proxy; -1 when that op may not come from
 * another daemon (nothing was answered then). */
int pvmd_dispatch_op(struct pvmd_conn *c, int op, struct pvmi_rbuf *r);

/* reply.c */
/* True when a request body was read without error and to its end. */
int pvmd_body_ok(const struct pvmi_rbuf *r);
/* Sends a reply frame for `op' whose body is `w' (freed). */
void pvmd_reply(struct pvmd_conn *c, int op, struct pvmi_wbuf *w);
/* Sends a reply for `op' carrying only a status. */
void pvmd_reply_status(struct pvmd_conn *c, int op, int status);
/* Sends a PVMI_KIND_USER message from the daemon to task `dst' of any
 * host; returns 0, or -1 when it cannot go anywhere. */
int pvmd_send_user(int dst, int tag, int ctx, struct pvmi_wbuf *w);
/* Delivers a USER frame to a local task or hands it to the daemon of the
 * task's host; returns the connection it was queued on, or NULL when it
 * was dropped (no such task or host) or is waiting for a link. */
struct pvmd_conn *pvmd_route_user(const struct pvmi_frame *f,
				  const void *body, size_t len);
/* The tid of the task `c' speaks for (a proxy's remote task too). */
int pvmd_conn_tid(const struct pvmd_conn *c);

/* ops.c: handlers of the ops that need no other module's state */
void pvmd_op_pstat(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_tasks(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_hostsync(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_tidtohost(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_kill(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_sendsig(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_newctx(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_freectx(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_halt(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_route(struct pvmd_conn *c, struct pvmi_rbuf *r);

/* tasktab.c: the task table (a leaf) */
/* What the table tells the modules above it (wiring.c): a task entered
 * it; a task that never ran (pvmd_task_discard) left it. */
struct pvmd_task_hooks {
	void (*added)(void);
	void (*discarded)(int tid);
};
/* Gives the table its hooks (before anything else runs). */
void pvmd_task_set_hooks(const struct pvmd_task_hooks *h);
/* Returns the task with tid `tid', or NULL. */
struct pvmd_task *pvmd_task_find(int tid);
/* Returns a task whose process is `pid', or NULL. */
struct pvmd_task *pvmd_task_by_pid(pid_t pid);
/* First task of the table (sorted by tid), for iteration via ->next. */
struct pvmd_task *pvmd_task_first(void);
/* Number of tasks in the table. */
int pvmd_task_count(void);
/* Creates a task under a fresh tid; NULL when out of tids or memory. */
struct pvmd_task *pvmd_task_new(pid_t pid, const char *aout, int flags);
/* Takes `t' out of the table, without freeing it (tasks.c). */
void pvmd_task_unlink(struct pvmd_task *t);
/* Frees `t' and what it holds, once it is out of the table. */
void pvmd_task_free(struct pvmd_task *t);
/* Removes the socket of task `tid' (it is gone). */
void pvmd_task_unlink_sock(int tid);
/* Frees a task that never ran (spawn failure), with no side effects. */
void pvmd_task_discard(struct pvmd_task *t);
/* Keeps a message for task `t', which has not registered yet; it gets it
 * right after its REGISTER answer.  0 or -1. */
int pvmd_task_hold(struct pvmd_task *t, const struct pvmi_frame *f,
		   const void *body, size_t len);
/* Builds the path of a task's socket into `buf'; 0, or -1 if too long
 * for a sockaddr_un. */
int pvmd_task_sockpath(int tid, char *buf, size_t size);
/* Unlinks the sockets of every task still in the table (at exit). */
void pvmd_task_unlink_all(void);

/* tasks.c: a task's life */
/* Marks the task gone: unlinks it and its socket, runs the exit
 * notifies, drops its mailbox entries and waiters.  Frees `t'. */
void pvmd_task_gone(struct pvmd_task *t, const char *why);
/* Handles REGISTER and EXIT. */
void pvmd_op_register(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_exit(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Gives the tasks of this host among `tids' their sibling list, answers
 * their held REGISTERs and lets their output flow. */
void pvmd_tasks_siblings(const int32_t *tids, int n);
/* Releases the tasks whose sibling list was to come from host `index'
 * (gone), with what they have. */
void pvmd_tasks_siblings_host_gone(int index);
/* session.c: this run's session id and its directory of task sockets
 * (proto.h).  Start draws the id, removes earlier runs' sessions and
 * makes the directory (0, or -1 with errno); end removes it; write puts
 * the id into a REGISTER reply. */
int pvmd_session_start(void);
void pvmd_session_end(void);
void pvmd_session_write(struct pvmi_wbuf *w);
/* contexts.c: allocates a context for task `owner'; returns it,
 * PvmNoMem, or PvmOutOfRes when every number is in use. */
int pvmd_ctx_new(int owner);
/* contexts.c: frees context `ctx'; PvmOk, or PvmNotFound (as stock) if
 * it was not allocated. */
int pvmd_ctx_free(int ctx);
/* contexts.c: frees every context of task `owner' (it left). */
void pvmd_ctx_free_owner(int owner);

/* spawn.c: starting tasks here (the SPAWN request: place.c) */
/* A SPAWN request, decoded. */
struct spawn_req {
	char *file;
	int flags;
	char *where;
	int count;
	int argc;
	char **argv;		/* argc args, NULL-terminated */
	int envc;
	char **env;		/* envc "NAME=value", NULL-terminated */
	int ctx, outtid, outcode, outctx, trctid, trccode, trcctx;
};
/* A spawn flag no task may set: the request comes from another daemon
 * spreading a spawn, so the sibling list comes later (DD_SIBLINGS). */
#define PVMD_SPAWN_PART		0x40000000
/* Starts `n' tasks of request `q' here for parent `ptid'; writes their
 * tids or error codes to res[0..n) (tids first); returns how many
 * started.  With `later', their siblings come later (DD_SIBLINGS). */
int pvmd_spawn_here(const struct spawn_req *q, int ptid, int later,
		    int32_t *res, int n);

/* place.c */
/* Handles SPAWN. */
void pvmd_op_spawn(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Frees what a decoded request holds. */
void pvmd_spawn_req_free(struct spawn_req *q);
/* Encodes `q' with a new count and host into `w' (a SPAWN request). */
void pvmd_spawn_encode(const struct spawn_req *q, int count,
		       const char *host, struct pvmi_wbuf *w);
/* Spreads SPAWN request `q' of `c' over the hosts it selects: starts this
 * host's share, hands the others' to their daemons, answers when all are
 * done.  Takes `q' over. */
void pvmd_place_spawn(struct pvmd_conn *c, struct spawn_req *q);

/* output.c */
/* Starts forwarding a child's output pipe `fd' (taken over); nothing is
 * read before pvmd_output_announce(). */
int pvmd_output_start(int fd, int tid, int ptid, int outtid, int outcode,
		      int outctx);
/* Sends the "task started" output message of `tid' (after the spawn
 * reply). */
void pvmd_output_announce(int tid);
/* Lets paused output streams read again if their destination drained. */
void pvmd_output_kick(void);

/* notify.c */
void pvmd_op_notify(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Fires the PvmTaskExit notifies on `tid' and drops those `tid' asked. */
void pvmd_notify_task_gone(int tid);
/* A notify of ours fired on another host (DD_NOTIFY). */
void pvmd_notify_remote_fired(int kind, int watcher, int tag, int ctx,
			      int target, int src);
/* Host `index' left the machine: fires the notifies on its tasks and on
 * itself, drops those its tasks asked. */
void pvmd_notify_host_gone(int index);
/* Hosts were added: fires the PvmHostAdd notifies with their dtids. */
void pvmd_notify_hosts_added(const int32_t *dtids, int n);

/* mbox.c: lives on the master; others forward (remote.c) */
void pvmd_op_mbox_put(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mbox_get(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mbox_del(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mbox_list(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Drops the entries `tid' owns (orphaning persistent ones). */
void pvmd_mbox_task_gone(int tid);
/* Forgets a pending WaitForInfo request of a closing connection. */
void pvmd_mbox_conn_gone(struct pvmd_conn *c);
/* Drops what the tasks of host `index' own (master). */
void pvmd_mbox_host_gone(int index);

/* hosttab.c: the host table (a leaf) */
struct pvmd_host {
	int index;
	int dtid;
	char *name;
	char *arch;
	int speed;
	int dsig;
	char addr[64];			/* dotted IPv4, as we reach it */
	int port;			/* its daemon's TCP port */
	int htmo;			/* master: its ht= (ms), 0: ours */
};
/* Makes this host entry 1 (master) or `index' (slave); 0 or -1. */
int pvmd_hosts_init(void);
/* The host of index `index', or NULL. */
struct pvmd_host *pvmd_host_get(int index);
/* The host `name' designates (ours for "." and the like), or NULL. */
struct pvmd_host *pvmd_host_find(const char *name);
/* The next host after index `after' (0: the first), or NULL. */
struct pvmd_host *pvmd_host_next(int after);
/* Number of hosts in the table. */
int pvmd_host_count(void);
/* True when the table has hosts besides this one. */
int pvmd_hosts_multi(void);
/* Master: enters a host that joined; NULL when out of memory. */
struct pvmd_host *pvmd_host_add(int index, const char *name,
				const char *arch, int speed, int dsig,
				const char *addr, int port);
/* Takes host `index' out of the table, without freeing it (hosts.c). */
void pvmd_host_unlink(int index);
/* Frees a host entry taken out of the table. */
void pvmd_host_free(struct pvmd_host *h);

/* hosts.c: the machine's membership */
/* Removes host `index' (it left or failed) and everything tied to it;
 * the master then sends the new table out. */
void pvmd_host_remove(int index, const char *why);
/* Master: sends the table to every slave. */
void pvmd_hosts_broadcast(void);
/* Slave: applies a DD_HOSTS body; 0 or -1 when malformed. */
int pvmd_hosts_apply(struct pvmi_rbuf *r);
/* CONFIG and MSTAT from the table. */
void pvmd_op_config(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mstat(struct pvmd_conn *c, struct pvmi_rbuf *r);

/* peer.c */
/* What the links ask and report to the modules above them (wiring.c). */
struct pvmd_peer_hooks {
	/* master: true when host `index' is being started (addhost.c) */
	int (*expected)(int index);
	/* master: the link to host `index' broke; remove the host */
	void (*host_lost)(int index, const char *why);
};
/* Gives the links their hooks (before any link exists). */
void pvmd_peer_set_hooks(const struct pvmd_peer_hooks *h);
/* Opens our TCP listener (once); 0 or -1. */
int pvmd_peer_listen(const char *bind_addr);
/* The address our TCP listener is bound to, into `out'; 0, or -1 when it
 * listens on every address (or not at all). */
int pvmd_peer_listen_addr(char *out, size_t size);
/* Watches the listener once the event loop exists. */
void pvmd_peer_loop_ready(void);
/* Sends a frame to the daemon of host `index', connecting if needed;
 * returns the connection it was queued on, or NULL (queued for a link
 * under way, or dropped when the host is unknown). */
struct pvmd_conn *pvmd_peer_send(int index, const struct pvmi_frame *f,
				 const void *body, size_t len);
/* Sends a DAEMON frame with op `op' and body `w' (not freed). */
struct pvmd_conn *pvmd_peer_send_dd(int index, int op,
				    const struct pvmi_wbuf *w);
/* Adopts a connected, authenticated socket as the link to `index'. */
struct pvmd_conn *pvmd_peer_adopt(int fd, int index);
/* Consumes handshake bytes from `c''s input; 1 when frames may follow,
 * 0 when more input is needed, -1 when `c' was closed. */
int pvmd_peer_auth_input(struct pvmd_conn *c);
/* A peer connection closed. */
void pvmd_peer_closed(struct pvmd_conn *c);
/* A connect() under way on `c' ended (success or not). */
void pvmd_peer_connect_done(struct pvmd_conn *c);
/* Closes the links to host `index' and drops what waited for them. */
void pvmd_peer_forget(int index);
/* Drops connections whose handshake is overdue. */
void pvmd_peer_tick(void);
/* The link to host `index' if one is up, else NULL. */
struct pvmd_conn *pvmd_peer_link(int index);
/* The silence after which a host is declared dead, in ms
 * (COPVM_HOST_TIMEOUT_MS; 0: never). */
int pvmd_peer_timeout_ms(void);

/* remote.c */
/* A connection whose answer waits for something (another daemon, a slave
 * starting): while held, `c' reads no further request; if it closes
 * meanwhile, `c' becomes NULL. */
struct pvmd_hold {
	struct pvmd_hold *next;
	struct pvmd_conn *c;
};
/* Holds `c' (see above). */
void pvmd_hold(struct pvmd_hold *h, struct pvmd_conn *c);
/* Ends the hold; returns the connection to answer (then resume), or NULL
 * when it went away. */
struct pvmd_conn *pvmd_unhold(struct pvmd_hold *h);
typedef void (*pvmd_fwd_done)(void *arg, int index, struct pvmi_rbuf *r);
/* Hands request `op' (body `len' bytes at `body') of task `tid' to host
 * `index'; `done' later gets the reply body, or r = NULL when the host
 * failed first.  0, or -1 when the host is unknown (`done' not called). */
int pvmd_forward(int index, int tid, int op, const void *body, size_t len,
		 pvmd_fwd_done done, void *arg);
/* Forwards `c''s request `op' (its whole body read by `r') to `index' and
 * relays the answer to `c'; `fail' is the status sent if the host goes
 * away first. */
void pvmd_forward_relay(struct pvmd_conn *c, int index, int op,
			const struct pvmi_rbuf *r, int fail);
/* What the proxies need from above (wiring.c): the runner of a
 * request's op (dispatch.c), -1 when that op may not come from another
 * daemon. */
struct pvmd_remote_hooks {
	int (*run_op)(struct pvmd_conn *c, int op, struct pvmi_rbuf *r);
};
/* Gives the proxies their hooks (before any link exists). */
void pvmd_remote_set_hooks(const struct pvmd_remote_hooks *h);
/* Runs a DD_REQUEST of host `from' on a proxy; its answer goes back as
 * DD_REPLY. */
void pvmd_remote_request(struct pvmd_conn *from, struct pvmi_rbuf *r);
/* Hands a DD_REPLY of host `from' to the request it answers. */
void pvmd_remote_reply(struct pvmd_conn *from, struct pvmi_rbuf *r);
/* Slave: the master halts the machine; the task that asked is spared. */
void pvmd_remote_halt(void);
/* A proxy's frame: a REPLY goes back to the daemon that asked. */
void pvmd_proxy_send(struct pvmd_conn *c, const struct pvmi_frame *f,
		     const void *body, size_t len);
/* Frees the proxies answered or dropped during the turn. */
void pvmd_remote_turn_end(void);
/* Host `index' left: fails what waits for it, drops its proxies. */
void pvmd_remote_host_gone(int index);
/* Task `tid' of another host is gone: drops the proxies held for it. */
void pvmd_remote_task_gone(int tid);
/* A connection closes: releases its holds. */
void pvmd_remote_conn_gone(struct pvmd_conn *c);
/* Answers TASKS for every host of the machine. */
void pvmd_remote_tasks_all(struct pvmd_conn *c);
/* Slave: remembers the task that asked for the halt, to spare it. */
void pvmd_remote_halt_caller(struct pvmd_conn *c);

/* dd.c */
/* Handles a frame from another daemon. */
void pvmd_dd_dispatch(struct pvmd_conn *c, const struct pvmi_frame *f,
		      const unsigned char *body);

/* addhost.c (master) */
void pvmd_op_addhosts(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_delhosts(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Starts the hosts of the hostfile; the daemon is "ready" after. */
void pvmd_addhost_startup(char **lines, int n);
/* A slave connected and said DD_HELLO; 0, or -1 to refuse it. */
int pvmd_addhost_hello(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* True when host `index' is being started (a slave may connect as it). */
int pvmd_addhost_expected(int index);
/* A child of ours ended: maybe a remote shell starting a slave. */
int pvmd_addhost_child(pid_t pid, int status);
/* Gives up on slaves that did not come in time. */
void pvmd_addhost_tick(void);
/* Master halting: tells every slave to stop. */
void pvmd_addhost_halt_all(void);

/* gang.c: EXP, explicit coscheduling (COPVM_MODEL=exp) */
/* Room for pvmd_cosched_env_lines(). */
#define PVMD_COSCHED_ENV_MAX	2048
/* Reads the EXP settings from the environment and starts EXP if
 * COPVM_MODEL is "exp"; logs the mode and its parameters. */
void pvmd_gang_init(void);
/* A task entered the table: schedule it from the next loop turn. */
void pvmd_gang_task_new(void);
/* Task `tid' leaves the table: continued if we stopped it, forgotten. */
void pvmd_gang_task_gone(int tid);
/* Continues every task we stopped and stops EXP for good (halt, exit). */
void pvmd_gang_release(void);
/* Switches EXP on (with the settings read at start) or off; off
 * continues every stopped task at once. */
void pvmd_gang_enable(int on);
/* True while EXP runs. */
int pvmd_gang_enabled(void);
/* The offset to the master or its schedule changed: the slots are
 * placed anew from the next loop turn. */
void pvmd_gang_resync(void);
/* Writes an "env NAME VALUE" line per coscheduling setting of our
 * environment (for a slave); the length, or -1 when it does not fit. */
int pvmd_cosched_env_lines(char *buf, size_t size);
/* Applies a master's "NAME VALUE" if NAME is a coscheduling setting. */
void pvmd_cosched_env_set(const char *line);

/* gang_jobs.c: the node's EXP jobs, which take turns in the PS */
/* Our job's turn: *rank (from 0) of *njobs users with EXP jobs here;
 * holds our entry while `have_tasks', removes it otherwise. */
void pvmd_gang_jobs_turn(int have_tasks, int *rank, int *njobs);
/* Removes our entry (no task left, halt, exit). */
void pvmd_gang_jobs_leave(void);

/* gang_sync.c: EXP's time base and the slaves' clock exchange */
struct exp_params;
/* What the exchange reports to the scheduler above it (wiring.c). */
struct pvmd_gang_sync_hooks {
	/* the offset to the master or the master's schedule changed */
	void (*changed)(void);
};
/* Gives the module its hooks (before EXP starts). */
void pvmd_gang_sync_set_hooks(const struct pvmd_gang_sync_hooks *h);
/* Reads the test hook COPVM_TEST_CLOCK_SKEW_MS (a fixed skew of every
 * clock read below) and removes it from the environment. */
void pvmd_gang_clock_init(void);
/* The scheduler's own clock: CLOCK_REALTIME plus the test skew, ns. */
uint64_t pvmd_gang_clock_ns(void);
/* The master's time now, as this host best knows it, ns. */
uint64_t pvmd_gang_master_ns(void);
/* The CLOCK_REALTIME value at which the master's clock reads `master'
 * (where a timerfd of this host is armed). */
uint64_t pvmd_gang_realtime_at(uint64_t master);
/* The schedule in force into *p (the master's once heard); 0, or -1
 * when EXP has not started. */
int pvmd_gang_schedule(struct exp_params *p);
/* EXP starts with schedule `p': the master publishes it, a slave starts
 * its clock rounds (unless COPVM_EXP_SYNC=clocks). */
void pvmd_gang_sync_start(const struct exp_params *p);
/* EXP stops: a slave's rounds stop too. */
void pvmd_gang_sync_stop(void);
/* Slave: the host table came (joined, or a host added): a round now. */
void pvmd_gang_sync_joined(void);
/* The loop's tick: a lost probe is given up, the next round begins. */
void pvmd_gang_sync_tick(void);
/* Master: answers a DD_CLOCK of `c''s host (stamps and schedule). */
void pvmd_gang_sync_request(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Slave: takes the master's DD_CLOCK_ACK (a sample, its schedule). */
void pvmd_gang_sync_answer(struct pvmi_rbuf *r);

/* costat.c: the pages of the machine's tasks (COSCHED, the live view) */
void pvmd_op_cosched(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* The loop's tick: answers the gathers whose wait for hosts is over. */
void pvmd_costat_tick(void);

/* cosched_watch.c: the backstop of the tasks' self boosts */
/* Makes and watches the page directory; the tick does the rest. */
void pvmd_cwatch_init(void);
/* The loop's tick: looks at the pages when due, undoes expired boosts,
 * demotes those over budget, removes stale pages. */
void pvmd_cwatch_tick(void);
/* A task entered the table (the watch's fallback without inotify). */
void pvmd_cwatch_task_new(void);
/* Logs what the watch did and what it cost (at exit). */
void pvmd_cwatch_report(void);

/* slave.c */
/* Reads the master's instructions from stdin (exits on failure). */
void pvmd_slave_read_config(void);
/* Listens on TCP, connects to the master, authenticates and says
 * DD_HELLO (exits on failure). */
void pvmd_slave_connect(void);
/* Once the loop runs: adopts the link to the master. */
void pvmd_slave_start(void);

#endif /* COPVM_PVMD_H */

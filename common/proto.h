/*
 * proto.h - the control protocol between a task's libpvm3 and its pvmd,
 * and the names both sides agree on (socket paths, tids, environment).
 *
 * A request is a PVMI_KIND_REQUEST frame with tag = op, src = the task's
 * tid (0 before REGISTER), dst = the daemon's tid, body = items written
 * with codec.h.  The daemon answers every request, in order, with one
 * PVMI_KIND_REPLY frame carrying the same tag; the first item of every
 * reply is an int32 status (>= 0 success, else a PVM error code) unless
 * stated otherwise.  A task has at most one request outstanding.  The
 * daemon also sends PVMI_KIND_USER frames to a task on the same
 * connection (notify messages, task output); those go to its receive
 * queue.
 *
 * Body layouts below: `int' = one int32 item, `ints[n]' = one item of n
 * int32, `str' = one string item, `bytes' = one byte item.
 */
#ifndef COPVM_PROTO_H
#define COPVM_PROTO_H

/* Task ids: bit 31 clear; host index in bits 18..29; local part 0..17.
 * The daemon of host h has tid (h << 18); its tasks (h << 18) | n, n >= 1.
 * Host 1 is the master pvmd, which keeps the host table; indices go up
 * to PVMI_MAX_HOSTS - 1. */
#define PVMI_TID_HOST_SHIFT	18
#define PVMI_TID_LOCAL_MASK	0x3ffff
#define PVMI_TID_HOST_MASK	0x3ffc0000
#define PVMI_TID_HOST(t)	((t) & PVMI_TID_HOST_MASK)
#define PVMI_TID_LOCAL(t)	((t) & PVMI_TID_LOCAL_MASK)
#define PVMI_DAEMON_TID(h)	((h) << PVMI_TID_HOST_SHIFT)
#define PVMI_TID_INDEX(t)	\
	(((t) & PVMI_TID_HOST_MASK) >> PVMI_TID_HOST_SHIFT)
#define PVMI_MASTER_INDEX	1
#define PVMI_MAX_HOSTS		4096

/* Files under the per-user directory $PVM_TMP/copvm-<uid> (mode 0700):
 *   pvmd.sock     the daemon's listening socket
 *   pvmd.log      the daemon's log
 *   pvmd.pid      the daemon's pid
 *   s<16 hex>/    the session of the running daemon: a random 64-bit id
 *                 drawn at its start and given to its tasks by REGISTER;
 *                 it holds
 *     t<hex tid>  each task's listening socket for direct messages.
 * Task ids start over at every daemon start; a task that outlived its
 * daemon still looks for its peers in its own session's directory, which
 * the next daemon has removed, so it cannot reach the next machine's
 * tasks of the same tids. */
#define PVMI_DIR_FMT		"%s/copvm-%u"
#define PVMI_DAEMON_SOCK	"pvmd.sock"
#define PVMI_DAEMON_LOG		"pvmd.log"
#define PVMI_DAEMON_PID		"pvmd.pid"
#define PVMI_SESSION_FMT	"s%016llx"
#define PVMI_SESSION_LEN	8	/* bytes of the id in REGISTER */
#define PVMI_TASK_SOCK_FMT	"t%x"

/* A string every copvm pvmd binary contains, by which the library tells
 * copvm's daemon from another PVM's before starting one (pvmd_start.c). */
#define PVMI_PVMD_MARKER	"copvm-pvmd: speaks copvm control protocol 1"

/* Environment the daemon gives a spawned task:
 *   PVMI_ENV_TID  its tid (decimal)
 *   PVMI_ENV_LFD  fd number of its already-listening task socket
 * so that messages sent to it right after pvm_spawn() wait in its socket's
 * backlog, in order, until it calls pvm_mytid(). */
#define PVMI_ENV_TID		"COPVM_TID"
#define PVMI_ENV_LFD		"COPVM_LISTEN_FD"
/*   PVMI_ENV_SESSION  the session (PVMI_SESSION_FMT) of the daemon run
 *                     that reserved the tid; REGISTER presents it, and a
 *                     claim from another run gets a fresh tid instead. */
#define PVMI_ENV_SESSION	"COPVM_SESSION"
/* In a virtual machine of several hosts, also
 *   PVMI_ENV_TCPFD  fd of its already-listening TCP socket for direct
 *                   routes from tasks of other hosts (the daemon knows
 *                   its port before the task runs; see PVMI_OP_ROUTE). */
#define PVMI_ENV_TCPFD		"COPVM_TCP_FD"

/* The architecture name and data signature copvm reports on x86-64 Linux. */
#define PVMI_ARCH_NAME		"LINUX64"
#define PVMI_DSIG		0x00408c41

enum pvmi_op {
	/* in:  int pid, int claimed_tid (0: none), str program name
	 *      [, str session: PVMI_ENV_SESSION, with a claimed tid]
	 * out: int status = tid, int ptid, int ctx,
	 *      int outtid, int outcode, int outctx,
	 *      int trctid, int trccode, int trcctx,
	 *      int nsib, ints[nsib] sibling tids (as given to one pvm_spawn),
	 *      bytes secret (PVMI_SECRET_LEN bytes, the machine's, auth.h),
	 *      int flags (PVMI_REG_NET: the machine spans several hosts, so
	 *      the task should accept direct routes over TCP)
	 *      bytes session (PVMI_SESSION_LEN bytes, big-endian: names the
	 *      directory of the task sockets, PVMI_SESSION_FMT)
	 * A task spawned by a pvm_spawn that covers several hosts gets its
	 * answer once every host has started its share, since the sibling
	 * list is only complete then. */
	PVMI_OP_REGISTER = 1,
	/* in:  nothing; the task is leaving (pvm_exit).  out: int status */
	PVMI_OP_EXIT,
	/* in:  str file, int flags, str where, int count,
	 *      int argc, str argv[argc] (one item each),
	 *      int envc, str env[envc] ("NAME=value", one item each),
	 *      int ctx, int outtid, int outcode, int outctx,
	 *      int trctid, int trccode, int trcctx
	 * out: int status = number started, ints[count] tids or error codes */
	PVMI_OP_SPAWN,
	/* in:  int tid.  out: int status */
	PVMI_OP_KILL,
	/* in:  int tid, int signum.  out: int status */
	PVMI_OP_SENDSIG,
	/* in:  int which (0 = all tasks, a daemon tid = that host's, else one tid)
	 * out: int status = n, then n times:
	 *      int tid, int ptid, int host, int flag, int pid, str a.out */
	PVMI_OP_TASKS,
	/* in:  nothing.
	 * out: int status = nhost, int narch, then nhost times:
	 *      int dtid, str name, str arch, int speed, int dsig */
	PVMI_OP_CONFIG,
	/* in:  str host.  out: int status (PvmOk, PvmNoHost, PvmHostFail) */
	PVMI_OP_MSTAT,
	/* in:  int tid.  out: int status (PvmOk, PvmNoTask) */
	PVMI_OP_PSTAT,
	/* in:  int what (PvmTaskExit.. | PvmNotifyCancel), int tag, int ctx,
	 *      int cnt, ints[cnt] tids (PvmTaskExit, PvmHostDelete only)
	 * out: int status
	 * Later the daemon sends a PVMI_KIND_USER frame, src = its tid,
	 * with the given tag and ctx: for PvmTaskExit and PvmHostDelete the
	 * body is int tid; for PvmHostAdd it is int count, ints[count] dtids. */
	PVMI_OP_NOTIFY,
	/* in:  str name, int flags, int enc, int tag, bytes message body
	 * out: int status = index */
	PVMI_OP_MBOX_PUT,
	/* in:  str name, int index, int flags
	 * out: int status (PvmOk), int enc, int tag, int src, bytes body.
	 * With PvmMboxWaitForInfo the reply waits until such an entry exists. */
	PVMI_OP_MBOX_GET,
	/* in:  str name, int index, int flags.  out: int status */
	PVMI_OP_MBOX_DEL,
	/* in:  str pattern (glob; "" or "*" = all)
	 * out: int status = nclasses, then per class:
	 *      str name, int n, ints[n] indices, ints[n] owners, ints[n] flags */
	PVMI_OP_MBOX_LIST,
	/* in:  nothing.  out: int status = a new context number */
	PVMI_OP_NEWCTX,
	/* in:  int ctx.  out: int status */
	PVMI_OP_FREECTX,
	/* in:  nothing.  out: int status, then the daemon stops every task
	 * (but the caller) and exits. */
	PVMI_OP_HALT,
	/* in:  int host dtid.  out: int status, int sec, int usec (its clock) */
	PVMI_OP_HOSTSYNC,
	/* in:  int cnt, str names[cnt].  out: int status, ints[cnt] results */
	PVMI_OP_ADDHOSTS,
	/* in:  int cnt, str names[cnt].  out: int status, ints[cnt] results */
	PVMI_OP_DELHOSTS,
	/* in:  int tid.  out: int status = that tid's daemon tid, or PvmNoTask */
	PVMI_OP_TIDTOHOST,
	/* Direct routes between tasks of different hosts.
	 * in:  int tid (the peer wanted; 0: none), int port (the caller's own
	 *      TCP listening port; 0: unchanged)
	 * out: int status (PvmOk: connect there; PvmNoTask: that task is
	 *      gone; PvmNoEntry: it takes no direct routes; PvmNoHost),
	 *      str address (dotted IPv4), int port */
	PVMI_OP_ROUTE,
	/* The coscheduling pages of the tasks, for the live view (copvm's
	 * own; daemon/costat.c).
	 * in:  int which (0: every host; a daemon tid: that host)
	 * out: int status = nrec, then nrec host records, in host-table
	 *      order: int dtid, int hstatus (PvmOk; PvmHostFail: no answer
	 *      in time, or the host left; PvmBadParam: a daemon that does not
	 *      know this op), str name, int time high, int time low (the
	 *      host's CLOCK_MONOTONIC at the snapshot, ns; 0 without one),
	 *      str lines (the host's copvm-cosched -r lines: one per task,
	 *      then the node line; "" without a snapshot)
	 * Another daemon is asked with which = its own dtid. */
	PVMI_OP_COSCHED,
	PVMI_OP_MAX
};

/* Flags in the REGISTER answer. */
#define PVMI_REG_NET		0x1

/* The library's own messages from its daemon travel in a context no
 * user receive matches (lib/pvmi.h lists its other tags).  HOSTSTATE:
 * int dtid, int up: the host left the machine (0: before the notifies
 * of its departure fire) or joined it (1); every task of every daemon
 * gets it (lib/hostwatch.c). */
#define PVMI_SYS_CTX		0x7ffffff0
#define PVMI_TAG_HOSTSTATE	0x7ffffff3

/*
 * Daemon to daemon: PVMI_KIND_DAEMON frames over TCP connections opened
 * by the handshake of auth.h (both ends PVMI_AUTH_DAEMON, id = host
 * index), src = the sender's dtid, dst = the receiver's, tag = the op.
 * User messages between tasks of different hosts travel between daemons
 * as they came from the task: PVMI_KIND_USER frames with dst = a task of
 * the receiving host.  Every daemon has the host table; the master
 * (host 1) changes it and sends it to every other daemon.
 */
enum pvmi_dd_op {
	/* slave -> master, first frame of the slave's first connection:
	 * int index, str name, str arch, int speed, int dsig,
	 * str address, int port (its TCP listener), int pid */
	PVMI_DD_HELLO = 1,
	/* master -> every slave, whenever the table changes:
	 * int nhost, then per host (by index): int index, str name, str arch,
	 * int speed, int dsig, str address ("" for the master: each slave
	 * knows how it reaches the master), int port */
	PVMI_DD_HOSTS,
	/* a task's request handled by another host's daemon:
	 * int reqid, int tid of the asking task, int op (enum pvmi_op),
	 * bytes request body.  The answer is a REPLY with the same reqid. */
	PVMI_DD_REQUEST,
	/* int reqid, bytes reply body (as the op's REPLY frame would carry) */
	PVMI_DD_REPLY,
	/* a notify asked by a task of the receiving host fired:
	 * int kind (PvmTaskExit...), int watcher tid, int tag, int ctx,
	 * int target tid */
	PVMI_DD_NOTIFY,
	/* slave -> master: int tid, a task of the sender is gone (the
	 * mailbox lives on the master) */
	PVMI_DD_TASKGONE,
	/* int n, ints[n]: the tids one pvm_spawn started, in order; the
	 * receiver's tasks among them may now learn their siblings */
	PVMI_DD_SIBLINGS,
	/* master -> slave: halt now (no body) */
	PVMI_DD_HALT,
	/* master -> slave: int tid, the master has forgotten that task of
	 * the slave (DD_TASKGONE): its exit notifies may fire now, so that
	 * a watcher never finds its mailbox entries after the notify */
	PVMI_DD_GONE_ACK,
	/* either way, every fifth of the host timeout on each link (no
	 * body): the sender's daemon is alive (daemon/peer.c) */
	PVMI_DD_BEAT,
	/* slave -> master, EXP's clock exchange (daemon/gang_sync.c):
	 * int seq, int t0 high, int t0 low (the slave's clock, ns) */
	PVMI_DD_CLOCK,
	/* master -> slave, the answer: int seq, then t0, t1 (the master's
	 * clock when it read the probe) and t2 (when it answered), each as
	 * int high, int low (ns); then the master's slot schedule: int mode
	 * (EXP_STATIC...; -1: EXP is off there), int IP, int PS (us) */
	PVMI_DD_CLOCK_ACK,
	PVMI_DD_MAX
};

/*
 * How a master starts a slave (see docs/multihost.md):
 *   $PVM_RSH [-l LOGIN] HOST DX -s [-dMASK] -nNAME
 * and writes on its standard input (never on a command line) lines
 *   copvm-slave 1
 *   index N
 *   master ADDRESS PORT
 *   address ADDRESS        the slave's own address, as the master sees it
 *   secret HEX             64 hex digits
 *   ep|wd|bx VALUE, sp N   the host's options, when set
 *   env NAME VALUE         a coscheduling setting of the master's
 *                          environment (COPVM_MODEL, COPVM_EXP_*, ...)
 *   end
 * The slave connects to the master, completes the handshake with id N,
 * sends DD_HELLO, then detaches, so the remote shell returns 0.
 */
#define PVMI_SLAVE_MAGIC	"copvm-slave 1"

/* Body of a task-output message (sent as PVMI_KIND_USER to the output tid
 * with the output code and context), as in stock PVM:
 *   int tid, int -1, int ptid   the task started
 *   int tid, int n, bytes[n]     n bytes of its stdout/stderr
 *   int tid, int 0               end of its output */

#endif /* COPVM_PROTO_H */

/*
 * pvmd.h - state and interfaces shared by the modules of the daemon.
 *
 * pvmd is one single-threaded process per user per host.  Everything it
 * does is driven by loop.c: readiness on the listening socket, on task
 * connections (conn.c), on the pipes carrying spawned tasks' output
 * (output.c) and on a signalfd (children exiting, SIGTERM).  Requests are
 * decoded and answered in dispatch.c and ops.c, or handed to the module
 * that owns their state: tasks.c (task table, tids, contexts), spawn.c,
 * notify.c, mbox.c.  Nothing blocks except the short wait in spawn.c for
 * a freshly forked child to exec.
 */
#ifndef COPVM_PVMD_H
#define COPVM_PVMD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pvm3.h"
#include "wire.h"
#include "codec.h"
#include "proto.h"

/* Host index of this daemon while the virtual machine has one host. */
#define PVMD_HOST_INDEX		1
#define PVMD_SPEED_DEFAULT	1000

/* Task flags as pvm_tasks() reports them in ti_flag (the two bits the
 * stock pvmd shows for local tasks). */
#define PVMD_TF_SPAWNED		0x2	/* started by this daemon */
#define PVMD_TF_CONN		0x4	/* registered over a connection */

/* Debug mask bits (-d), a subset of the stock meanings. */
#define PVMD_DBG_MSG		0x2	/* requests and replies */
#define PVMD_DBG_TASK		0x4	/* task state changes */
#define PVMD_DBG_LOOP		0x20	/* event loop, connections */
#define PVMD_DBG_MBOX		0x200	/* mailbox and notify traffic */

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

/* One accepted control connection (a task, or a tool before REGISTER). */
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
};

/* Options for this host, from the hostfile or the defaults. */
struct pvmd_hostopts {
	char *ep;			/* executable search path, ':' list */
	char *wd;			/* working directory for tasks */
	char *bx;			/* debugger */
	int speed;
};

/* Global daemon state. */
struct pvmd_state {
	int dtid;
	uid_t uid;
	char hostname[256];
	char dir[4096];			/* the per-user directory */
	char sockpath[4200];
	char pidpath[4200];
	char logpath[4200];
	char *home;
	int debug;			/* -d mask */
	int foreground;			/* -f */
	int epfd;
	int halting;			/* shutting down, see loop.c */
	struct pvmd_hostopts opts;
};

extern struct pvmd_state pvmd;

/* log.c */
/* Opens the log file (truncating it); 0 or -1 with errno set. */
int pvmd_log_open(const char *path, int also_stderr);
/* Writes one timestamped line to the log. */
void pvmd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes one timestamped line when any bit of `mask' is in the -d mask. */
void pvmd_dbg(int mask, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Writes raw task output to the log, one "[t%x] " prefixed line at a time
 * (complete lines only; the caller keeps partial ones). */
void pvmd_log_lines(int tid, const char *buf, size_t n);

/* hostfile.c */
/* Reads `path' and fills pvmd.opts from the entry for this host and the
 * `*' defaults; other hosts are reported as not supported yet.  0 or -1. */
int pvmd_hostfile_load(const char *path);
/* True when `name' designates this host ("", ".", "localhost" or ours). */
int pvmd_is_self(const char *name);

/* loop.c */
/* Creates the epoll set and signalfd and starts accepting on `lfd'. */
int pvmd_loop_init(int lfd);
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
/* Removes every file the daemon made and exits with `status'. */
void pvmd_cleanup_exit(int status) __attribute__((noreturn));

/* conn.c */
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

/* dispatch.c */
/* Handles one complete frame received on `c'. */
void pvmd_dispatch(struct pvmd_conn *c, const struct pvmi_frame *f,
		   const unsigned char *body);
/* True when a request body was read without error and to its end. */
int pvmd_body_ok(const struct pvmi_rbuf *r);
/* Sends a reply frame for `op' whose body is `w' (freed). */
void pvmd_reply(struct pvmd_conn *c, int op, struct pvmi_wbuf *w);
/* Sends a reply for `op' carrying only a status. */
void pvmd_reply_status(struct pvmd_conn *c, int op, int status);
/* Sends a PVMI_KIND_USER message from the daemon to local task `dst';
 * returns 0, or -1 when that task has no connection. */
int pvmd_send_user(int dst, int tag, int ctx, struct pvmi_wbuf *w);

/* ops.c: handlers of the ops that need no other module's state */
void pvmd_op_config(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mstat(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_pstat(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_tasks(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_hostsync(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_tidtohost(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_addhosts(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_delhosts(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_kill(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_sendsig(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_newctx(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_freectx(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_halt(struct pvmd_conn *c, struct pvmi_rbuf *r);

/* tasks.c */
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
/* Marks the task gone: unlinks it and its socket, runs the exit
 * notifies, drops its mailbox entries and waiters.  Frees `t'. */
void pvmd_task_gone(struct pvmd_task *t, const char *why);
/* Frees a task that never ran (spawn failure), with no side effects. */
void pvmd_task_discard(struct pvmd_task *t);
/* Builds the path of a task's socket into `buf'; 0, or -1 if too long
 * for a sockaddr_un. */
int pvmd_task_sockpath(int tid, char *buf, size_t size);
/* Unlinks the sockets of every task still in the table (at exit). */
void pvmd_task_unlink_all(void);
/* Allocates a context for `owner'; returns it or PvmOutOfRes. */
int pvmd_ctx_new(int owner);
/* Frees context `ctx'; PvmOk or PvmBadParam. */
int pvmd_ctx_free(int ctx);
/* Handles REGISTER and EXIT. */
void pvmd_op_register(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_exit(struct pvmd_conn *c, struct pvmi_rbuf *r);

/* spawn.c */
void pvmd_op_spawn(struct pvmd_conn *c, struct pvmi_rbuf *r);

/* output.c */
/* Starts forwarding a child's output pipe `fd' (taken over). */
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

/* mbox.c */
void pvmd_op_mbox_put(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mbox_get(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mbox_del(struct pvmd_conn *c, struct pvmi_rbuf *r);
void pvmd_op_mbox_list(struct pvmd_conn *c, struct pvmi_rbuf *r);
/* Drops the entries `tid' owns (orphaning persistent ones). */
void pvmd_mbox_task_gone(int tid);
/* Forgets a pending WaitForInfo request of a closing connection. */
void pvmd_mbox_conn_gone(struct pvmd_conn *c);

#endif /* COPVM_PVMD_H */

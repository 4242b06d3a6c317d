/*
 * pvmd_fixture.h - a private pvmd for each test, and a minimal client of
 * its control protocol built on common/wire and common/codec only.
 *
 * start_daemon() (a Check checked fixture) makes a fresh mkdtemp
 * directory, points PVM_TMP and HOME into it, starts `pvmd -f' from
 * PVMD_PATH and waits for its socket; stop_daemon() (teardown, and
 * atexit, since a failing check ends the test process early) stops it
 * and removes the directory.  The test process ignores SIGTERM: its
 * connections are tasks, which a halting daemon signals.
 *
 * Requests are sent as frames; call() waits for the reply and keeps the
 * PVMI_KIND_USER frames (notifies, task output) met on the way for
 * next_user().  Helpers check what they parse with Check assertions.
 */
#ifndef COPVM_PVMD_FIXTURE_H
#define COPVM_PVMD_FIXTURE_H

#include <stdint.h>
#include <sys/types.h>

#include "pvm3.h"
#include "wire.h"
#include "codec.h"
#include "proto.h"

#define DTID		0x40000		/* the daemon of host 1 */
#define REPLY_MS	5000		/* how long a reply may take */

extern char base[256], dir[512], sockpath[800], home[300];
extern pid_t dpid;			/* the fixture's daemon */
extern unsigned char fixture_secret[32]; /* from the last REGISTER */
extern int fixture_regflags;		/* its flags */
extern int nstash;			/* USER frames kept by call() */
extern const char *const no_args[];

/* Milliseconds on the monotonic clock; sleeping. */
long long now_ms(void);
void msleep(int ms);
/* Writes `text' to `path' and sets its mode. */
void write_file(const char *path, const char *text, mode_t mode);

/* Fixture set-up and teardown (see above). */
void start_daemon(void);
void stop_daemon(void);
/* Starts pvmd with up to two arguments (a2 may be NULL), its stdout and
 * stderr appended to `out'; returns its pid. */
pid_t run_pvmd(const char *a1, const char *a2, const char *out);
/* Waits up to `ms' for the fixture's daemon to exit; its wait status, or
 * -1 if it still runs. */
int wait_daemon(int ms);
/* True when the fixture daemon's log, or the one in directory `d',
 * contains `text'. */
int log_has(const char *text);
int log_has_in(const char *d, const char *text);

/* Writes the path of task `tid''s socket, in the daemon's one session
 * directory under `dir' (proto.h), into `buf'. */
void task_sock_path(char *buf, size_t len, int tid);

/* The state letter of process `pid' (R, S, T, ...) from /proc, or '?'
 * when it is gone: the tests watch a daemon stop and continue tasks. */
char state_of(pid_t pid);

/* Connects to sockpath; the fd or -1. */
int try_connect(void);
/* Writes all of `p' (asserting success). */
void xwrite(int fd, const void *p, size_t n);
/* Sends one frame to the daemon. */
void send_raw(int fd, int kind, int tag, const void *body, size_t len);
/* Reads one frame (body malloc'd); 1, 0 on EOF, -1 on timeout or a bad
 * frame. */
int read_frame(int fd, int ms, struct pvmi_frame *f, unsigned char **body);
/* Sends request `op' with body `w' (freed; may be NULL) and returns the
 * reply body (caller frees) with *r reading it. */
unsigned char *call(int fd, int op, struct pvmi_wbuf *w,
		    struct pvmi_rbuf *r);
/* Like call(), returning only the reply's status. */
int call_status(int fd, int op, struct pvmi_wbuf *w);
/* Requests whose body is one int or one string; their status. */
int op_int(int fd, int op, int v);
int op_str(int fd, int op, const char *s);
/* The next USER frame for `fd', stashed or new; 0 on timeout. */
int next_user(int fd, int ms, struct pvmi_frame *f, unsigned char **body);
/* Reads a str item and compares it. */
int str_item_eq(struct pvmi_rbuf *r, const char *want);

/* REGISTER, claiming `claimed' (0: none); returns the status (the tid)
 * and, if asked, the parent and sibling list. */
int reg_full(int fd, int claimed, int *ptid, int *nsib, int32_t *sib);
/* A new connection registered as a task; its tid in *tid. */
int task_connect(int *tid);
/* Asserts that a fresh connection registers and gets CONFIG answered. */
void assert_alive(void);
/* SPAWN; returns the status and fills tids[count]. */
int spawn(int fd, const char *file, int flags, const char *where,
	  int count, const char *const *argv, const char *const *env,
	  int outtid, int outcode, int32_t *tids);
/* TASKS; returns n and fills the first `max' rows given non-NULL arrays. */
int tasks(int fd, int which, int max, int32_t *tid, int32_t *ptid,
	  int32_t *flag, int32_t *pid);
/* Whether `tid' is in the task table; waits (3 s at most) until not. */
int task_listed(int fd, int tid);
void wait_task_gone(int fd, int tid);

#endif /* COPVM_PVMD_FIXTURE_H */

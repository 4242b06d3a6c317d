/*
 * task.c - joining and leaving the virtual machine.
 *
 * Any PVM call that needs the daemon enrols the calling process first
 * (pvmi_attach), starting pvmd when none is running, as stock PVM's first
 * call does.  A process created by pvm_spawn finds its reserved tid and an
 * already-listening endpoint in its environment, so messages sent to it
 * before it enrols wait, in order, in that endpoint's backlog.
 *
 * The state it fills in (who we are, whether this process is the
 * enrolled one) is task_state.c's.  The parts above that keep state of
 * an enrolment (receive queue, caught output, indications, stock's
 * globals) reset themselves through hooks (task_hooks.h) that task.c
 * runs when the task enrols, forks, exits and has left.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/compat.h"
#include "compat/log.h"
#include "cosched/cosched.h"
#include "cosched_page.h"
#include "codec.h"
#include "conn.h"
#include "conn_tcp.h"
#include "conn_unix.h"
#include "daemon_link.h"
#include "daemon_watch.h"
#include "proto.h"
#include "pvmd_start.h"
#include "pvmi.h"
#include "auth.h"
#include "rundir_check.h"
#include "route.h"
#include "task.h"
#include "task_hooks.h"
#include "transport/registry.h"

/* How long a starting pvmd may take before we give up, in ms. */
#define PVMD_START_TIMEOUT_MS	10000
/* How long the enrolment of a task started by hand may wait, in ms. */
#define PVMD_REGISTER_TIMEOUT_MS	10000


static int ever_attached;	/* a later enrolment keeps the context */

/* Connects to the daemon, starting one if none answers. */
static int connect_daemon(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int waited, rc;

	if (pvmi_rundir_verify() != PvmOk)
		return PvmSysErr;
	rc = pvmi_conn_daemon_open();
	if (rc == PvmOk || rc == PvmDenied)
		return rc;
	rc = pvmi_start_daemon(0, NULL);
	for (waited = 0; waited < PVMD_START_TIMEOUT_MS; waited += 20) {
		int orc = pvmi_conn_daemon_open();

		if (orc == PvmOk || orc == PvmDenied)
			return orc;
		if (rc != PvmOk && waited > 200)
			break;
		nanosleep(&ts, NULL);
	}
	return PvmSysErr;
}

/* A listening socket whose number is in environment variable `name'
 * (made by the daemon that spawned us), or -1; the variable goes. */
static int inherited_fd(const char *name)
{
	const char *f = getenv(name);
	int fd, on = 0;
	socklen_t len = sizeof(on);

	if (!f)
		return -1;
	fd = (int)strtol(f, NULL, 10);
	unsetenv(name);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) ||
	    !on)
		return -1;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* The session of the daemon run that spawned us (proto.h), if any. */
static char spawn_session[32];

/* The endpoint pvmd made for us when it spawned us, if any. */
static int inherited_endpoint(int *tid)
{
	const char *t = getenv(PVMI_ENV_TID), *f = getenv(PVMI_ENV_LFD);
	const char *sess = getenv(PVMI_ENV_SESSION);
	int fd, on = 0;
	socklen_t len = sizeof(on);

	*tid = 0;
	snprintf(spawn_session, sizeof(spawn_session), "%s", sess ? sess : "");
	unsetenv(PVMI_ENV_SESSION);
	if (!t || !f)
		return -1;
	*tid = (int)strtol(t, NULL, 10);
	fd = (int)strtol(f, NULL, 10);
	unsetenv(PVMI_ENV_TID);
	unsetenv(PVMI_ENV_LFD);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) ||
	    !on)
		return -1;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int do_register(int claimed, int tcp_fd)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	const unsigned char *key, *sess;
	size_t keylen = 0, sesslen = 0;
	int32_t v[9], flags;
	int rc, i, nsib;

	pvmi_w_int(&w, getpid());
	pvmi_w_int(&w, claimed);
	/* Like stock, a task started by hand has no program name; a spawned
	 * one is named by the daemon that started it. */
	pvmi_w_str(&w, pvmmytaskname ? pvmmytaskname : "");
	if (claimed && spawn_session[0])
		pvmi_w_str(&w, spawn_session);
	/* a copvm pvmd answers a task started by hand at once */
	pvmi_dwatch_limit(claimed ? 0 : PVMD_REGISTER_TIMEOUT_MS);
	rc = pvmi_call(PVMI_OP_REGISTER, &w, &r);
	pvmi_w_free(&w);
	if (rc == PvmSysErr && !pvmi_dwatch_gave_up())
		pvmlogprintf("%s closed the connection or answered outside "
			     "copvm's protocol: is it copvm's pvmd?\n",
			     pvmdsockfile());
	if (rc != PvmOk)
		return rc;
	rc = pvmi_r_int(&r);
	if (r.failed)
		return PvmSysErr;
	if (rc < 0)
		return rc;
	pvmi.mytid = rc;
	pvmi.dtid = PVMI_TID_HOST(rc);
	if (pvmi_r_ints(&r, v, 1) || pvmi_r_ints(&r, v + 1, 1))
		return PvmSysErr;
	/* PvmParentNotSet: spawned with PvmNoSpawnParent (stock's value) */
	pvmi.ptid = v[0] > 0 || v[0] == PvmParentNotSet ? v[0] : PvmNoParent;
	if (!ever_attached)
		pvmi.ctx = v[1];
	for (i = 2; i < 8; i++)
		v[i] = pvmi_r_int(&r);
	pvmi.selfouttid = v[2];
	pvmi.selfoutcode = v[3];
	pvmi.selfoutctx = v[4];
	pvmi.selftrctid = v[5];
	pvmi.selftrccode = v[6];
	pvmi.selftrcctx = v[7];
	/* Children inherit where our output goes unless we change it. */
	pvmi.outtid = pvmi.selfouttid;
	pvmi.outcode = pvmi.selfoutcode;
	pvmi.outctx = pvmi.selfoutctx;
	pvmi.trctid = pvmi.selftrctid;
	pvmi.trccode = pvmi.selftrccode;
	pvmi.trcctx = pvmi.selftrcctx;
	nsib = pvmi_r_int(&r);
	if (r.failed || nsib < 0)
		return PvmSysErr;
	free(pvmi.sibs);
	pvmi.sibs = malloc((nsib ? nsib : 1) * sizeof(int));
	if (!pvmi.sibs)
		return PvmNoMem;
	if (nsib && pvmi_r_ints(&r, (int32_t *)pvmi.sibs, nsib))
		return PvmSysErr;
	pvmi.nsibs = nsib;
	/* the machine's secret and flags (direct routes between hosts) */
	key = pvmi_r_bytes(&r, &keylen);
	flags = pvmi_r_int(&r);
	sess = pvmi_r_bytes(&r, &sesslen);
	if (!r.failed && sess)
		pvmi_session_set(sess, sesslen);
	if (!r.failed && key && keylen == PVMI_SECRET_LEN)
		pvmi_route_enrolled(key, flags, tcp_fd);
	else if (tcp_fd >= 0)
		close(tcp_fd);
	return PvmOk;
}

/* Enrols the process, or finds it enrolled already (task.h). */
int pvmi_attach_slow(void)
{
	int claimed, lfd, tfd, rc;

	pvmi_leave = pvm_exit;
	if (pvmi_attached())
		return PvmOk;
	if (pvmi.enrolled) {
		/* A fork of an enrolled task: it enrols on its own, with
		 * none of its parent's circuits or queued messages. */
		pvmi_conn_close_all(0);
		pvmi_cosched_forget();
		pvmi.enrolled = 0;
		pvmi_task_hooks_run(PVMI_TASK_FORKED);
	}
	pvmi.pid = pvmi_self_pid();
	pvmi_task_hooks_run(PVMI_TASK_ENROLLING);
	lfd = inherited_endpoint(&claimed);
	tfd = inherited_fd(PVMI_ENV_TCPFD);
	if (connect_daemon() != PvmOk) {
		if (lfd >= 0)
			close(lfd);
		if (tfd >= 0)
			close(tfd);
		return PvmSysErr;
	}
	rc = do_register(lfd >= 0 ? claimed : 0, tfd);
	if (rc != PvmOk) {
		if (lfd >= 0)
			close(lfd);
		pvmi_conn_close_all(0);
		return rc;
	}
	if (lfd >= 0 && pvmi.mytid != claimed) {
		close(lfd);	/* reserved by another daemon run: not ours */
		lfd = -1;
	}
	if (lfd < 0 && pvmi_transport_unix.listen(pvmi.mytid, &lfd) != PvmOk) {
		pvmi_conn_close_all(0);
		return PvmSysErr;
	}
	pvmi_conn_set_listener(lfd);
	pvmi.enrolled = 1;
	pvmi_note_attached(1);
	ever_attached = 1;
	pvmi_task_hooks_run(PVMI_TASK_ENROLLED);
	pvmi_cosched_attach();
	pvmi_cosched_note_transports(
		pvmi_transport_pick(PVMI_REACH_HOST, 0)->xport, 0);
	return PvmOk;
}

void pvmi_detach(int tell_daemon)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;

	if (!pvmi.enrolled)
		return;
	/* let messages on direct circuits reach their host before the
	 * daemon reports that we left */
	if (tell_daemon)
		pvmi_conn_tcp_drain(2000);
	/* and end our one-way circuits first: a peer that reads the exit
	 * notify has then seen them end (pvm_getfds() counts as stock's) */
	if (tell_daemon)
		pvmi_conn_close_out();
	if (tell_daemon && pvmi_conn_daemon_up())
		pvmi_call(PVMI_OP_EXIT, &w, &r);
	pvmi_cosched_detach();
	pvmi_conn_close_all(pvmi.mytid);
	pvmi_route_reset();
	pvmi.enrolled = 0;
	pvmi_note_attached(0);
	pvmi.mytid = 0;
	pvmi.ptid = PvmNoParent;
	free(pvmi.sibs);
	pvmi.sibs = NULL;
	pvmi.nsibs = 0;
	pvmi_task_hooks_run(PVMI_TASK_LEFT);
}

int pvmi_request(int op, struct pvmi_wbuf *w, struct pvmi_rbuf *r)
{
	int rc = pvmi_attach();

	if (rc == PvmOk)
		rc = pvmi_call(op, w, r);
	pvmi_w_free(w);
	if (rc != PvmOk)
		return rc;
	rc = pvmi_r_int(r);
	return r->failed ? PvmSysErr : rc;
}

/* Returns the tid of the calling task, enrolling it if needed. */
PVMI_EXPORT int pvm_mytid(void)
{
	int rc = pvmi_attach();

	if (rc != PvmOk)
		return pvmi_error("pvm_mytid", rc);
	return pvmi.mytid;
}

/* Returns the tid of the task that spawned the caller, or PvmNoParent. */
PVMI_EXPORT int pvm_parent(void)
{
	int rc = pvmi_attach();

	if (rc != PvmOk)
		return pvmi_error("pvm_parent", rc);
	return pvmi.ptid;	/* PvmNoParent, PvmParentNotSet: not printed */
}

/* Points *tids at the tasks started by the same pvm_spawn call as the
 * caller (the caller alone when started by hand); returns their count. */
PVMI_EXPORT int pvm_siblings(int **tids)
{
	int rc = pvmi_attach();

	if (rc != PvmOk)
		return pvmi_error("pvm_siblings", rc);
	if (pvmi.nsibs == 0) {
		pvmi.sibs[0] = pvmi.mytid;
		if (tids)
			*tids = pvmi.sibs;
		return 1;
	}
	if (tids)
		*tids = pvmi.sibs;
	return pvmi.nsibs;
}

/* Leaves the virtual machine: waits for caught child output, tells the
 * daemon and closes every circuit.  The process keeps running. */
PVMI_EXPORT int pvm_exit(void)
{
	if (!pvmi_attached())
		return PvmOk;
	pvmi_task_hooks_run(PVMI_TASK_EXITING);
	pvmi_detach(1);
	return PvmOk;
}

/* Starts a pvmd with arguments `argv' (as on its command line); with
 * `block' waits until it answers.  PvmDupHost if one already runs. */
PVMI_EXPORT int pvm_start_pvmd(int argc, char **argv, int block)
{
	int rc;

	if (argc < 0 || (argc > 0 && !argv))
		return pvmi_error("pvm_start_pvmd", PvmBadParam);
	if (pvmi_conn_daemon_open() == PvmOk)
		return pvmi_error("pvm_start_pvmd", PvmDupHost);
	rc = pvmi_start_daemon(argc, argv);
	if (rc != PvmOk)
		return pvmi_error("pvm_start_pvmd", rc);
	if (block && (rc = pvmi_attach()) != PvmOk)
		return pvmi_error("pvm_start_pvmd", rc);
	return PvmOk;
}

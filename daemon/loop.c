/*
 * loop.c - the daemon's event loop, its children and its halt sequence.
 *
 * One epoll set holds every descriptor the daemon waits on; each carries
 * a struct pvmd_watch whose callback handles its readiness.  Signals are
 * blocked and read from a signalfd, so SIGCHLD (a spawned task exited,
 * possibly before it ever registered) and SIGTERM/SIGINT are handled in
 * the loop like any other event, never inside a handler.
 *
 * Connections are accepted here: the peer's uid (SO_PEERCRED) must be
 * ours, otherwise the connection is logged and closed unanswered.
 *
 * Halting (HALT request, SIGTERM or SIGINT): stop accepting, SIGTERM every
 * task but the caller, keep running until the children are reaped, the
 * task connections are gone and the caller's reply is flushed, or 1 s has
 * passed, then SIGKILL what is left, reap, clean up and exit 0.  A master
 * first tells every slave to halt and also waits (within the same time)
 * for their links to close, so that the machine is gone when it is.
 *
 * Modules with deadlines (handshakes, slaves starting, the coscheduling
 * pages' watch) ask for a call of their tick function with
 * pvmd_tick_within(); the loop wakes up then.  Halting first continues
 * any task EXP stopped (gang.c).  The loop names none of the modules it
 * serves: what it reports (a connection accepted, a child ended, a tick
 * due, a turn over, the halt's stages) goes through the hooks wiring.c
 * gives it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "pvmd.h"

#define LOOP_EVENTS	64
#define ACCEPT_BATCH	64
#define HALT_GRACE_MS	1000

/* Watches removed while a batch of epoll events is being run. */
static struct pvmd_watch *batch_deleted[LOOP_EVENTS];
static int batch_deleted_n, batch_overflow;

struct child {
	struct child *next;
	pid_t pid;
	int tid;
};

static struct pvmd_watch listen_w = { .fd = -1 };
static struct pvmd_watch signal_w = { .fd = -1 };
static int spare_fd = -1;		/* given up to accept when out of fds */
static struct child *children;
static struct pvmd_conn *halt_caller;
static int halt_stage;			/* 1: SIGTERM sent, 2: SIGKILL sent */
static long long halt_deadline;
static long long next_tick = -1;	/* -1: none asked */

static const struct pvmd_loop_hooks *hooks;

/* Gives the loop the functions it reports its events to (wiring.c). */
void pvmd_loop_set_hooks(const struct pvmd_loop_hooks *h)
{
	hooks = h;
}

/* Milliseconds on the monotonic clock. */
long long pvmd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define now_ms pvmd_now_ms

/* Asks for the tick functions to run within `ms' milliseconds. */
void pvmd_tick_within(int ms)
{
	long long t = now_ms() + (ms > 0 ? ms : 0);

	if (next_tick < 0 || t < next_tick)
		next_tick = t;
}

static void run_ticks(void)
{
	if (next_tick < 0 || now_ms() < next_tick)
		return;
	next_tick = -1;
	hooks->tick();
}

/* Adds `w' to the epoll set with `events'; 0 or -1. */
int pvmd_watch_add(struct pvmd_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(pvmd.epfd, EPOLL_CTL_ADD, w->fd, &ev);
}

/* Changes the events reported for `w'. */
void pvmd_watch_mod(struct pvmd_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (epoll_ctl(pvmd.epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0)
		pvmd_log("epoll_ctl(MOD, %d): %s", w->fd, strerror(errno));
}

/* Removes `w' from the epoll set (before its fd is closed). */
void pvmd_watch_del(struct pvmd_watch *w)
{
	epoll_ctl(pvmd.epfd, EPOLL_CTL_DEL, w->fd, NULL);
	/* its events may still be in the batch being run, and `w' freed
	 * right after this: the loop must not call it (found by ASan) */
	if (batch_deleted_n < LOOP_EVENTS)
		batch_deleted[batch_deleted_n++] = w;
	else
		batch_overflow = 1;
}

/* True when `w' was removed since the current batch of events came:
 * its remaining events there are stale, and `w' may be freed memory. */
static int deleted_in_batch(const struct pvmd_watch *w)
{
	int i;

	if (batch_overflow)
		return 1;
	for (i = 0; i < batch_deleted_n; i++)
		if (batch_deleted[i] == w)
			return 1;
	return 0;
}

/* Records a forked child so it is reaped and killed at halt. */
void pvmd_child_add(pid_t pid, int tid)
{
	struct child *ch = malloc(sizeof(*ch));

	if (!ch) {
		pvmd_log("out of memory recording child %ld", (long)pid);
		return;
	}
	ch->pid = pid;
	ch->tid = tid;
	ch->next = children;
	children = ch;
}

static int child_forget(pid_t pid)
{
	struct child **pp, *ch;

	for (pp = &children; (ch = *pp); pp = &ch->next) {
		if (ch->pid == pid) {
			*pp = ch->next;
			free(ch);
			return 1;
		}
	}
	return 0;
}

static void describe_status(int st, char *buf, size_t size)
{
	if (WIFEXITED(st))
		snprintf(buf, size, "exited with status %d",
			 WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, size, "ended (status 0x%x)", (unsigned)st);
}

/* Reaps every child that has ended; a task still in the table is gone. */
static void reap_children(void)
{
	struct pvmd_task *t;
	char why[64];
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		child_forget(pid);
		describe_status(st, why, sizeof(why));
		t = pvmd_task_by_pid(pid);
		if (t)
			hooks->task_gone(t, why);
		else if (!hooks->child_ended(pid, st))
			pvmd_dbg(PVMD_DBG_TASK, "child %ld %s", (long)pid,
				 why);
	}
}

static void on_signal(struct pvmd_watch *w, uint32_t events)
{
	struct signalfd_siginfo si;
	ssize_t n;

	while ((n = read(w->fd, &si, sizeof(si))) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			reap_children();
			break;
		case SIGTERM:
		case SIGINT:
			pvmd_log("signal %u: halting", si.ssi_signo);
			pvmd_halt(NULL);
			break;
		default:
			break;
		}
	}
}

/* Accepts on `lfd' when the process is out of descriptors: gives up
 * the spare, takes the connection and drops it, so the listener does
 * not spin (pvmd.h). */
void pvmd_shed_connection(int lfd)
{
	int fd;

	if (spare_fd < 0)
		return;
	close(spare_fd);
	fd = accept(lfd, NULL, NULL);
	if (fd >= 0)
		close(fd);
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pvmd_log("out of file descriptors: refused a connection");
}

static void on_accept(struct pvmd_watch *w, uint32_t events)
{
	struct ucred cred;
	socklen_t len;
	int fd, i;

	for (i = 0; i < ACCEPT_BATCH; i++) {
		fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				pvmd_shed_connection(w->fd);
			else if (errno != EAGAIN && errno != EINTR &&
				 errno != ECONNABORTED)
				pvmd_log("accept: %s", strerror(errno));
			return;
		}
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			pvmd_log("SO_PEERCRED: %s; connection closed",
				 strerror(errno));
			close(fd);
			continue;
		}
		if (cred.uid != pvmd.uid) {
			pvmd_log("refused a connection from uid %u pid %ld "
				 "(this pvmd serves uid %u only)",
				 (unsigned)cred.uid, (long)cred.pid,
				 (unsigned)pvmd.uid);
			close(fd);
			continue;
		}
		pvmd_dbg(PVMD_DBG_LOOP, "connection from pid %ld",
			 (long)cred.pid);
		hooks->accepted(fd, cred.pid);
	}
}

/* Creates the epoll set and signalfd and starts accepting on `lfd'. */
int pvmd_loop_init(int lfd)
{
	struct sigaction sa;
	sigset_t set;

	pvmd.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pvmd.epfd < 0)
		return -1;
	/* an ignored signal would never reach the signalfd; children that
	 * stop or continue (EXP, gang.c) raise none (SA_NOCLDSTOP) */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	signal_w.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (signal_w.fd < 0)
		return -1;
	signal_w.on_event = on_signal;
	if (pvmd_watch_add(&signal_w, EPOLLIN) < 0)
		return -1;
	listen_w.fd = lfd;
	listen_w.on_event = on_accept;
	if (pvmd_watch_add(&listen_w, EPOLLIN) < 0)
		return -1;
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return 0;
}

/* Sends `sig' to every task process and child but the halt caller's. */
static void signal_everyone(int sig)
{
	struct pvmd_task *t;
	struct child *ch;
	pid_t spare = 0, self = getpid();

	if (halt_caller)
		spare = halt_caller->task && halt_caller->task->pid > 0 ?
			halt_caller->task->pid : halt_caller->peer_pid;
	for (t = pvmd_task_first(); t; t = t->next) {
		if (t->pid > 1 && t->pid != self && t->pid != spare &&
		    (!halt_caller || t != halt_caller->task))
			kill(t->pid, sig);
	}
	for (ch = children; ch; ch = ch->next) {
		if (ch->pid > 1 && ch->pid != spare)
			kill(ch->pid, sig);
	}
}

/* Starts the halt sequence; `caller' (may be NULL) is spared and gets
 * its queued reply flushed before the daemon exits. */
void pvmd_halt(struct pvmd_conn *caller)
{
	if (pvmd.halting)
		return;
	pvmd.halting = 1;
	halt_caller = caller;
	pvmd_log("halting: stopping %d task(s)", pvmd_task_count() -
		 (caller && caller->task ? 1 : 0));
	if (!pvmd.slave)
		hooks->halt_slaves();
	if (listen_w.fd >= 0) {
		pvmd_watch_del(&listen_w);
		close(listen_w.fd);
		listen_w.fd = -1;
		unlink(pvmd.sockpath);
	}
	/* a stopped task would only act on SIGTERM once continued */
	hooks->release_tasks();
	signal_everyone(SIGTERM);
	halt_stage = 1;
	halt_deadline = now_ms() + HALT_GRACE_MS;
}

/* Forgets the halt caller when its connection is freed. */
void pvmd_loop_conn_freed(struct pvmd_conn *c)
{
	if (halt_caller == c)
		halt_caller = NULL;
}

static int halt_done(void)
{
	if (children)
		return 0;
	if (hooks->tasks_left(halt_caller))
		return 0;
	if (!pvmd.slave && hooks->peers_left())
		return 0;
	return !halt_caller || halt_caller->dead || !halt_caller->oq_bytes;
}

/* Waits briefly for SIGKILLed children so none is left behind. */
static void final_reap(void)
{
	long long end = now_ms() + 500;
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	pid_t pid;
	int st;

	while (children && now_ms() < end) {
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			child_forget(pid);
		if (pid < 0 && errno == ECHILD)
			break;
		if (children)
			nanosleep(&ts, NULL);
	}
}

/* Runs until the daemon has halted; returns the exit status. */
int pvmd_loop_run(void)
{
	struct epoll_event evs[LOOP_EVENTS];
	struct pvmd_watch *w;
	long long left;
	int n, i, timeout;

	for (;;) {
		timeout = -1;
		if (pvmd.halting) {
			if (halt_done())
				break;
			left = halt_deadline - now_ms();
			timeout = left > 0 ? (int)left : 0;
		}
		if (next_tick >= 0) {
			left = next_tick - now_ms();
			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		n = epoll_wait(pvmd.epfd, evs, LOOP_EVENTS, timeout);
		if (n < 0 && errno != EINTR) {
			pvmd_log("epoll_wait: %s", strerror(errno));
			pvmd_halt(NULL);
			break;
		}
		batch_deleted_n = 0;
		batch_overflow = 0;
		for (i = 0; i < n; i++) {
			w = evs[i].data.ptr;
			/* after an overflow the rest waits for the next
			 * epoll_wait (level-triggered: nothing is lost) */
			if (deleted_in_batch(w))
				continue;
			w->on_event(w, evs[i].events);
		}
		batch_deleted_n = 0;
		batch_overflow = 0;
		hooks->turn_end();
		run_ticks();
		hooks->turn_end();
		if (pvmd.halting && now_ms() >= halt_deadline) {
			if (halt_stage == 2)
				break;
			pvmd_log("halting: killing what is left");
			signal_everyone(SIGKILL);
			halt_stage = 2;
			halt_deadline = now_ms() + HALT_GRACE_MS;
		}
	}
	if (children) {
		signal_everyone(SIGKILL);
		final_reap();
	}
	return 0;
}

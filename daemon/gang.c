/*
 * gang.c - EXP, explicit coscheduling (the thesis's DTS), run by the
 * daemon, and the coscheduling settings a master hands its slaves.
 *
 * With COPVM_MODEL=exp (any case) in its environment the daemon divides
 * time into periods of IP (common/exp_model.h): in the PS slot its host's
 * PVM tasks run, in the LS slot they are stopped (SIGSTOP) so that local
 * jobs have the CPU, and continued (SIGCONT) when the next PS begins.
 * Slot boundaries are multiples of IP of the master's CLOCK_REALTIME
 * (DISTRIBUTED shifts each host by its number); a slave learns the
 * master's clock and schedule by a clock exchange (gang_sync.c) and arms
 * a CLOCK_REALTIME timerfd of the event loop at the matching time of its
 * own clock, so hosts switch together even when their clocks disagree.
 * BALANCED and DISTRIBUTED size each period's PS from the local load,
 * sampled once per period at its start, when the tasks are stopped.
 *
 * Which processes: the tasks of the task table that are real local
 * processes of our uid, never the daemon.  Each is held by a pidfd taken
 * when it is first seen, and signalled through it, so a task that exited
 * and whose pid was reused can never be signalled by mistake.  No task
 * is ever left stopped: a task leaving the table is continued as it is
 * forgotten (pvmd_gang_task_gone), and every stopped task is continued
 * when the daemon halts, exits, dies of a fatal signal it catches
 * (SIGSEGV & co.: a handler continues them, then lets the signal kill),
 * or when EXP is switched off.  Only SIGKILL of the daemon leaves them
 * stopped (its tasks then get SIGTERM, PR_SET_PDEATHSIG in spawn.c, which
 * kills a stopped process with the default action; a task that catches
 * SIGTERM stays stopped until continued by hand).
 *
 * The daemon reaps with waitpid() without WUNTRACED/WCONTINUED, so a
 * stopped or continued child is never taken for one that ended; loop.c
 * also sets SA_NOCLDSTOP, so those changes do not even wake it up.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cosched_model.h"
#include "exp_model.h"
#include "procfile.h"
#include "pvmd.h"

/* One task under EXP. */
struct gang_ent {
	int tid;
	pid_t pid;
	int pidfd;
	int stopped;		/* we sent SIGSTOP and no SIGCONT since */
};

static struct pvmd_watch timer_w = { .fd = -1 };
static int enabled;			/* EXP runs */
static int armed;			/* timer_w is set */
static struct exp_params params;
static struct gang_ent *ents;
static int nents, cap;
static uint64_t cur_period;		/* start of the period we are in */
static uint64_t cur_ps;			/* its PS */
static uint64_t load_milli;		/* smoothed local load */
static int cur_job, cur_njobs = 1;	/* our turn among the node's jobs */
static int all_cpus;			/* our affinity covers every CPU */
static cpu_set_t cpus;			/* our affinity mask */
static unsigned long long nbounds, bound_ns, nsignals;	/* costs */

/* The settings forwarded to slaves (addhost.c, slave.c), whatever the
 * remote shell does with the environment: every coscheduling setting of
 * the library (settings.c, cosched.c; COPVM_QUIET too, so a slave's tasks
 * keep as quiet as the master's), EXP's, COPVM_SHM, COPVM_URING and
 * COPVM_URING_ZC, so that the whole machine's routes use one backend, and
 * COPVM_HOST_TIMEOUT_MS, so that a slave gives up on a silent master when
 * the master gives up on it (peer.c).  Paths that name something of the
 * master's host (the agent's socket, the module's device, a trace) are
 * not forwarded. */
static const char *const cosched_env[] = {
	"COPVM_MODEL", "COPVM_P", "COPVM_INTERVAL_MS", "COPVM_BACKEND",
	"COPVM_SHARE", "COPVM_F_RT", "COPVM_DCS_E", "COPVM_DCS_C_US",
	"COPVM_DCS_TQ_US", "COPVM_EXP_MODE", "COPVM_EXP_IP_MS",
	"COPVM_EXP_PS_MS", "COPVM_EXP_SYNC", "COPVM_EXP_JOBS", "COPVM_SHM",
	"COPVM_URING", "COPVM_URING_ZC", "COPVM_HOST_TIMEOUT_MS",
	"COPVM_QUIET", NULL
};

static int pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* Continues every stopped task; async-signal-safe (the fatal handler). */
static void continue_all(void)
{
	int i;

	for (i = 0; i < nents; i++) {
		if (ents[i].stopped) {
			pidfd_signal(ents[i].pidfd, SIGCONT);
			ents[i].stopped = 0;
		}
	}
}

static void on_fatal(int sig)
{
	continue_all();
	raise(sig);		/* SA_RESETHAND: the default action now */
}

static void catch_fatal(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void drop(int i)
{
	if (ents[i].stopped)
		pidfd_signal(ents[i].pidfd, SIGCONT);
	close(ents[i].pidfd);
	ents[i] = ents[--nents];
}

/* Takes a pidfd on task `t''s process if it is a real local process of
 * ours; adds it.  0, or -1 when it is not one to schedule. */
static int adopt(const struct pvmd_task *t)
{
	struct gang_ent *n;
	char path[64];
	struct stat st;
	int fd;

	if (t->pid <= 1 || t->pid == getpid())
		return -1;
	fd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	if (fd < 0)
		return -1;
	/* with the pidfd held the pid cannot name another process: check
	 * the owner now (a root daemon could signal anyone) */
	snprintf(path, sizeof(path), "/proc/%ld", (long)t->pid);
	if (stat(path, &st) < 0 || st.st_uid != pvmd.uid) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (nents == cap) {
		n = realloc(ents, (size_t)(cap ? 2 * cap : 16) * sizeof(*n));
		if (!n) {
			close(fd);
			return -1;
		}
		ents = n;
		cap = cap ? 2 * cap : 16;
	}
	ents[nents].tid = t->tid;
	ents[nents].pid = t->pid;
	ents[nents].pidfd = fd;
	ents[nents].stopped = 0;
	nents++;
	return 0;
}

static int find(int tid)
{
	int i;

	for (i = 0; i < nents; i++)
		if (ents[i].tid == tid)
			return i;
	return -1;
}

/* Brings the entries in line with the task table. */
static void sync_tasks(void)
{
	struct pvmd_task *t;
	int i;

	for (i = 0; i < nents;) {
		t = pvmd_task_find(ents[i].tid);
		if (!t || t->pid != ents[i].pid)
			drop(i);
		else
			i++;
	}
	for (t = pvmd_task_first(); t; t = t->next)
		if (t->pid > 0 && find(t->tid) < 0)
			adopt(t);
}

/* Reads state and processor of /proc/PID/stat; 0 or -1. */
static int read_stat(const char *pid, char *state, int *cpu)
{
	char path[64], buf[1024], *p;
	int field;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (copvm_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');		/* the name may hold anything */
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	*state = *p;
	if (!cpu)
		return 0;
	/* the state is field 3, the processor field 39 */
	for (field = 3; field < 39 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return -1;
	*cpu = atoi(p);
	return 0;
}

static int ours(pid_t pid)
{
	return pid == getpid() || pvmd_task_by_pid(pid) != NULL;
}

/* Runnable processes on our CPUs that are not PVM tasks. */
static unsigned sample_load(void)
{
	char buf[128], pidbuf[24], state;
	unsigned running = 0, total, mine = 0;
	struct dirent *d;
	DIR *dir;
	int i, cpu;

	if (all_cpus) {
		/* "0.52 0.30 0.20 R/T last": R counts runnable threads of
		 * every CPU, the reader (us) included */
		if (copvm_read_small("/proc/loadavg", buf, sizeof(buf)) < 0)
			return 0;
		if (sscanf(buf, "%*s %*s %*s %u/%u", &running, &total) != 2)
			return 0;
		for (i = 0; i < nents; i++) {
			if (ents[i].stopped)
				continue;
			snprintf(pidbuf, sizeof(pidbuf), "%ld",
				 (long)ents[i].pid);
			if (read_stat(pidbuf, &state, NULL) == 0 &&
			    state == 'R')
				mine++;
		}
		mine++;			/* ourselves */
		return running > mine ? running - mine : 0;
	}
	/* pinned: one look at each process (threads beyond the first are
	 * not seen), counting those runnable on one of our CPUs */
	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (read_stat(d->d_name, &state, &cpu) < 0 || state != 'R')
			continue;
		if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &cpus))
			continue;
		if (!ours((pid_t)atol(d->d_name)))
			running++;
	}
	closedir(dir);
	return running;
}

static void arm(uint64_t when)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(when / 1000000000ull);
	its.it_value.tv_nsec = (long)(when % 1000000000ull);
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(timer_w.fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		pvmd_log("EXP: timerfd_settime: %s", strerror(errno));
		return;
	}
	armed = 1;
}

static void disarm(void)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (armed)
		timerfd_settime(timer_w.fd, 0, &its, NULL);
	armed = 0;
}

/* Stops (LS) or continues (PS) every task as the slot says. */
static void apply(int in_ps)
{
	int i, sig = in_ps ? SIGCONT : SIGSTOP;

	for (i = 0; i < nents;) {
		if (ents[i].stopped == !in_ps) {
			i++;
			continue;
		}
		if (pidfd_signal(ents[i].pidfd, sig) < 0 && errno == ESRCH) {
			ents[i].stopped = 0;	/* gone: nothing to undo */
			drop(i);
			continue;
		}
		ents[i].stopped = !in_ps;
		nsignals++;
		i++;
	}
}

/* A slot boundary (or a new task): the timer fired. */
static void on_timer(struct pvmd_watch *w, uint32_t events)
{
	struct exp_slot s;
	uint64_t now, x;
	struct timespec t0, t1;

	(void)events;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (read(w->fd, &x, sizeof(x)) < 0 && errno != EAGAIN)
		pvmd_log("EXP: timer: %s", strerror(errno));
	armed = 0;
	if (!enabled || pvmd.halting)
		return;
	sync_tasks();
	if (!nents) {
		cur_period = 0;
		pvmd_gang_jobs_turn(0, &cur_job, &cur_njobs);
		return;			/* idle until a task comes */
	}
	now = pvmd_gang_master_ns();
	exp_slot_at(&params, now, pvmd.index, cur_ps, &s);
	if (s.period_start != cur_period) {
		cur_period = s.period_start;
		if (params.mode != EXP_STATIC) {
			load_milli = exp_load_step(load_milli, sample_load());
			cur_ps = exp_ps_for_load(&params, (unsigned)nents,
						 load_milli);
		}
		pvmd_gang_jobs_turn(1, &cur_job, &cur_njobs);
	}
	exp_job_slot_at(&params, now, pvmd.index, cur_ps, cur_job, cur_njobs,
			&s);
	apply(s.in_ps);
	arm(pvmd_gang_realtime_at(s.end));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	nbounds++;
	bound_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll +
			       (t1.tv_nsec - t0.tv_nsec));
}

/* Reads the EXP settings from the environment and starts EXP if
 * COPVM_MODEL names COPVM_MODEL_EXP; logs the mode and its parameters. */
void pvmd_gang_init(void)
{
	char msg[512];

	pvmd_gang_clock_init();
	if (cosched_model_parse(getenv("COPVM_MODEL")) != COPVM_MODEL_EXP)
		return;
	if (exp_params_parse(&params, getenv("COPVM_EXP_MODE"),
			     getenv("COPVM_EXP_IP_MS"),
			     getenv("COPVM_EXP_PS_MS"), msg, sizeof(msg)))
		pvmd_log("EXP: %s", msg);
	CPU_ZERO(&cpus);
	if (sched_getaffinity(0, sizeof(cpus), &cpus) < 0)
		all_cpus = 1;
	else
		all_cpus = CPU_COUNT(&cpus) >= sysconf(_SC_NPROCESSORS_ONLN);
	timer_w.fd = timerfd_create(CLOCK_REALTIME,
				    TFD_NONBLOCK | TFD_CLOEXEC);
	timer_w.on_event = on_timer;
	if (timer_w.fd < 0 || pvmd_watch_add(&timer_w, EPOLLIN) < 0) {
		pvmd_log("EXP: no timer (%s): EXP is off", strerror(errno));
		return;
	}
	cur_ps = exp_ps_for_load(&params, 1, 0);
	load_milli = 0;
	catch_fatal();
	enabled = 1;
	pvmd_gang_sync_start(&params);
	pvmd_log("EXP: mode %s, IP %llu ms, PS %s%llu ms, LS %llu ms, "
		 "periods aligned to %s CLOCK_REALTIME%s (offset %llu us), "
		 "load from %s", exp_mode_name(params.mode),
		 (unsigned long long)(params.ip_ns / EXP_MS),
		 params.mode == EXP_STATIC ? "" : "from load, at first ",
		 (unsigned long long)(cur_ps / EXP_MS),
		 (unsigned long long)((params.ip_ns - cur_ps) / EXP_MS),
		 pvmd.slave ? "the master's" : "our",
		 params.mode == EXP_DISTRIBUTED ? ", own phase" : "",
		 (unsigned long long)(exp_phase_offset(&params, pvmd.index) /
				      1000),
		 all_cpus ? "/proc/loadavg" : "/proc/*/stat on our CPUs");
	if (pvmd_task_first())
		arm(1);
}

/* A task entered the table: schedule it from the next loop turn (the
 * timer is armed to fire at once; the boundary work re-arms it). */
void pvmd_gang_task_new(void)
{
	if (enabled && !pvmd.halting)
		arm(1);
}

/* Task `tid' leaves the table: continued if we stopped it, forgotten. */
void pvmd_gang_task_gone(int tid)
{
	int i = find(tid);

	if (i >= 0)
		drop(i);
}

/* Continues every task we stopped and stops EXP for good (halt, exit). */
void pvmd_gang_release(void)
{
	while (nents > 0)
		drop(nents - 1);
	disarm();
	pvmd_gang_jobs_leave();
	pvmd_gang_sync_stop();
	if (enabled && nbounds)
		pvmd_log("EXP: released; %llu boundaries, %llu signals, "
			 "%.1f us per boundary", nbounds, nsignals,
			 (double)bound_ns / 1000.0 / (double)nbounds);
	enabled = 0;
}

/* Switches EXP on (with the settings read at start) or off; off
 * continues every stopped task at once. */
void pvmd_gang_enable(int on)
{
	if (timer_w.fd < 0)
		return;
	if (!on) {
		if (enabled)
			pvmd_log("EXP: off");
		pvmd_gang_release();
		return;
	}
	if (!enabled)
		pvmd_log("EXP: on");
	enabled = 1;
	pvmd_gang_sync_start(&params);
	cur_period = 0;
	arm(1);
}

/* The offset to the master or its schedule changed: takes the schedule
 * and places the slots anew from the next loop turn. */
void pvmd_gang_resync(void)
{
	if (!enabled || pvmd.halting)
		return;
	if (pvmd_gang_schedule(&params) == 0 && params.mode == EXP_STATIC)
		cur_ps = params.ps_ns;
	cur_period = 0;
	arm(1);
}

/* True while EXP runs. */
int pvmd_gang_enabled(void)
{
	return enabled;
}

/* Writes an "env NAME VALUE" line for each coscheduling setting of our
 * environment into `buf'; its length, or -1 when it does not fit. */
int pvmd_cosched_env_lines(char *buf, size_t size)
{
	size_t used = 0;
	const char *v;
	int i, n;

	if (size)
		buf[0] = '\0';
	for (i = 0; cosched_env[i]; i++) {
		v = getenv(cosched_env[i]);
		if (!v || !*v || strpbrk(v, "\r\n"))
			continue;
		n = snprintf(buf + used, size - used, "env %s %s\n",
			     cosched_env[i], v);
		if (n < 0 || (size_t)n >= size - used)
			return -1;
		used += (size_t)n;
	}
	return (int)used;
}

/* Applies one "NAME VALUE" from the master (after "env "): sets it in
 * our environment if NAME is a coscheduling setting, else ignores it. */
void pvmd_cosched_env_set(const char *line)
{
	const char *sp = strchr(line, ' ');
	char name[64];
	size_t k;
	int i;

	if (!sp || (k = (size_t)(sp - line)) >= sizeof(name))
		return;
	memcpy(name, line, k);
	name[k] = '\0';
	for (i = 0; cosched_env[i]; i++)
		if (!strcmp(name, cosched_env[i]))
			setenv(name, sp + 1, 1);
}

/*
 * daemon_watch.c - gives up a request to the daemon that cannot be
 * answered, with a message, rather than hang the task for ever:
 *   - the daemon process (SO_PEERCRED's pid) has been stopped (state T,
 *     as after kill -STOP) for PVMI_DWATCH_STOPPED_MS;
 *   - a request with a bound (pvmi_dwatch_limit; the enrolment of a task
 *     started by hand, which a copvm daemon answers at once) has had no
 *     answer within it: what listens is not a working copvm daemon.
 * A running daemon is otherwise waited for, however long a request takes
 * (a spawn on a slow host, a host being added).
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "daemon_watch.h"
#include "pvmi.h"

/* How long a stopped daemon is waited for before a request fails. */
#define PVMI_DWATCH_STOPPED_MS	5000

/* Stock's logger (compat.c); pvm3.h does not declare it. */
int pvmlogprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int next_limit_ms;
static int limit_ms;
static pid_t daemon_pid;
static long long started_ms, stopped_since_ms, last_look_ms;
static int gave_up;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Bounds the next request's wait (daemon_watch.h). */
void pvmi_dwatch_limit(int ms)
{
	next_limit_ms = ms;
}

/* Starts watching a request sent on `fd' (daemon_watch.h). */
void pvmi_dwatch_begin(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	limit_ms = next_limit_ms;
	next_limit_ms = 0;
	daemon_pid = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
		daemon_pid = cred.pid;	/* 0 when not in our pid namespace */
	started_ms = last_look_ms = now_ms();
	stopped_since_ms = 0;
	gave_up = 0;
}

/* The state letter of process `pid' (/proc/<pid>/stat), or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces and ')' */
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Decides whether to go on waiting (daemon_watch.h). */
int pvmi_dwatch_check(void)
{
	long long now = now_ms();

	if (limit_ms > 0 && now - started_ms >= limit_ms) {
		pvmlogprintf("no answer on the daemon's socket within %d s: "
			     "what listens there is no working copvm pvmd\n",
			     limit_ms / 1000);
		gave_up = 1;
		return PvmSysErr;
	}
	if (daemon_pid <= 0 || now - last_look_ms < 1000)
		return 0;
	last_look_ms = now;
	if (proc_state(daemon_pid) != 'T') {
		stopped_since_ms = 0;
		return 0;
	}
	if (!stopped_since_ms)
		stopped_since_ms = now;
	if (now - stopped_since_ms < PVMI_DWATCH_STOPPED_MS)
		return 0;
	pvmlogprintf("pvmd (pid %ld) is stopped; giving up the request\n",
		     (long)daemon_pid);
	gave_up = 1;
	return PvmSysErr;
}

/* Whether the watch gave the latest request up (daemon_watch.h). */
int pvmi_dwatch_gave_up(void)
{
	return gave_up;
}

/*
 * daemon_watch.c - gives up a request to the daemon that cannot be
 * answered, with a message, rather than hang the task for ever:
 *   - the daemon process (its pid file's) has been stopped (state T,
 *     as after kill -STOP) for PVMI_DWATCH_STOPPED_MS;
 *   - a request with a bound (pvmi_dwatch_limit; the enrolment of a task
 *     started by hand, which a copvm daemon answers at once) has had no
 *     answer within it: what listens is not a working copvm daemon.
 * A running daemon is otherwise waited for, however long a request takes
 * (a spawn on a slow host, a host being added).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compat/log.h"
#include "conn.h"
#include "daemon_link.h"
#include "daemon_watch.h"
#include "proto.h"
#include "pvmi.h"
#include "rundir_path.h"

/* How long a stopped daemon is waited for before a request fails. */
#define PVMI_DWATCH_STOPPED_MS	5000


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

/* Starts watching a request just sent (daemon_watch.h). */
void pvmi_dwatch_begin(void)
{
	limit_ms = next_limit_ms;
	next_limit_ms = 0;
	daemon_pid = 0;
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

/* The pid in the daemon's pid file, if that process is ours; else 0.
 * (SO_PEERCRED names the process that listened: the daemon's starting
 * process, which has exited since it forked.) */
static pid_t daemon_pid_now(void)
{
	char path[PATH_MAX], buf[32];
	struct stat st;
	long pid;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", pvmi_rundir(), PVMI_DAEMON_PID);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, NULL, 10);
	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (pid <= 0 || stat(path, &st) < 0 || st.st_uid != geteuid())
		return 0;
	return (pid_t)pid;
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
	if (now - last_look_ms < 1000)
		return 0;
	last_look_ms = now;
	if (daemon_pid <= 0)
		daemon_pid = daemon_pid_now();
	if (daemon_pid <= 0)
		return 0;
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

/* Whether our daemon's link has ended (daemon_watch.h). */
int pvmi_dwatch_daemon_gone(void)
{
	if (pvmi_conn_daemon_up())
		pvmi_pump(0);	/* notices an end of file waiting there */
	return !pvmi_conn_daemon_up();
}

/*
 * log.c - the daemon's log file ($PVM_TMP/copvm-<uid>/pvmd.log).
 *
 * Each line carries a timestamp with milliseconds and is written with a
 * single write() to a file opened O_APPEND, so lines never interleave
 * and a crash loses at most the line being built.  Spawned tasks' output
 * with no output tid lands here too, line by line, behind "[t<tid>] ",
 * up to LOG_OUTPUT_MAX bytes in all.
 * Before the log is open (early start-up errors), lines go to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pvmd.h"

#define LOG_LINE_MAX	2048
/* Task output stops being logged past this many bytes, so that a task
 * printing in a loop cannot fill the disk (the daemon's own lines go on). */
#define LOG_OUTPUT_MAX	(64u << 20)

static int log_fd = -1;
static int log_stderr;
static size_t output_logged;

/* Opens the log file (truncating it); 0 or -1 with errno set.  With
 * `also_stderr' every line is copied to stderr (foreground debugging). */
int pvmd_log_open(const char *path, int also_stderr)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC |
		  O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	if (log_fd >= 0)
		close(log_fd);
	log_fd = fd;
	log_stderr = also_stderr;
	return 0;
}

static size_t stamp(char *buf, size_t size)
{
	struct timeval tv;
	struct tm tm;
	size_t n;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	n = strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	n += snprintf(buf + n, size - n, ".%03ld ", (long)tv.tv_usec / 1000);
	return n;
}

static void emit(const char *line, size_t n)
{
	ssize_t rc;

	if (log_fd >= 0) {
		do
			rc = write(log_fd, line, n);
		while (rc < 0 && errno == EINTR);
	}
	if (log_fd < 0 || log_stderr) {
		do
			rc = write(STDERR_FILENO, line, n);
		while (rc < 0 && errno == EINTR);
	}
	(void)rc;
}

static void vlog(const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	size_t n;
	int m;

	n = stamp(line, sizeof(line));
	m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	n += (size_t)m;
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	emit(line, n);
}

/* Writes one timestamped line to the log. */
void pvmd_log(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	errno = saved;
}

/* Writes one timestamped line when any bit of `mask' is in the -d mask. */
void pvmd_dbg(int mask, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (!(pvmd.debug & mask))
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	errno = saved;
}

/* Writes task output to the log as "[t<tid>] " prefixed lines; every
 * '\n' in `buf' ends a line, and a trailing piece without one is written
 * as a line of its own (the caller only passes it at EOF or overflow). */
void pvmd_log_lines(int tid, const char *buf, size_t n)
{
	char line[LOG_LINE_MAX];
	size_t off, len, room, h;
	const char *nl;

	if (output_logged > LOG_OUTPUT_MAX)
		return;
	output_logged += n;
	if (output_logged > LOG_OUTPUT_MAX) {
		pvmd_log("task output passed %u MiB: no more of it is logged",
			 LOG_OUTPUT_MAX >> 20);
		return;
	}
	while (n > 0) {
		nl = memchr(buf, '\n', n);
		len = nl ? (size_t)(nl - buf) : n;
		off = 0;
		/* a very long line is split over several log lines */
		do {
			h = stamp(line, sizeof(line));
			h += snprintf(line + h, sizeof(line) - h, "[t%x] ",
				      (unsigned)tid);
			room = sizeof(line) - h - 1;
			if (room > len - off)
				room = len - off;
			memcpy(line + h, buf + off, room);
			line[h + room] = '\n';
			emit(line, h + room + 1);
			off += room;
		} while (off < len);
		if (!nl)
			break;
		buf += len + 1;
		n -= len + 1;
	}
}

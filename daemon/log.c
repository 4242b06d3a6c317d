/*
 * log.c - the daemon's log file ($PVM_TMP/copvm-<uid>/pvmd.log).
 *
 * Each line carries a timestamp with milliseconds and is written with a
 * single write() to a file opened O_APPEND, so lines never interleave
 * and a crash loses at most the line being built.  Spawned tasks' output
 * with no output tid lands here too, line by line, behind "[t<tid>] ",
 * up to LOG_OUTPUT_MAX bytes in all.
 * Before the log is open (early start-up errors), lines go to stderr.
 *
 * The log is capped (issue 15: every refused connection writes a line):
 * when the next line would take it past COPVM_LOG_MAX bytes (default
 * LOG_MAX_DEFAULT, at least LOG_MAX_MIN), it is renamed to pvmd.log.old,
 * replacing an earlier one, and a new pvmd.log starts with a line saying
 * so; the two never hold more than twice the cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pvmd.h"

#define LOG_LINE_MAX	2048
/* Task output stops being logged past this many bytes, so that a task
 * printing in a loop cannot fill the disk (the daemon's own lines go on). */
#define LOG_OUTPUT_MAX	(64u << 20)
#define LOG_MAX_DEFAULT	(16ul << 20)
#define LOG_MAX_MIN	4096ul
#define LOG_OPEN_FLAGS	(O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | \
			 O_CLOEXEC | O_NOFOLLOW)

static int log_fd = -1;
static int log_stderr;
static size_t output_logged;
static size_t log_size, log_max = LOG_MAX_DEFAULT;
static char log_path[PATH_MAX];

/* The cap from COPVM_LOG_MAX (bytes), or the default. */
static size_t cap_from_env(void)
{
	const char *v = getenv("COPVM_LOG_MAX");
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return LOG_MAX_DEFAULT;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-')
		return LOG_MAX_DEFAULT;
	if (n < LOG_MAX_MIN)
		return LOG_MAX_MIN;
	return n > SIZE_MAX / 4 ? SIZE_MAX / 4 : (size_t)n;
}

/* Opens the log file (truncating it); 0 or -1 with errno set.  With
 * `also_stderr' every line is copied to stderr (foreground debugging). */
int pvmd_log_open(const char *path, int also_stderr)
{
	int fd;

	if (strlen(path) >= sizeof(log_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, LOG_OPEN_FLAGS, 0600);
	if (fd < 0)
		return -1;
	if (log_fd >= 0)
		close(log_fd);
	log_fd = fd;
	log_stderr = also_stderr;
	strcpy(log_path, path);
	log_size = 0;
	log_max = cap_from_env();
	return 0;
}

static size_t stamp(char *buf, size_t size);

static void write_all(int fd, const char *buf, size_t n)
{
	ssize_t rc;

	do
		rc = write(fd, buf, n);
	while (rc < 0 && errno == EINTR);
	(void)rc;
}

/* Moves the full log to pvmd.log.old and starts a new one (see the
 * top); out of descriptors, the log starts over in place. */
static void rotate(void)
{
	char old[PATH_MAX + 8], line[256];
	struct stat st;
	size_t n;
	int fd = -1;

	/* only a log file of ours moves: never /dev/null or a pipe */
	if (fstat(log_fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		log_size = 0;
		return;
	}
	snprintf(old, sizeof(old), "%s.old", log_path);
	if (rename(log_path, old) == 0)
		fd = open(log_path, LOG_OPEN_FLAGS, 0600);
	if (fd >= 0) {
		close(log_fd);
		log_fd = fd;
	} else if (ftruncate(log_fd, 0) < 0) {
		return;
	}
	n = stamp(line, sizeof(line));
	n += snprintf(line + n, sizeof(line) - n,
		      "the log reached %zu bytes (COPVM_LOG_MAX): %s\n",
		      log_max, fd >= 0 ? "the lines before are in "
		      "pvmd.log.old" : "it starts over");
	write_all(log_fd, line, n);
	log_size = n;
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
	if (log_fd >= 0) {
		if (log_size + n > log_max)
			rotate();
		write_all(log_fd, line, n);
		log_size += n;
	}
	if (log_fd < 0 || log_stderr)
		write_all(STDERR_FILENO, line, n);
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

/*
 * ready.c - the readiness signal: the byte a detached daemon writes to
 * the process that started it once it serves.
 *
 * main.c forks (detach) and gives the pipe here; the daemon is ready once
 * its event loop is set up, unless addhost.c holds the signal until the
 * hostfile's hosts have joined.  Readiness also drops stdio: from then on
 * the log is the daemon's only output.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pvmd.h"

static int ready_fd = -1;
static int ready_held;

/* Gives the write end of the starter's pipe, which pvmd_ready() writes
 * and closes (main.c, after the fork). */
void pvmd_ready_set_fd(int fd)
{
	ready_fd = fd;
}

/* True while pvmd_hold_ready() holds the signal back. */
int pvmd_ready_is_held(void)
{
	return ready_held;
}

/* Holds the "ready" signal until pvmd_ready(). */
void pvmd_hold_ready(void)
{
	ready_held = 1;
}

/* Tells the starter the daemon serves now, and drops stdio. */
void pvmd_ready(void)
{
	int null;

	ready_held = 0;
	if (ready_fd < 0)
		return;
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (write(ready_fd, "R", 1) != 1)
		pvmd_log("cannot signal readiness: %s", strerror(errno));
	close(ready_fd);
	ready_fd = -1;
}

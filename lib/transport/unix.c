/*
 * transport/unix.c - same-host circuits over AF_UNIX stream sockets.
 *
 * Each task listens on "t<hex tid>" in the per-user directory (mode 0700,
 * created by pvmd).  A sender connects once per destination and keeps the
 * circuit (see route.c); the receiver accepts only peers of its own uid,
 * checked with SO_PEERCRED rather than trusted to file modes alone.  The
 * frames travel as a byte stream (stream.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cosched_page.h"
#include "proto.h"
#include "pvmi.h"
#include "rundir_check.h"
#include "transport/stream.h"

/* Socket buffers sized so a 1 MiB message needs few wake-ups. */
#define UNIX_SOCKBUF	(1 << 20)

static int task_addr(int tid, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path),
		     "%s/" PVMI_TASK_SOCK_FMT, pvmi_sessdir(), (unsigned)tid);
	return (n > 0 && (size_t)n < sizeof(sa->sun_path)) ? 0 : -1;
}

static void tune(int fd)
{
	int sz = UNIX_SOCKBUF;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int unix_open(int tid, int *fd)
{
	struct sockaddr_un sa;
	int s;

	if (task_addr(tid, &sa))
		return PvmSysErr;
	/* nonblocking: a full backlog (the task out of descriptors) says
	 * EAGAIN at once rather than holding the sender */
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return (errno == EMFILE || errno == ENFILE) ?
			PvmOutOfRes : PvmSysErr;
	tune(s);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(s);
		if (e == ENOENT || e == ECONNREFUSED)
			return PvmNoTask;
		if (e == EAGAIN)
			return PvmOutOfRes;
		return PvmSysErr;
	}
	if (pvmi_peer_verify(s, sa.sun_path) != PvmOk) {
		close(s);
		return PvmSysErr;
	}
	*fd = s;
	return PvmOk;
}

static int unix_listen(int tid, int *fd)
{
	struct sockaddr_un sa;

	if (task_addr(tid, &sa))
		return PvmSysErr;
	unlink(sa.sun_path);
	return pvmi_sock_listen(AF_UNIX, (struct sockaddr *)&sa, sizeof(sa), fd);
}

static int unix_accept(int lfd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int s;

	s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (s < 0)
		return -1;
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.uid != geteuid()) {
		close(s);
		errno = EACCES;		/* refused: the caller goes on */
		return -1;
	}
	tune(s);
	return s;
}

static void unix_unlisten(int tid)
{
	struct sockaddr_un sa;

	if (!task_addr(tid, &sa))
		unlink(sa.sun_path);
}

const struct pvmi_transport pvmi_transport_unix = {
	.name = "unix",
	.reach = PVMI_REACH_HOST,
	.xport = COSCHED_XPORT_UNIX,
	.open = unix_open,
	.connect = NULL,
	.listen = unix_listen,
	.port = NULL,
	.accept = unix_accept,
	.unlisten = unix_unlisten,
	.send = pvmi_stream_send,
	.progress = pvmi_stream_progress,
	.poll_ready = pvmi_stream_ready,
	.close = pvmi_stream_close,
	.writev = pvmi_sock_writev,
	.read = pvmi_sock_read,
};

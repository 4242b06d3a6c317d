/*
 * transport/sock.c - the socket calls the stream transports share:
 * nonblocking writev and read without SIGPIPE, and a listening socket.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "pvmi.h"
#include "transport/stream.h"

/* A nonblocking listening socket bound to `sa' (stream.h). */
int pvmi_sock_listen(int domain, const struct sockaddr *sa, socklen_t len,
		     int *fd)
{
	int s = socket(domain, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (s < 0)
		return PvmSysErr;
	if (bind(s, sa, len) < 0 || listen(s, 128) < 0) {
		close(s);
		return PvmSysErr;
	}
	*fd = s;
	return PvmOk;
}

/* Writes from `iov' without blocking or SIGPIPE (stream.h). */
ssize_t pvmi_sock_writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr mh = { .msg_iov = (struct iovec *)iov,
			     .msg_iovlen = iovcnt };

	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Reads up to `len' bytes without blocking (stream.h). */
ssize_t pvmi_sock_read(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, MSG_DONTWAIT);
}

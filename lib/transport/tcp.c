/*
 * transport/tcp.c - circuits to tasks of other hosts over TCP (IPv4).
 *
 * A task listens on every address of its host, on a port the kernel
 * picks; its daemon tells other hosts' tasks where (PVMI_OP_ROUTE).  The
 * socket may also come ready-made from the daemon that spawned the task
 * (COPVM_TCP_FD), so that a peer can connect before the task runs.
 * Anyone can connect to such a port: conn_tcp.c runs the handshake of
 * common/auth.h on every new circuit before it reads a single frame, so
 * only tasks that hold the machine's secret get through.  Circuits have
 * Nagle's delay off (messages are frames written whole) and big buffers.
 * The frames travel as a byte stream (stream.c), or through io_uring
 * (uring.c, which opens its circuits with the functions here).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cosched_page.h"
#include "pvmi.h"
#include "transport/stream.h"

#define TCP_SOCKBUF	(4 << 20)

static void tune(int fd)
{
	int on = 1, sz = TCP_SOCKBUF;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

/* Starts a nonblocking connect to `addr' port `port' (stream.h). */
int pvmi_tcp_connect(const char *addr, int port, int *fd)
{
	struct sockaddr_in sa;
	int s;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (port <= 0 || port > 65535 ||
	    inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return PvmSysErr;
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return PvmSysErr;
	tune(s);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	    errno != EINPROGRESS) {
		close(s);
		return PvmSysErr;
	}
	*fd = s;
	return PvmOk;
}

/* A listening socket on every address, any port (stream.h). */
int pvmi_tcp_listen(int tid, int *fd)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	return pvmi_sock_listen(AF_INET, (struct sockaddr *)&sa, sizeof(sa), fd);
}

/* The port listening socket `lfd' answers on, or 0 (stream.h). */
int pvmi_tcp_port(int lfd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(lfd, (struct sockaddr *)&sa, &len) < 0 ||
	    sa.sin_family != AF_INET)
		return 0;
	return ntohs(sa.sin_port);
}

/* Accepts one waiting peer, tuned, or -1 (stream.h). */
int pvmi_tcp_accept(int lfd)
{
	int s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (s >= 0)
		tune(s);
	return s;
}

/* Nothing to remove: a TCP endpoint has no name (stream.h). */
void pvmi_tcp_unlisten(int tid)
{
}

const struct pvmi_transport pvmi_transport_tcp = {
	.name = "tcp",
	.reach = PVMI_REACH_NET,
	.xport = COSCHED_XPORT_TCP,
	.open = NULL,
	.connect = pvmi_tcp_connect,
	.listen = pvmi_tcp_listen,
	.port = pvmi_tcp_port,
	.accept = pvmi_tcp_accept,
	.unlisten = pvmi_tcp_unlisten,
	.send = pvmi_stream_send,
	.progress = pvmi_stream_progress,
	.poll_ready = pvmi_stream_ready,
	.close = pvmi_stream_close,
	.writev = pvmi_sock_writev,
	.read = pvmi_sock_read,
};

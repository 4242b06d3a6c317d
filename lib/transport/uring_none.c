/*
 * transport/uring_none.c - what uring.c provides, for a build without
 * liburing: TCP circuits always use plain sockets (tcp.c), and
 * COPVM_URING=1 only earns a warning (the default, "auto", none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/transport.h"

/* Never: there is no ring in this build (transport.h). */
int pvmi_uring_usable(void)
{
	static int warned;
	const char *e = getenv("COPVM_URING");

	if (!warned && e && strcmp(e, "1") == 0) {
		warned = 1;
		fprintf(stderr, "libpvm [pid%d]: COPVM_URING=%s but this "
			"copvm was built without liburing: plain sockets\n",
			(int)getpid(), e);
	}
	return 0;
}

/* No ring, no fd (transport.h). */
int pvmi_uring_fd(void)
{
	return -1;
}

/* Nothing to reap (transport.h). */
int pvmi_uring_reap(void)
{
	return 0;
}

/* Nothing to release (transport.h). */
void pvmi_uring_release(void)
{
}

/* No ring, no submission (transport.h). */
unsigned long pvmi_uring_submits(void)
{
	return 0;
}

/* No ring, no zero-copy send. */
unsigned long pvmi_uring_zc_sends(void)
{
	return 0;
}

/* Never chosen (pvmi_uring_usable() says no); the tcp transport's
 * calls, should anyone take it. */
const struct pvmi_transport pvmi_transport_uring = {
	.name = "tcp",
	.connect = pvmi_tcp_connect,
	.listen = pvmi_tcp_listen,
	.port = pvmi_tcp_port,
	.accept = pvmi_tcp_accept,
	.unlisten = pvmi_tcp_unlisten,
	.send = pvmi_stream_send,
	.progress = pvmi_stream_progress,
	.close = pvmi_stream_close,
	.writev = pvmi_sock_writev,
	.read = pvmi_sock_read,
};

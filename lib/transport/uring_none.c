/*
 * transport/uring_none.c - the io_uring transport's table for a build
 * without liburing: its probe always says no, so TCP circuits use plain
 * sockets (tcp.c), and COPVM_URING=1 only earns a warning (the default,
 * "auto", none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cosched_page.h"
#include "transport/stream.h"
#include "transport/uring.h"

/* Never: there is no ring in this build (transport.h, probe); warns once
 * when COPVM_URING=1 asked for it. */
static int uring_probe(int setup)
{
	static int warned;
	const char *e = getenv("COPVM_URING");

	if (setup && !warned && e && strcmp(e, "1") == 0) {
		warned = 1;
		fprintf(stderr, "libpvm [pid%d]: COPVM_URING=%s but this "
			"copvm was built without liburing: plain sockets\n",
			(int)getpid(), e);
	}
	return 0;
}

/* No ring, no submission (uring.h). */
unsigned long pvmi_uring_submits(void)
{
	return 0;
}

/* No ring, no zero-copy send (uring.h). */
unsigned long pvmi_uring_zc_sends(void)
{
	return 0;
}

/* Never chosen (the probe says no); the tcp transport's calls, should
 * anyone take it. */
const struct pvmi_transport pvmi_transport_uring = {
	.name = "tcp",
	.reach = PVMI_REACH_NET,
	.xport = COSCHED_XPORT_TCP,
	.probe = uring_probe,
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

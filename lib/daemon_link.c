/*
 * daemon_link.c - the link to this host's pvmd.
 *
 * The task connects to the daemon's socket in the per-user directory and
 * keeps that link for as long as it is enrolled.  Control requests go out
 * on it one at a time (pvmi_call): the caller pumps until the reply
 * frame comes back, reading other input meanwhile.  User frames for
 * tasks of other hosts that take the default route also go to the
 * daemon, and frames the daemon relays come in on it (conn.c queues them
 * after what peers already sent, see pvmi_conn_drain_peers()).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bufcache.h"
#include "conn.h"
#include "daemon_link.h"
#include "daemon_watch.h"
#include "proto.h"
#include "pvmi.h"
#include "rundir_check.h"
#include "rundir_path.h"
#include "transport/transport.h"

static struct link *daemon_link;

/* The single outstanding daemon request's reply. */
static int reply_wanted;
static int reply_ready;
static unsigned char *reply_body;
static size_t reply_len;

/* A frame on the daemon link that is not a user message: the reply to
 * the request under way, or a protocol error. */
static int reply_frame(struct link *l, const struct pvmi_frame *f,
		       unsigned char *body)
{
	if (f->kind != PVMI_KIND_REPLY || !reply_wanted || reply_ready) {
		pvmi_buf_free(body);
		return -1;
	}
	pvmi_buf_free(reply_body);
	reply_body = body;
	reply_len = f->len;
	reply_ready = 1;
	return 0;
}

/* The link is going: forget it.  A reply already read stays readable
 * (the daemon may leave right after answering, as it does a halt). */
static void daemon_gone(struct link *l)
{
	daemon_link = NULL;
}

/* Everything closes: forget the last reply too. */
static void daemon_close(int unlink_tid)
{
	pvmi_buf_free(reply_body);
	reply_body = NULL;
	reply_wanted = reply_ready = 0;
}

static const struct pvmi_link_hooks daemon_hooks = {
	.frame = reply_frame,
	.release = daemon_gone,
};

/* No listening fd: only here to hear of pvmi_conn_close_all(). */
static struct pvmi_conn_endpoint daemon_ep = {
	.fd = -1,
	.close = daemon_close,
};

/* Connects to this host's pvmd; PvmOk, PvmSysErr when none answers,
 * PvmDenied when another user's process does
 * (daemon_link.h). */
int pvmi_conn_daemon_open(void)
{
	struct sockaddr_un sa;
	int s;

	if (daemon_link)
		return PvmOk;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
			     pvmi_rundir(), PVMI_DAEMON_SOCK) >=
	    sizeof(sa.sun_path))
		return PvmSysErr;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return PvmSysErr;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(s);
		return PvmSysErr;
	}
	if (pvmi_peer_verify(s, sa.sun_path) != PvmOk) {
		close(s);
		return PvmDenied;
	}
	if (fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK) < 0 ||
	    !(daemon_link = pvmi_link_add(s, LINK_DAEMON, 0,
					  &pvmi_transport_unix,
					  &daemon_hooks))) {
		close(s);
		return PvmSysErr;
	}
	pvmi_conn_endpoint_add(&daemon_ep);
	return PvmOk;
}

/* Non-zero while the link to the daemon is up
 * (daemon_link.h). */
int pvmi_conn_daemon_up(void)
{
	return daemon_link != NULL;
}

/* Sends a frame to the daemon, which hands it on to its destination:
 * the default route to a task of another host (daemon_link.h). */
int pvmi_conn_send_daemon(struct pvmi_frame *f, const struct pvmi_msg *m)
{
	int rc;

	if (!daemon_link)
		return PvmSysErr;
	rc = pvmi_conn_send(daemon_link, f, NULL, m);
	return rc == PvmNoTask ? PvmSysErr : rc;	/* the link is gone */
}

/* Sends daemon request `op' and waits for its reply, reading other
 * input meanwhile (daemon_link.h). */
int pvmi_call(int op, const struct pvmi_wbuf *req, struct pvmi_rbuf *rep)
{
	struct pvmi_frame f = { 0 };
	struct iovec iov;
	int r;

	if (!daemon_link)
		return PvmSysErr;
	if (req->failed)
		return PvmNoMem;
	f.magic = PVMI_FRAME_MAGIC;
	f.len = req->len;
	f.src = pvmi.mytid;
	f.dst = pvmi.dtid;
	f.tag = op;
	f.kind = PVMI_KIND_REQUEST;
	iov.iov_base = req->data;
	iov.iov_len = req->len;
	reply_wanted = 1;
	reply_ready = 0;
	if (pvmi_link_write(daemon_link, &f, &iov, req->len ? 1 : 0)) {
		pvmi_link_drop(daemon_link);
		reply_wanted = 0;
		return PvmSysErr;
	}
	pvmi_dwatch_begin();
	while (!reply_ready && daemon_link) {
		r = pvmi_link_pump(PVMI_DWATCH_TICK_MS, -1);
		if (r == PvmSysErr)
			break;
		if (!reply_ready && pvmi_dwatch_check() < 0) {
			pvmi_link_drop(daemon_link);	/* a late reply is moot */
			break;
		}
	}
	reply_wanted = 0;
	if (!reply_ready)
		return PvmSysErr;
	reply_ready = 0;
	pvmi_r_init(rep, reply_body, reply_len);
	return PvmOk;
}

/*
 * conn_unix.c - circuits with tasks of this host, over the unix
 * transport.
 *
 * Each task listens on its endpoint; circuits it accepts there only
 * carry frames in (LINK_IN).  Circuits it opens to other tasks only carry
 * frames out (LINK_OUT); route.c keeps one per destination and reuses it
 * for every later message (virtual circuit caching).  One circuit per
 * (sender, receiver) pair keeps each sender's messages in order.  Sends
 * block until the kernel has the whole frame but keep reading incoming
 * frames while they wait (conn.c), so two tasks sending large messages
 * to each other cannot deadlock.
 *
 * The circuits are opened and accepted with the unix transport's calls;
 * what carries their frames is the transport route.c decided for an
 * outbound one, and the same rule (transport/registry.c) for an inbound
 * one: shm unless COPVM_SHM=0, whose frames go through a shared-memory
 * ring once the receiver invited the sender to make one (the greeting
 * each transport may say at accept), over the socket before that and
 * for good when either side has rings off (transport/shm.c).
 *
 * Out of descriptors (issue 15: a task at its fd limit, or flooded with
 * idle connections), accept() fails and the listener stays readable: the
 * endpoint then rests (conn.c polls it again after PVMI_REST_MS), and the
 * task marks itself busy with an empty file "t<tid>.busy" next to its
 * socket (made without a descriptor).  A sender opening a circuit to a
 * busy task, or one whose connect the task's full backlog or its own fd
 * limit refuses, routes that destination through the daemon instead
 * (route.c): its messages still arrive, over the receiver's daemon link.
 * The mark goes when the task accepts all that waits again.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn.h"
#include "conn_unix.h"
#include "proto.h"
#include "pvmi.h"
#include "rundir_check.h"
#include "transport/registry.h"

static void unix_accept_all(void);
static void unix_close(int unlink_tid);

static struct pvmi_conn_endpoint unix_ep = {
	.fd = -1,
	.accept = unix_accept_all,
	.close = unix_close,
};

static int busy_marked;		/* our t<tid>.busy exists */
static int busy_tid;			/* ... for this tid */

/* The busy mark of task `tid' in `buf'; -1 when it does not fit. */
static int busy_path(int tid, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/" PVMI_TASK_SOCK_FMT ".busy",
			 pvmi_sessdir(), (unsigned)tid);

	return (n > 0 && (size_t)n < size) ? 0 : -1;
}

/* Sets (on) or removes our busy mark (see the top). */
static void mark_busy(int on)
{
	char path[256];

	if (on == busy_marked || (on && pvmi.mytid <= 0))
		return;
	if (on)
		busy_tid = pvmi.mytid;
	if (busy_path(busy_tid, path, sizeof(path)))
		return;
	if (on) {
		/* mknod needs no descriptor, which we are out of */
		if (mknod(path, S_IFREG | 0600, 0) < 0 && errno != EEXIST)
			return;
	} else {
		unlink(path);
	}
	busy_marked = on;
}

/* Non-zero when task `tid' of this host marked itself busy
 * (conn_unix.h). */
int pvmi_conn_unix_busy(int tid)
{
	char path[256];
	struct stat st;

	return !busy_path(tid, path, sizeof(path)) && stat(path, &st) == 0;
}

/* Accepts every waiting circuit as an inbound link; out of descriptors,
 * rests the endpoint and marks the task busy (see the top). */
static void unix_accept_all(void)
{
	int fd;

	const struct pvmi_transport *tp;

	for (;;) {
		fd = pvmi_transport_unix.accept(unix_ep.fd);
		if (fd < 0) {
			if (errno == EACCES)	/* another user's: refused */
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				pvmi_conn_endpoint_rest(&unix_ep);
				mark_busy(1);
			} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
				mark_busy(0);
			}
			return;
		}
		/* the same rule as route.c's for circuits it opens */
		tp = pvmi_transport_pick(PVMI_REACH_HOST, 1);
		if (!pvmi_link_add(fd, LINK_IN, 0, tp, NULL)) {
			close(fd);
			continue;
		}
		pvmi_transport_accepted(fd, tp);
	}
}

/* Closes the endpoint; with `unlink_tid' its name goes too. */
static void unix_close(int unlink_tid)
{
	if (unix_ep.fd >= 0) {
		close(unix_ep.fd);
		unix_ep.fd = -1;
	}
	mark_busy(0);
	if (unlink_tid)
		pvmi_transport_unix.unlisten(unlink_tid);
}

/* Adopts listening fd `fd' as this task's unix endpoint
 * (conn_unix.h). */
void pvmi_conn_set_listener(int fd)
{
	if (unix_ep.fd >= 0 && unix_ep.fd != fd)
		close(unix_ep.fd);
	unix_ep.fd = fd;
	pvmi_conn_endpoint_add(&unix_ep);
}

/* Opens an outbound circuit to task `tid' of this host, carried by
 * `tp' (conn_unix.h). */
int pvmi_conn_unix_open(int tid, const struct pvmi_transport *tp,
			struct link **lp)
{
	struct link *l;
	int rc, fd;

	rc = pvmi_transport_unix.open(tid, &fd);
	if (rc != PvmOk)
		return rc;
	l = pvmi_link_add(fd, LINK_OUT, tid, tp, NULL);
	if (!l) {
		close(fd);
		return PvmNoMem;
	}
	*lp = l;
	return PvmOk;
}

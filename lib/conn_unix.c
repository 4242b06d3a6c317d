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
 * Unless COPVM_SHM=0, both kinds of circuit use the shm transport: the
 * frames go through a shared-memory ring once the receiver invited the
 * sender to make one (the greeting written here at accept), over the
 * socket before that and for good when either side has rings off
 * (transport/shm.c).  The task's wake eventfd is polled as an endpoint.
 */
#include <unistd.h>

#include "conn.h"
#include "conn_unix.h"
#include "pvmi.h"
#include "transport/transport.h"

static void unix_accept_all(void);
static void unix_close(int unlink_tid);

static struct pvmi_conn_endpoint unix_ep = {
	.fd = -1,
	.accept = unix_accept_all,
	.close = unix_close,
};

static void wake_close(int unlink_tid);

/* The task's ring wake-up eventfd: readable when a peer rang it. */
static struct pvmi_conn_endpoint wake_ep = {
	.fd = -1,
	.accept = pvmi_shm_wake_clear,
	.close = wake_close,
};

static void wake_close(int unlink_tid)
{
	(void)unlink_tid;
	wake_ep.fd = -1;
	pvmi_shm_wake_release();	/* every link is closed by now */
}

/* The transport of a new same-host circuit: rings unless COPVM_SHM=0
 * (the circuit still falls back to the socket if the peer declines or
 * the ring cannot be made; transport/shm.c). */
static const struct pvmi_transport *circuit_transport(void)
{
	if (!pvmi_shm_enabled() || pvmi_shm_wake_fd() < 0)
		return &pvmi_transport_unix;
	wake_ep.fd = pvmi_shm_wake_fd();
	pvmi_conn_endpoint_add(&wake_ep);
	return &pvmi_transport_shm;
}

/* Accepts every waiting circuit as an inbound link. */
static void unix_accept_all(void)
{
	int fd;

	const struct pvmi_transport *tp;

	while ((fd = pvmi_transport_unix.accept(unix_ep.fd)) >= 0) {
		tp = circuit_transport();
		if (!pvmi_link_add(fd, LINK_IN, 0, tp, NULL)) {
			close(fd);
			continue;
		}
		pvmi_shm_greet(fd, tp == &pvmi_transport_shm);
	}
}

/* Closes the endpoint; with `unlink_tid' its name goes too. */
static void unix_close(int unlink_tid)
{
	if (unix_ep.fd >= 0) {
		close(unix_ep.fd);
		unix_ep.fd = -1;
	}
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

/* Opens an outbound circuit to task `tid' of this host
 * (conn_unix.h). */
int pvmi_conn_unix_open(int tid, struct link **lp)
{
	struct link *l;
	int rc, fd;

	rc = pvmi_transport_unix.open(tid, &fd);
	if (rc != PvmOk)
		return rc;
	l = pvmi_link_add(fd, LINK_OUT, tid, circuit_transport(), NULL);
	if (!l) {
		close(fd);
		return PvmNoMem;
	}
	*lp = l;
	return PvmOk;
}

/* Sends on outbound circuit `l'; a broken one is dropped
 * (conn_unix.h). */
int pvmi_conn_unix_send(struct link *l, struct pvmi_frame *f,
			const unsigned char *hdr, const struct pvmi_msg *m)
{
	int rc = pvmi_link_send_hdr(l, f, hdr, m);

	if (rc == -1) {
		pvmi_link_drop(l);
		return PvmNoTask;
	}
	return rc;
}

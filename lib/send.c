/*
 * send.c - pvm_send, pvm_mcast and pvm_psend.
 *
 * The calls check their arguments and hand the message to the circuit of
 * its destination (route.c), which decides how it travels (pvm_send
 * first releases a message staged by precommunication, precomm.c, then
 * tries route.c's short way for a small one): queued for
 * ourselves, over a unix circuit to a task of this host, or directly or
 * through the daemons to a task of another host.  As in stock PVM a send
 * is asynchronous: a message to a task that has already exited is
 * discarded and the send still succeeds (but fails with PvmSysErr once
 * our own daemon is gone).  A send to a task whose host our daemon said
 * has left the machine (hostwatch.c) fails with PvmNoHost; pvm_mcast
 * still sends to the others and returns that error.  pvm_mcast hands its
 * whole list to route.c at once (pvmi_route_mcast), so that copies on
 * direct circuits over io_uring leave in one submission.
 */
#include <stdlib.h>
#include <string.h>

#include "cosched/cosched.h"
#include "daemon_watch.h"
#include "msg.h"
#include "precomm.h"
#include "proto.h"
#include "pvmi.h"
#include "recv.h"
#include "route.h"
#include "task.h"

/* What a route's result `rc' for a message to `tid' means to the
 * caller: PvmOk, or an error code. */
static int route_result(int rc, int tid)
{
	if (rc == PVMI_ROUTE_DROPPED)	/* on a direct circuit that broke */
		rc = pvmi_hostwatch_lost(tid) ? PvmNoHost : PvmOk;
	if (rc == PvmOk)
		pvmi_cosched_sent(tid);
	/* a gone task's mail is dropped, unless our daemon is gone too:
	 * then so is our machine */
	if (rc == PVMI_ROUTE_NOT_SENT && pvmi_dwatch_daemon_gone())
		return PvmSysErr;
	return rc < 0 ? rc : PvmOk;
}

/* Sends message `m' to `tid' with `tag' in the current context. */
int pvmi_send_msg(struct pvmi_msg *m, int tid, int tag)
{
	int rc;

	rc = pvmi_check_task_tid(tid);
	if (rc != PvmOk)
		return rc;
	if (pvmi_hostwatch_lost(tid))
		return PvmNoHost;
	return route_result(pvmi_route_send(m, tid, tag), tid);
}

/* Looks up the active send buffer after enrolling; PvmOk or an error. */
static int active_sbuf(struct pvmi_msg **m)
{
	int rc = pvmi_attach();

	if (rc != PvmOk)
		return rc;
	if (pvmi_sbuf <= 0 || !(*m = pvmi_mid_lookup(pvmi_sbuf)))
		return PvmNoBuf;
	return PvmOk;
}

/* Sends the active send buffer to task `tid' with tag `msgtag'. */
PVMI_EXPORT int pvm_send(int tid, int msgtag)
{
	struct pvmi_msg *m;
	int rc;

	if (msgtag < 0 && !pvmi.resvtids)	/* PvmResvTids allows them */
		return pvmi_error("pvm_send", PvmBadParam);
	rc = active_sbuf(&m);
	if (rc == PvmOk)
		rc = pvmi_check_task_tid(tid);
	if (rc == PvmOk && pvmi_precomm_release(m, tid, msgtag, &rc)) {
		if (rc == PvmOk || rc == PVMI_ROUTE_DROPPED)
			pvmi_cosched_sent(tid);
		rc = rc < 0 ? rc : PvmOk;
		if (rc == PvmOk && pvmi_hostwatch_lost(tid))
			rc = PvmNoHost;	/* staged before the news */
	} else if (rc == PvmOk) {
		/* the short way first: a circuit of this host, whose host is
		 * never lost; else the whole way (route.h) */
		rc = pvmi_route_send_fast(m, tid, msgtag);
		rc = rc == PVMI_ROUTE_SLOW ? pvmi_send_msg(m, tid, msgtag) :
					     route_result(rc, tid);
	}
	if (rc < 0)
		return pvmi_error("pvm_send", rc);
	/* stock's send buffer shows the tag and destination of its last
	 * send (pvm_bufinfo, pvm_getminfo); pvm_mcast's does not */
	m->tag = msgtag;
	m->dst = tid;
	return PvmOk;
}

/* Sends `m' to each task of `tids' once, the caller excepted, all in
 * one multicast of route.c (its direct circuits over io_uring are
 * submitted together); PvmOk or the first error, at the API. */
static int mcast(struct pvmi_msg *m, const int *tids, int ntask, int tag)
{
	int stack[2 * 64] = { 0 }, *dst = stack, *rcs, n = 0, i, j, dup, rc;
	int lost = 0;

	if (ntask > 64 && !(dst = malloc(2 * (size_t)ntask * sizeof(*dst))))
		return pvmi_error("pvm_mcast", PvmNoMem);
	rcs = dst + ntask;
	for (i = 0; i < ntask; i++) {
		if (tids[i] == pvmi.mytid)
			continue;
		if (pvmi_hostwatch_lost(tids[i])) {
			lost = 1;
			continue;
		}
		for (j = 0, dup = 0; j < i && !dup; j++)
			dup = tids[j] == tids[i];
		if (!dup)
			dst[n++] = tids[i];
	}
	pvmi_route_mcast(m, dst, n, tag, rcs);
	rc = lost ? PvmNoHost : PvmOk;
	for (i = 0; i < n; i++) {
		int r = route_result(rcs[i], dst[i]);

		if (r < 0 && rc == PvmOk)
			rc = r;
	}
	if (dst != stack)
		free(dst);
	return rc < 0 ? pvmi_error("pvm_mcast", rc) : PvmOk;
}

/* Sends the active send buffer to each of the `ntask' tasks in `tids'
 * (the caller itself excepted). */
PVMI_EXPORT int pvm_mcast(int *tids, int ntask, int msgtag)
{
	struct pvmi_msg *m;
	int rc, i;

	if (msgtag < 0 || ntask < 0 || (ntask > 0 && !tids))
		return pvmi_error("pvm_mcast", PvmBadParam);
	rc = active_sbuf(&m);
	if (rc != PvmOk)
		return pvmi_error("pvm_mcast", rc);
	for (i = 0; i < ntask; i++)
		if (pvmi_check_task_tid(tids[i]) == PvmBadParam)
			return pvmi_error("pvm_mcast", PvmBadParam);
	return mcast(m, tids, ntask, msgtag);
}

/* Packs `len' elements of `type' from `buf' into a private buffer and
 * sends it; the active send buffer is left alone. */
PVMI_EXPORT int pvm_psend(int tid, int msgtag, void *buf, int len, int type)
{
	struct pvmi_msg *m;
	int rc;

	if (msgtag < 0 || len < 0 || (len > 0 && !buf) || type < PVM_STR ||
	    type > PVM_ULONG)
		return pvmi_error("pvm_psend", PvmBadParam);
	rc = pvmi_attach();
	if (rc != PvmOk)
		return pvmi_error("pvm_psend", rc);
	m = pvmi_msg_new(PvmDataRaw);
	if (!m)
		return pvmi_error("pvm_psend", PvmNoMem);
	/* A PVM_STR payload is `len' bytes, as pvm_psend(3PVM) describes. */
	rc = pvmi_pack(m, type == PVM_STR ? PVM_BYTE : type, buf, len, 1);
	if (rc == PvmOk)
		rc = pvmi_send_msg(m, tid, msgtag);
	pvmi_msg_free(m);
	return rc < 0 ? pvmi_error("pvm_psend", rc) : PvmOk;
}

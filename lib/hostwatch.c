/*
 * hostwatch.c - what this task knows of the hosts that left the machine.
 *
 * When a host leaves (deleted, its daemon killed, or declared dead after
 * a silence, daemon/peer.c), every daemon tells each of its tasks, before
 * the notifies of the departure fire, with a HOSTSTATE message in the
 * library's context (common/proto.h); it says so again when a host
 * joins.  That news closes the direct circuits with the lost host's tasks
 * (nothing more from them can arrive), makes a send to one of them fail
 * with PvmNoHost, and ends a receive waiting only for one of them with
 * PvmNoHost (recv.c), rather than letting it wait for ever.  A host
 * added again under the same index is struck off the list.
 */
#include <stdlib.h>

#include "bufcache.h"
#include "codec.h"
#include "conn_tcp.h"
#include "msg.h"
#include "proto.h"
#include "pvmi.h"
#include "recv.h"

static int32_t *lost;		/* dtids of the hosts that left */
static int nlost, caplost;

static void forget(int dtid)
{
	int i;

	for (i = 0; i < nlost; i++)
		if (lost[i] == dtid)
			lost[i--] = lost[--nlost];
}

static void remember(int dtid)
{
	int32_t *n;

	forget(dtid);
	if (nlost == caplost) {
		n = realloc(lost, (size_t)(caplost ? 2 * caplost : 8) *
			    sizeof(*n));
		if (!n)
			return;
		lost = n;
		caplost = caplost ? 2 * caplost : 8;
	}
	lost[nlost++] = dtid;
}

/* Takes message `m' when it is a HOSTSTATE from our daemon (recv.h);
 * 1 when taken (and freed), else 0. */
int pvmi_hostwatch_take(struct pvmi_msg *m)
{
	struct pvmi_rbuf r;
	unsigned char *body;
	size_t len;
	int dtid, up;

	if (m->ctx != PVMI_SYS_CTX || m->tag != PVMI_TAG_HOSTSTATE)
		return 0;
	body = pvmi_msg_flatten(m, &len);
	if (body) {
		pvmi_r_init(&r, body, len);
		dtid = pvmi_r_int(&r);
		up = pvmi_r_int(&r);
		if (!r.failed && dtid > 0 && PVMI_TID_LOCAL(dtid) == 0 &&
		    dtid != PVMI_TID_HOST(pvmi.mytid)) {
			if (up) {
				forget(dtid);
			} else {
				remember(dtid);
				pvmi_conn_tcp_host_gone(dtid);
			}
		}
		pvmi_buf_free(body);
	}
	pvmi_msg_free(m);
	return 1;
}

/* Non-zero when the host of task `tid' has left the machine (recv.h). */
int pvmi_hostwatch_lost(int tid)
{
	int i, h = PVMI_TID_HOST(tid);

	for (i = 0; i < nlost; i++)
		if (lost[i] == h)
			return 1;
	return 0;
}

/* Forgets every lost host (the task leaves the machine; recv.h). */
void pvmi_hostwatch_reset(void)
{
	free(lost);
	lost = NULL;
	nlost = caplost = 0;
}

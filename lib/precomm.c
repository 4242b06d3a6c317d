/*
 * precomm.c - precommunication: pvm_indication() declares a coming send
 * with no data dependence, so the library prepares it while the task
 * waits in a receive, and the send itself only releases it.
 *
 * The pattern is "pack A; indication(dest, tag); recv(token); send A":
 * the indication records (dest, tag, the active send buffer).  When a
 * blocking receive (pvm_recv, pvm_trecv with a timeout) finds nothing
 * and is about to wait, each pending indication is staged on its circuit
 * (route.c: the route decided, the circuit opened, the header encoded,
 * the body gathered into one packet buffer of bufcache.c).  Nothing is
 * written before the send: the later pvm_send(dest, tag) of the same,
 * unchanged buffer writes the staged packet, so program order is kept
 * (every send, indicated or not, leaves in the order it is called).
 *
 * Misuse:
 *   - an indication never followed by its send expires at the second
 *     blocking receive after it (the one after the receive that staged
 *     it), at pvm_exit, or when a newer indication names the same
 *     (tid, tag); its packet is freed;
 *   - a pvm_send to (tid, tag) with another buffer, or the same buffer
 *     packed further after the indication, is a plain send and drops the
 *     indication; sends matching no indication are plain and leave the
 *     others pending; pvm_mcast and pvm_psend never use indications;
 *   - a dead destination: staging fails quietly and the send reports as
 *     a plain send does today;
 *   - at most PRECOMM_MAX indications pend at once: one more fails with
 *     PvmNoMem and changes nothing.
 * Messages for ourselves, through the daemons, or with PvmDataInPlace
 * data (read at send time by definition) are not staged; their send is
 * plain.
 */
#include <string.h>

#include "msg.h"
#include "pvmi.h"
#include "route.h"
#include "task.h"

#define PRECOMM_MAX	8

struct indication {
	int tid;
	int tag;
	int mid;			/* the send buffer it was made with */
	const struct pvmi_msg *m;	/* ... its message */
	size_t len;			/* ... and its length then */
	int seen;			/* a blocking receive began since */
	int staged;			/* st holds the prepared packet */
	struct pvmi_route_staged st;
};

static struct indication pending[PRECOMM_MAX];
static int npending;

/* Removes pending[i], freeing its packet; keeps the others in order. */
static void drop(int i)
{
	if (pending[i].staged)
		pvmi_route_unstage(&pending[i].st);
	memmove(&pending[i], &pending[i + 1],
		(npending - i - 1) * sizeof(pending[0]));
	npending--;
}

/* The index of the indication for (tid, tag), or -1. */
static int find(int tid, int tag)
{
	int i;

	for (i = 0; i < npending; i++)
		if (pending[i].tid == tid && pending[i].tag == tag)
			return i;
	return -1;
}

/* Declares that the active send buffer will be sent to `tid' with
 * `msgtag' with no data dependence on the receives in between. */
PVMI_EXPORT int pvm_indication(int tid, int msgtag)
{
	struct pvmi_msg *m;
	struct indication *in;
	int rc, i;

	if (msgtag < 0 || pvmi_check_task_tid(tid) != PvmOk)
		return pvmi_error("pvm_indication", PvmBadParam);
	rc = pvmi_attach();
	if (rc != PvmOk)
		return pvmi_error("pvm_indication", rc);
	if (pvmi_sbuf <= 0 || !(m = pvmi_mid_lookup(pvmi_sbuf)))
		return pvmi_error("pvm_indication", PvmNoBuf);
	i = find(tid, msgtag);
	if (i >= 0)
		drop(i);
	if (npending == PRECOMM_MAX)
		return pvmi_error("pvm_indication", PvmNoMem);
	in = &pending[npending++];
	memset(in, 0, sizeof(*in));
	in->tid = tid;
	in->tag = msgtag;
	in->mid = pvmi_sbuf;
	in->m = m;
	in->len = m->len;
	return PvmOk;
}

/* Still the buffer the indication was made with, unchanged. */
static int unchanged(const struct indication *in)
{
	const struct pvmi_msg *m = pvmi_mid_lookup(in->mid);

	return m && m == in->m && m->len == in->len;
}

/* A blocking receive begins: indications it is the second receive for
 * expire, the others are marked (precomm.h). */
void pvmi_precomm_recv_begin(void)
{
	int i;

	for (i = npending - 1; i >= 0; i--)
		if (pending[i].seen)
			drop(i);
	for (i = 0; i < npending; i++)
		pending[i].seen = 1;
}

/* The receive is about to wait: stages every indication not staged yet
 * (precomm.h). */
void pvmi_precomm_stage(void)
{
	struct indication *in;
	int i;

	for (i = 0; i < npending; i++) {
		in = &pending[i];
		if (in->staged || in->seen != 1 || !unchanged(in))
			continue;
		in->seen = 2;		/* tried: not again */
		if (pvmi_route_stage(in->m, in->tid, in->tag, &in->st) ==
		    PvmOk)
			in->staged = 1;
	}
}

/* pvm_send of message `m' to (tid, tag): sends the staged packet when an
 * indication for it holds one (*rc set, returns 1), else returns 0 for a
 * plain send, dropping a stale indication (precomm.h). */
int pvmi_precomm_release(const struct pvmi_msg *m, int tid, int tag,
			 int *rc)
{
	int i = npending ? find(tid, tag) : -1;
	struct pvmi_route_staged st;

	if (i < 0)
		return 0;
	if (!pending[i].staged || pending[i].m != m ||
	    pending[i].mid != m->mid || !unchanged(&pending[i])) {
		drop(i);
		return 0;
	}
	st = pending[i].st;
	pending[i].staged = 0;		/* the packet moves to st */
	drop(i);
	*rc = pvmi_route_send_staged(&st);
	return 1;
}

/* Drops every indication (on leaving the machine) (precomm.h). */
void pvmi_precomm_reset(void)
{
	while (npending)
		drop(npending - 1);
}

/* Indications pending now (precomm.h). */
int pvmi_precomm_pending(void)
{
	return npending;
}

/*
 * precomm.c - precommunication: pvm_indication() declares a coming send
 * with no data dependence, so the library does its work while the task
 * waits in a receive, and the send itself only releases it.
 *
 * The pattern is "pack A; indication(dest, tag); recv(token); send A":
 * the indication records (dest, tag, the active send buffer).  When a
 * blocking receive (pvm_recv, pvm_trecv with a timeout) finds nothing
 * and is about to wait, each pending indication is staged: route.c sends
 * the message on the direct circuit of dest as a HELD frame (the route
 * decided, the circuit opened, the header encoded, the body copied into
 * the kernel), which the receiver keeps aside, out of its queue.  The
 * later pvm_send(dest, tag) of the same, unchanged buffer sends only a
 * small RELEASE frame, and the receiver delivers the held message then.
 * Program order is kept: the receiver sees the message at the point of
 * its pvm_send, after every message sent before it on that circuit and
 * before every later one.
 *
 * Misuse:
 *   - an indication never followed by its send expires at the second
 *     blocking receive after it (the one after the receive that staged
 *     it), or when a newer indication names the same (tid, tag): the
 *     held copy is cancelled (a RELEASE frame with enc 0);  at pvm_exit
 *     the circuits close and the receivers free what they hold;
 *   - a pvm_send to (tid, tag) with another buffer, the same buffer
 *     packed further after the indication, or in another context, is a
 *     plain send and cancels the indication; sends matching no
 *     indication are plain and leave the others pending; pvm_mcast and
 *     pvm_psend never use indications;
 *   - a dead destination: staging fails quietly and the send reports as
 *     a plain send does today; a circuit that broke after staging took
 *     the held copy with it, and the send then goes plain;
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
#include "task_hooks.h"

#define PRECOMM_MAX	8

struct indication {
	int tid;
	int tag;
	int mid;			/* the send buffer it was made with */
	const struct pvmi_msg *m;	/* ... its message */
	size_t len;			/* ... and its length then */
	int seen;			/* a blocking receive began since */
	int staged;			/* sent held: its circuit keeps it
					 * (route.c) */
	int ctx;			/* ... in this context */
};

static struct indication pending[PRECOMM_MAX];
/* Indications pending now (pvm_send looks before it calls). */
int pvmi_precomm_n;

/* Removes pending[i], cancelling its held copy; keeps the others in
 * order. */
static void drop(int i)
{
	if (pending[i].staged)
		pvmi_route_release(pending[i].tid, pending[i].tag, 0);
	memmove(&pending[i], &pending[i + 1],
		(pvmi_precomm_n - i - 1) * sizeof(pending[0]));
	pvmi_precomm_n--;
}

/* The index of the indication for (tid, tag), or -1. */
static int find(int tid, int tag)
{
	int i;

	for (i = 0; i < pvmi_precomm_n; i++)
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
	if (pvmi_precomm_n == PRECOMM_MAX)
		return pvmi_error("pvm_indication", PvmNoMem);
	in = &pending[pvmi_precomm_n++];
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

	for (i = pvmi_precomm_n - 1; i >= 0; i--)
		if (pending[i].seen)
			drop(i);
	for (i = 0; i < pvmi_precomm_n; i++)
		pending[i].seen = 1;
}

/* The receive is about to wait: stages every indication not staged yet;
 * returns how many it tried (precomm.h). */
int pvmi_precomm_stage(void)
{
	struct indication *in;
	int i, tried = 0;

	for (i = 0; i < pvmi_precomm_n; i++) {
		in = &pending[i];
		if (in->staged || in->seen != 1 || !unchanged(in))
			continue;
		in->seen = 2;		/* tried: not again */
		tried++;
		if (pvmi_route_stage(in->m, in->tid, in->tag) == PvmOk) {
			in->staged = 1;
			in->ctx = pvmi.ctx;
		}
	}
	return tried;
}

/* pvmi_precomm_release() with an indication pending (precomm.h). */
int pvmi_precomm_release_pending(const struct pvmi_msg *m, int tid, int tag,
				 int *rc)
{
	int i = find(tid, tag);

	if (i < 0)
		return 0;
	if (!pending[i].staged || pending[i].m != m ||
	    pending[i].mid != m->mid || !unchanged(&pending[i]) ||
	    pending[i].ctx != pvmi.ctx) {
		drop(i);
		return 0;
	}
	pending[i].staged = 0;		/* released below, not cancelled */
	drop(i);
	*rc = pvmi_route_release(tid, tag, 1);
	if (*rc == PVMI_ROUTE_HELD_LOST)
		return 0;		/* its circuit went: send it plain */
	return 1;
}

/* Forgets every indication (on leaving the machine: the circuits close,
 * and their receivers free what they hold) (precomm.h). */
void pvmi_precomm_reset(void)
{
	pvmi_precomm_n = 0;
}

/* Indications pending now (precomm.h). */
int pvmi_precomm_pending(void)
{
	return pvmi_precomm_n;
}

/* Indications end when the task leaves (task_hooks.h). */
__attribute__((constructor)) static void precomm_hooks(void)
{
	pvmi_task_hook(PVMI_TASK_LEFT, pvmi_precomm_reset);
}

/*
 * route.h - the virtual circuit of every destination (route.c).
 */
#ifndef COPVM_ROUTE_H
#define COPVM_ROUTE_H

#include "msg.h"
#include "wire.h"

/* After REGISTER: takes the machine's secret and the REGISTER flags, and
 * adopts `tcp_fd' (a listener the daemon made, or -1). */
void pvmi_route_enrolled(const unsigned char *secret, int flags, int tcp_fd);
/* Forgets every circuit (on leaving the machine). */
void pvmi_route_reset(void);

/* pvmi_route_send() kept the message in this task: queued for ourselves,
 * or dropped because the task of this host is gone. */
#define PVMI_ROUTE_NOT_SENT	1
/* pvmi_route_send() dropped the message on a direct circuit with a task
 * of another host that broke or is gone: sent, as stock counts it for a
 * task that exited, unless that host left the machine (the caller asks
 * hostwatch.c). */
#define PVMI_ROUTE_DROPPED	3

/* Sends message `m' to task `tid' (a valid tid) with `tag' in the
 * current context over the circuit of `tid', deciding it at the first
 * message.  Returns PvmOk when the message went out, PVMI_ROUTE_NOT_SENT,
 * PVMI_ROUTE_DROPPED, or an error code (PvmSysErr: the daemon is
 * unreachable; PvmNoMem). */
int pvmi_route_send(struct pvmi_msg *m, int tid, int tag);

/* pvmi_route_send_fast() took nothing: send the message with
 * pvmi_route_send(). */
#define PVMI_ROUTE_SLOW		4

/* The short way of pvmi_route_send() for a flat message (one fragment
 * or none) on an established circuit of this host whose transport takes
 * a whole frame at once (shm's ring), its header prebuilt for this
 * source and context, the link between frames and no held frame on it.
 * Returns as pvmi_route_send(), or PVMI_ROUTE_SLOW when any of that does
 * not hold or the transport cannot take the frame now (ring full): then
 * nothing was sent, and pvmi_route_send() keeps the order. */
int pvmi_route_send_fast(const struct pvmi_msg *m, int tid, int tag);

/* Sends message `m' with `tag' to each of the `n' tasks of `tids' (valid
 * tids, no repeats), rcs[i] getting what pvmi_route_send() would return
 * for tids[i].  The copies for direct circuits over io_uring are all
 * started, in one submission, before it waits for any (route.c). */
void pvmi_route_mcast(struct pvmi_msg *m, const int *tids, int n, int tag,
		      int *rcs);
/* pvmi_route_release(): the circuit the held message went on is gone
 * (and the held copy with it), or nothing is held for it; the message
 * must be sent plain. */
#define PVMI_ROUTE_HELD_LOST	2

/* Sends `m' to task `tid' with `tag' in the current context as a HELD
 * frame on the direct circuit of `tid' (opened if needed), which the
 * receiver keeps out of its queue until pvmi_route_release(); the
 * circuit remembers it (its precommunication queue), one per tag.
 * PvmOk; PVMI_ROUTE_NOT_SENT when nothing was sent (for ourselves,
 * through the daemons, PvmDataInPlace data, or the task is gone: send it
 * plain later); PvmNoMem. */
int pvmi_route_stage(const struct pvmi_msg *m, int tid, int tag);
/* Releases (go != 0: the receiver delivers it now) or cancels (go == 0)
 * the message held for (`tid', `tag') on the circuit of `tid', which
 * forgets it.  Returns as pvmi_route_send(), or PVMI_ROUTE_HELD_LOST. */
int pvmi_route_release(int tid, int tag, int go);

#endif /* COPVM_ROUTE_H */

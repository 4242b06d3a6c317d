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

/* Sends message `m' to task `tid' (a valid tid) with `tag' in the
 * current context over the circuit of `tid', deciding it at the first
 * message.  Returns PvmOk when the message went out (also when it was
 * dropped on a direct route that died), PVMI_ROUTE_NOT_SENT, or an error
 * code (PvmSysErr: the daemon is unreachable; PvmNoMem). */
int pvmi_route_send(struct pvmi_msg *m, int tid, int tag);

/* A message prepared ahead of its send (precommunication, precomm.c):
 * its encoded header and its body gathered into one packet buffer. */
struct pvmi_route_staged {
	int tid;
	int tag;
	int enc;
	size_t len;
	unsigned char *body;		/* from bufcache.h; NULL: empty */
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
};

/* Decides the route of `tid', opens its circuit if it is a task of this
 * host, and stages a copy of `m' with its header in *st; nothing is
 * sent.  PvmOk; PVMI_ROUTE_NOT_SENT when this message is not staged (for
 * ourselves, through the daemons, borrowed PvmDataInPlace data, or the
 * circuit does not open: the send then goes the plain way); PvmNoMem. */
int pvmi_route_stage(const struct pvmi_msg *m, int tid, int tag,
		     struct pvmi_route_staged *st);
/* Sends what pvmi_route_stage() staged over the circuit of st->tid and
 * frees the packet; returns as pvmi_route_send(). */
int pvmi_route_send_staged(struct pvmi_route_staged *st);
/* Frees the packet of a staged message that will not be sent. */
void pvmi_route_unstage(struct pvmi_route_staged *st);

#endif /* COPVM_ROUTE_H */

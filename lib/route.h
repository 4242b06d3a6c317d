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

#endif /* COPVM_ROUTE_H */

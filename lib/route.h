/*
 * route.h - routes to tasks of other hosts (route.c).
 */
#ifndef COPVM_ROUTE_H
#define COPVM_ROUTE_H

#include "msg.h"
#include "wire.h"

/* After REGISTER: takes the machine's secret and the REGISTER flags, and
 * adopts `tcp_fd' (a listener the daemon made, or -1). */
void pvmi_route_enrolled(const unsigned char *secret, int flags, int tcp_fd);
/* Forgets every route (on leaving the machine). */
void pvmi_route_reset(void);
/* Sends frame `f' with message `m' to task `dst' of another host over
 * the route chosen for it; PvmOk (also when the message is dropped for a
 * task that is gone) or PvmSysErr. */
int pvmi_route_send(int dst, struct pvmi_frame *f, const struct pvmi_msg *m);

#endif /* COPVM_ROUTE_H */

/*
 * daemon_link.h - the link to this host's pvmd (daemon_link.c): opening
 * it, frames relayed through the daemon, and control requests with their
 * replies.
 */
#ifndef COPVM_DAEMON_LINK_H
#define COPVM_DAEMON_LINK_H

#include "codec.h"
#include "msg.h"
#include "wire.h"

/* Connects to the pvmd of this host.  Returns PvmOk, PvmSysErr when
 * no daemon answers (the caller may start one and retry), PvmDenied when
 * the socket is served by another user's process (the reason printed). */
int pvmi_conn_daemon_open(void);
/* Non-zero while the link to the daemon is up. */
int pvmi_conn_daemon_up(void);

/* Sends frame `f' (message `m') to the daemon, which hands it on to its
 * destination (the default route to a task of another host).  PvmOk or
 * PvmSysErr when the daemon is gone. */
int pvmi_conn_send_daemon(struct pvmi_frame *f, const struct pvmi_msg *m);

/* Sends control request `op' with body `req' to the daemon and waits for
 * its reply, whose body `rep' reads until the next call.  Returns PvmOk or
 * PvmSysErr when the daemon is unreachable. */
int pvmi_call(int op, const struct pvmi_wbuf *req, struct pvmi_rbuf *rep);

#endif /* COPVM_DAEMON_LINK_H */

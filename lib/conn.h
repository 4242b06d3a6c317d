/*
 * conn.h - this task's connections: the link to its pvmd, its listening
 * endpoint, circuits it opened to other tasks (the virtual-circuit cache)
 * and circuits other tasks opened to it.
 *
 * conn.c frames and reassembles messages; complete user messages go to
 * recv.c through pvmi_rxq_deliver(), daemon replies to pvmi_call().
 * Nothing here calls user code, so it is safe to pump from inside a send.
 */
#ifndef COPVM_CONN_H
#define COPVM_CONN_H

#include <stddef.h>
#include <sys/uio.h>

#include "codec.h"
#include "msg.h"
#include "wire.h"

/* Connects to the pvmd of this host.  Returns PvmOk, PvmSysErr when
 * no daemon answers (the caller may start one and retry), PvmDenied when
 * the socket is served by another user's process (the reason printed). */
int pvmi_conn_daemon_open(void);
/* Non-zero while the link to the daemon is up. */
int pvmi_conn_daemon_up(void);
/* Adopts listening fd `fd' as this task's endpoint. */
void pvmi_conn_set_listener(int fd);
/* Closes every link and the endpoint; with `unlink_tid' != 0 also
 * removes that task's endpoint name. */
void pvmi_conn_close_all(int unlink_tid);

/* Sends frame `f' with body `m' (NULL: empty) to task `dst' over its
 * cached circuit, opening one if needed.  Blocks until the frame is
 * handed to the kernel, reading incoming frames meanwhile.  Returns PvmOk,
 * PvmNoTask when the task has no endpoint or vanished, or PvmSysErr. */
int pvmi_conn_send(int dst, struct pvmi_frame *f, const struct pvmi_msg *m);

/* Sends frame `f' (message `m') to the daemon, which hands it on to its
 * destination (the default route to a task of another host).  PvmOk or
 * PvmSysErr when the daemon is gone. */
int pvmi_conn_send_daemon(struct pvmi_frame *f, const struct pvmi_msg *m);
/* Sends frame `f' on the direct TCP circuit with task `dst'; PvmOk, or
 * PvmNoTask when there is no such circuit (any more). */
int pvmi_conn_send_tcp(int dst, struct pvmi_frame *f,
		       const struct pvmi_msg *m);
/* Non-zero when an authenticated TCP circuit with task `tid' is up. */
int pvmi_conn_tcp_up(int tid);
/* Connects to task `tid' at `addr':`port' and runs the handshake,
 * reading other input meanwhile, for at most `timeout_ms'.  PvmOk once
 * the circuit is up, else PvmSysErr (no circuit is left behind). */
int pvmi_conn_tcp_open(int tid, const char *addr, int port, int timeout_ms);
/* Makes sure this task listens on TCP; returns the port, 0 on failure. */
int pvmi_conn_tcp_listen(void);
/* Adopts listening TCP socket `fd' (made by the daemon that spawned us). */
void pvmi_conn_tcp_adopt(int fd);
/* Sets the machine's secret, which TCP circuits must prove. */
void pvmi_conn_set_secret(const unsigned char *key);
/* Waits up to `timeout_ms' until every TCP circuit's sent data has been
 * acknowledged by the other host (before telling the daemon we leave). */
void pvmi_conn_tcp_drain(int timeout_ms);

/* Waits up to `timeout_ms' (-1: no limit) for incoming data and reads all
 * complete frames.  Returns 1 if anything was read or accepted, 0 on
 * timeout, PvmSysErr when nothing can ever arrive (no links left). */
int pvmi_pump(int timeout_ms);

/* Sends control request `op' with body `req' to the daemon and waits for
 * its reply, whose body `rep' reads until the next call.  Returns PvmOk or
 * PvmSysErr when the daemon is unreachable. */
int pvmi_call(int op, const struct pvmi_wbuf *req, struct pvmi_rbuf *rep);

/* Stores the fds the library waits on in a static array; returns the
 * count (the daemon link first). */
int pvmi_conn_fds(int **fds);

/* Provided by recv.c: takes ownership of a complete incoming message. */
void pvmi_rxq_deliver(struct pvmi_msg *m);

#endif /* COPVM_CONN_H */

/*
 * conn_tcp.h - direct TCP circuits with tasks of other hosts
 * (conn_tcp.c): the listener, the handshake under the machine's secret,
 * opening and using a circuit.
 */
#ifndef COPVM_CONN_TCP_H
#define COPVM_CONN_TCP_H

#include "msg.h"
#include "wire.h"

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

#endif /* COPVM_CONN_TCP_H */

/*
 * conn_tcp.h - direct TCP circuits with tasks of other hosts
 * (conn_tcp.c): the listener, the handshake under the machine's secret,
 * opening and using a circuit.
 */
#ifndef COPVM_CONN_TCP_H
#define COPVM_CONN_TCP_H

#include "conn.h"
#include "msg.h"
#include "wire.h"

/* The authenticated TCP circuit with task `tid', or NULL (a scan of the
 * links: route.c remembers what it finds). */
struct link *pvmi_conn_tcp_link(int tid);
/* Ends the circuits with the tasks of host `dtid', which left the
 * machine: they are freed by the next sweep of conn.c. */
void pvmi_conn_tcp_host_gone(int dtid);
/* Non-zero while link `l' is an authenticated TCP circuit that is up. */
int pvmi_conn_tcp_usable(const struct link *l);
/* Connects to task `tid' at `addr':`port' over transport `tp' (uring or
 * tcp: route.c decides) and runs the handshake, reading other input
 * meanwhile, for at most `timeout_ms'.  PvmOk once the circuit is up,
 * else PvmSysErr or PvmNoMem (no circuit is left behind). */
int pvmi_conn_tcp_open(int tid, const char *addr, int port,
		       const struct pvmi_transport *tp, int timeout_ms);
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

/*
 * recv.h - receive-queue helpers used by other modules of libpvm3.
 */
#ifndef COPVM_RECV_H
#define COPVM_RECV_H

#include "msg.h"

/* Takes ownership of a complete incoming message (the sink of conn.c). */
void pvmi_rxq_deliver(struct pvmi_msg *m);
/* Frees every queued message (in a forked child). */
void pvmi_rxq_flush(void);
/* Forgets queued messages and message handlers (on leaving, as stock). */
void pvmi_recv_reset(void);
/* Consumes library-internal messages (caught output); returns non-zero
 * when `m' was one of them and has been taken. */
int pvmi_output_take(struct pvmi_msg *m);
/* hostwatch.c: takes a HOSTSTATE message from our daemon (1 when `m'
 * was one, and is freed, else 0); says whether task `tid''s host has
 * left the machine; forgets the lost hosts (on leaving). */
int pvmi_hostwatch_take(struct pvmi_msg *m);
int pvmi_hostwatch_lost(int tid);
void pvmi_hostwatch_reset(void);

#endif /* COPVM_RECV_H */

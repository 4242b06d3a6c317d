/*
 * recv.h - receive-queue helpers used by other modules of libpvm3.
 */
#ifndef COPVM_RECV_H
#define COPVM_RECV_H

#include "msg.h"

/* Frees every queued message (on leaving the machine). */
/* Takes ownership of a complete incoming message (the sink of conn.c). */
void pvmi_rxq_deliver(struct pvmi_msg *m);
void pvmi_rxq_flush(void);
/* Forgets queued messages and message handlers (on leaving, as stock). */
void pvmi_recv_reset(void);
/* Consumes library-internal messages (caught output); returns non-zero
 * when `m' was one of them and has been taken. */
int pvmi_output_take(struct pvmi_msg *m);

#endif /* COPVM_RECV_H */

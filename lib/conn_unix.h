/*
 * conn_unix.h - circuits with tasks of this host (conn_unix.c): this
 * task's unix endpoint and the circuits it opens to other tasks.
 */
#ifndef COPVM_CONN_UNIX_H
#define COPVM_CONN_UNIX_H

#include "conn.h"

/* Adopts listening fd `fd' as this task's unix endpoint. */
void pvmi_conn_set_listener(int fd);
/* Opens a circuit to task `tid' of this host (a LINK_OUT link) and puts
 * it in *lp.  PvmOk, PvmNoTask when the task has no endpoint (gone or
 * never existed), PvmOutOfRes when it or we are out of descriptors (its
 * backlog full, our socket() refused), PvmNoMem or PvmSysErr. */
int pvmi_conn_unix_open(int tid, struct link **lp);

/* Sends frame `f' with body `m' (NULL: empty) on outbound circuit `l';
 * `hdr': the frame's header already encoded, or NULL.
 * Blocks until the frame is handed to the kernel, reading incoming
 * frames meanwhile.  Returns PvmOk, PvmNoMem, or PvmNoTask when the task
 * vanished (`l' is then freed). */
int pvmi_conn_unix_send(struct link *l, struct pvmi_frame *f,
			const unsigned char *hdr, const struct pvmi_msg *m);
/* Non-zero when task `tid' of this host is out of descriptors (it marked
 * itself busy): a new circuit to it would wait unaccepted. */
int pvmi_conn_unix_busy(int tid);

#endif /* COPVM_CONN_UNIX_H */

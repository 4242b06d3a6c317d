/*
 * conn_unix.h - circuits with tasks of this host (conn_unix.c): this
 * task's unix endpoint and the circuits it opens to other tasks.
 */
#ifndef COPVM_CONN_UNIX_H
#define COPVM_CONN_UNIX_H

#include "conn.h"

/* Adopts listening fd `fd' as this task's unix endpoint. */
void pvmi_conn_set_listener(int fd);
/* Opens a circuit to task `tid' of this host (a LINK_OUT link) whose
 * frames transport `tp' carries (shm or unix: route.c decides), and puts
 * it in *lp.  PvmOk, PvmNoTask when the task has no endpoint (gone or
 * never existed), PvmOutOfRes when it or we are out of descriptors (its
 * backlog full, our socket() refused), PvmNoMem or PvmSysErr.  Never
 * blocks. */
int pvmi_conn_unix_open(int tid, const struct pvmi_transport *tp,
			struct link **lp);
/* Non-zero when task `tid' of this host is out of descriptors (it marked
 * itself busy): a new circuit to it would wait unaccepted. */
int pvmi_conn_unix_busy(int tid);

#endif /* COPVM_CONN_UNIX_H */

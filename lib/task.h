/*
 * task.h - enrolment of this process as a PVM task.
 */
#ifndef COPVM_TASK_H
#define COPVM_TASK_H

#include "pvmi.h"

/* pvmi_attach() when this process is not known to be enrolled. */
int pvmi_attach_slow(void);

/* Enrols the process (once; again after fork).  Returns PvmOk, PvmSysErr
 * when no daemon can be reached or started, or the daemon's error.
 * Every call on the message path asks: enrolled, it is one load. */
static inline int pvmi_attach(void)
{
	return pvmi_here ? PvmOk : pvmi_attach_slow();
}
/* Leaves the machine; tells the daemon when `tell_daemon'. */
void pvmi_detach(int tell_daemon);
struct pvmi_wbuf;
struct pvmi_rbuf;
/* Enrols, sends daemon request `op' with body `w' (then freed) and reads
 * the reply's status into the return value (or a transport error); the
 * rest of the reply is left in `r'. */
int pvmi_request(int op, struct pvmi_wbuf *w, struct pvmi_rbuf *r);

#endif /* COPVM_TASK_H */

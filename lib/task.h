/*
 * task.h - enrolment of this process as a PVM task.
 */
#ifndef COPVM_TASK_H
#define COPVM_TASK_H

/* Enrols the process (once; again after fork).  Returns PvmOk, PvmSysErr
 * when no daemon can be reached or started, or the daemon's error. */
int pvmi_attach(void);
/* Leaves the machine; tells the daemon when `tell_daemon'. */
void pvmi_detach(int tell_daemon);
/* Runs copvm's pvmd with `argv' and waits until it is ready (bounded
 * when the program is no copvm pvmd).  PvmOk or error (pvmd_start.c). */
int pvmi_start_daemon(int argc, char **argv);
/* The pvmd the library starts: writes its path into `buf'; returns 1, or
 * 0 when there is no copvm pvmd to start (pvmd_start.c). */
int pvmi_pvmd_path(char *buf, size_t len);
struct pvmi_wbuf;
struct pvmi_rbuf;
/* Enrols, sends daemon request `op' with body `w' (then freed) and reads
 * the reply's status into the return value (or a transport error); the
 * rest of the reply is left in `r'. */
int pvmi_request(int op, struct pvmi_wbuf *w, struct pvmi_rbuf *r);
/* Writes "PVMTMASK=...", "PVMTRCBUF=...", "PVMTRCOPT=..." (the trace
 * settings a child inherits) into `w', nothing when `dry'; returns 3. */
int pvmi_trace_env(struct pvmi_wbuf *w, int dry);

#endif /* COPVM_TASK_H */

/*
 * rundir_check.h - the library's one-line guards of its run directory
 * and of the sockets it connects to (the checks are common/rundir.c's).
 */
#ifndef COPVM_RUNDIR_CHECK_H
#define COPVM_RUNDIR_CHECK_H

/* Makes or checks $PVM_TMP/copvm-<uid>: nobody else may control it.
 * Returns PvmOk, or PvmDenied with the reason printed on stderr. */
int pvmi_rundir_verify(void);

/* Checks that connected unix socket `fd' (bound at `path') is served by
 * a process of our uid.  Returns PvmOk, or PvmDenied with the reason
 * printed on stderr. */
int pvmi_peer_verify(int fd, const char *path);

#endif

/*
 * rundir_check.h - the library's one-line guards of its run directory
 * and of the sockets it connects to (the checks are common/rundir.c's),
 * and the session directory where its machine's task sockets are.
 */
#ifndef COPVM_RUNDIR_CHECK_H
#define COPVM_RUNDIR_CHECK_H

#include <stddef.h>

/* Makes or checks $PVM_TMP/copvm-<uid>: nobody else may control it.
 * Returns PvmOk, or PvmDenied with the reason printed on stderr. */
int pvmi_rundir_verify(void);

/* Checks that connected unix socket `fd' (bound at `path') is served by
 * a process of our uid.  Returns PvmOk, or PvmDenied with the reason
 * printed on stderr. */
int pvmi_peer_verify(int fd, const char *path);

/* Records the session id REGISTER gave (`len' bytes, big-endian), which
 * names the directory of this machine's task sockets (proto.h). */
void pvmi_session_set(const unsigned char *id, size_t len);

/* The directory of the task sockets of our session: "<rundir>/s<id>",
 * or the run directory itself before any enrolment.  A static string. */
const char *pvmi_sessdir(void);

#endif

/*
 * rundir_path.h - the path of the per-user run directory (rundir_path.c),
 * a leaf every part of the library may use: the daemon's socket, the
 * tasks' sockets and the coscheduling pages live under it.
 */
#ifndef COPVM_RUNDIR_PATH_H
#define COPVM_RUNDIR_PATH_H

/* The per-user directory "$PVM_TMP/copvm-<uid>" ($PVM_TMP unset or empty:
 * /tmp), as a static string computed once; never NULL.  It names the
 * directory only: rundir_check.c checks that it is safe to use. */
const char *pvmi_rundir(void);

#endif /* COPVM_RUNDIR_PATH_H */

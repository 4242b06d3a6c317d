/*
 * rundir.h - the checks that keep another user out of a task's and a
 * daemon's run directory $PVM_TMP/copvm-<uid>, and off its sockets.
 *
 * The run directory holds the daemon's socket and every task's socket.
 * Whoever controls it, or a directory above it, can stand in for the
 * daemon or for a task, or make us delete a file through a symbolic link.
 * So, before anything in it is used:
 *   - $PVM_TMP and every directory above it (as given, and resolved)
 *     must belong to us or root, and must not be writable by group or
 *     others unless sticky (then nobody but us can rename our entries);
 *   - copvm-<uid> is created 0700, then opened without following a link
 *     and checked: a directory, ours, no access for group or others.
 * With both, path names under the directory cannot be redirected by
 * another user, so the code that binds and connects by name is safe.
 * A socket we connect to must then also be served by a process of our
 * uid (SO_PEERCRED): our files may still be reached by root's tasks.
 *
 * Every function returns 0 (or an fd) on success, else a negative errno
 * and a one-line reason in `why' (for the caller to print).
 */
#ifndef COPVM_RUNDIR_H
#define COPVM_RUNDIR_H

#include <stddef.h>
#include <sys/types.h>

#define COPVM_WHY_LEN	512

/* Checks that directory `tmp' and every directory above it are safe for
 * `uid' (see above).  Returns 0, or -EPERM/-errno with `why' filled. */
int copvm_tmp_check(const char *tmp, uid_t uid, char *why, size_t whylen);

/* Checks $PVM_TMP (default /tmp), makes or checks $PVM_TMP/copvm-<uid>,
 * writes its path into `dir'.  Returns an O_DIRECTORY fd on it (close-on-
 * exec), or a negative errno with `why' filled. */
int copvm_rundir_open(uid_t uid, char *dir, size_t dirlen, char *why,
		      size_t whylen);

/* Checks that the process at the other end of unix socket `fd' runs as
 * `uid'.  Returns 0, or -EPERM/-errno with `why' filled. */
int copvm_peer_check(int fd, uid_t uid, const char *what, char *why,
		     size_t whylen);

#endif

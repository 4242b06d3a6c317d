/*
 * rundir.c - the ownership and mode checks of $PVM_TMP, of the run
 * directory $PVM_TMP/copvm-<uid> and of the peers of its sockets
 * (rundir.h says why each is needed).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto.h"
#include "rundir.h"

static int __attribute__((format(printf, 4, 5)))
fail(int err, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -err;
}

/* A directory nobody but `uid' and root can change the entries of. */
static int dir_safe(const char *path, const struct stat *st, uid_t uid,
		    char *why, size_t whylen)
{
	if (!S_ISDIR(st->st_mode))
		return fail(ENOTDIR, why, whylen, "%s is not a directory",
			    path);
	if (st->st_uid != uid && st->st_uid != 0)
		return fail(EPERM, why, whylen, "%s belongs to uid %u, not to "
			    "uid %u or root; refusing to use it", path,
			    (unsigned)st->st_uid, (unsigned)uid);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return fail(EPERM, why, whylen, "%s is writable by other users "
			    "and not sticky (mode %04o); refusing to use it",
			    path, (unsigned)(st->st_mode & 07777));
	return 0;
}

/* Checks `path' (absolute) and every directory above it. */
static int chain_safe(const char *path, uid_t uid, char *why, size_t whylen)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t i, n = strlen(path);
	int rc;

	if (n >= sizeof(buf))
		return fail(ENAMETOOLONG, why, whylen, "%s: path too long",
			    path);
	for (i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		/* the prefix up to here; "/" for the first */
		memcpy(buf, path, i);
		buf[i] = '\0';
		if (stat(buf, &st) < 0)
			return fail(errno, why, whylen, "cannot stat %s: %s",
				    buf, strerror(errno));
		rc = dir_safe(buf, &st, uid, why, whylen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Checks that directory `tmp' and every directory above it are safe for
 * `uid' (rundir.h). */
int copvm_tmp_check(const char *tmp, uid_t uid, char *why, size_t whylen)
{
	char real[PATH_MAX];
	int rc = 0;

	if (tmp[0] == '/')
		rc = chain_safe(tmp, uid, why, whylen);
	if (rc < 0)
		return rc;
	/* a buffer, not NULL: the sanitizers' realpath, when their runtime
	 * is loaded late (a program not built with them), takes glibc's
	 * oldest realpath, which refuses NULL */
	if (!realpath(tmp, real))
		return fail(errno, why, whylen, "PVM_TMP %s: %s", tmp,
			    strerror(errno));
	return chain_safe(real, uid, why, whylen);
}

/* Checks $PVM_TMP, makes or checks the run directory and opens it
 * (rundir.h). */
int copvm_rundir_open(uid_t uid, char *dir, size_t dirlen, char *why,
		      size_t whylen)
{
	const char *tmp = getenv("PVM_TMP");
	struct stat st;
	int n, fd, rc;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(dir, dirlen, PVMI_DIR_FMT, tmp, (unsigned)uid);
	if (n < 0 || (size_t)n >= dirlen)
		return fail(ENAMETOOLONG, why, whylen, "PVM_TMP is too long: "
			    "%s", tmp);
	rc = copvm_tmp_check(tmp, uid, why, whylen);
	if (rc < 0)
		return rc;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return fail(errno, why, whylen, "cannot create %s: %s", dir,
			    strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return fail(EPERM, why, whylen, "%s is not a directory "
				    "(a symbolic link?); refusing to use it",
				    dir);
		return fail(errno, why, whylen, "cannot open %s: %s", dir,
			    strerror(errno));
	}
	rc = 0;
	if (fstat(fd, &st) < 0)
		rc = fail(errno, why, whylen, "cannot stat %s: %s", dir,
			  strerror(errno));
	else if (st.st_uid != uid)
		rc = fail(EPERM, why, whylen, "%s belongs to uid %u, not to us "
			  "(uid %u); refusing to use it", dir,
			  (unsigned)st.st_uid, (unsigned)uid);
	else if (st.st_mode & 077)
		rc = fail(EPERM, why, whylen, "%s is open to other users "
			  "(mode %04o, must be 0700); refusing to use it", dir,
			  (unsigned)(st.st_mode & 07777));
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Checks the uid of the process at the other end of `fd' (rundir.h). */
int copvm_peer_check(int fd, uid_t uid, const char *what, char *why,
		     size_t whylen)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return fail(errno, why, whylen, "%s: SO_PEERCRED: %s", what,
			    strerror(errno));
	if (cred.uid != uid)
		return fail(EPERM, why, whylen, "%s is served by uid %u (pid "
			    "%ld), not by us (uid %u); refusing it", what,
			    (unsigned)cred.uid, (long)cred.pid, (unsigned)uid);
	return 0;
}

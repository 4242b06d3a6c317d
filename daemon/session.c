/*
 * session.c - the daemon run's session: a random 64-bit id drawn at
 * start-up, the directory copvm-<uid>/s<id>/ that holds the sockets of
 * this run's tasks, and the removal of what earlier runs left there
 * (proto.h says why tasks must not outlive their session).
 *
 * Everything is done relative to the checked run directory's fd
 * (pvmd.dirfd, common/rundir.c), never following a symbolic link, and
 * only while this daemon holds the one-daemon-per-user lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"

/* Non-zero when `name' is 1 + `n' lowercase hex digits after `c'. */
static int named(const char *name, char c, size_t n)
{
	size_t len = strlen(name);

	if (name[0] != c || len < 2 || (n && len != n + 1))
		return 0;
	return strspn(name + 1, "0123456789abcdef") == len - 1;
}

/* Removes the sockets in session directory `name' of an earlier run,
 * then the directory.  Only sockets are expected there. */
static void remove_session(const char *name)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	fd = openat(pvmd.dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode) && unlinkat(fd, e->d_name, 0) < 0)
			pvmd_log("cannot remove %s/%s/%s: %s", pvmd.dir, name,
				 e->d_name, strerror(errno));
	}
	closedir(d);
	if (unlinkat(pvmd.dirfd, name, AT_REMOVEDIR) < 0)
		pvmd_log("cannot remove %s/%s: %s", pvmd.dir, name,
			 strerror(errno));
}

/* Removes the task sockets and session directories of earlier runs. */
static void remove_stale(void)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd, n = 0;

	fd = dup(pvmd.dirfd);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (fstatat(pvmd.dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (named(e->d_name, 's', 16) && S_ISDIR(st.st_mode)) {
			remove_session(e->d_name);
			n++;
		} else if (named(e->d_name, 't', 0) && S_ISSOCK(st.st_mode)) {
			/* a task socket of copvm before sessions */
			unlinkat(pvmd.dirfd, e->d_name, 0);
			n++;
		}
	}
	closedir(d);
	if (n)
		pvmd_log("removed %d session(s) and socket(s) of earlier "
			 "runs", n);
}

/* Draws this run's session id, clears what earlier runs left and makes
 * the session's directory.  Returns 0, or -1 with errno set. */
int pvmd_session_start(void)
{
	unsigned char b[PVMI_SESSION_LEN];
	int i, n;

	if (pvmi_random(b, sizeof(b)) < 0)
		return -1;
	pvmd.session = 0;
	for (i = 0; i < PVMI_SESSION_LEN; i++)
		pvmd.session = pvmd.session << 8 | b[i];
	n = snprintf(pvmd.sessname, sizeof(pvmd.sessname), PVMI_SESSION_FMT,
		     (unsigned long long)pvmd.session);
	if (n < 0 || (size_t)n >= sizeof(pvmd.sessname))
		return errno = ENAMETOOLONG, -1;
	n = snprintf(pvmd.sessdir, sizeof(pvmd.sessdir), "%s/%s", pvmd.dir,
		     pvmd.sessname);
	if (n < 0 || (size_t)n >= sizeof(pvmd.sessdir))
		return errno = ENAMETOOLONG, -1;
	remove_stale();
	return mkdirat(pvmd.dirfd, pvmd.sessname, 0700);
}

/* Removes this run's session directory (its sockets are gone by then). */
void pvmd_session_end(void)
{
	if (pvmd.sessname[0])
		remove_session(pvmd.sessname);
}

/* Writes this run's session id into a REGISTER reply (proto.h). */
void pvmd_session_write(struct pvmi_wbuf *w)
{
	unsigned char b[PVMI_SESSION_LEN];
	int i;

	for (i = 0; i < PVMI_SESSION_LEN; i++)
		b[i] = pvmd.session >> (8 * (PVMI_SESSION_LEN - 1 - i));
	pvmi_w_bytes(w, b, sizeof(b));
}

/*
 * gang_jobs.c - the EXP jobs of this node, so that their slots take turns
 * (gang.c, exp_job_slot_at).  A job is one user's virtual machine.
 *
 * Every daemon running EXP with tasks holds an entry in a directory that
 * the node's users share, COPVM_EXP_JOBS_DIR (default /tmp/copvm-exp-jobs,
 * made sticky and writable by all, as /tmp is): a file "UID.PID" that it
 * keeps locked (flock) while it has tasks, and removes when it has none.
 * The users whose entries are locked and owned by the uid their names
 * give are the node's EXP jobs; each daemon runs its tasks in the part of
 * the PS of its uid's rank among them (by uid), so the hosts of a job
 * agree on the part when the same users run on them.  One user's daemons
 * (several virtual machines) share its part.
 *
 * Only a uid can make entries of its own, and a user counts once however
 * many it makes, so no user can take more than one part of the PS.  The
 * owner of the directory can remove others' entries; the worst it can do
 * is make two jobs share a part, as they did before turns.  A directory
 * that is not a sticky directory writable by all is not used: EXP then
 * runs as if its job were alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pvmd.h"

#define JOBS_DIR_DEFAULT	"/tmp/copvm-exp-jobs"
#define JOBS_MAX_USERS		256

static int jobs_on = -1;		/* -1: settings not read yet */
static char dir_path[256];
static int dir_fd = -1;
static int entry_fd = -1;		/* our locked entry, or -1 */
static char entry_name[48];
static int last_rank = -1, last_n = -1;	/* logged when they change */

/* Opens and checks the directory; 0 when it is usable.  `quiet' after
 * the first complaint, since it is tried again every period (a daemon
 * that made it a moment ago may not have made it sticky yet). */
static int dir_open(int quiet)
{
	struct stat st;

	if (mkdir(dir_path, 0777) == 0)
		chmod(dir_path, 01777);
	dir_fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
	if (dir_fd < 0 || fstat(dir_fd, &st) < 0) {
		if (!quiet)
			pvmd_log("EXP: jobs directory %s: %s: our job runs "
				 "as if alone", dir_path, strerror(errno));
	} else if (!(st.st_mode & S_ISVTX) || (st.st_mode & 0777) != 0777) {
		if (!quiet)
			pvmd_log("EXP: jobs directory %s is not sticky and "
				 "writable by all (mode %o): our job runs as "
				 "if alone", dir_path,
				 (unsigned)(st.st_mode & 07777));
	} else {
		return 0;
	}
	if (dir_fd >= 0)
		close(dir_fd);
	dir_fd = -1;
	return -1;
}

/* Reads COPVM_EXP_JOBS ("turns", the default, or "together") and the
 * directory once; opens the directory until it is usable.  Returns 1 if
 * turns are taken. */
static int jobs_setup(void)
{
	static int complained;
	const char *mode, *d;

	if (jobs_on < 0) {
		mode = getenv("COPVM_EXP_JOBS");
		d = getenv("COPVM_EXP_JOBS_DIR");
		jobs_on = !mode || !*mode || !strcasecmp(mode, "turns");
		if (!jobs_on && strcasecmp(mode, "together"))
			pvmd_log("EXP: COPVM_EXP_JOBS=%s is neither turns "
				 "nor together: together", mode);
		snprintf(dir_path, sizeof(dir_path), "%s",
			 d && *d ? d : JOBS_DIR_DEFAULT);
	}
	if (!jobs_on)
		return 0;
	if (dir_fd < 0 && dir_open(complained) < 0) {
		complained = 1;
		return 0;
	}
	return 1;
}

/* Makes and locks our entry, if not held yet. */
static void entry_hold(void)
{
	if (entry_fd >= 0 || dir_fd < 0)
		return;
	snprintf(entry_name, sizeof(entry_name), "%u.%d",
		 (unsigned)getuid(), (int)getpid());
	unlinkat(dir_fd, entry_name, 0);	/* a dead daemon's, same pid */
	entry_fd = openat(dir_fd, entry_name, O_RDONLY | O_CREAT | O_EXCL |
			  O_NOFOLLOW | O_CLOEXEC, 0644);
	if (entry_fd < 0) {
		pvmd_log("EXP: jobs entry %s/%s: %s", dir_path, entry_name,
			 strerror(errno));
		return;
	}
	if (flock(entry_fd, LOCK_EX | LOCK_NB) < 0) {
		pvmd_log("EXP: jobs entry %s/%s: flock: %s", dir_path,
			 entry_name, strerror(errno));
		close(entry_fd);
		entry_fd = -1;
		unlinkat(dir_fd, entry_name, 0);
	}
}

/* Removes our entry: we have no task, or we stop. */
void pvmd_gang_jobs_leave(void)
{
	if (entry_fd < 0)
		return;
	unlinkat(dir_fd, entry_name, 0);
	close(entry_fd);
	entry_fd = -1;
}

/* Whether entry `name' is a live daemon's: owned by the uid its name
 * gives, and locked.  Sets *uid.  Our own uid's dead entries go. */
static int entry_live(const char *name, unsigned *uid)
{
	struct stat st;
	int pid, n = 0, fd, live;

	if (sscanf(name, "%u.%d%n", uid, &pid, &n) != 2 || name[n] ||
	    pid <= 0)
		return 0;
	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != (uid_t)*uid) {
		close(fd);
		return 0;
	}
	live = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	if (!live && *uid == (unsigned)getuid())
		unlinkat(dir_fd, name, 0);
	return live;
}

/* Our job's turn among the node's EXP jobs, with tasks or not: sets
 * *rank (from 0) and *njobs.  Called once a period; one job (rank 0 of 1)
 * when turns are not taken or the directory cannot be read. */
void pvmd_gang_jobs_turn(int have_tasks, int *rank, int *njobs)
{
	unsigned uids[JOBS_MAX_USERS], uid, me = (unsigned)getuid();
	int n = 0, below = 0, i, fd;
	struct dirent *e;
	DIR *d;

	*rank = 0;
	*njobs = 1;
	if (!jobs_setup())
		return;
	if (!have_tasks) {
		pvmd_gang_jobs_leave();
		return;
	}
	entry_hold();
	fd = dup(dir_fd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((e = readdir(d)) != NULL && n < JOBS_MAX_USERS) {
		if (e->d_name[0] == '.' || !entry_live(e->d_name, &uid))
			continue;
		for (i = 0; i < n && uids[i] != uid; i++)
			;
		if (i < n)
			continue;
		uids[n++] = uid;
		if (uid < me)
			below++;
	}
	closedir(d);
	for (i = 0; i < n && uids[i] != me; i++)
		;
	if (i == n)		/* our entry could not be made: alone */
		return;
	*rank = below;
	*njobs = n;
	if (below != last_rank || n != last_n)
		pvmd_log("EXP: %d user%s with EXP jobs on this node, ours "
			 "runs in part %d of %d of the PS", n,
			 n > 1 ? "s" : "", below + 1, n);
	last_rank = below;
	last_n = n;
}

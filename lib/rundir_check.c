/*
 * rundir_check.c - the library's guards of its run directory and of the
 * sockets it connects to: thin wrappers of common/rundir.c that print the
 * reason of a refusal in the library's log format and return PVM codes.
 * Also the session the daemon gave at enrolment (proto.h): the directory
 * of the task sockets of this machine, and of no other.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compat/log.h"
#include "proto.h"
#include "pvmi.h"
#include "rundir.h"
#include "rundir_check.h"
#include "rundir_path.h"


/* Makes or checks the run directory (rundir_check.h). */
int pvmi_rundir_verify(void)
{
	char dir[PATH_MAX], why[COPVM_WHY_LEN];
	int fd = copvm_rundir_open(getuid(), dir, sizeof(dir), why,
				   sizeof(why));

	if (fd < 0) {
		pvmlogprintf("%s\n", why);
		return PvmDenied;
	}
	close(fd);
	return PvmOk;
}

/* Checks the uid serving socket `fd' (rundir_check.h). */
int pvmi_peer_verify(int fd, const char *path)
{
	char why[COPVM_WHY_LEN];

	if (copvm_peer_check(fd, geteuid(), path, why, sizeof(why)) < 0) {
		pvmlogprintf("%s\n", why);
		return PvmDenied;
	}
	return PvmOk;
}

static char sessdir[PATH_MAX];

/* Records the session REGISTER gave (rundir_check.h). */
void pvmi_session_set(const unsigned char *id, size_t len)
{
	unsigned long long v = 0;
	size_t i;

	if (len != PVMI_SESSION_LEN)
		return;
	for (i = 0; i < len; i++)
		v = v << 8 | id[i];
	snprintf(sessdir, sizeof(sessdir), "%s/" PVMI_SESSION_FMT,
		 pvmi_rundir(), v);
}

/* The directory of our session's task sockets (rundir_check.h). */
const char *pvmi_sessdir(void)
{
	return sessdir[0] ? sessdir : pvmi_rundir();
}

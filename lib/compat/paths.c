/*
 * paths.c - where PVM's files are: the installation ($PVM_ROOT), the
 * temporary directory ($PVM_TMP), the remote shell, the home directory,
 * the pvmd the library starts and the socket of the local pvmd, fresh
 * temporary names, and this host's data signature.
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compat/compat.h"
#include "compat/log.h"
#include "proto.h"
#include "pvmi.h"
#include "pvmd_start.h"
#include "rundir_path.h"

#ifndef COPVM_PVM_ROOT
#define COPVM_PVM_ROOT		"/usr/local/lib/copvm"
#endif

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

/* The top of the PVM installation: $PVM_ROOT, else the configured one.
 * Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgetroot(void)
{
	return (char *)env_or("PVM_ROOT", COPVM_PVM_ROOT);
}

/* The directory for PVM's temporary files: $PVM_TMP, else /tmp.
 * Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgettmp(void)
{
	return (char *)env_or("PVM_TMP", "/tmp");
}

/* The remote shell used to start pvmds on other hosts: $PVM_RSH, else
 * "ssh".  Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgetrsh(void)
{
	return (char *)env_or("PVM_RSH", "ssh");
}

/* The user's home directory: $HOME, the password entry, or "/".
 * Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgethome(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h)
		return (char *)h;
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir)
		return pw->pw_dir;
	return "/";
}

/* The pvmd program the library starts: $COPVM_PVMD, else copvm's
 * pvmd at $PVM_ROOT/lib/pvmd or in bindir (pvmd_start.c).  Returns a
 * static string. */
PVMI_EXPORT char *pvmgetpvmd(void)
{
	static char path[PATH_MAX];

	pvmi_pvmd_path(path, sizeof(path));
	return path;
}

/* Where the local pvmd listens for its tasks (a socket, not a file with
 * an address as in stock).  Returns a static string. */
PVMI_EXPORT char *pvmdsockfile(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", pvmi_rundir(), PVMI_DAEMON_SOCK);
	return path;
}

/* Builds a fresh file name under pvmgettmp() in `buf' (PVMTMPNAMLEN
 * bytes; NULL: a static buffer).  Returns it, or NULL if it cannot fit. */
PVMI_EXPORT char *pvmtmpnam(char *buf)
{
	static char scratch[PVMTMPNAMLEN];
	static unsigned serial;
	int n;

	if (!buf)
		buf = scratch;
	n = snprintf(buf, PVMTMPNAMLEN, "%s/pvmtmp%d.%u", pvmgettmp(),
		     (int)getpid(), serial++);
	if (n < 0 || n >= PVMTMPNAMLEN) {
		pvmlogprintf("pvmtmpnam(): PVM_TMP too long for %d bytes\n",
			     PVMTMPNAMLEN);
		buf[0] = '\0';
		return NULL;
	}
	return buf;
}

/* The data signature of this host's native data format (the value
 * pvm_config() reports as hi_dsig).  Returns it. */
PVMI_EXPORT int pvmgetdsig(void)
{
	return PVMI_DSIG;
}

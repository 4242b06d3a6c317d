/*
 * env.c - the process as stock's helpers see it: the refusal to run as
 * root, environment lists (pvmcopyenv and friends, which spawn requests
 * are built from), and the clock and sleep stock's code calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "compat/compat.h"
#include "pvmi.h"

/* Refuses to run PVM as root, as stock does, unless $PVM_ALLOW_ROOT is
 * set: for uid 0 it prints why and exits with status 1. */
PVMI_EXPORT void pvmchkuid(int uid)
{
	if (uid != 0 || getenv("PVM_ALLOW_ROOT"))
		return;
	fputs("libpvm: refusing to run PVM as root: remote hosts usually "
	      "cannot be added and\nthe daemon's files become root's.  Run "
	      "as a regular user, or set PVM_ALLOW_ROOT\nif you accept the "
	      "risks.\n", stderr);
	exit(1);
}

/* Adds or replaces "NAME=value" string `s' in the process environment;
 * `s' becomes part of it and must stay valid.  Returns 0 or -1. */
PVMI_EXPORT int pvmputenv(char *s)
{
	const char *eq = s ? strchr(s, '=') : NULL;

	if (!eq || eq == s)
		return -1;
	return putenv(s) ? -1 : 0;
}

/* Copies environment list `ep' (NULL: an empty list), strings included.
 * Returns the new NULL-terminated list or NULL when out of memory. */
PVMI_EXPORT char **pvmcopyenv(char **ep)
{
	size_t n = 0, i;
	char **out;

	while (ep && ep[n])
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		out[i] = strdup(ep[i]);
		if (!out[i]) {
			while (i-- > 0)
				free(out[i]);
			free(out);
			return NULL;
		}
	}
	return out;
}

/* Puts a copy of "NAME=value" `s' into pvmcopyenv() list *anep, replacing
 * NAME or appending (*anep may move).  Returns 0, or -1 (bad `s', no mem). */
PVMI_EXPORT int pvmenvinsert(char ***anep, char *s)
{
	const char *eq = s ? strchr(s, '=') : NULL;
	size_t name = eq ? (size_t)(eq - s) + 1 : 0, n;
	char **ep, **grown, *copy;

	if (!anep || !*anep || !eq)
		return -1;
	ep = *anep;
	copy = strdup(s);
	if (!copy)
		return -1;
	for (n = 0; ep[n]; n++) {
		if (!strncmp(ep[n], s, name)) {
			free(ep[n]);
			ep[n] = copy;
			return 0;
		}
	}
	grown = realloc(ep, (n + 2) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return -1;
	}
	grown[n] = copy;
	grown[n + 1] = NULL;
	*anep = grown;
	return 0;
}

/* Frees a list made by pvmcopyenv()/pvmenvinsert() and its strings.
 * Always returns 0. */
PVMI_EXPORT int pvmfreeenv(char **ep)
{
	size_t i;

	for (i = 0; ep && ep[i]; i++)
		free(ep[i]);
	free(ep);
	return 0;
}

/* Reads the clock the library uses for time stamps into *tm.
 * Returns 0, or -1 with errno set. */
PVMI_EXPORT int pvmgetclock(struct timeval *tm)
{
	return gettimeofday(tm, NULL);
}

/* Sleeps `secs' seconds.
 * Returns the seconds left when a signal cut the sleep short, else 0. */
PVMI_EXPORT int pvmsleep(int secs)
{
	return secs > 0 ? (int)sleep((unsigned)secs) : 0;
}

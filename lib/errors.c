/*
 * errors.c - PVM error codes, their texts and names, and how libpvm3
 * reports a failing call.
 *
 * One table below lists every code from 0 down to PvmIPLoopback with the
 * constant's name and its text; pvm_errlist[], errnamecode() and
 * pvmi_errtext() are all generated from it.  The texts are those stock
 * libpvm3 prints, since programs show pvm_errlist[] entries to users and
 * scripts compare that output between the two libraries.  pvm_errlist has
 * exactly 37 slots: stock executables copy-relocate it at that size.
 *
 * It reads the task's state (task_state.c) and nothing else of the
 * library: under PvmAutoErr 2 it leaves the machine through pvmi_leave,
 * which task.c sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pvmi.h"

/*
 * E(name, text) is a code with a pvm3.h constant, U(n, text) a code -n
 * stock leaves unnamed.  Keep it in order, one row per code 0..-36.
 */
#define PVMI_ERRORS(E, U)						\
	E(PvmOk,		"Error 0")				\
	U(1,			"Error 1")				\
	E(PvmBadParam,		"Bad parameter")			\
	E(PvmMismatch,		"Parameter mismatch")			\
	E(PvmOverflow,		"Value too large")			\
	E(PvmNoData,		"End of buffer")			\
	E(PvmNoHost,		"No such host")				\
	E(PvmNoFile,		"No such file")				\
	E(PvmDenied,		"Permission denied")			\
	U(9,			"Error 9")				\
	E(PvmNoMem,		"Malloc failed")			\
	U(11,			"Error 11")				\
	E(PvmBadMsg,		"Can't decode message")			\
	U(13,			"Error 13")				\
	E(PvmSysErr,		"Can't contact local daemon")		\
	E(PvmNoBuf,		"No current buffer")			\
	E(PvmNoSuchBuf,		"No such buffer")			\
	E(PvmNullGroup,		"Null group name")			\
	E(PvmDupGroup,		"Already in group")			\
	E(PvmNoGroup,		"No such group")			\
	E(PvmNotInGroup,	"Not in group")				\
	E(PvmNoInst,		"No such instance")			\
	E(PvmHostFail,		"Host failed")				\
	E(PvmNoParent,		"No parent task")			\
	E(PvmNotImpl,		"Not implemented")			\
	E(PvmDSysErr,		"Pvmd system error")			\
	E(PvmBadVersion,	"Version mismatch")			\
	E(PvmOutOfRes,		"Out of resources")			\
	E(PvmDupHost,		"Duplicate host")			\
	E(PvmCantStart,		"Can't start pvmd")			\
	E(PvmAlready,		"Already in progress")			\
	E(PvmNoTask,		"No such task")				\
	E(PvmNotFound,		"Not Found")				\
	E(PvmExists,		"Already Exists")			\
	E(PvmHostrNMstr,	"Hoster must run on master host")	\
	E(PvmParentNotSet,	"Spawning parent set PvmNoParent")	\
	E(PvmIPLoopback,	"Master Host IP Address is Loopback! (See pvm3/Readme)")

#define PVMI_NERR	37

#define ERR_TEXT(name, text)	[-(name)] = text,
#define UNN_TEXT(n, text)	[n] = text,
#define ERR_NAME(name, text)	[-(name)] = #name,
#define UNN_NAME(n, text)	[n] = NULL,
#define ERR_ONE(name, text)	+ 1
#define UNN_ONE(n, text)	+ 1

_Static_assert(0 PVMI_ERRORS(ERR_ONE, UNN_ONE) == PVMI_NERR,
	       "the error table must have one row per code 0..-36");

PVMI_EXPORT int pvm_errno;
PVMI_EXPORT int pvm_nerr = PVMI_NERR;
PVMI_EXPORT char *pvm_errlist[] = { PVMI_ERRORS(ERR_TEXT, UNN_TEXT) };

_Static_assert(sizeof(pvm_errlist) == PVMI_NERR * sizeof(char *),
	       "pvm_errlist is part of the ABI: exactly 37 pointers");

static const char *const errnames[PVMI_NERR] = {
	PVMI_ERRORS(ERR_NAME, UNN_NAME)
};

/* Text for an error code, "Unknown Error" (stock's words) for codes
 * outside the table. */
const char *pvmi_errtext(int code)
{
	if (code > 0 || code <= -PVMI_NERR)
		return "Unknown Error";
	return pvm_errlist[-code];
}

/* Writes "libpvm [t<tid>]: " or, before the task has a tid,
 * "libpvm [pid<pid>]: ", then `a', `b' and the text of `code', in one
 * stdio call so that lines from several tasks do not interleave. */
static void report(const char *a, const char *b, int code)
{
	if (pvmi.mytid > 0)
		fprintf(stderr, "libpvm [t%x]: %s%s%s\n", pvmi.mytid, a, b,
			pvmi_errtext(code));
	else
		fprintf(stderr, "libpvm [pid%d]: %s%s%s\n", (int)getpid(), a, b,
			pvmi_errtext(code));
}

/* Records `code' as the latest error of `fn' and returns it unchanged;
 * prints "libpvm [tNNN]: fn(): text" when PvmAutoErr is on. */
int pvmi_error(const char *fn, int code)
{
	pvm_errno = code;
	if (code >= 0 || !pvmi.autoerr)
		return code;
	report(fn ? fn : "libpvm", "(): ", code);
	if (pvmi.autoerr == 2) {
		/* leave the virtual machine cleanly; no second exit from
		 * an error inside pvm_exit() itself */
		pvmi.autoerr = 1;
		if (pvmi_leave)
			pvmi_leave();
		exit(1);
	}
	if (pvmi.autoerr == 3)
		abort();
	return code;
}

/* Stock's name for pvmi_error(); executables built against stock
 * libpvm3 call it.  Returns `code'. */
PVMI_EXPORT int lpvmerr(char *fn, int code)
{
	return pvmi_error(fn, code);
}

/* Prints "libpvm [tNNN]: s: text" for pvm_errno on stderr, whatever
 * PvmAutoErr says ("(null): " when s is NULL, as stock).  Returns 0. */
PVMI_EXPORT int pvm_perror(char *s)
{
	report(s ? s : "(null)", ": ", pvm_errno);
	return 0;
}

/* The text of pvm_errno, as stock's pvm_strerror, which takes no argument
 * (pvm3.h turns a call with a code into copvm_strerror(code)). */
PVMI_EXPORT char *(pvm_strerror)(void)
{
	return (char *)pvmi_errtext(pvm_errno);
}

/* The text of error code `code' (not a copy: do not modify it); what
 * pvm_strerror(code) calls when built against copvm's pvm3.h. */
PVMI_EXPORT char *copvm_strerror(int code)
{
	return (char *)pvmi_errtext(code);
}

/* The name of the pvm3.h constant for `code' ("PvmBadParam"), or
 * "Unknown" for codes without one. */
PVMI_EXPORT char *errnamecode(int code)
{
	if (code > 0 || code <= -PVMI_NERR || !errnames[-code])
		return "Unknown";
	return (char *)errnames[-code];
}

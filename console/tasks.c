/*
 * tasks.c - commands about tasks and the mailbox: ps, pstat, kill, sig,
 * reset, names, put.
 *
 * Task ids are read as hex, with or without the leading 't' that the
 * console prints.  Where a PVM call fails for one task, the library has
 * already printed why (PvmAutoErr), so these commands go on with the
 * next one and add nothing; reset is quieter still, because a task it
 * is about to kill may well have ended on its own.
 *
 * reset spares every task that set PvmNoReset (consoles do, this one
 * included) and then removes mailbox entries whose owner is gone.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pvm3.h"
#include "console.h"

/* Letters for the task status bits pvm_tasks reports, as ps shows them
 * after the bits in hex, comma-separated ("6/c,f", as stock does).
 * c and f are the bits pvmd sets; the others are kept for daemons that
 * report them. */
static const struct {
	int bit;
	char letter;
} task_flags[] = {
	{ 0x04, 'c' },		/* connected to pvmd */
	{ 0x02, 'f' },		/* process started by pvmd */
	{ 0x08, 'a' },		/* waiting for authorisation */
	{ 0x10, 'o' },		/* connection being closed */
	{ 0x20, 's' },		/* deadlocked on shared memory */
	{ 0x40, 'H' },		/* the hoster */
	{ 0x80, 'R' },		/* the resource manager */
	{ 0x100, 'T' },		/* the tasker */
};

void con_ps_header(int longfmt)
{
	if (longfmt)
		printf("%24s %8s %8s %6s %6s 0x %s\n", "HOST", "TID", "PTID",
		       "PID", "FLAG", "COMMAND");
	else
		printf("%24s %8s %6s 0x %s\n", "HOST", "TID", "FLAG",
		       "COMMAND");
}

void con_ps_row(const struct pvmtaskinfo *ti, int longfmt)
{
	const char *host = con_host_name(ti->ti_host);
	char flags[64], letters[32];
	size_t i, n = 0;

	if (host)
		printf("%24s", host);
	else
		printf("%24x", ti->ti_host);
	if (ti->ti_tid == con_mytid)
		printf(" %8s", "(cons)");
	else
		printf(" %8x", ti->ti_tid);
	if (longfmt) {
		if (ti->ti_ptid)
			printf(" %8x", ti->ti_ptid);
		else
			printf(" %8s", "-");
		printf(" %6d", ti->ti_pid);
	}
	for (i = 0; i < sizeof(task_flags) / sizeof(task_flags[0]); i++) {
		if (!(ti->ti_flag & task_flags[i].bit))
			continue;
		if (n)
			letters[n++] = ',';
		letters[n++] = task_flags[i].letter;
	}
	letters[n] = '\0';
	snprintf(flags, sizeof(flags), "%x/%s", ti->ti_flag, letters);
	printf(" %9s %-12s\n", flags,
	       ti->ti_a_out && *ti->ti_a_out ? ti->ti_a_out : "-");
}

/* ps [-alx] [-hTID] [-nNAME]: list tasks. */
int con_cmd_ps(int argc, char **argv)
{
	struct pvmtaskinfo *ti;
	int where = pvm_tidtohost(con_mytid);
	int longfmt = 0, self = 0, ntask, i;
	const char *p;

	for (i = 1; i < argc; i++) {
		p = argv[i];
		if (*p == '-')
			p++;
		for (; *p; p++) {
			if (*p == 'a') {
				where = 0;
			} else if (*p == 'l') {
				longfmt = 1;
			} else if (*p == 'x') {
				self = 1;
			} else if (*p == 'h') {
				where = con_parse_tid(p + 1);
				break;
			} else if (*p == 'n') {
				/* An unknown name keeps the host chosen so
				 * far, as in stock's console. */
				int dtid = con_host_tid(p + 1);

				if (dtid)
					where = dtid;
				else
					printf("unknown host %s\n", p + 1);
				break;
			} else {
				printf("unknown flag -%c\n", *p);
			}
		}
	}
	if (pvm_tasks(where, &ntask, &ti) < 0)
		return -1;
	con_ps_header(longfmt);
	for (i = 0; i < ntask; i++)
		if (ti[i].ti_tid != con_mytid || self)
			con_ps_row(&ti[i], longfmt);
	return 0;
}

/* pstat tid...: whether each task runs. */
int con_cmd_pstat(int argc, char **argv)
{
	int i, tid, rc;

	for (i = 1; i < argc; i++) {
		tid = con_parse_tid(argv[i]);
		rc = pvm_pstat(tid);
		printf("t%8x  %s\n", tid, rc < 0 ? con_errtext(rc) : "run");
	}
	return 0;
}

/* Kills the children of `parent' (as pvm_tasks reports their parents). */
static void kill_children(int parent)
{
	struct pvmtaskinfo *ti;
	int ntask, i;

	if (pvm_tasks(0, &ntask, &ti) < 0)
		return;
	for (i = 0; i < ntask; i++)
		if (ti[i].ti_ptid == parent && ti[i].ti_tid != con_mytid)
			pvm_kill(ti[i].ti_tid);
}

/* kill [-c] tid...: terminate tasks, or with -c their children. */
int con_cmd_kill(int argc, char **argv)
{
	int children = 0, i, tid;
	const char *p;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		for (p = argv[i] + 1; *p; p++) {
			if (*p == 'c')
				children = 1;
			else
				printf("unknown flag -%c\n", *p);
		}
	}
	for (; i < argc; i++) {
		tid = con_parse_tid(argv[i]);
		if (children) {
			kill_children(tid);
		} else if (tid == con_mytid) {
			printf("t%x: that's me.\n", tid);
		} else {
			pvm_kill(tid);
		}
	}
	return 0;
}

/* A signal given as a number or a name, with or without "SIG"; -1 if
 * `s' is neither. */
static int parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
		{ "ILL", SIGILL }, { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
		{ "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL },
		{ "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
		{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
		{ "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
		{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
		{ "WINCH", SIGWINCH }, { "IO", SIGIO }, { "SYS", SIGSYS },
	};
	char *end;
	long v;
	size_t i;

	v = strtol(s, &end, 10);
	if (end != s && !*end)
		return v >= 0 && v < 65 ? (int)v : -1;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].sig;
	return -1;
}

/* sig signal tid...: send a signal to tasks. */
int con_cmd_sig(int argc, char **argv)
{
	int sig = parse_signal(argv[1]), i;

	/* Any number goes to pvm_sendsig, which judges it (0 tests
	 * whether the task exists). */
	if (sig < 0) {
		printf("sig: %s: not a signal\n", argv[1]);
		return -1;
	}
	for (i = 2; i < argc; i++)
		pvm_sendsig(con_parse_tid(argv[i]), sig);
	return 0;
}

/* Removes mailbox entries whose owner has gone: of every class, or of
 * class `only' (and of its index `index' if that is >= 0). */
static void clear_orphans(const char *only, int index)
{
	struct pvmmboxinfo *ci;
	int ncl, i, j;

	if (pvm_getmboxinfo(only ? (char *)only : "*", &ncl, &ci) < 0)
		return;
	for (i = 0; i < ncl; i++) {
		if (only && strcmp(ci[i].mi_name, only))
			continue;
		for (j = 0; j < ci[i].mi_nentries; j++) {
			int owner = ci[i].mi_owners[j];

			if (index >= 0 && ci[i].mi_indices[j] != index)
				continue;
			if (owner > 0 && pvm_pstat(owner) == PvmOk)
				continue;
			pvm_delinfo(ci[i].mi_name, ci[i].mi_indices[j],
				    PvmMboxDefault);
		}
	}
}

/* Kills every task but this one and those that asked to be spared. */
static void kill_all(void)
{
	struct pvmtaskinfo *ti;
	int *spared = NULL, nspared = 0, ntask, i, k;

	if (pvm_tasks(0, &ntask, &ti) < 0)
		return;
	if (pvm_getnoresets(&spared, &nspared) < 0)
		nspared = 0;
	for (i = 0; i < ntask; i++) {
		if (ti[i].ti_tid == con_mytid)
			continue;
		for (k = 0; k < nspared && spared[k] != ti[i].ti_tid; k++)
			;
		if (k == nspared)
			pvm_kill(ti[i].ti_tid);
	}
}

/* reset | reset info [class [index]] */
int con_cmd_reset(int argc, char **argv)
{
	int autoerr;

	if (argc > 1 && strcmp(argv[1], "info")) {
		printf("\"%s\" arg to reset not valid\n", argv[1]);
		return -1;
	}
	autoerr = pvm_setopt(PvmAutoErr, 0);
	if (argc == 1)
		kill_all();
	clear_orphans(argc > 2 ? argv[2] : NULL,
		      argc > 3 ? (int)strtol(argv[3], NULL, 0) : -1);
	pvm_setopt(PvmAutoErr, autoerr);
	return 0;
}

/* names [pattern]: the mailbox's classes and entries. */
int con_cmd_names(int argc, char **argv)
{
	struct pvmmboxinfo *ci;
	int ncl, i, j;

	if (pvm_getmboxinfo(argc > 1 ? argv[1] : "*", &ncl, &ci) < 0)
		return -1;
	for (i = 0; i < ncl; i++) {
		printf("<%s>:\n", ci[i].mi_name);
		for (j = 0; j < ci[i].mi_nentries; j++)
			printf("\tindex=%d owner=0x%x/%d flags=0x%x\n",
			       ci[i].mi_indices[j], ci[i].mi_owners[j],
			       ci[i].mi_owners[j], ci[i].mi_flags[j]);
		printf("\n");
	}
	return 0;
}

/* put name flags [text]: store a mailbox entry holding `text'. */
int con_cmd_put(int argc, char **argv)
{
	int flags = (int)strtol(argv[2], NULL, 0);
	int buf, old, rc;

	buf = pvm_mkbuf(PvmDataDefault);
	if (buf < 0)
		return -1;
	old = pvm_setsbuf(buf);
	pvm_pkstr(argc > 3 ? argv[3] : "");
	rc = pvm_putinfo(argv[1], buf, flags);
	pvm_setsbuf(old);
	pvm_freebuf(buf);
	return rc < 0 ? -1 : 0;
}

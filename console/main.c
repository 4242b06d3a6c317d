/*
 * main.c - the pvm console: joining the virtual machine and the event
 * loop.
 *
 * `pvm [options] [hostfile]' starts a daemon with the given arguments
 * unless one already runs ("pvmd already running." then, and the
 * arguments are ignored, as stock does), enrols as a task, runs the
 * commands of $HOME/.pvmrc and then reads commands until `quit', `halt'
 * or the end of input.  Between commands it waits on two things at
 * once: the terminal, and the descriptors libpvm3 reports through
 * pvm_getfds(), over which the output of spawned jobs and host-added
 * notifications arrive.  Those are printed as they come, even while a
 * command is being typed.
 *
 * Signals: ^C drops the line being typed; SIGTERM and SIGHUP (a halt
 * from elsewhere, a closed terminal) restore the terminal and end the
 * console.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "pvm3.h"
#include "console.h"

int con_mytid;

static volatile sig_atomic_t got_int;
static volatile sig_atomic_t got_term;
static volatile sig_atomic_t got_winch;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		got_int = 1;
	else if (sig == SIGWINCH)
		got_winch = 1;
	else
		got_term = sig;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void con_exit(enum con_end how)
{
	con_input_done();
	switch (how) {
	case CON_QUIT:
		printf("\npvmd still running.\n");
		fflush(stdout);
		pvm_exit();
		break;
	case CON_LOST:
		printf("\n");	/* off the prompt line */
		fflush(stdout);
		fprintf(stderr, "pvm: lost the connection to pvmd\n");
		break;
	case CON_HALTED:
	case CON_KILLED:
		break;
	}
	fflush(stdout);
	exit(how == CON_LOST ? 1 : 0);
}

/* Runs the commands in $HOME/.pvmrc before the first prompt, each shown
 * as it runs (as stock's console does), comments included. */
static void run_rc_file(void)
{
	const char *home = getenv("HOME");
	char path[4096], line[4096];
	FILE *f;

	if (!home || !*home)
		return;
	snprintf(path, sizeof(path), "%s/.pvmrc", home);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		printf("%s\n", line);
		con_run_line(line);
	}
	fclose(f);
	fflush(stdout);
}

/* Asks to survive other consoles' `reset'.  PvmNoReset is meant to put
 * the task in the mailbox class that reset spares; where the library
 * does not, the console makes that entry itself (it goes away when the
 * console leaves). */
static void spare_from_reset(void)
{
	int *spared = NULL, nspared = 0, i, buf, old;

	pvm_setopt(PvmNoReset, 1);
	if (pvm_getnoresets(&spared, &nspared) < 0)
		return;
	for (i = 0; i < nspared; i++)
		if (spared[i] == con_mytid)
			return;
	buf = pvm_mkbuf(PvmDataDefault);
	if (buf < 0)
		return;
	old = pvm_setsbuf(buf);
	pvm_putinfo(PVMNORESETCLASS, buf, PvmMboxMultiInstance);
	pvm_setsbuf(old);
	pvm_freebuf(buf);
}

/* Starts a daemon (with our own arguments) or finds the running one,
 * then enrols.  Returns 0, or -1 when the machine cannot be joined. */
static int join_machine(int argc, char **argv)
{
	int autoerr, rc;

	/* A running daemon is the common case, not an error to report. */
	autoerr = pvm_setopt(PvmAutoErr, 0);
	rc = pvm_start_pvmd(argc, argv, 1);
	pvm_setopt(PvmAutoErr, autoerr < 0 ? 1 : autoerr);
	if (rc == PvmDupHost) {
		printf("pvmd already running.\n");
	} else if (rc < 0) {
		fprintf(stderr, "pvm: cannot start pvmd: %s\n",
			con_errtext(rc));
	}
	fflush(stdout);
	con_mytid = pvm_mytid();
	if (con_mytid < 0)
		return -1;
	spare_from_reset();
	pvm_notify(PvmHostAdd, CON_TAG_HOSTADD, -1, NULL);
	return 0;
}

/* Handles every message already waiting for the console. */
static void drain_messages(void)
{
	int bufid, tag, len, src, shown = 0;

	while ((bufid = pvm_nrecv(-1, -1)) != 0) {
		if (bufid < 0)
			con_exit(CON_LOST);
		if (pvm_bufinfo(bufid, &len, &tag, &src) < 0)
			continue;
		/* The prompt comes off the screen once for a whole batch. */
		if (!shown++)
			con_async_begin();
		if (con_is_job_tag(tag))
			con_job_output(tag);
		else if (tag == CON_TAG_HOSTADD)
			con_hosts_added();
		pvm_freebuf(bufid);
	}
	if (shown)
		con_async_end();
}

/* One line typed (NULL: end of input). */
static void on_line(char *line)
{
	if (!line) {
		printf("quit\n");
		con_exit(CON_QUIT);
	}
	con_run_line(line);
	fflush(stdout);
	fflush(stderr);
}

/* Waits until stdin or a PVM descriptor is readable (or a signal). */
static void wait_input(void)
{
	fd_set rd;
	int *fds = NULL, nfds, maxfd = 0, i, autoerr;

	FD_ZERO(&rd);
	FD_SET(0, &rd);
	/* PvmSysErr once the library has seen pvmd go: said below */
	autoerr = pvm_setopt(PvmAutoErr, 0);
	nfds = pvm_getfds(&fds);
	pvm_setopt(PvmAutoErr, autoerr < 0 ? 1 : autoerr);
	if (nfds <= 0)
		con_exit(CON_LOST);
	for (i = 0; i < nfds; i++) {
		if (fds[i] < 0 || fds[i] >= FD_SETSIZE)
			continue;
		FD_SET(fds[i], &rd);
		if (fds[i] > maxfd)
			maxfd = fds[i];
	}
	if (select(maxfd + 1, &rd, NULL, NULL, NULL) < 0) {
		if (errno != EINTR) {
			perror("pvm: select");
			con_exit(CON_LOST);
		}
		return;
	}
	if (FD_ISSET(0, &rd))
		con_input_ready();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (join_machine(argc - 1, argv + 1) < 0)
		return 1;
	catch_signals();
	run_rc_file();
	con_input_init(on_line);
	for (;;) {
		drain_messages();
		if (got_term || (got_int && !con_input_is_tty()))
			con_exit(CON_KILLED);
		if (got_int) {
			got_int = 0;
			con_input_cancel();
		}
		if (got_winch) {
			got_winch = 0;
			con_input_resize();
		}
		if (con_input_buffered())
			con_input_ready();
		else
			wait_input();
	}
}

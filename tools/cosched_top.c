/*
 * cosched_top.c - copvm-cosched top, the live view: every task of the
 * virtual machine, refreshed every interval, from the snapshots the
 * daemons gather (copvm_cosched_gather: a line per host, then its
 * copvm-cosched -r lines).  Rates (boosts, demotions and refusals per
 * second) are the difference between a task's counters in two snapshots
 * over the time between them on its host's clock, so they show from the
 * second refresh on.  On a terminal each refresh redraws the screen
 * (top_term.h: terminfo's clear, or the ANSI sequence); otherwise, with a
 * terminal that cannot clear, or with -b, the tables follow one another
 * as plain text.
 * Unlike the one-shot modes, top enrols as a PVM task.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "copvm.h"
#include "cosched_snap.h"
#include "cosched_top.h"
#include "top_term.h"

#define TOP_INTERVAL_MAX	3600.0

static void top_usage(FILE *out)
{
	fputs("Usage: copvm-cosched top [-b] [-d SECONDS] [-n COUNT]\n"
	      "Shows every task of the virtual machine, refreshed every\n"
	      "interval, gathered through the daemons.\n"
	      "  -b          batch: plain text, one table after another\n"
	      "  -d SECONDS  the interval (default 1; 0.1 to 3600)\n"
	      "  -n COUNT    stop after COUNT tables (default: never)\n",
	      out);
}

/* Reads top's options; 0, or an exit status after saying why. */
static int top_args(int argc, char **argv, int *batch, double *interval,
		    long *count)
{
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt(argc, argv, "+bd:n:h")) != -1) {
		switch (c) {
		case 'b':
			*batch = 1;
			break;
		case 'd':
			errno = 0;
			*interval = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(*interval >= 0.1 &&
			      *interval <= TOP_INTERVAL_MAX)) {
				fprintf(stderr, "copvm-cosched: top: -d %s: an"
					" interval from 0.1 to 3600 seconds\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			errno = 0;
			*count = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || *count < 1) {
				fprintf(stderr, "copvm-cosched: top: -n %s: a"
					" count of at least 1\n", optarg);
				return 2;
			}
			break;
		case 'h':
			top_usage(stdout);
			return -1;
		default:
			fprintf(stderr, "copvm-cosched: top: unknown option"
				" -%c\n", optopt);
			top_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "copvm-cosched: top: unexpected argument"
			" \"%s\"\n", argv[optind]);
		top_usage(stderr);
		return 2;
	}
	return 0;
}

/* `copvm-cosched top' (cosched_top.h): enrols, then a table every
 * interval until -n's count or an interrupt; 0, 1 or 2. */
int cosched_top(int argc, char **argv)
{
	struct csr_snap cur = { 0 }, prev = { 0 };
	double interval = 1.0;
	struct timespec ts;
	long count = 0, i;
	int batch = 0, rc;
	char *text;

	rc = top_args(argc, argv, &batch, &interval, &count);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!isatty(STDOUT_FILENO) || (!batch && top_term_open() < 0))
		batch = 1;
	pvm_setopt(PvmAutoErr, 0);
	if (pvm_mytid() < 0) {
		fprintf(stderr, "copvm-cosched: top: cannot enrol (is pvmd"
			" running? start the machine with pvm)\n");
		return 1;
	}
	for (i = 0; !count || i < count; i++) {
		if (i) {
			ts.tv_sec = (time_t)interval;
			ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
		rc = copvm_cosched_gather(0, &text);
		if (rc < 0) {
			fprintf(stderr, "copvm-cosched: top: %s\n",
				pvm_strerror(rc));
			break;
		}
		csr_snap_parse(&cur, text);
		free(text);
		if (!batch)
			top_term_clear(stdout);
		else if (i)
			putchar('\n');
		csr_snap_print(stdout, &cur, i ? &prev : NULL, interval);
		fflush(stdout);
		csr_snap_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	csr_snap_free(&prev);
	pvm_exit();
	return rc < 0 ? 1 : 0;
}

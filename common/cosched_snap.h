/*
 * cosched_snap.h - a snapshot of the coscheduling of every task of the
 * virtual machine, read from the text the daemons gather, and its table
 * (cosched_snap.c).
 */
#ifndef COPVM_COSCHED_SNAP_H
#define COPVM_COSCHED_SNAP_H

#include <stdio.h>

struct csr_row {
	char host[64];
	int tid;
	char model[16], p[16], boost[16], local[16], tcp[16];
	double freq;
	int nice;
	unsigned long long cpu_ns, window_ns, boosts, demotions, refusals;
	unsigned long long time_ns;	/* its host's snapshot */
};

struct csr_snap {
	struct csr_row *rows;
	int n, cap;
	int hosts, tasks;
};

/* Reads the text of copvm_cosched_gather (modified in place) into `s',
 * which starts zeroed: a row per task, and one (tid 0) per host that did
 * not answer or has no task. */
void csr_snap_parse(struct csr_snap *s, char *text);
/* Prints `s' as a table; with `prev' (an earlier snapshot) the rates of
 * boosts, demotions and refusals per second, else "-".  `interval' > 0
 * titles it as top's refresh, 0 as a one-shot view. */
void csr_snap_print(FILE *out, const struct csr_snap *s,
		    const struct csr_snap *prev, double interval);
/* Frees the rows of `s' and zeroes it. */
void csr_snap_free(struct csr_snap *s);

#endif /* COPVM_COSCHED_SNAP_H */

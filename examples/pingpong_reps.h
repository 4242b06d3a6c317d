/*
 * pingpong_reps.h - how many round trips pingpong times for a message
 * size, shared with its MPI twin (bench/mpi_pingpong.c) so that both
 * measure the same counts, and the marks a harness may ask for around
 * each size's round trips.  Plain C, no PVM: it builds against stock PVM
 * and with mpicc alike.
 */
#ifndef PINGPONG_REPS_H
#define PINGPONG_REPS_H

#include <stdio.h>
#include <stdlib.h>

/* Round trips for `size' bytes: `reps' up to 1 KiB, reps/4 up to
 * 512 KiB, reps/20 above, never fewer than 10. */
static inline int pingpong_reps_for(int size, int reps)
{
	int r = reps;

	if (size > 1024 * 1024 / 2)
		r = reps / 20;
	else if (size > 1024)
		r = reps / 4;
	return r < 10 ? 10 : r;
}

/* Runs the command in $PINGPONG_MARK, if set, with "begin SIZE" or
 * "end SIZE" as its arguments, before and after a size's round trips
 * (outside the timing): bench/frontier.sh reads the CPU accounting
 * there, so the shares it reports cover the round trips only. */
static inline void pingpong_mark(const char *what, int size)
{
	const char *cmd = getenv("PINGPONG_MARK");
	char line[4096];

	if (!cmd || !*cmd)
		return;
	snprintf(line, sizeof(line), "%s %s %d", cmd, what, size);
	if (system(line) != 0)
		fprintf(stderr, "pingpong: PINGPONG_MARK failed\n");
}

#endif

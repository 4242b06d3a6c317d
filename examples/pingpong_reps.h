/*
 * pingpong_reps.h - how many round trips pingpong times for a message
 * size, shared with its MPI twin (bench/mpi_pingpong.c) so that both
 * measure the same counts.  Plain C, no PVM: it builds against stock PVM
 * and with mpicc alike.
 */
#ifndef PINGPONG_REPS_H
#define PINGPONG_REPS_H

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

#endif

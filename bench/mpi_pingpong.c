/*
 * mpi_pingpong.c - examples/pingpong's measurement over MPI, for the
 * side-by-side runs of bench/pingpong-vs-mpi.sh: two ranks, round trips
 * of MPI_Send/MPI_Recv for each message size, after a warm-up; per size
 * the median, mean and 90th percentile of the round trip in microseconds
 * and 2 * size / median in MB/s, in pingpong's columns.  A baseline
 * only: built by that script with mpicc, never part of copvm.  With -b n
 * rank 1 answers each message with n, and the figures are per message of
 * that stream, as pingpong's -b.
 *
 * usage: mpirun -np 2 mpi_pingpong [-r reps] [-s size,size,...] [-b n]
 *   (the same defaults and the same number of round trips per size as
 *   pingpong)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../examples/pingpong_reps.h"

#define MAX_SIZES	16

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int sizes[MAX_SIZES] = { 0, 8, 1024, 65536, 1048576 };
	int nsizes = 5, reps = 1000, rank, opt, s, i, k, n, max = 0, answers = 1;
	double *rt, t0, sum, median;
	char *buf, *tok;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	while ((opt = getopt(argc, argv, "r:s:b:")) != -1) {
		if (opt == 'r') {
			reps = atoi(optarg);
		} else if (opt == 'b' && atoi(optarg) > 0) {
			answers = atoi(optarg);
		} else if (opt == 's') {
			nsizes = 0;
			for (tok = strtok(optarg, ","); tok && nsizes < MAX_SIZES;
			     tok = strtok(NULL, ","))
				sizes[nsizes++] = atoi(tok);
		} else {
			if (rank == 0)
				fprintf(stderr, "usage: mpi_pingpong [-r reps] "
					"[-s size,...] [-b n]\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > max)
			max = sizes[s];
	buf = calloc(1, (size_t)max + 1);
	rt = malloc(sizeof(double) * (size_t)(reps < 10 ? 10 : reps));
	if (!buf || !rt)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		if (answers > 1)
			printf("# mpi_pingpong: MPI, streams of %d messages "
			       "between two ranks, per message\n", answers);
		else
			printf("# mpi_pingpong: MPI, round trips between two "
			       "ranks\n");
		printf("%10s %6s %12s %12s %12s %10s\n", "bytes", "reps",
		       "median_us", "mean_us", "p90_us", "MB/s");
	}
	for (s = 0; s < nsizes; s++) {
		n = pingpong_reps_for(sizes[s], reps);
		for (i = -n / 10 - 1; i < n; i++) {	/* a warm-up first */
			if (rank == 0) {
				t0 = MPI_Wtime();
				MPI_Send(buf, sizes[s], MPI_BYTE, 1, 1,
					 MPI_COMM_WORLD);
				for (k = 0; k < answers; k++)
					MPI_Recv(buf, sizes[s], MPI_BYTE, 1, 2,
						 MPI_COMM_WORLD,
						 MPI_STATUS_IGNORE);
				if (i >= 0)
					rt[i] = (MPI_Wtime() - t0) * 1e6 /
						answers;
			} else {
				MPI_Recv(buf, sizes[s], MPI_BYTE, 0, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				for (k = 0; k < answers; k++)
					MPI_Send(buf, sizes[s], MPI_BYTE, 0, 2,
						 MPI_COMM_WORLD);
			}
		}
		if (rank != 0)
			continue;
		qsort(rt, (size_t)n, sizeof(double), cmp_double);
		for (sum = 0, i = 0; i < n; i++)
			sum += rt[i];
		median = n % 2 ? rt[n / 2] : (rt[n / 2 - 1] + rt[n / 2]) / 2;
		printf("%10d %6d %12.2f %12.2f %12.2f %10.2f\n", sizes[s], n,
		       median, sum / n, rt[n * 9 / 10],
		       median > 0 ? (answers > 1 ? 1.0 : 2.0) * sizes[s] /
		       median : 0.0);
		fflush(stdout);
	}
	free(buf);
	free(rt);
	MPI_Finalize();
	return 0;
}

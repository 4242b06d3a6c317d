/*
 * barrier_bench.c - how long pvm_barrier takes for a group of N tasks on
 * one host.
 *
 * The first copy joins the group, spawns N - 1 copies of itself (found by
 * name on the spawn path), lets everyone pass a few barriers to warm up,
 * then times `iters' barriers in a row and prints the mean time of one,
 * in microseconds, on a line of its own:
 *	barrier tasks N iters I usec T
 * The copies only join and pass the same barriers.  The first copy waits
 * until the others have exited before it exits, so runs can follow each
 * other on one virtual machine.  Only the PVM 3.4 API is used, so the
 * same source builds against stock PVM (cc barrier_bench.c -lgpvm3
 * -lpvm3); bench/bench-barrier.sh runs both side by side.
 *
 * usage: barrier_bench [-n tasks] [-i iters] [-w warmup]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvm3.h"

#define GROUP		"barrier_bench"
#define EXIT_TAG	0x6b6e	/* task-exit notices of the copies */

static double now_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1e6 + tv.tv_usec;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: barrier_bench [-n tasks] [-i iters] [-w warmup]\n");
	return 1;
}

/* Passes `n' barriers of the whole group; 0 or the first error. */
static int barriers(int tasks, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		rc = pvm_barrier(GROUP, tasks);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The spawned copies: same barriers, no output. */
static int copy(int tasks, int total)
{
	int rc;

	if (pvm_joingroup(GROUP) < 0)
		return 1;
	rc = barriers(tasks, total);
	pvm_lvgroup(GROUP);
	pvm_exit();
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	int tasks = 2, iters = 2000, warmup = 200, child = 0;
	int *tids, started, i, opt, rc, inst;
	char ntext[16], itext[16], wtext[16];
	char *args[8];
	double t0, t1;

	while ((opt = getopt(argc, argv, "n:i:w:c")) != -1) {
		switch (opt) {
		case 'n':
			tasks = atoi(optarg);
			break;
		case 'i':
			iters = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 'c':
			child = 1;
			break;
		default:
			return usage();
		}
	}
	if (tasks < 1 || iters < 1 || warmup < 0)
		return usage();
	if (pvm_mytid() < 0)
		return 1;
	if (child)
		return copy(tasks, 1 + warmup + iters);

	inst = pvm_joingroup(GROUP);
	if (inst != 0) {
		fprintf(stderr, "barrier_bench: joined as instance %d, not 0"
			" (another run still going?)\n", inst);
		pvm_exit();
		return 1;
	}
	tids = calloc(tasks, sizeof(int));
	if (!tids)
		return 1;
	snprintf(ntext, sizeof(ntext), "%d", tasks);
	snprintf(itext, sizeof(itext), "%d", iters);
	snprintf(wtext, sizeof(wtext), "%d", warmup);
	args[0] = "-c";
	args[1] = "-n";
	args[2] = ntext;
	args[3] = "-i";
	args[4] = itext;
	args[5] = "-w";
	args[6] = wtext;
	args[7] = NULL;
	started = 0;
	if (tasks > 1) {
		started = pvm_spawn("barrier_bench", args, PvmTaskDefault, "",
				    tasks - 1, tids);
		if (started != tasks - 1) {
			fprintf(stderr, "barrier_bench: started %d of %d\n",
				started, tasks - 1);
			for (i = 0; i < started; i++)
				pvm_kill(tids[i]);
			pvm_exit();
			return 1;
		}
		if (started > 0)
			pvm_notify(PvmTaskExit, EXIT_TAG, started, tids);
	}
	rc = barriers(tasks, 1 + warmup);
	t0 = now_us();
	if (rc == 0)
		rc = barriers(tasks, iters);
	t1 = now_us();
	pvm_lvgroup(GROUP);
	for (i = 0; i < started; i++)
		pvm_recv(-1, EXIT_TAG);
	if (rc < 0) {
		fprintf(stderr, "barrier_bench: pvm_barrier failed: %d\n", rc);
		pvm_exit();
		return 1;
	}
	printf("barrier tasks %d iters %d usec %.2f\n", tasks, iters,
	       (t1 - t0) / iters);
	free(tids);
	pvm_exit();
	return 0;
}

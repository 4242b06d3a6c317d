/*
 * copy_floor.c - what a large-message ping-pong between two processes of
 * this host costs in copies alone, with no library in between: the floor
 * under the pack pattern of issue 26 (docs/results/msg_breakdown.md,
 * "Lent bodies").
 *
 * Two processes, pinned to CPU 0 and CPU 1, pass a message back and
 * forth through a flag in shared memory.  Per direction, one of:
 *   two   the sender copies its array into a block of its own shared
 *         heap, the receiver copies the block into its array: copvm's
 *         lent bodies (pack, then unpack in place), the least PVM's
 *         copying pack allows;
 *   one   the receiver copies the sender's array, which lies in shared
 *         memory, straight into its own: one memcpy, as an MPI that maps
 *         its peer would;
 *   cma   the receiver reads the sender's array with process_vm_readv:
 *         Open MPI's single copy on this host (btl vader, cma).
 * Each sender alternates between two blocks (or arrays), as a ping-pong
 * whose receiver keeps its last message does.
 *
 * Output, one line per size and mode:
 *   FLOOR mode=<two|one|cma> size=<bytes> median_us=<round trip> reps=<n>
 *
 * usage: copy_floor [-r reps] [-s size,size,...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_SIZES	16
#define WARM		4

enum mode { TWO, ONE, CMA };
static const char *const mode_name[] = { "two", "one", "cma" };

struct shared {
	volatile long turn;		/* the message number passed last */
	pid_t pid[2];
	unsigned char *array[2][2];	/* each side's arrays, its addresses */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void *shared_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* Waits for message `k'. */
static void wait_turn(struct shared *sh, long k)
{
	while (__atomic_load_n(&sh->turn, __ATOMIC_ACQUIRE) != k)
		;
}

/* One ping-pong of `reps' round trips of `n' bytes; the parent's median
 * round trip in us (the child returns -1). */
static double run(enum mode m, size_t n, int reps)
{
	struct shared *sh = shared_map(sizeof(*sh));
	/* two: each side's two heap blocks; one, cma: each side's arrays
	 * (shared for one; private for cma, read by process_vm_readv) */
	unsigned char *block = shared_map(4 * n);
	unsigned char *mine[2], *src, *dst;
	double *rt = calloc(reps + WARM, sizeof(double)), t0 = 0, med;
	long k;
	pid_t kid;
	int me, i;

	kid = fork();
	if (kid < 0) {
		perror("fork");
		exit(1);
	}
	me = kid == 0;
	if (bench_pin_cpu(me) < 0)
		perror("copy_floor: pin");
	for (i = 0; i < 2; i++) {
		mine[i] = m == ONE ? block + (2 * me + i) * n : malloc(n);
		memset(mine[i], me + 1, n);
		sh->array[me][i] = mine[i];
	}
	sh->pid[me] = getpid();
	dst = malloc(n);
	memset(dst, 0, n);
	if (me)
		__atomic_store_n(&sh->turn, -1, __ATOMIC_RELEASE);
	else
		wait_turn(sh, -1);
	for (k = 0; k < 2L * (reps + WARM); k++) {
		int from = (int)(k % 2), slot = (int)(k / 2 % 2);

		if (from == me) {
			if (!me)
				t0 = bench_now() * 1e6;
			src = mine[slot];
			if (m == TWO)
				memcpy(block + (2 * me + slot) * n, src, n);
			__atomic_store_n(&sh->turn, k, __ATOMIC_RELEASE);
			continue;
		}
		wait_turn(sh, k);
		if (m == TWO) {
			memcpy(dst, block + (2 * from + slot) * n, n);
		} else if (m == ONE) {
			memcpy(dst, sh->array[from][slot], n);
		} else {
			struct iovec l = { dst, n };
			struct iovec r = { sh->array[from][slot], n };

			if (process_vm_readv(sh->pid[from], &l, 1, &r, 1, 0) !=
			    (ssize_t)n) {
				perror("process_vm_readv");
				exit(1);
			}
		}
		if (!me)
			rt[k / 2] = bench_now() * 1e6 - t0;
	}
	if (me)
		_exit(0);
	waitpid(kid, NULL, 0);
	qsort(rt + WARM, reps, sizeof(double), cmp_double);
	med = rt[WARM + reps / 2];
	munmap(block, 4 * n);
	munmap(sh, sizeof(*sh));
	free(rt);
	return med;
}

int main(int argc, char **argv)
{
	size_t sizes[MAX_SIZES] = { 1 << 20, 4 << 20, 16 << 20 };
	int nsizes = 3, reps = 40, c, i, m;
	char *s, *tok;

	while ((c = getopt(argc, argv, "r:s:")) != -1) {
		switch (c) {
		case 'r':
			reps = atoi(optarg) > 0 ? atoi(optarg) : reps;
			break;
		case 's':
			nsizes = 0;
			for (s = optarg; (tok = strtok(s, ",")) &&
			     nsizes < MAX_SIZES; s = NULL)
				sizes[nsizes++] = strtoul(tok, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-s size,...]\n",
				argv[0]);
			return 2;
		}
	}
	for (i = 0; i < nsizes; i++)
		for (m = TWO; m <= CMA; m++)
			printf("FLOOR mode=%s size=%zu median_us=%.2f reps=%d\n",
			       mode_name[m], sizes[i],
			       run((enum mode)m, sizes[i], reps), reps);
	return 0;
}

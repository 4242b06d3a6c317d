/*
 * write_after_read.c - what a sender's copy into a shared block costs
 * when its reader on the other CPU has just read that block, against a
 * block read longer ago: the question behind where the export heap puts
 * a new block (docs/results/msg_breakdown.md, "Where a lent block
 * goes").
 *
 * Two processes, pinned to CPU 0 and CPU 1, share `blocks' blocks of
 * `size' bytes.  In lockstep, the writer copies its array (glibc's
 * memcpy) into block i mod blocks, then the reader copies that block out
 * into its own array.  With one block the writer always overwrites what
 * the reader has just read; with more, what it read blocks - 1 rounds
 * ago.  `-n' leaves the reader out (no other CPU holds the lines).
 *
 * Output, one line per block count:
 *   WAR size=<bytes> blocks=<n> reader=<0|1> write_us=<median copy>
 *
 * usage: write_after_read [-n] [-r rounds] [-s size] [-b blocks,...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_COUNTS	16
#define WARM		50

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	do { } while (0)
#endif

static void wait_for(volatile long *flag, long at_least)
{
	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < at_least)
		cpu_relax();
}

/* One run: the median of the writer's copies over `rounds'. */
static double run(size_t size, int blocks, int reader, int rounds)
{
	size_t stride = (size + 64 + 4095) & ~4095UL;
	unsigned char *heap, *mine;
	volatile long *flags;	/* [0] written, [8] read */
	double *t = malloc(rounds * sizeof(*t)), t0, med;
	struct bench_stats st;
	long i;
	pid_t kid;

	heap = mmap(NULL, stride * blocks, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	flags = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!t || heap == MAP_FAILED || flags == MAP_FAILED) {
		perror("write_after_read");
		exit(1);
	}
	memset(heap, 1, stride * blocks);
	flags[0] = flags[8] = -1;
	kid = fork();
	if (kid == 0) {
		if (bench_pin_cpu(1) < 0)
			perror("write_after_read: CPU 1");
		mine = malloc(size);
		for (i = 0; i < WARM + rounds; i++) {
			wait_for(&flags[0], i);
			if (reader)	/* the body sits a cache line in */
				memcpy(mine, heap + (i % blocks) * stride + 64,
				       size);
			__atomic_store_n(&flags[8], i, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	if (bench_pin_cpu(0) < 0)
		perror("write_after_read: CPU 0");
	mine = malloc(size);
	memset(mine, 2, size);
	for (i = 0; i < WARM + rounds; i++) {
		wait_for(&flags[8], i - 1);
		t0 = bench_now();
		memcpy(heap + (i % blocks) * stride + 64, mine, size);
		if (i >= WARM)
			t[i - WARM] = (bench_now() - t0) * 1e6;
		__atomic_store_n(&flags[0], i, __ATOMIC_RELEASE);
	}
	waitpid(kid, NULL, 0);
	bench_stats(t, rounds, &st);
	med = st.median;
	free(t);
	free(mine);
	munmap(heap, stride * blocks);
	munmap((void *)flags, 4096);
	return med;
}

int main(int argc, char **argv)
{
	int counts[MAX_COUNTS] = { 1, 2, 4, 16 }, ncounts = 4, rounds = 2000;
	int reader = 1, opt, i;
	size_t size = 256 << 10;
	char *s;

	while ((opt = getopt(argc, argv, "nr:s:b:")) != -1) {
		switch (opt) {
		case 'n':
			reader = 0;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			ncounts = 0;
			for (s = strtok(optarg, ","); s && ncounts < MAX_COUNTS;
			     s = strtok(NULL, ","))
				counts[ncounts++] = atoi(s);
			break;
		default:
			fprintf(stderr, "usage: %s [-n] [-r rounds] [-s size] "
				"[-b blocks,...]\n", argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || size == 0 || ncounts == 0) {
		fprintf(stderr, "%s: bad rounds, size or blocks\n", argv[0]);
		return 2;
	}
	for (i = 0; i < ncounts; i++) {
		if (counts[i] < 1) {
			fprintf(stderr, "%s: bad block count\n", argv[0]);
			return 2;
		}
		printf("WAR size=%zu blocks=%d reader=%d write_us=%.2f\n", size,
		       counts[i], reader, run(size, counts[i], reader, rounds));
		fflush(stdout);
	}
	return 0;
}

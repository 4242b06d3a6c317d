/*
 * ctx_cost.c - what one pvm_newcontext costs as contexts pile up (issue
 * 15: each new context cost time in proportion to those allocated).
 * Allocates `n' contexts without freeing any and prints the mean time of
 * one call in each tenth of the run; a flat column is the goal.  Then
 * frees them all and prints the mean time of one pvm_freecontext.
 * A benchmark, not a test: run it against a private daemon, e.g.
 *   PVM_TMP=$(mktemp -d) COPVM_PVMD=daemon/pvmd bench/ctx_cost -n 50000
 * (then halt that daemon: tests/tools/pvmhalt with the same PVM_TMP).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "pvm3.h"

int main(int argc, char **argv)
{
	int n = 20000, opt, i, k, *ctx;
	double t0, t;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (n = atoi(optarg)) < 10) {
			fprintf(stderr, "usage: ctx_cost [-n contexts >= 10]\n");
			return 1;
		}
	}
	ctx = malloc((size_t)n * sizeof(*ctx));
	if (!ctx || pvm_mytid() < 0)
		return 1;
	printf("contexts   us/newcontext\n");
	for (k = 0; k < 10; k++) {
		t0 = bench_now();
		for (i = k * n / 10; i < (k + 1) * n / 10; i++) {
			ctx[i] = pvm_newcontext();
			if (ctx[i] < 0) {
				fprintf(stderr, "ctx_cost: pvm_newcontext: %d\n",
					ctx[i]);
				return 1;
			}
		}
		t = bench_now() - t0;
		printf("%8d   %.2f\n", (k + 1) * n / 10, t * 1e6 / (n / 10));
	}
	t0 = bench_now();
	for (i = 0; i < n; i++)
		pvm_freecontext(ctx[i]);
	printf("us/freecontext (all %d): %.2f\n", n,
	       (bench_now() - t0) * 1e6 / n);
	pvm_exit();
	return 0;
}

/*
 * sintree - a synthetic benchmark: one to many, then many to one.  A root
 * sends a message to each of N - 1 leaves; every task, on receiving a
 * message, computes for a fixed time; the leaves then answer the root.
 *
 * The root spawns N - 1 copies of itself, dealt out round-robin over the
 * hosts of the virtual machine starting with the next one.  One
 * iteration: the root sends a message of the given length to every leaf
 * (one pvm_send each, over the direct routes); each leaf unpacks it into
 * an array, runs the floating-point kernel for the compute time (CPU time
 * of the task) and sends a message of the same length back; the root
 * receives the answers in whatever order they come and computes for the
 * same time on each.  After two untimed iterations, the root times each
 * of the given number of iterations.
 *
 * usage: sintree [-n tasks] [-s lengths] [-c compute_ms] [iterations]
 *   -n tasks    root plus leaves (default 4)
 *   -s lengths  message lengths in bytes, 0..8192 (default 1024; a list
 *               such as 0,1k,2k,4k,8k runs each in turn)
 *   -c ms       compute time per received message (default 1 ms)
 *   iterations  per length (default 100)
 * Output ends with RESULT lines: iter_ms.<length> (mean iteration time)
 * and time_s (all timed iterations).  Exit status 0, or 1 on any failure.
 */
#include <stdio.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_DOWN	51	/* root -> leaf */
#define TAG_UP		52	/* leaf -> root */
#define TAG_QUIT	53
#define TAG_EXIT	54

#define MAX_LENGTH	BENCH_SYN_MAX_LENGTH

static volatile double sink;

static int put(int to, int tag, char *buf, int len)
{
	if (pvm_initsend(PvmDataRaw) < 0)
		return -1;
	if (len > 0 && pvm_pkbyte(buf, len, 1) < 0)
		return -1;
	return pvm_send(to, tag) < 0 ? -1 : 0;
}

/* Receives a message with `tag' from `from' into buf; returns its length,
 * or -1 for anything else. */
static int take(int from, int tag, char *buf)
{
	int bufid, len, got;

	bufid = pvm_recv(from, -1);
	if (bufid < 0 || pvm_bufinfo(bufid, &len, &got, NULL) < 0 ||
	    got != tag || len > MAX_LENGTH)
		return -1;
	if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
		return -1;
	return len;
}

/* A leaf: compute on each message from the root, then answer it. */
static int leaf(double compute)
{
	static char buf[MAX_LENGTH];
	int parent = pvm_parent(), len;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	while ((len = take(parent, TAG_DOWN, buf)) >= 0) {
		bench_burn(compute);
		sink += len > 0 ? buf[len - 1] : 0;
		if (put(parent, TAG_UP, buf, len) < 0)
			break;
	}
	pvm_exit();
	return 0;
}

/* One iteration at the root; 0 or -1. */
static int iteration(const int *tids, int n, char *buf, int len, double compute)
{
	int i;

	for (i = 0; i < n; i++)
		if (put(tids[i], TAG_DOWN, buf, len) < 0)
			return -1;
	for (i = 0; i < n; i++) {
		if (take(-1, TAG_UP, buf) != len)
			return -1;
		bench_burn(compute);
	}
	return 0;
}

static const struct bench_synthetic sintree = {
	.name = "sintree",
	.title = "SINTREE one to many to one",
	.tag_quit = TAG_QUIT,
	.tag_exit = TAG_EXIT,
	.member = leaf,
	.start = NULL,
	.iteration = iteration,
};

int main(int argc, char **argv)
{
	return bench_synthetic_main(&sintree, argc, argv);
}

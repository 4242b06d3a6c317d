/*
 * sinring - a synthetic benchmark: a token goes round a logical ring of
 * N tasks, and every task that receives it computes for a fixed time
 * before passing it on.
 *
 * The master spawns N - 1 copies of itself, dealt out round-robin over the
 * hosts of the virtual machine starting with the next one, and tells each
 * which task follows it.  For each message length, the master sends a
 * token of that many bytes to task 1; each task unpacks it into an array,
 * runs the floating-point kernel for the compute time (CPU time of the
 * task: a preempted task still does all of it), packs it again and sends
 * it to the next task; task N - 1 sends it back to the master, which
 * computes too.  One iteration is one trip round the ring; after two
 * untimed trips, the master times each of the given number of iterations.
 *
 * usage: sinring [-n tasks] [-s lengths] [-c compute_ms] [iterations]
 *   -n tasks    tasks in the ring, master included (default 4)
 *   -s lengths  token lengths in bytes, 0..8192 (default 1024; a list such
 *               as 0,1k,2k,4k,8k runs each in turn)
 *   -c ms       compute time per received message (default 1 ms)
 *   iterations  trips round the ring per length (default 100)
 * Output ends with RESULT lines: iter_ms.<length> (mean trip time) and
 * time_s (all timed trips).  Exit status 0, or 1 on any failure.
 */
#include <stdio.h>

#include "pvm3.h"
#include "bench.h"

#define TAG_NEXT	41	/* master -> task: the tid of the next task */
#define TAG_TOKEN	42
#define TAG_QUIT	43
#define TAG_EXIT	44

#define MAX_LENGTH	BENCH_SYN_MAX_LENGTH

static volatile double sink;

/* Receives a token from anyone into buf; returns its length, or -1 for
 * anything else (a QUIT, an error). */
static int take(char *buf)
{
	int bufid, len, tag;

	bufid = pvm_recv(-1, -1);
	if (bufid < 0 || pvm_bufinfo(bufid, &len, &tag, NULL) < 0 ||
	    tag != TAG_TOKEN || len > MAX_LENGTH)
		return -1;
	if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
		return -1;
	return len;
}

static int pass(int to, char *buf, int len)
{
	if (pvm_initsend(PvmDataRaw) < 0)
		return -1;
	if (len > 0 && pvm_pkbyte(buf, len, 1) < 0)
		return -1;
	return pvm_send(to, TAG_TOKEN) < 0 ? -1 : 0;
}

/* A ring member: compute on each token, then pass it on. */
static int member(double compute)
{
	static char buf[MAX_LENGTH];
	int next, len;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (bench_recv_ints(pvm_parent(), TAG_NEXT, &next, 1) < 0)
		goto out;
	while ((len = take(buf)) >= 0) {
		bench_burn(compute);
		sink += len > 0 ? buf[0] : 0;
		if (pass(next, buf, len) < 0)
			break;
	}
out:
	pvm_exit();
	return 0;
}

/* One trip round the ring, from the master; 0 or -1. */
static int trip(int first, char *buf, int len, double compute)
{
	if (pass(first, buf, len) < 0 || take(buf) != len)
		return -1;
	bench_burn(compute);
	return 0;
}

/* Tells task i that task i + 1 follows it, the last one the master. */
static int link_ring(const int *tids, int n)
{
	int i, next;

	for (i = 0; i < n; i++) {
		next = i + 1 < n ? tids[i + 1] : pvm_mytid();
		if (bench_send_ints(tids[i], TAG_NEXT, &next, 1) < 0)
			return -1;
	}
	return 0;
}

/* One trip round the ring, from the master; 0 or -1. */
static int ring_trip(const int *tids, int n, char *buf, int len,
		     double compute)
{
	(void)n;
	return trip(tids[0], buf, len, compute);
}

static const struct bench_synthetic sinring = {
	.name = "sinring",
	.title = "SINRING logical ring",
	.tag_quit = TAG_QUIT,
	.tag_exit = TAG_EXIT,
	.member = member,
	.start = link_ring,
	.iteration = ring_trip,
};

int main(int argc, char **argv)
{
	return bench_synthetic_main(&sinring, argc, argv);
}

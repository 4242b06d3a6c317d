/*
 * pingpong - round-trip time and bandwidth between two PVM tasks.
 *
 * One binary plays both parts: started from a shell it enrolls, spawns
 * itself (by the absolute path of its own executable, or by name through
 * the spawn search path with -p NAME) as the echoing child, and times
 * round trips for each message size: pack with pvm_initsend(PvmDataRaw) +
 * pvm_pkbyte, pvm_send, then pvm_recv + pvm_upkbyte of the child's echo.
 * After a warm-up it reports, per size, the median, mean and 90th
 * percentile of the round trip in microseconds, the bandwidth
 * 2 * size / median (bytes moved both ways per round trip) in MB/s, and
 * last the 99th percentile.
 *
 * With -f both tasks forward instead: each sends back the message it
 * received, as it came (pvm_setrbuf(0), pvm_setsbuf, the old send buffer
 * freed), with no pack or unpack; the parent packs only the first, and
 * unpacks and checks only the last.
 *
 * With -b n each round is a stream instead: one message to the child,
 * n answers from it, and the figures are per message of the stream (the
 * round over n), the bandwidth size / median.
 *
 * It is plain PVM 3.4: the same source builds against stock PVM, which is
 * how bench/bench-pingpong.sh compares the two.
 *
 * usage: pingpong [-r reps] [-s size,size,...] [-b n | -f] [-i] [-p program]
 *                 [-H host]
 *   -r reps   round trips for sizes up to 1 KiB (default 1000); larger
 *             sizes do fewer: reps/4 at 64 KiB, reps/20 at 1 MiB, >= 10
 *   -s sizes  message sizes in bytes (default 0,8,1024,65536,1048576)
 *   -b n      the child answers each message with n (a stream; 1)
 *   -f        forward the received message instead of packing a new one
 *   -i        route through the daemons instead of direct task links
 *   -p prog   spawn this program as the child (default: this executable)
 *   -H host   spawn the child on that host (default: where pvm_spawn's
 *             round robin puts it, which moves on at each spawn)
 * Exit status: 0, or 1 if anything failed (spawn, a message, the echo).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "pingpong_reps.h"

#define TAG_PING	1
#define TAG_PONG	2
#define TAG_DONE	3
#define TAG_EXIT	4

#define MAX_SIZES	16

/* Argument that tells a spawned copy to be the child. */
#define CHILD_ARG	"--pingpong-child"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* -f: makes the message just received the send buffer; the old send
 * buffer is freed. */
static void forward(void)
{
	int r = pvm_setrbuf(0), old = pvm_setsbuf(r);

	if (old > 0 && old != r)
		pvm_freebuf(old);
}

/* The child: echo every ping back with the same bytes, `answers' times,
 * or forward it (answers 0), until told to stop. */
static int child(int answers)
{
	int parent = pvm_parent(), bufid, len, tag, k;
	size_t cap = 0;
	char *buf = NULL;

	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0 || pvm_bufinfo(bufid, &len, &tag, NULL) < 0)
			break;
		if (tag != TAG_PING)
			break;
		if (answers == 0) {
			forward();
			if (pvm_send(parent, TAG_PONG) < 0)
				break;
			continue;
		}
		if ((size_t)len > cap) {
			free(buf);
			cap = (size_t)len;
			buf = malloc(cap);
			if (buf == NULL)
				break;
		}
		if (len > 0 && pvm_upkbyte(buf, len, 1) < 0)
			break;
		for (k = 0; k < answers; k++) {
			pvm_initsend(PvmDataRaw);
			if (len > 0)
				pvm_pkbyte(buf, len, 1);
			if (pvm_send(parent, TAG_PONG) < 0)
				break;
		}
		if (k < answers)
			break;
	}
	free(buf);
	pvm_exit();
	return 0;
}

/* -f: `reps' round trips of `size' bytes after `warmup' untimed ones,
 * the first message packed, then forwarded both ways; the last one is
 * unpacked and checked.  Fills times[]; 0, or -1 on a failure. */
static int measure_forward(int peer, char *out, char *in, int size,
			   int warmup, int reps, double *times)
{
	int i, bufid, len;

	out[0] = 1;
	if (size > 0)
		out[size - 1] = 7;
	if (pvm_initsend(PvmDataRaw) < 0 ||
	    (size > 0 && pvm_pkbyte(out, size, 1) < 0))
		return -1;
	for (i = -warmup; i < reps; i++) {
		double t0 = now_us();

		if (pvm_send(peer, TAG_PING) < 0)
			return -1;
		bufid = pvm_recv(peer, TAG_PONG);
		if (bufid < 0 || pvm_bufinfo(bufid, &len, NULL, NULL) < 0 ||
		    len != size)
			return -1;
		forward();
		if (i >= 0)
			times[i] = now_us() - t0;
	}
	pvm_setrbuf(pvm_setsbuf(0));
	if (size > 0 && pvm_upkbyte(in, size, 1) < 0)
		return -1;
	return size > 0 && memcmp(in, out, size) ? -1 : 0;
}

/* Time `reps' round trips of `size' bytes after `warmup' untimed ones,
 * each answered by `answers' messages (0: forwarded, measure_forward).
 * Fills times[] (microseconds, a round over `answers'); returns 0, or
 * -1 on a failure. */
static int measure(int peer, char *out, char *in, int size, int warmup,
		   int reps, int answers, double *times)
{
	int i, k, bufid, len;

	if (answers == 0)
		return measure_forward(peer, out, in, size, warmup, reps,
				       times);
	for (i = -warmup; i < reps; i++) {
		double t0 = now_us();

		out[0] = (char)i;
		if (size > 0)
			out[size - 1] = (char)(i * 7);
		if (pvm_initsend(PvmDataRaw) < 0 ||
		    (size > 0 && pvm_pkbyte(out, size, 1) < 0) ||
		    pvm_send(peer, TAG_PING) < 0)
			return -1;
		for (k = 0; k < answers; k++) {
			bufid = pvm_recv(peer, TAG_PONG);
			if (bufid < 0 || pvm_bufinfo(bufid, &len, NULL, NULL) < 0 ||
			    len != size)
				return -1;
			if (size > 0 && pvm_upkbyte(in, size, 1) < 0)
				return -1;
		}
		if (i >= 0)
			times[i] = (now_us() - t0) / answers;
		if (size > 0 && (in[0] != out[0] || in[size - 1] != out[size - 1]))
			return -1;
	}
	return 0;
}

static int parse_sizes(const char *arg, int *sizes)
{
	int n = 0;
	char *copy = strdup(arg), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok && n < MAX_SIZES;
	     tok = strtok_r(NULL, ",", &save))
		sizes[n++] = atoi(tok);
	free(copy);
	return n;
}

int main(int argc, char **argv)
{
	int sizes[MAX_SIZES] = { 0, 8, 1024, 65536, 1048576 };
	int nsizes = 5, reps = 1000, direct = 1, opt, i, s, peer, status = 0;
	int maxsize = 0, answers = 1;
	char self[4096], *prog = NULL, nans[16];
	char *child_argv[] = { CHILD_ARG, NULL, NULL, NULL };
	char *host = NULL;
	char *out, *in;
	double *times;

	if (argc > 1 && strcmp(argv[1], CHILD_ARG) == 0) {
		if (pvm_mytid() < 0)
			return 1;
		pvm_setopt(PvmRoute, argc > 2 && strcmp(argv[2], "daemon") == 0 ?
			   PvmDontRoute : PvmRouteDirect);
		return child(argc > 3 && atoi(argv[3]) >= 0 ? atoi(argv[3]) : 1);
	}

	while ((opt = getopt(argc, argv, "r:s:b:fip:H:")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			nsizes = parse_sizes(optarg, sizes);
			break;
		case 'b':
			answers = atoi(optarg);
			if (answers < 1)
				return 1;
			break;
		case 'f':
			answers = 0;
			break;
		case 'i':
			direct = 0;
			break;
		case 'H':
			host = optarg;
			break;
		case 'p':
			prog = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-s size,...] [-b n | -f] "
				"[-i] [-p program] [-H host]\n", argv[0]);
			return 1;
		}
	}
	if (reps < 1 || nsizes < 1)
		return 1;
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > maxsize)
			maxsize = sizes[s];

	if (prog == NULL) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n > 0) {
			self[n] = '\0';
			prog = self;
		} else {
			/* Found through the spawn search path then. */
			prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		}
	}

	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, direct ? PvmRouteDirect : PvmDontRoute);
	child_argv[1] = direct ? "direct" : "daemon";
	snprintf(nans, sizeof(nans), "%d", answers);
	child_argv[2] = nans;
	if (pvm_spawn(prog, child_argv, host ? PvmTaskHost : PvmTaskDefault,
		      host ? host : "", 1, &peer) != 1) {
		fprintf(stderr, "pingpong: cannot spawn %s (%d)\n", prog, peer);
		pvm_exit();
		return 1;
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &peer);

	out = calloc(1, (size_t)maxsize + 1);
	in = calloc(1, (size_t)maxsize + 1);
	times = calloc((size_t)pingpong_reps_for(0, reps), sizeof(*times));
	if (out == NULL || in == NULL || times == NULL) {
		status = 1;
		goto done;
	}

	if (answers > 1)
		printf("# pingpong: PVM %s, %s route, streams of %d messages "
		       "between two tasks, per message\n", pvm_version(),
		       direct ? "direct" : "daemon", answers);
	else
		printf("# pingpong: PVM %s, %s route, round trips between two "
		       "tasks%s\n", pvm_version(), direct ? "direct" : "daemon",
		       answers ? "" : ", each message forwarded");
	printf("%10s %6s %12s %12s %12s %10s %12s\n", "bytes", "reps",
	       "median_us", "mean_us", "p90_us", "MB/s", "p99_us");
	for (s = 0; s < nsizes; s++) {
		int size = sizes[s], n = pingpong_reps_for(size, reps);
		double sum = 0, median;

		for (i = 0; i < size; i++)
			out[i] = (char)(i * 31 + 7);
		pingpong_mark("begin", size);
		if (measure(peer, out, in, size, n / 10 + 2, n, answers,
			    times) < 0) {
			fprintf(stderr, "pingpong: round trip of %d bytes failed\n", size);
			status = 1;
			break;
		}
		pingpong_mark("end", size);
		qsort(times, (size_t)n, sizeof(*times), cmp_double);
		for (i = 0; i < n; i++)
			sum += times[i];
		median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
		printf("%10d %6d %12.2f %12.2f %12.2f %10.2f %12.2f\n", size, n,
		       median, sum / n,
		       times[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1],
		       median > 0 ? (answers > 1 ? 1.0 : 2.0) * size / median : 0.0,
		       times[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1]);
		fflush(stdout);
	}

done:
	/* Stop the child and wait until it has gone. */
	pvm_initsend(PvmDataRaw);
	pvm_send(peer, TAG_DONE);
	if (pvm_recv(-1, TAG_EXIT) < 0)
		status = 1;
	free(out);
	free(in);
	free(times);
	pvm_exit();
	return status;
}

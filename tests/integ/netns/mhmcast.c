/*
 * mhmcast - pvm_mcast from one task to tasks of other hosts, for
 * mh-uring.sh (a check) and bench-mh-mcast.sh (a benchmark).
 *
 * Plain PVM 3.4: built against copvm by `make check' and against stock
 * PVM by the benchmark.  The master spawns its receivers on the hosts
 * other than its own, round robin ("mhmcast child"), and every task asks
 * for direct routes (PvmRouteDirect), so that with copvm each copy of a
 * multicast goes on its own TCP circuit: with COPVM_URING=1 they are all
 * submitted to the kernel in one io_uring_enter (docs/uring.md).
 *
 * With -d every task sets PvmDontRoute instead, and the copies go through
 * the daemons: the receivers' daemon then writes to several tasks in one
 * loop turn (with COPVM_URING=1, one batch through its ring).
 *
 * usage: mhmcast check [-t tasks] [-d]
 *          multicasts messages of 0 B .. 4 MiB (several rounds), then 300
 *          small ones, each with its sequence number and checksum, to
 *          `tasks' receivers (default 3); each receiver checks every copy
 *          and the order and reports at the end.  Prints lines that do
 *          not depend on the run (so that backends can be compared), and
 *          on stderr the number of io_uring rings this task holds.
 *        mhmcast bench [-t tasks] [-s bytes] [-r reps] [-d]
 *          times `reps' acked rounds (after reps/10 untimed): one
 *          pvm_mcast of `bytes' to the receivers (default: one per other
 *          host), then one small ack from each.  Prints
 *          "mcast bytes B tasks T reps R median_us M mean_us A
 *          send_median_us S", S being the time of the pvm_mcast call
 *          alone (the packing and the sends, not the acks).
 * Exit status 0, or 1 when something went wrong (said on stderr).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "mhutil.h"

#define TAG_DATA	41	/* seq, len, checksum, bytes (check) */
#define TAG_BENCH	42	/* bytes; answered with TAG_ACK */
#define TAG_ACK		43
#define TAG_DONE	44	/* check: report; answered with TAG_DONE */
#define TAG_EXIT	45
#define MAX_SIZE	(4 << 20)
#define MAX_TASKS	32

static int failed;

static void bad(const char *what)
{
	fprintf(stderr, "mhmcast: %s\n", what);
	failed = 1;
}


static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int route = PvmRouteDirect;	/* -d: PvmDontRoute */

/* The receivers: what they are sent, checked or acked, until TAG_EXIT. */
static void child(void)
{
	int parent = pvm_parent(), want = 0, ok = 0, seq, len, tag, src;
	unsigned char *buf = malloc(MAX_SIZE);
	unsigned sum;

	pvm_setopt(PvmRoute, route);
	while (buf && pvm_recv(parent, -1) > 0) {
		pvm_bufinfo(pvm_getrbuf(), &len, &tag, &src);
		if (tag == TAG_BENCH) {
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&ok, 1, 1);
			pvm_send(parent, TAG_ACK);
		} else if (tag == TAG_DATA) {
			pvm_upkint(&seq, 1, 1);
			pvm_upkint(&len, 1, 1);
			pvm_upkuint(&sum, 1, 1);
			if (len < 0 || len > MAX_SIZE)
				len = 0;
			if (len > 0)
				pvm_upkbyte((char *)buf, len, 1);
			if (seq == want && checksum(buf, len) == sum)
				ok++;
			want++;
		} else if (tag == TAG_DONE) {
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&ok, 1, 1);
			pvm_pkint(&want, 1, 1);
			pvm_send(parent, TAG_DONE);
		} else {
			break;
		}
	}
	free(buf);
	pvm_exit();
}

/* Spawns `n' receivers round robin on the hosts other than ours; the
 * count spawned. */
static int spawn_children(int *tids, int n)
{
	struct pvmhostinfo *h;
	char *args[] = { route == PvmDontRoute ? "-d" : NULL, NULL };
	int nh, na, i, k = 0, me = pvm_tidtohost(pvm_mytid()), got = 0;

	if (pvm_config(&nh, &na, &h) < 0 || nh < 2) {
		bad("needs two hosts at least");
		return 0;
	}
	for (i = 0; got < n; i = (i + 1) % nh) {
		if (h[i].hi_tid == me)
			continue;
		if (pvm_spawn("mhmcast", args, PvmTaskHost, h[i].hi_name, 1,
			      &tids[got]) != 1) {
			bad("spawn failed");
			return got;
		}
		got++;
		if (++k > 10 * MAX_TASKS)
			break;
	}
	return got;
}


/* Multicasts message `seq' of `len' bytes from `out' to the receivers. */
static void send_data(int *tids, int n, int seq, int len, unsigned char *out)
{
	unsigned sum;
	int j;

	for (j = 0; j < len; j++)
		out[j] = (unsigned char)(j * 131 + len + seq);
	sum = checksum(out, len);
	pvm_initsend(PvmDataRaw);
	pvm_pkint(&seq, 1, 1);
	pvm_pkint(&len, 1, 1);
	pvm_pkuint(&sum, 1, 1);
	if (len > 0)
		pvm_pkbyte((char *)out, len, 1);
	if (pvm_mcast(tids, n, TAG_DATA) < 0)
		bad("pvm_mcast failed");
}

static void do_check(int ntasks)
{
	static const int sizes[] = { 0, 1, 7, 1000, 4096, 65536, 100003,
				     1 << 20, MAX_SIZE };
	const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
	unsigned char *out = malloc(MAX_SIZE);
	int tids[MAX_TASKS], n, i, seq = 0, ok, want, all = 1;

	if (!out) {
		bad("out of memory");
		return;
	}
	n = spawn_children(tids, ntasks);
	for (i = 0; i < 3 * nsizes; i++)
		send_data(tids, n, seq++, sizes[i % nsizes], out);
	for (i = 0; i < 300; i++)
		send_data(tids, n, seq++, i % 100, out);
	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, n, TAG_DONE);
	for (i = 0; i < n; i++) {
		/* a receiver that lost copies may never answer */
		struct timeval tmout = { 20, 0 };

		if (pvm_trecv(-1, TAG_DONE, &tmout) <= 0) {
			bad("no report");
			break;
		}
		pvm_upkint(&ok, 1, 1);
		pvm_upkint(&want, 1, 1);
		all = all && ok == seq && want == seq;
	}
	printf("%d receivers on other hosts, %d multicasts\n", n, seq);
	printf("every copy intact and in order: %s\n",
	       i == n && all ? "yes" : "NO");
	fprintf(stderr, "mhmcast: io_uring rings %d\n", uring_fds());
	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, n, TAG_EXIT);
	free(out);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void do_bench(int ntasks, int size, int reps)
{
	unsigned char *out = calloc(1, size > 0 ? size : 1);
	double *t = malloc(reps * sizeof(*t)), sum = 0, t0, t1;
	double *ts = malloc(reps * sizeof(*ts));
	int tids[MAX_TASKS], n, r, i, warm = reps / 10 + 1;

	if (!out || !t || !ts) {
		bad("out of memory");
		return;
	}
	n = spawn_children(tids, ntasks);
	for (r = -warm; r < reps && !failed; r++) {
		t0 = now_us();
		pvm_initsend(PvmDataRaw);
		if (size > 0)
			pvm_pkbyte((char *)out, size, 1);
		if (pvm_mcast(tids, n, TAG_BENCH) < 0)
			bad("pvm_mcast failed");
		t1 = now_us();
		for (i = 0; i < n; i++)
			if (pvm_recv(-1, TAG_ACK) < 0)
				bad("no ack");
		if (r >= 0) {
			t[r] = now_us() - t0;
			ts[r] = t1 - t0;
		}
	}
	if (!failed) {
		for (r = 0; r < reps; r++)
			sum += t[r];
		qsort(t, reps, sizeof(*t), cmp_double);
		qsort(ts, reps, sizeof(*ts), cmp_double);
		printf("mcast bytes %d tasks %d reps %d median_us %.2f "
		       "mean_us %.2f send_median_us %.2f\n", size, n, reps,
		       t[reps / 2], sum / reps, ts[reps / 2]);
	}
	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, n, TAG_EXIT);
	free(out);
	free(t);
	free(ts);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int ntasks = -1, size = 8, reps = 2000, c;

	if (pvm_parent() > 0) {	/* a receiver: "mhmcast [-d]" */
		if (argc > 1 && !strcmp(argv[1], "-d"))
			route = PvmDontRoute;
		child();
		return 0;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "t:s:r:d")) != -1) {
		switch (c) {
		case 't': ntasks = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'd': route = PvmDontRoute; break;
		default: mode = ""; break;
		}
	}
	if (pvm_mytid() < 0)
		return 1;
	pvm_setopt(PvmRoute, route);
	if (ntasks < 0) {
		int nh, na;

		ntasks = 3;
		if (!strcmp(mode, "bench") && pvm_config(&nh, &na, NULL) >= 0)
			ntasks = nh - 1;
	}
	if (ntasks < 1 || ntasks > MAX_TASKS || size < 0 || size > MAX_SIZE ||
	    reps < 1) {
		bad("bad -t, -s or -r");
	} else if (!strcmp(mode, "check")) {
		do_check(ntasks);
	} else if (!strcmp(mode, "bench")) {
		do_bench(ntasks, size, reps);
	} else {
		fprintf(stderr, "usage: mhmcast check [-t tasks] [-d] | "
			"bench [-t tasks] [-s bytes] [-r reps] [-d]\n");
		failed = 1;
	}
	pvm_exit();
	return failed;
}

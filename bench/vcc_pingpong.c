/*
 * vcc_pingpong.c - the ping-pong of the VCC and precommunication paper,
 * between two PVM tasks of this host: per message size, the median round
 * trip, and (under tests/tools/alloc_count.so) the heap allocations the
 * timed round trips of the parent made.
 *
 * One binary plays both parts: it spawns itself (by /proc/self/exe) as
 * the echoing child.  A round trip is pvm_initsend + pvm_pkbyte +
 * pvm_send, then pvm_recv + pvm_upkbyte of the echo.  With -I both sides
 * use precommunication as the paper does: the next message is packed
 * first and announced with pvm_indication() before the receive it does
 * not depend on, and sent after it.  COPVM_VCC=0 in the environment
 * turns virtual circuit caching off (exported to the child).
 *
 * Output, one line per size:
 *   RESULT size=<bytes> median_us=<round trip> cpu_us=<t> allocs=<n|->
 *          reps=<n> mean_us=<round trip>
 * `cpu_us': the parent's CPU time (user + system) per timed round trip,
 * the software overhead of one send and one receive with their packing,
 * which scheduling on a shared machine does not inflate as it does the
 * round trip.
 * `allocs': calls of malloc, calloc and realloc by the parent during the
 * timed round trips (after `warm' untimed ones); "-" when the counting
 * interposer is not preloaded.
 *
 * -X makes each round an exchange instead: both tasks send, then both
 * receive (the halo-exchange pattern; messages larger than a ring make
 * each sender wait for room while its own input waits to be read).
 *
 * -P pins the parent to CPU 0 and the child to CPU 1.  Unpinned, the
 * scheduler's wake-affine placement puts both tasks on one CPU in some
 * runs and not in others, and the small-message round trip is bimodal
 * (about 1 us apart, about 7 us together on this machine).
 *
 * -T times each call of the parent's timed round trips (pvm_initsend,
 * pvm_pkbyte, pvm_send, pvm_recv, pvm_upkbyte) with the vDSO clock and
 * prints their medians, less the clock's own cost, as a STAGES line:
 * the breakdown of docs/results/msg_breakdown.md.
 *
 * -B n makes each round a stream: the parent sends one message, and the
 * child answers it with n, which the parent receives one by one.  The
 * parent is then the receiving end of a stream, the side that cannot
 * keep up in a flood, and `allocs' counts its allocations.  The RESULT
 * line adds burst=n and per_msg_us (the median round over n).
 *
 * -R resends instead: each task sends back the message it received, as
 * it came (pvm_setrbuf(0), pvm_setsbuf, the old send buffer freed), with
 * no pack or unpack; the parent packs only the first.  The other
 * pattern of issue 26's targets, besides packing every message.
 *
 * -F makes each message the full cycle of a typical program: one int
 * (a sequence number) packed before the bytes and unpacked after them,
 * and the receive buffer freed with pvm_freebuf() once unpacked (both
 * tasks).
 *
 * -S us sets both tasks' receive spin (pvm_setopt(PvmPollTime)).
 *
 * Under `perf stat --control fifo:CTL,ACK -D -1', VCC_PINGPONG_PERF_CTL
 * and VCC_PINGPONG_PERF_ACK name those fifos: the parent enables the
 * counters for its timed round trips only, so that
 * perf counts the steady state and nothing of the start.
 *
 * -e default|raw|inplace picks the encoding of the timed messages
 * (default: raw).  `default' is what a stock PVM program uses
 * (pvm_initsend(PvmDataDefault), XDR); it is passed to the child.
 *
 * usage: vcc_pingpong [-r reps] [-w warm] [-s size,size,...] [-e enc]
 *                     [-B n] [-S us] [-F] [-I] [-P] [-R] [-T] [-X]
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "pvm3.h"

#define TAG_PING	1
#define TAG_PONG	2
#define TAG_SIZE	3
#define MAX_SIZES	16
#define CHILD_ARG	"--vcc-pingpong-child"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* CPU time (user + system) this process used so far, in us. */
static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Runs this process on CPU `cpu' only; 0, or -1 when refused. */
static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The interposer's counter, or NULL when it is not preloaded. */
static unsigned long (*alloc_count)(void);

/* -T: the parent's per-call times, ns, per stage of a round trip. */
enum { ST_INIT, ST_PACK, ST_SEND, ST_RECV, ST_UNPACK, NSTAGES };
static const char *const stage_name[NSTAGES] = {
	"initsend", "pkbyte", "send", "recv", "upkbyte"
};
static double *stage_ns[NSTAGES];
static int stage_on, stage_i;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Records the time since *t0 as stage `st' of round trip stage_i.  Reads
 * no clock unless -T asked for the stages, so that an untimed run reads
 * it twice per round trip, as bench/mpi_pingpong.c does. */
static void stage_mark(int st, double *t0)
{
	double t;

	if (!stage_on)
		return;
	t = now_ns();
	stage_ns[st][stage_i] = t - *t0;
	*t0 = t;
}

/* The encoding of the timed messages (-e). */
static int encoding = PvmDataRaw;
/* -F: an int item and an explicit free in every message. */
static int full_cycle;
/* -R: the received message is sent back as it is. */
static int resend;

/* -R: makes the message just received the send buffer; the old send
 * buffer is freed. */
static void forward(void)
{
	int r = pvm_setrbuf(0), old = pvm_setsbuf(r);

	if (old > 0 && old != r)
		pvm_freebuf(old);
}

/* Packs `len' bytes of `buf' into a fresh send buffer. */
static void pack(char *buf, int len)
{
	static int seq;
	double t0 = stage_on ? now_ns() : 0;

	pvm_initsend(encoding);
	stage_mark(ST_INIT, &t0);
	if (full_cycle)
		pvm_pkint(&seq, 1, 1);
	seq++;
	pvm_pkbyte(buf, len, 1);
	stage_mark(ST_PACK, &t0);
}

/* Unpacks what pack() packed into `buf'; with -F frees the buffer. */
static void unpack(char *buf, int len)
{
	int seq;

	if (full_cycle)
		pvm_upkint(&seq, 1, 1);
	pvm_upkbyte(buf, len, 1);
	if (full_cycle)
		pvm_freebuf(pvm_getrbuf());
}

/* Prints the medians of the -T stages over `reps' round trips, less the
 * cost of one clock read. */
static void stage_print(int len, int reps)
{
	double clk[1001], t0, m;
	int st, i;

	for (i = 0; i < 1001; i++) {
		t0 = now_ns();
		clk[i] = now_ns() - t0;
	}
	qsort(clk, 1001, sizeof(*clk), cmp_double);
	printf("STAGES size=%d clock_ns=%.0f", len, clk[500]);
	for (st = 0; st < NSTAGES; st++) {
		qsort(stage_ns[st], reps, sizeof(double), cmp_double);
		m = stage_ns[st][reps / 2] - clk[500];
		printf(" %s=%.0f", stage_name[st], m > 0 ? m : 0);
	}
	printf("\n");
}

/* The child: per size, echoes `reps' messages back. */
static int child(void)
{
	int parent = pvm_parent(), len, n, i, j, info[4];
	char *buf;

	for (;;) {
		if (pvm_recv(parent, TAG_SIZE) < 0)
			return 1;
		pvm_upkint(info, 4, 1);
		len = info[0];
		n = info[1];
		if (len < 0)
			return 0;
		buf = calloc(1, len ? len : 1);
		if (!buf)
			return 1;
		for (i = 0; i < n; i++) {
			if (info[2]) {	/* exchange: ours goes first */
				pack(buf, len);
				if (pvm_send(parent, TAG_PONG) < 0)
					return 1;
			}
			if (pvm_recv(parent, TAG_PING) < 0)
				return 1;
			if (resend) {
				forward();
				if (pvm_send(parent, TAG_PONG) < 0)
					return 1;
				continue;
			}
			unpack(buf, len);
			if (info[2])
				continue;
			for (j = 0; j < info[3]; j++) {
				pack(buf, len);
				if (pvm_send(parent, TAG_PONG) < 0)
					return 1;
			}
		}
		free(buf);
	}
}

/* Sends `cmd' ("enable", "disable") to perf stat's control fifo, if
 * there is one, and waits for its acknowledgement. */
static void perf_ctl(const char *cmd)
{
	static int ctl = -2, ack = -1;
	const char *p;
	char buf[16];

	if (ctl == -2) {
		ctl = -1;
		p = getenv("VCC_PINGPONG_PERF_CTL");
		if (p && *p)
			ctl = open(p, O_WRONLY | O_CLOEXEC);
		p = getenv("VCC_PINGPONG_PERF_ACK");
		if (ctl >= 0 && p && *p)
			ack = open(p, O_RDONLY | O_CLOEXEC);
	}
	if (ctl < 0)
		return;
	snprintf(buf, sizeof(buf), "%s\n", cmd);
	if (write(ctl, buf, strlen(buf)) < 0)
		return;
	if (ack >= 0 && read(ack, buf, sizeof(buf)) < 0)
		return;
}

/* Times `reps' round trips of `len' bytes after `warm' untimed ones. */
static int run_size(int tid, int len, int reps, int warm, int precomm,
		    int exchange, int timing, int burst)
{
	double *t = malloc(reps * sizeof(*t)), t0, ts, mean;
	char *buf = calloc(1, len ? len : 1);
	unsigned long a0 = 0, a1 = 0;
	double c0 = 0, c1;
	int i, j, info[4] = { len, reps + warm, exchange, burst };

	if (!t || !buf)
		return 1;
	for (i = 0; timing && i < NSTAGES; i++)
		if (!(stage_ns[i] = calloc(reps, sizeof(double))))
			return 1;
	for (i = 0; i < len; i++)
		buf[i] = (char)i;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(info, 4, 1);
	pvm_send(tid, TAG_SIZE);
	pack(buf, len);
	for (i = 0; i < reps + warm; i++) {
		if (i == warm) {
			perf_ctl("enable");
			c0 = cpu_us();
			if (alloc_count)
				a0 = alloc_count();
		}
		stage_on = timing && i >= warm;
		stage_i = i - warm;
		t0 = now_us();
		ts = stage_on ? now_ns() : 0;
		if (pvm_send(tid, TAG_PING) < 0)
			return 1;
		stage_mark(ST_SEND, &ts);
		/* the next ping does not depend on this pong */
		if (!resend)
			pack(buf, len);
		if (precomm && pvm_indication(tid, TAG_PING) < 0)
			return 1;
		ts = stage_on ? now_ns() : 0;
		if (pvm_recv(tid, TAG_PONG) < 0)
			return 1;
		stage_mark(ST_RECV, &ts);
		if (resend)
			forward();
		else
			unpack(buf, len);
		stage_mark(ST_UNPACK, &ts);
		for (j = 1; j < burst; j++) {
			if (pvm_recv(tid, TAG_PONG) < 0)
				return 1;
			unpack(buf, len);
		}
		if (i >= warm)
			t[i - warm] = now_us() - t0;
	}
	stage_on = 0;
	perf_ctl("disable");
	c1 = cpu_us();
	if (alloc_count)
		a1 = alloc_count();
	for (i = 0, mean = 0; i < reps; i++)
		mean += t[i] / reps;
	qsort(t, reps, sizeof(*t), cmp_double);
	printf("RESULT size=%d median_us=%.2f cpu_us=%.2f ", len, t[reps / 2],
	       (c1 - c0) / reps);
	if (alloc_count)
		printf("allocs=%lu reps=%d", a1 - a0, reps);
	else
		printf("allocs=- reps=%d", reps);
	printf(" mean_us=%.2f", mean);
	if (burst > 1)
		printf(" burst=%d per_msg_us=%.3f", burst, t[reps / 2] / burst);
	printf("\n");
	if (timing) {
		stage_print(len, reps);
		for (i = 0; i < NSTAGES; i++)
			free(stage_ns[i]);
	}
	fflush(stdout);
	free(t);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int sizes[MAX_SIZES] = { 8, 1024, 16384, 65536, 1048576 };
	int nsizes = 5, reps = 2000, warm = 200, precomm = 0, pin = 0, opt;
	int tid, i;
	int rc = 0, exchange = 0, timing = 0, spin_us = -1, burst = 1;
	int info[4] = { -1, 0, 0, 1 };
	char self[4096], *s, *args[6] = { NULL }, enc[16], spin[16];
	ssize_t n;

	alloc_count = (unsigned long (*)(void))dlsym(RTLD_DEFAULT,
						     "alloc_count_calls");
	if (argc > 1 && !strcmp(argv[1], CHILD_ARG)) {
		if (argc > 2 && !strcmp(argv[2], "pinned") && pin_to(1) < 0)
			return 1;
		if (argc > 3)
			encoding = atoi(argv[3]);
		full_cycle = argc > 4 && !strcmp(argv[4], "full");
		resend = argc > 4 && !strcmp(argv[4], "resend");
		if (argc > 5 && atoi(argv[5]) >= 0)
			pvm_setopt(PvmPollTime, atoi(argv[5]));
		rc = child();
		pvm_exit();
		return rc;
	}
	while ((opt = getopt(argc, argv, "r:w:s:e:B:S:FIPRTX")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 'w':
			warm = atoi(optarg);
			break;
		case 's':
			nsizes = 0;
			for (s = strtok(optarg, ","); s && nsizes < MAX_SIZES;
			     s = strtok(NULL, ","))
				sizes[nsizes++] = atoi(s);
			break;
		case 'e':
			if (!strcmp(optarg, "default"))
				encoding = PvmDataDefault;
			else if (!strcmp(optarg, "raw"))
				encoding = PvmDataRaw;
			else if (!strcmp(optarg, "inplace"))
				encoding = PvmDataInPlace;
			else
				return 2;
			break;
		case 'B':
			burst = atoi(optarg);
			break;
		case 'I':
			precomm = 1;
			break;
		case 'P':
			pin = 1;
			break;
		case 'S':
			spin_us = atoi(optarg);
			break;
		case 'F':
			full_cycle = 1;
			break;
		case 'R':
			resend = 1;
			break;
		case 'T':
			timing = 1;
			break;
		case 'X':
			exchange = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-w warm] "
				"[-s sizes] [-e enc] [-B n] [-S us] [-F] [-I] [-P] [-R] [-T] "
				"[-X]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || warm < 0 || burst < 1 || (burst > 1 && exchange) ||
	    (resend && (burst > 1 || exchange || precomm || full_cycle)) ||
	    pvm_mytid() < 0)
		return 1;
	if (spin_us >= 0)
		pvm_setopt(PvmPollTime, spin_us);
	/* after enrolling: a daemon we started stays unpinned */
	if (pin && pin_to(0) < 0) {
		perror("vcc_pingpong: sched_setaffinity");
		pvm_exit();
		return 1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	args[0] = CHILD_ARG;
	args[1] = pin ? "pinned" : "free";
	snprintf(enc, sizeof(enc), "%d", encoding);
	args[2] = enc;
	args[3] = full_cycle ? "full" : resend ? "resend" : "plain";
	snprintf(spin, sizeof(spin), "%d", spin_us);
	args[4] = spin;
	if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tid) != 1) {
		fprintf(stderr, "vcc_pingpong: spawn failed\n");
		pvm_exit();
		return 1;
	}
	for (i = 0; i < nsizes && !rc; i++) {
		int r = sizes[i] >= 1048576 ? reps / 10 : reps;

		rc = run_size(tid, sizes[i], r > 10 ? r : 10, warm, precomm,
			      exchange, timing, burst);
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkint(info, 4, 1);
	pvm_send(tid, TAG_SIZE);
	pvm_exit();
	return rc;
}

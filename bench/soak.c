/*
 * soak - a long run of mixed messages, with or without faults, for
 * bench/soak-faults.sh (report: docs/results/soak.md).
 *
 * Started from a shell it is the master: it spawns workers (itself, by
 * the absolute path of its executable) and tells each the tids of all
 * workers.  Every worker sends to every other worker in turn, messages
 * of 0 B to -m bytes (mostly small, rarely large) in mixed encodings
 * (PvmDataDefault, PvmDataRaw, PvmDataInPlace) and types (bytes, ints,
 * doubles, strings).  Each message carries its sender's sequence number
 * towards that receiver, its type, its length and a checksum of its
 * contents; the receiver checks all of them: a checksum that differs is
 * corrupted, a sequence number other than the next expected is a lost,
 * duplicated or reordered message.  A window of credits per pair of
 * workers (acknowledged every window/4 messages) keeps the queues
 * bounded, so that memory can be flat.  At the end each worker sends
 * every live peer a final message with the number it sent; the receiver
 * compares it with the number it received, which finds a loss at the
 * tail.  Every worker and the master ask for PvmTaskExit of all workers
 * and PvmHostDelete of all hosts, and report what they got.
 *
 * usage: soak count [-n MESSAGES] [-w WORKERS] [-m MAX] [-i SECONDS]
 *                   [-d PVMD_PID]
 *          WORKERS workers (default 4) on this host send MESSAGES messages
 *          in all (default 10000000); every -i seconds (default 5) a
 *          SAMPLE line gives the messages so far and the resident memory
 *          (VmRSS, KiB) of the master, each worker and the daemon -d
 *   soak faults [-w PER_HOST] [-t SECONDS] [-m MAX]
 *          PER_HOST workers (default 3) on every host of the machine but
 *          the master's own, for SECONDS (default 40); the master prints
 *          a "TASK tid dtid pid host" line per worker and "READY" once every
 *          worker has asked for its notifies, and the one running it may
 *          then kill tasks and daemons (SIGKILL)
 * Output: "WORKER" and "MASTER" lines with each one's counts and the
 * notifies it received, "RESULT key=value..." lines with the totals.
 * Exit status: 0 when no message was lost, duplicated, reordered or
 * corrupted, 1 otherwise or when something failed (said on stderr).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"

#define TAG_CONFIG	101
#define TAG_READY	102
#define TAG_DATA	103
#define TAG_ACK		104
#define TAG_FINAL	105
#define TAG_STOP	106
#define TAG_REPORT	107
#define TAG_BYE		108
#define TAG_PROGRESS	109
#define TAG_EXIT	110
#define TAG_HDEL	111

#define MAX_WORKERS	64
#define MAX_LIST	128
#define PATTERN_WORDS	(1 << 17)	/* 1 MiB of 8-byte words */
#define SLACK_WORDS	4096
#define PROGRESS_EVERY	100000
#define MAX_SAMPLES	4096

#define CHILD_ARG	"--soak-worker"

enum kind { K_BYTE, K_INT, K_DOUBLE, K_STR, K_KINDS };

static const int encodings[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };

/* Patterns the messages are cut from (read-only once made). */
static uint64_t pat_words[PATTERN_WORDS + SLACK_WORDS];
static double pat_doubles[PATTERN_WORDS + SLACK_WORDS];
static char pat_str[PATTERN_WORDS * 8 + SLACK_WORDS * 8];

/* The state of one worker towards each peer. */
struct peer {
	int tid;
	int dead;		/* its TaskExit notify came */
	int credit;		/* messages we may still send it */
	int final;		/* its final message came */
	long sent;		/* data messages sent to it */
	long recvd;		/* next sequence number expected from it */
	long since_ack;		/* received since our last ack */
};

struct counts {
	long sent, recvd, bytes, corrupt, lost, dup, badfinal;
	int nexit, exits[MAX_LIST], nhdel, hdels[MAX_LIST];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* The checksum of `n' bytes: a 64-bit multiply-xor over words and tail. */
static uint64_t checksum(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h ^ n;
}

static void make_patterns(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < PATTERN_WORDS + SLACK_WORDS; i++) {
		pat_words[i] = xorshift(&s);
		pat_doubles[i] = (double)(pat_words[i] >> 11) / 3.0 - 1e15;
	}
	for (i = 0; i < sizeof(pat_str); i++)
		pat_str[i] = (char)('a' + pat_words[i / 8] % 26 + (i & 1));
}

static long vmrss_kb(int pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void add_list(int *list, int *n, int v)
{
	int i;

	for (i = 0; i < *n; i++)
		if (list[i] == v)
			return;
	if (*n < MAX_LIST)
		list[(*n)++] = v;
}

/* A message size: 90 % up to 256 B, 9 % up to 16 KiB, 0.9 % up to
 * 256 KiB, 0.1 % up to `max'. */
static size_t pick_size(uint64_t *rng, size_t max)
{
	unsigned r = (unsigned)(xorshift(rng) % 1000);
	uint64_t x = xorshift(rng);
	size_t lo, hi;

	if (r < 900) {
		lo = 0;
		hi = 256;
	} else if (r < 990) {
		lo = 257;
		hi = 16384;
	} else if (r < 999) {
		lo = 16385;
		hi = 262144;
	} else {
		lo = 262145;
		hi = max;
	}
	if (hi > max)
		hi = max;
	if (lo > hi)
		lo = hi;
	return lo + (size_t)(x % (hi - lo + 1));
}

/*
 * Packs and sends one data message to `p': header (sequence number,
 * type, element count, checksum halves), then the elements.
 */
static int send_data(struct peer *p, uint64_t *rng, size_t max, char *strbuf,
		     struct counts *c)
{
	size_t size = pick_size(rng, max), off = xorshift(rng) % SLACK_WORDS;
	int kind = (int)(p->sent % K_KINDS);
	/* strings cannot be packed in place (PvmNotImpl, as in PVM 3.4) */
	int enc = encodings[(p->sent / K_KINDS) % (kind == K_STR ? 2 : 3)];
	int hdr[5], n, rc;
	uint64_t sum;
	const void *data;

	switch (kind) {
	case K_INT:
		n = (int)(size / sizeof(int));
		data = (const int *)(pat_words + off);
		sum = checksum(data, (size_t)n * sizeof(int));
		break;
	case K_DOUBLE:
		n = (int)(size / sizeof(double));
		data = pat_doubles + off;
		sum = checksum(data, (size_t)n * sizeof(double));
		break;
	case K_STR:
		n = size > 65536 ? 65536 : (int)size;
		memcpy(strbuf, pat_str + off * 8, (size_t)n);
		strbuf[n] = '\0';
		data = strbuf;
		sum = checksum(data, (size_t)n);
		break;
	default:
		n = (int)size;
		data = (const char *)pat_words + off * 8;
		sum = checksum(data, size);
		break;
	}
	hdr[0] = (int)p->sent;
	hdr[1] = kind;
	hdr[2] = n;
	hdr[3] = (int)(uint32_t)sum;
	hdr[4] = (int)(uint32_t)(sum >> 32);
	if (pvm_initsend(enc) < 0 || pvm_pkint(hdr, 5, 1) < 0)
		return -1;
	switch (kind) {
	case K_INT:
		pvm_pkint((int *)data, n, 1);
		break;
	case K_DOUBLE:
		pvm_pkdouble((double *)data, n, 1);
		break;
	case K_STR:
		pvm_pkstr((char *)data);
		break;
	default:
		pvm_pkbyte((char *)data, n, 1);
		break;
	}
	rc = pvm_send(p->tid, TAG_DATA);
	if (rc == PvmNoHost) {
		/* its host left (the TaskExit notify follows): no more */
		p->credit = 0;
		return 0;
	}
	if (rc < 0)
		return -1;
	p->sent++;
	p->credit--;
	c->sent++;
	c->bytes += (long)size;
	return 0;
}

/* Unpacks and checks the data message now in the receive buffer. */
static void recv_data(struct peer *p, char *buf, int want_ack,
		      struct counts *c)
{
	int hdr[5], n, kind;
	size_t len = 0;
	uint64_t sum;

	if (pvm_upkint(hdr, 5, 1) < 0) {
		c->corrupt++;
		return;
	}
	kind = hdr[1];
	n = hdr[2];
	if (n < 0 || n > PATTERN_WORDS * 8 || kind < 0 || kind >= K_KINDS) {
		c->corrupt++;
		return;
	}
	switch (kind) {
	case K_INT:
		len = (size_t)n * sizeof(int);
		if (len > PATTERN_WORDS * 8 || pvm_upkint((int *)buf, n, 1) < 0)
			len = (size_t)-1;
		break;
	case K_DOUBLE:
		len = (size_t)n * sizeof(double);
		if (len > PATTERN_WORDS * 8 || pvm_upkdouble((double *)buf, n, 1) < 0)
			len = (size_t)-1;
		break;
	case K_STR:
		len = pvm_upkstr(buf) < 0 ? (size_t)-1 : strlen(buf);
		break;
	default:
		len = (size_t)n;
		if (pvm_upkbyte(buf, n, 1) < 0)
			len = (size_t)-1;
		break;
	}
	sum = (uint64_t)(uint32_t)hdr[3] | (uint64_t)(uint32_t)hdr[4] << 32;
	if (len == (size_t)-1 || checksum(buf, len) != sum)
		c->corrupt++;
	if (hdr[0] == p->recvd)
		;
	else if (hdr[0] < p->recvd)
		c->dup++;
	else if (hdr[0] > p->recvd)
		c->lost += hdr[0] - p->recvd;
	if (hdr[0] >= p->recvd)
		p->recvd = hdr[0] + 1L;
	c->recvd++;
	if (++p->since_ack >= want_ack && !p->dead) {
		int k = (int)p->since_ack;

		p->since_ack = 0;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&k, 1, 1);
		pvm_send(p->tid, TAG_ACK);
	}
}

static struct peer *find_peer(struct peer *peers, int n, int tid)
{
	int i;

	for (i = 0; i < n; i++)
		if (peers[i].tid == tid)
			return &peers[i];
	return NULL;
}

static void send_finals(struct peer *peers, int n, int me)
{
	int i, v;

	for (i = 0; i < n; i++) {
		if (peers[i].dead || peers[i].tid == me)
			continue;
		v = (int)peers[i].sent;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&v, 1, 1);
		pvm_send(peers[i].tid, TAG_FINAL);
	}
}

static int finals_missing(struct peer *peers, int n, int me)
{
	int i, m = 0;

	for (i = 0; i < n; i++)
		if (!peers[i].dead && !peers[i].final && peers[i].tid != me)
			m++;
	return m;
}

static void pack_counts(const struct counts *c)
{
	long v[7] = { c->sent, c->recvd, c->bytes, c->corrupt, c->lost,
		      c->dup, c->badfinal };

	pvm_pklong(v, 7, 1);
	pvm_pkint((int *)&c->nexit, 1, 1);
	pvm_pkint((int *)c->exits, c->nexit, 1);
	pvm_pkint((int *)&c->nhdel, 1, 1);
	pvm_pkint((int *)c->hdels, c->nhdel, 1);
}

static void unpack_counts(struct counts *c)
{
	long v[7];

	memset(c, 0, sizeof(*c));
	pvm_upklong(v, 7, 1);
	c->sent = v[0];
	c->recvd = v[1];
	c->bytes = v[2];
	c->corrupt = v[3];
	c->lost = v[4];
	c->dup = v[5];
	c->badfinal = v[6];
	pvm_upkint(&c->nexit, 1, 1);
	if (c->nexit < 0 || c->nexit > MAX_LIST)
		c->nexit = 0;
	pvm_upkint(c->exits, c->nexit, 1);
	pvm_upkint(&c->nhdel, 1, 1);
	if (c->nhdel < 0 || c->nhdel > MAX_LIST)
		c->nhdel = 0;
	pvm_upkint(c->hdels, c->nhdel, 1);
}

/* A worker's whole state. */
struct worker {
	int me, master, n, window, ack_every, max, stopping;
	struct peer peers[MAX_WORKERS];
	struct counts c;
	char *buf, *strbuf;
};

/* Handles the message in the receive buffer; 1 when the master died. */
static int handle(struct worker *w, int bufid)
{
	int len, tag, src, i;
	struct peer *p;

	pvm_bufinfo(bufid, &len, &tag, &src);
	p = find_peer(w->peers, w->n, src);
	switch (tag) {
	case TAG_DATA:
		if (p)
			recv_data(p, w->buf, w->ack_every, &w->c);
		break;
	case TAG_ACK:
		if (p && pvm_upkint(&i, 1, 1) >= 0)
			p->credit += i;
		break;
	case TAG_FINAL:
		if (p && pvm_upkint(&i, 1, 1) >= 0) {
			p->final = 1;
			if (i != p->recvd) {
				w->c.badfinal++;
				if (i > p->recvd)
					w->c.lost += i - p->recvd;
			}
		}
		break;
	case TAG_STOP:
		if (!w->stopping) {
			w->stopping = 1;
			send_finals(w->peers, w->n, w->me);
		}
		break;
	case TAG_EXIT:
		if (pvm_upkint(&i, 1, 1) >= 0) {
			if (i == w->master)
				return 1;
			add_list(w->c.exits, &w->c.nexit, i);
			p = find_peer(w->peers, w->n, i);
			if (p)
				p->dead = 1;
		}
		break;
	case TAG_HDEL:
		if (pvm_upkint(&i, 1, 1) >= 0)
			add_list(w->c.hdels, &w->c.nhdel, i);
		break;
	default:
		fprintf(stderr, "soak: t%x: tag %d from t%x?\n", w->me, tag, src);
		break;
	}
	return 0;
}

/* The next live peer with credit, round robin from *next; NULL if none. */
static struct peer *next_peer(struct worker *w, int *next)
{
	int k;

	for (k = 0; k < w->n; k++) {
		struct peer *p = &w->peers[*next];

		*next = (*next + 1) % w->n;
		if (p->tid != w->me && !p->dead && p->credit > 0)
			return p;
	}
	return NULL;
}

static void send_progress(int master, long *count)
{
	long v = *count;

	*count = 0;
	pvm_initsend(PvmDataDefault);
	pvm_pklong(&v, 1, 1);
	pvm_send(master, TAG_PROGRESS);
}

/*
 * The worker: takes its configuration from the master, sends and
 * receives until its quota is sent (or STOP comes) and every live peer's
 * final message is in, reports, and waits for BYE.
 */
static int worker(void)
{
	static struct worker w;
	int tids[MAX_WORKERS], nhosts, dtids[MAX_LIST], i, bufid, len, tag, src;
	int next = 0, pid = getpid();
	long quota, since_progress = 0;
	uint64_t rng;
	struct peer *p;
	struct timeval tmo = { 60, 0 };	/* silence that means a hang */

	w.me = pvm_mytid();
	w.master = pvm_parent();
	make_patterns();
	w.buf = malloc(PATTERN_WORDS * 8 + 16);
	w.strbuf = malloc(65536 + 16);
	if (!w.buf || !w.strbuf || pvm_recv(w.master, TAG_CONFIG) < 0)
		return 1;
	pvm_upkint(&w.n, 1, 1);
	if (w.n < 1 || w.n > MAX_WORKERS)
		return 1;
	pvm_upkint(tids, w.n, 1);
	pvm_upklong(&quota, 1, 1);
	pvm_upkint(&w.max, 1, 1);
	pvm_upkint(&w.window, 1, 1);
	pvm_upkint(&nhosts, 1, 1);
	if (nhosts < 0 || nhosts > MAX_LIST || w.max < 0 ||
	    w.max > PATTERN_WORDS * 8 || w.window < 1)
		return 1;
	pvm_upkint(dtids, nhosts, 1);
	w.ack_every = w.window / 4 > 0 ? w.window / 4 : 1;
	for (i = 0; i < w.n; i++) {
		w.peers[i].tid = tids[i];
		w.peers[i].credit = w.window;
	}
	rng = 0x2545f4914f6cdd1dull ^ (uint64_t)w.me * 0x9e3779b97f4a7c15ull;
	pvm_notify(PvmTaskExit, TAG_EXIT, w.n, tids);
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &w.master);
	if (nhosts > 0)
		pvm_notify(PvmHostDelete, TAG_HDEL, nhosts, dtids);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&pid, 1, 1);
	pvm_send(w.master, TAG_READY);

	for (;;) {
		int sent = 0;

		/* a burst of sends while some live peer has credit */
		while (!w.stopping && sent < 16 && (p = next_peer(&w, &next))) {
			if (send_data(p, &rng, (size_t)w.max, w.strbuf,
				      &w.c) < 0) {
				fprintf(stderr, "soak: t%x: send failed\n", w.me);
				return 1;
			}
			sent++;
			if (++since_progress >= PROGRESS_EVERY)
				send_progress(w.master, &since_progress);
			if (quota > 0 && w.c.sent >= quota) {
				w.stopping = 1;
				send_finals(w.peers, w.n, w.me);
			}
		}
		if (w.stopping && !finals_missing(w.peers, w.n, w.me))
			break;
		/* then everything that came in; wait only if nothing went */
		while ((bufid = pvm_nrecv(-1, -1)) > 0) {
			if (handle(&w, bufid))
				return 1;
			sent++;
		}
		if (bufid < 0) {
			fprintf(stderr, "soak: t%x: receive failed\n", w.me);
			return 1;
		}
		if (sent)	/* something happened: look again first */
			continue;
		bufid = pvm_trecv(-1, -1, &tmo);
		if (bufid < 0) {
			fprintf(stderr, "soak: t%x: receive failed\n", w.me);
			return 1;
		}
		if (bufid == 0) {
			fprintf(stderr, "soak: t%x: nothing for %ld s, %d finals "
				"missing\n", w.me, (long)tmo.tv_sec,
				finals_missing(w.peers, w.n, w.me));
			for (i = 0; i < w.n; i++)
				fprintf(stderr, "soak: t%x: peer t%x sent %ld "
					"recvd %ld credit %d final %d dead %d\n",
					w.me, w.peers[i].tid, w.peers[i].sent,
					w.peers[i].recvd, w.peers[i].credit,
					w.peers[i].final, w.peers[i].dead);
			return 1;
		}
		if (handle(&w, bufid))
			return 1;
	}
	send_progress(w.master, &since_progress);
	pvm_initsend(PvmDataDefault);
	pack_counts(&w.c);
	pvm_send(w.master, TAG_REPORT);
	/* stay until every report is in: an early exit would be a TaskExit
	 * notify the others report */
	while ((bufid = pvm_recv(-1, -1)) > 0) {
		pvm_bufinfo(bufid, &len, &tag, &src);
		if (tag == TAG_BYE || (tag == TAG_EXIT &&
				       pvm_upkint(&i, 1, 1) >= 0 && i == w.master))
			break;
	}
	free(w.buf);
	free(w.strbuf);
	pvm_exit();
	return 0;
}

static void print_list(const char *name, const int *v, int n)
{
	int i;

	printf(" %s=", name);
	for (i = 0; i < n; i++)
		printf("%s%x", i ? "," : "", v[i]);
	if (!n)
		printf("-");
}

static void print_counts(const char *who, int tid, const struct counts *c)
{
	printf("%s %x sent=%ld recvd=%ld bytes=%ld corrupt=%ld lost=%ld "
	       "dup=%ld badfinal=%ld", who, tid, c->sent, c->recvd, c->bytes,
	       c->corrupt, c->lost, c->dup, c->badfinal);
	print_list("exits", c->exits, c->nexit);
	print_list("hdels", c->hdels, c->nhdel);
	printf("\n");
}

struct sample {
	double t;
	long msgs, master, wmax, wsum, pvmd;
};

/* Prints first/last/max of a memory column over the samples taken once
 * `from' messages had gone (the warm-up is left out). */
static void rss_summary(const char *name, const struct sample *s, int n,
			long from, size_t off)
{
	long first = -1, last = -1, max = -1, v;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i].msgs < from)
			continue;
		v = *(const long *)((const char *)&s[i] + off);
		if (first < 0)
			first = v;
		last = v;
		if (v > max)
			max = v;
		k++;
	}
	printf("RSS %s samples=%d first_kb=%ld last_kb=%ld max_kb=%ld "
	       "growth_kb=%ld\n", name, k, first, last, max, last - first);
}

static int usage(void)
{
	fprintf(stderr, "usage: soak count [-n MESSAGES] [-w WORKERS] [-m MAX] "
		"[-i SECONDS] [-d PVMD_PID]\n"
		"       soak faults [-w PER_HOST] [-t SECONDS] [-m MAX]\n");
	return 2;
}

int main(int argc, char **argv)
{
	long total = 10000000, quota, msgs = 0, v;
	int nw = -1, max = 1 << 20, window = 64, pvmd_pid = 0, faults, opt;
	double interval = 5, seconds = 40, t0, next_sample, deadline = 0;
	int tids[MAX_WORKERS], pids[MAX_WORKERS], done[MAX_WORKERS];
	int nhosts = 0, narch, dtids[MAX_LIST], n = 0, i, j, bufid, tag, src;
	int len, me, reported = 0, live, failed = 0;
	struct pvmhostinfo *hosts;
	struct counts mine, all, c;
	static struct sample samples[MAX_SAMPLES];
	int nsamples = 0;
	char exe[4096], *args[] = { CHILD_ARG, NULL };
	ssize_t el;
	struct timeval tmo;

	if (argc > 1 && !strcmp(argv[1], CHILD_ARG))
		return worker();
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "count"))
		faults = 0;
	else if (!strcmp(argv[1], "faults"))
		faults = 1;
	else
		return usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "n:w:m:i:d:t:")) != -1) {
		switch (opt) {
		case 'n': total = atol(optarg); break;
		case 'w': nw = atoi(optarg); break;
		case 'm': max = atoi(optarg); break;
		case 'i': interval = atof(optarg); break;
		case 'd': pvmd_pid = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		default: return usage();
		}
	}
	if (nw < 0)
		nw = faults ? 3 : 4;
	if (total < 1 || nw < 1 || max < 0 || max > PATTERN_WORDS * 8 ||
	    interval <= 0 || seconds <= 0)
		return usage();
	el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (el <= 0)
		return 1;
	exe[el] = '\0';
	me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_catchout(stderr);
	if (pvm_config(&nhosts, &narch, &hosts) < 0 || nhosts > MAX_LIST)
		return 1;
	for (i = 0; i < nhosts; i++)
		dtids[i] = hosts[i].hi_tid;
	if (faults) {
		int mydtid = pvm_tidtohost(me);

		for (i = 0; i < nhosts; i++) {
			if (dtids[i] == mydtid)
				continue;
			if (n + nw > MAX_WORKERS ||
			    pvm_spawn(exe, args, PvmTaskHost, hosts[i].hi_name,
				      nw, tids + n) != nw) {
				fprintf(stderr, "soak: spawn on %s failed\n",
					hosts[i].hi_name);
				pvm_halt();
				return 1;
			}
			n += nw;
		}
		quota = 0;
	} else {
		if (nw > MAX_WORKERS ||
		    pvm_spawn(exe, args, PvmTaskHost, hosts[0].hi_name, nw,
			      tids) != nw) {
			fprintf(stderr, "soak: spawn failed\n");
			return 1;
		}
		n = nw;
		quota = (total + nw - 1) / nw;
	}
	if (n < 2) {
		fprintf(stderr, "soak: needs two workers at least\n");
		return 1;
	}
	memset(&mine, 0, sizeof(mine));
	memset(&all, 0, sizeof(all));
	memset(done, 0, sizeof(done));
	pvm_notify(PvmTaskExit, TAG_EXIT, n, tids);
	if (nhosts > 1)
		pvm_notify(PvmHostDelete, TAG_HDEL, nhosts, dtids);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&n, 1, 1);
	pvm_pkint(tids, n, 1);
	pvm_pklong(&quota, 1, 1);
	pvm_pkint(&max, 1, 1);
	pvm_pkint(&window, 1, 1);
	pvm_pkint(&nhosts, 1, 1);
	pvm_pkint(dtids, nhosts, 1);
	pvm_mcast(tids, n, TAG_CONFIG);
	for (i = 0; i < n; i++) {
		if (pvm_recv(tids[i], TAG_READY) < 0)
			return 1;
		pvm_upkint(&pids[i], 1, 1);
		int dt = pvm_tidtohost(tids[i]);
		const char *name = "?";

		for (j = 0; j < nhosts; j++)
			if (hosts[j].hi_tid == dt)
				name = hosts[j].hi_name;
		printf("TASK %x %x %d %s\n", tids[i], dt, pids[i], name);
	}
	printf("READY workers=%d hosts=%d max=%d window=%d quota=%ld\n", n,
	       nhosts, max, window, quota);
	fflush(stdout);

	t0 = now_s();
	next_sample = t0;
	if (faults)
		deadline = t0 + seconds;
	live = n;
	while (reported < live) {
		double t = now_s(), wait;

		if (!faults && t >= next_sample && nsamples < MAX_SAMPLES) {
			struct sample *s = &samples[nsamples++];

			s->t = t - t0;
			s->msgs = msgs;
			s->master = vmrss_kb(getpid());
			s->pvmd = pvmd_pid ? vmrss_kb(pvmd_pid) : -1;
			s->wmax = 0;
			s->wsum = 0;
			for (i = 0; i < n; i++) {
				v = done[i] ? 0 : vmrss_kb(pids[i]);
				s->wsum += v > 0 ? v : 0;
				if (v > s->wmax)
					s->wmax = v;
			}
			printf("SAMPLE t=%.1f msgs=%ld master_kb=%ld "
			       "worker_max_kb=%ld workers_kb=%ld pvmd_kb=%ld\n",
			       s->t, s->msgs, s->master, s->wmax, s->wsum,
			       s->pvmd);
			fflush(stdout);
			next_sample += interval;
		}
		if (faults && deadline > 0 && t >= deadline) {
			printf("STOP t=%.1f\n", t - t0);
			fflush(stdout);
			for (i = 0; i < n; i++) {
				if (done[i])
					continue;
				pvm_initsend(PvmDataDefault);
				pvm_send(tids[i], TAG_STOP);
			}
			deadline = 0;
		}
		wait = faults && deadline > 0 ? deadline - t :
		       faults ? 120 : next_sample - t;
		if (wait < 0.01)
			wait = 0.01;
		tmo.tv_sec = (long)wait;
		tmo.tv_usec = (long)((wait - (double)tmo.tv_sec) * 1e6);
		bufid = pvm_trecv(-1, -1, &tmo);
		if (bufid < 0) {
			fprintf(stderr, "soak: receive failed\n");
			return 1;
		}
		if (bufid == 0) {
			if (faults && deadline == 0) {
				fprintf(stderr, "soak: reports missing after "
					"120 s\n");
				failed = 1;
				break;
			}
			continue;
		}
		pvm_bufinfo(bufid, &len, &tag, &src);
		for (j = 0; j < n && tids[j] != src; j++)
			;
		switch (tag) {
		case TAG_PROGRESS:
			pvm_upklong(&v, 1, 1);
			msgs += v;
			break;
		case TAG_REPORT:
			if (j == n || done[j])
				break;
			unpack_counts(&c);
			print_counts("WORKER", src, &c);
			all.sent += c.sent;
			all.recvd += c.recvd;
			all.bytes += c.bytes;
			all.corrupt += c.corrupt;
			all.lost += c.lost;
			all.dup += c.dup;
			all.badfinal += c.badfinal;
			done[j] = 1;
			reported++;
			break;
		case TAG_EXIT:
			pvm_upkint(&i, 1, 1);
			add_list(mine.exits, &mine.nexit, i);
			for (j = 0; j < n && tids[j] != i; j++)
				;
			if (j < n && !done[j]) {
				done[j] = 2;
				live--;
			}
			break;
		case TAG_HDEL:
			pvm_upkint(&i, 1, 1);
			add_list(mine.hdels, &mine.nhdel, i);
			break;
		default:
			break;
		}
	}
	if (!faults) {
		double t = now_s() - t0;

		printf("ELAPSED seconds=%.1f msgs_per_s=%.0f\n", t,
		       t > 0 ? (double)all.recvd / t : 0);
		rss_summary("master", samples, nsamples, total / 10,
			    offsetof(struct sample, master));
		rss_summary("worker_max", samples, nsamples, total / 10,
			    offsetof(struct sample, wmax));
		rss_summary("workers_sum", samples, nsamples, total / 10,
			    offsetof(struct sample, wsum));
		if (pvmd_pid)
			rss_summary("pvmd", samples, nsamples, total / 10,
				    offsetof(struct sample, pvmd));
	}
	print_counts("MASTER", me, &mine);
	printf("RESULT workers=%d reported=%d messages=%ld bytes=%ld "
	       "corrupt=%ld lost=%ld dup=%ld badfinal=%ld\n", n, reported,
	       all.recvd, all.bytes, all.corrupt, all.lost, all.dup,
	       all.badfinal);
	fflush(stdout);
	pvm_initsend(PvmDataDefault);
	for (i = 0; i < n; i++)
		if (done[i] == 1)
			pvm_send(tids[i], TAG_BYE);
	if (all.corrupt || all.lost || all.dup || all.badfinal ||
	    (!faults && all.recvd != all.sent) || reported < live)
		failed = 1;
	pvm_exit();
	return failed;
}

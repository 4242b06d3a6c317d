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
 *
 * This file is the master; a worker is soak_worker.c, the messages and
 * the counts soak_msg.c, what they share soak.h.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "soak.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
		return soak_worker();
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

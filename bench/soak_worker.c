/*
 * soak_worker.c - a worker of bench/soak: it takes its configuration from
 * the master, sends to every other worker in turn within a window of
 * credits per pair, checks what it receives, and at the end exchanges the
 * final counts with its peers and reports to the master.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvm3.h"
#include "soak.h"

/* A worker's whole state. */
struct worker {
	int me, master, n, window, ack_every, max, stopping;
	struct peer peers[MAX_WORKERS];
	struct counts c;
	char *buf, *strbuf;
};

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
 * final message is in, reports, and waits for BYE.  0, or 1 on a failure.
 */
int soak_worker(void)
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

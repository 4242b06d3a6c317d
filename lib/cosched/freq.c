/*
 * freq.c - the probe: per-interval counts of the messages a task sends
 * and receives, and its recent local correspondents, kept in its shared
 * page with no system call per message (a coarse vDSO clock decides when
 * an interval has ended; cosched.c then computes F and decides).
 *
 * Every model counts both directions here, so that the tools always see
 * them; the recurrence (cosched_model.c) takes only receives under DYN.
 */
#include <time.h>

#include "cosched.h"
#include "cosched_page.h"
#include "proto.h"
#include "pvmi.h"

struct cosched_page *pvmi_cosched_page;
uint64_t pvmi_cosched_next_roll;

uint64_t pvmi_cosched_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Records an exchange with task `tid' of this host in the peers table:
 * its entry, else a free one, else the one idle the longest. */
static void note_peer(struct cosched_page *pg, int tid, int sent, uint64_t now)
{
	struct cosched_peer *p, *victim = NULL;
	int i, n = pg->npeers;

	for (i = 0; i < n; i++) {
		p = &pg->peers[i];
		if (p->tid == tid)
			goto found;
		if (!victim || p->last_ns < victim->last_ns)
			victim = p;
	}
	if (n < COSCHED_MAX_PEERS) {
		p = &pg->peers[n];
		pg->npeers = n + 1;
	} else {
		p = victim;
	}
	p->tid = tid;
	p->pid = 0;
	p->sends = p->recvs = 0;
found:
	p->last_ns = now;
	if (sent)
		p->sends++;
	else
		p->recvs++;
}

/* The common part of both hooks, after the counters. */
static inline void after_count(struct cosched_page *pg, int tid, int sent)
{
	uint64_t now = pvmi_cosched_coarse_ns();

	if (PVMI_TID_HOST(tid) == PVMI_TID_HOST(pvmi.mytid))
		note_peer(pg, tid, sent, now);
	if (now >= pvmi_cosched_next_roll)
		pvmi_cosched_roll(0);
}

void pvmi_cosched_sent(int tid)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return;
	pg->sends_now++;
	pg->sends_total++;
	after_count(pg, tid, 1);
	pvmi_cosched_peer_sent(tid);
}

void pvmi_cosched_received(int src)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg || pvmi_check_task_tid(src) != PvmOk)
		return;
	pg->recvs_now++;
	pg->recvs_total++;
	after_count(pg, src, 0);
}

/*
 * freq.c - the probe: per-interval counts of the messages a task sends
 * and receives, and its recent local correspondents, kept in its shared
 * page with no system call per message (a coarse vDSO clock decides when
 * an interval has ended; cosched.c then computes F and decides).
 *
 * Every model counts both directions here, so that the tools always see
 * them; the recurrence (cosched_model.c) takes only receives under DYN.
 */
#include "cosched.h"
#include "cosched_page.h"
#include "proto.h"
#include "pvmi.h"

/* When the probe last looked at the clock (state.c says how often). */
static uint64_t last_look;

/* Records an exchange with task `tid' of this host in the peers table:
 * its entry, else a free one, else the one idle the longest. */
static inline void note_peer(struct cosched_page *pg, int tid, int sent,
			     uint64_t now)
{
	static int last;	/* most exchanges are with the same peer */
	struct cosched_peer *p, *victim = NULL;
	int i, n = pg->npeers;

	p = &pg->peers[last];
	if (last < n && p->tid == tid)
		goto found;
	for (i = 0; i < n; i++) {
		p = &pg->peers[i];
		if (p->tid == tid) {
			last = i;
			goto found;
		}
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

/* The common part of both hooks, before the counters: an interval that
 * ended since the last look is closed first, so the message being
 * counted falls in the interval it happened in, not in the last one
 * that had traffic. */
static inline void look_at_clock(void)
{
	if (pvmi_cosched_look_left > 0) {
		pvmi_cosched_look_left--;
		return;
	}
	/* A roll sets a new rate and look_left = 0 (look again at once). */
	pvmi_cosched_look_left = pvmi_cosched_look_every - 1;
	last_look = pvmi_cosched_coarse_ns();
	if (last_look >= pvmi_cosched_next_roll)
		pvmi_cosched_roll(0);
}

void pvmi_cosched_sent(int tid)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return;
	look_at_clock();
	pg->sends_now++;
	pg->sends_total++;
	if (PVMI_TID_HOST(tid) == PVMI_TID_HOST(pvmi.mytid))
		note_peer(pg, tid, 1, last_look);
	pvmi_cosched_peer_sent(tid);
}

void pvmi_cosched_received(int src)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg || pvmi_check_task_tid(src) != PvmOk)
		return;
	look_at_clock();
	pg->recvs_now++;
	pg->recvs_total++;
	if (PVMI_TID_HOST(src) == PVMI_TID_HOST(pvmi.mytid))
		note_peer(pg, src, 0, last_look);
}

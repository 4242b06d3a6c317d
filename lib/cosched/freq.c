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

/* The entry of the peers table last found: most exchanges are with the
 * same peer. */
static int last;

/* Records an exchange with task `tid' of this host in the peers table:
 * its entry, else a free one, else the one idle the longest.  Out of
 * line: the hooks try the last entry found first, inline (peer_hit). */
static __attribute__((noinline)) void note_peer(struct cosched_page *pg,
						int tid, int sent,
						uint64_t now)
{
	struct cosched_peer *p, *victim = NULL;
	int i, n = pg->npeers;

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

/* Records an exchange with task `tid' of this host (`sent': from us):
 * the entry last found first, inline, else note_peer. */
static inline void count_peer(struct cosched_page *pg, int tid, int sent)
{
	struct cosched_peer *p = &pg->peers[last];

	if (last >= pg->npeers || p->tid != tid) {
		note_peer(pg, tid, sent, last_look);
		return;
	}
	p->last_ns = last_look;
	if (sent)
		p->sends++;
	else
		p->recvs++;
}

/* look_at_clock() when it is time to look: out of line, so that the
 * hooks' common case needs no frame. */
static __attribute__((noinline)) void look_now(void)
{
	/* A roll sets a new rate and look_left = 0 (look again at once). */
	pvmi_cosched_look_left = pvmi_cosched_look_every - 1;
	last_look = pvmi_cosched_coarse_ns();
	if (last_look >= pvmi_cosched_next_roll)
		pvmi_cosched_roll(0);
}

/* The common part of both hooks, before the counters: an interval that
 * ended since the last look is closed first, so the message being
 * counted falls in the interval it happened in, not in the last one
 * that had traffic. */
static inline void look_at_clock(void)
{
	if (pvmi_cosched_look_left > 0)
		pvmi_cosched_look_left--;
	else
		look_now();
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
		count_peer(pg, tid, 1);
	pvmi_cosched_peer_sent(tid);
}

/* pvmi_cosched_received()'s counting, `src' checked and the clock
 * looked at. */
static inline void count_received(struct cosched_page *pg, int src)
{
	pg->recvs_now++;
	pg->recvs_total++;
	if (PVMI_TID_HOST(src) == PVMI_TID_HOST(pvmi.mytid))
		count_peer(pg, src, 0);
}

/* pvmi_cosched_received() when it is time to look at the clock. */
static __attribute__((noinline)) void received_looking(struct cosched_page *pg,
						       int src)
{
	look_now();
	count_received(pg, src);
}

/* Counts a receive from `src' (look_at_clock() and count_received(),
 * the common case without a frame). */
void pvmi_cosched_received(int src)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg || pvmi_check_task_tid(src) != PvmOk)
		return;
	if (pvmi_cosched_look_left == 0) {
		received_looking(pg, src);
		return;
	}
	pvmi_cosched_look_left--;
	count_received(pg, src);
}

/*
 * cosched_page.h - the coscheduling page of one task: the probe's counts,
 * its frequency F and its boost state, in a file that the task maps
 * shared, so that the daemon, the boost backends, correspondents on this
 * host and the observability tools read them with no system call on the
 * task's message path.
 *
 * Where: $PVM_TMP/copvm-<uid>/cosched/t<tid in hex> (COSCHED_DIR and
 * COSCHED_PAGE_FMT below), mode 0600 in the user's 0700 run directory, so
 * only the owning user's processes (and root) can open it.  The task
 * creates it when it enrols and removes it when it leaves; a page whose
 * pid is gone is stale and readers skip it (the daemon removes it).
 *
 * Who writes what: the task writes every field except those marked
 * "peers" (written by correspondents with atomic operations) and "req"
 * (written by the console or copvm-cosched; the task applies them at the
 * end of its current interval and clears them).  The boost fields
 * (boost, boost_nice, boost_slice, boost_until_ns) are also written by a
 * correspondent that boosts the task, and, with `demotions', by the
 * daemon's watch when it undoes a boost (daemon/cosched_watch.c).  Readers must tolerate a
 * torn read of the 64-bit counters' relation to each other: each field is
 * naturally aligned and updated as a whole.
 */
#ifndef COPVM_COSCHED_PAGE_H
#define COPVM_COSCHED_PAGE_H

#include <stdint.h>

#define COSCHED_PAGE_MAGIC	0x63767063u	/* "cpvc" little-endian */
#define COSCHED_PAGE_VERSION	2	/* 2: fields grouped by cache line */
#define COSCHED_PAGE_SIZE	4096
#define COSCHED_DIR		"cosched"	/* inside the run directory */
#define COSCHED_PAGE_FMT	"t%x"		/* task id in hex */
#define COSCHED_MAX_PEERS	8
/* A "req" field holding this value asks for nothing. */
#define COSCHED_REQ_NONE	(-1)

/* One recent correspondent on this host. */
struct cosched_peer {
	int32_t tid;
	int32_t pid;		/* 0 until its page was found */
	uint64_t last_ns;	/* CLOCK_MONOTONIC of the last exchange */
	uint32_t sends;		/* messages we sent it (all time) */
	uint32_t recvs;		/* messages we received from it */
};

/* The page is cut into cache lines by who touches them how often: a
 * field that the task writes at each message never shares a line with
 * one that a correspondent reads at each send, or each would pull the
 * other's line away (false sharing cost 30-35 ns a message on the 8 B
 * ping-pong of docs/results/msg_breakdown.md). */
#define COSCHED_LINE		64

struct cosched_page {
	/* Who: written at enrolment, read by correspondents at each send. */
	uint32_t magic;		/* COSCHED_PAGE_MAGIC once initialised */
	uint32_t version;	/* COSCHED_PAGE_VERSION */
	int32_t pid;
	int32_t tid;
	uint32_t uid;
	int32_t model;		/* COPVM_MODEL_* (copvm.h) */
	int32_t backend;	/* COPVM_BACKEND_* in use */
	uint32_t p_milli;	/* P in thousandths */
	uint32_t interval_us;	/* the probe's interval */
	/* The task's transports (COSCHED_XPORT_*), for the observability
	 * tools; 0 until known. */
	int32_t local_xport;	/* same-host circuits: set at enrolment */
	int32_t tcp_xport;	/* direct TCP routes: at the first one */

	/* The probe: counts of the current interval and of all time,
	 * written by the task at each message. */
	_Alignas(COSCHED_LINE) uint64_t sends_now;
	uint64_t recvs_now;
	uint64_t sends_total;
	uint64_t recvs_total;
	uint64_t interval_start_ns;	/* CLOCK_MONOTONIC */
	double freq;		/* F, messages per second */
	uint32_t spin_ns;	/* the receive's spin bound now */
	int32_t npeers;		/* entries used in peers[] */

	/* The engine's decision and what the backend applied, read by a
	 * correspondent at each send. */
	_Alignas(COSCHED_LINE) int32_t boost;	/* COPVM_BOOST_* in force */
	int32_t boost_nice;	/* the nice value set while boosted */
	int32_t base_nice;	/* the nice value to restore on undo */
	int32_t boost_slice;	/* 1 while a short slice is requested */
	uint64_t boost_until_ns;	/* end of the time box; 0: none */
	int32_t waiting;	/* 1 while blocked in a receive */
	int32_t pad0;
	/* peers: written by correspondents (atomic). */
	uint64_t last_boosted_ns;	/* DCS's Tp: last boost by anyone */
	uint64_t boosted_by_peers;	/* boosts others gave this task */

	/* The boosts' history, for the tools. */
	_Alignas(COSCHED_LINE) uint64_t boosts;	/* boosts of itself applied */
	uint64_t peer_boosts;	/* boosts of correspondents requested */
	uint64_t demotions;	/* boosts withdrawn by the CPU budget */
	uint64_t boosted_cpu_ns;	/* CPU used while boosted in the current
					 * budget window (the daemon's watch,
					 * self backend) */
	uint64_t budget_window_ns;	/* the budget's window */
	/* Boosts the backend refused (of itself or of a correspondent), for
	 * the live view's refusals per second. */
	uint64_t refusals;

	/* req: set by the console or copvm-cosched (atomic exchange). */
	int32_t req_model;
	int32_t req_p_milli;
	int32_t req_interval_ms;
	int32_t pad1;

	/* Written by the task at each message to a task of this host. */
	_Alignas(COSCHED_LINE) struct cosched_peer peers[COSCHED_MAX_PEERS];

	/* How the task's receives waited (lib/wait.c), for the tools and
	 * the frontier's diagnosis; written at each wait. */
	uint64_t waits;		/* receives that had to wait */
	uint64_t spins;		/* ... that spun first */
	uint64_t spin_hits;	/* ... and found input while spinning */
	uint64_t spun_ns;	/* time spent spinning, all of them */
	uint64_t blocks;	/* ... that blocked */
	uint64_t block_ns;	/* time spent blocked */
};

#define COSCHED_XPORT_UNKNOWN	0
#define COSCHED_XPORT_UNIX	1	/* unix-domain sockets (COPVM_SHM=0) */
#define COSCHED_XPORT_SHM	2	/* shared-memory rings */
#define COSCHED_XPORT_TCP	3	/* plain TCP sockets */
#define COSCHED_XPORT_URING	4	/* TCP driven through io_uring */

_Static_assert(sizeof(struct cosched_page) <= COSCHED_PAGE_SIZE,
	       "the coscheduling page fits in one page");
#define COSCHED_LINE_OF(f)	(__builtin_offsetof(struct cosched_page, f) / COSCHED_LINE)
_Static_assert(COSCHED_LINE_OF(sends_now) != COSCHED_LINE_OF(magic) &&
	       COSCHED_LINE_OF(recvs_total) != COSCHED_LINE_OF(boost) &&
	       COSCHED_LINE_OF(npeers) != COSCHED_LINE_OF(waiting) &&
	       COSCHED_LINE_OF(peers) != COSCHED_LINE_OF(last_boosted_ns),
	       "what the task writes at each message shares no cache line "
	       "with what its correspondents read at each send");

/*
 * The boost trace (COPVM_COSCHED_TRACE=FILE): one line per boost event,
 * appended by every task of the host with O_APPEND:
 *   <CLOCK_MONOTONIC ns> <pid> <tid hex> <event> <level> <target tid hex> <F>
 * event: boost, unboost, peer (a correspondent boosted), block, wake;
 * and when the task leaves, one line of its waits:
 *   <ns> <pid> <tid hex> waits <waits> <spins> <spin_hits> <spin_us>
 *   <blocks> <block_us>
 * Demotions by the CPU budget happen outside the task (agent, daemon) and
 * are counted in `demotions', not traced.  The harness plots the trace
 * as a timeline.
 */
#define COSCHED_TRACE_ENV	"COPVM_COSCHED_TRACE"
/* Only the waits line, appended to this file (bench/frontier.sh -T): the
 * per-event lines of the trace cost a write per blocking receive. */
#define COSCHED_WAITS_ENV	"COPVM_WAIT_STATS"

#endif /* COPVM_COSCHED_PAGE_H */

/*
 * cosched.c - the policy engine: turns the probe's frequency F, the
 * task's correspondents and message arrivals into a wanted boost, applied
 * through one backend ops table (backend.h: none, self, agent, kmod).
 * It never tests the model: it follows the rules of the model's row in
 * the model table (common/cosched_model.h), the boost rule (never,
 * always, by F at each interval's end, on a wake within DCS's fairness
 * predicate), the peer rule (raise a local correspondent to our level,
 * or boost one waiting in a receive) and the wait rule.  No boost is
 * asked while no task waits for a CPU.  Every boost is bounded (the
 * backend's caps and nice floor) and carries a time box; the agent, the
 * module, or for `self' the daemon's watch, undoes a boost whose box
 * ended even if the task never calls the library again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "arrival.h"
#include "backend.h"
#include "copvm.h"
#include "cosched.h"
#include "cosched_model.h"
#include "cosched_page.h"
#include "proto.h"
#include "pvmi.h"

/* The CPU budget window the watchers use (page->budget_window_ns). */
#define BUDGET_WINDOW_NS	100000000ULL
/* Time boxes: two intervals, within these bounds. */
#define BOX_MIN_NS		10000000ULL
#define BOX_MAX_NS		100000000ULL
/* The nice floor a backend may not go below, whatever it may do. */
#define NICE_FLOOR		(-10)
/* How long a run-queue estimate (for DCS's R) is reused. */
#define RUNQ_TTL_NS		10000000ULL
/* The least spin of a wait while no task waits for a CPU: as MPI
 * libraries do, a task with a CPU to itself spins rather than sleeps, so
 * a partner that answers within this costs neither a wake-up nor a
 * system call. */
#define IDLE_SPIN_NS		1000000L

static const struct cosched_backend_ops *backend = &cosched_backend_none;
static struct cosched_caps caps;
static struct cosched_thresholds thresholds = {
	COSCHED_F_SLICE, COSCHED_F_NICE, COSCHED_F_RT
};
static uint64_t ctxsw_ns;
static int trace_fd = -1;
static int page_tid;

/* DCS's parameters: E, C and the quantum Tq (copvm(7)). */
static int dcs_e = -1;
static int64_t dcs_c_ns;
static uint64_t dcs_tq_ns = 4000000;

/* The rules of the task's model; LIN's for a value without a row,
 * which the settings never let in. */
static const struct cosched_model_rules *rules(void)
{
	const struct cosched_model_rules *r =
		cosched_model_rules(pvmi_cosched_set.model);

	return r ? r : cosched_model_rules(COPVM_MODEL_LIN);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t interval_ns(void)
{
	return (uint64_t)pvmi_cosched_set.interval_ms * 1000000ULL;
}

/* The time box of a boost: two intervals, within bounds and within what
 * the backend grants (a renewal must come before the backend's undo). */
static uint64_t box_ns(void)
{
	uint64_t b = 2 * interval_ns();

	b = b < BOX_MIN_NS ? BOX_MIN_NS : b > BOX_MAX_NS ? BOX_MAX_NS : b;
	if (caps.box_max_ns && b > caps.box_max_ns)
		b = caps.box_max_ns;
	return b;
}

/* A boost is renewed when less than this is left of its box. */
static uint64_t renew_margin_ns(void)
{
	uint64_t m = interval_ns() + interval_ns() / 2;

	return m > box_ns() / 2 ? box_ns() / 2 : m;
}

void pvmi_cosched_trace(const char *event, int level, int target)
{
	char line[160];
	int n;

	if (trace_fd < 0 || !pvmi_cosched_page)
		return;
	n = snprintf(line, sizeof(line), "%llu %d %x %s %d %x %.1f\n",
		     (unsigned long long)mono_ns(), (int)getpid(),
		     (unsigned)page_tid, event, level, (unsigned)target,
		     pvmi_cosched_page->freq);
	if (n > 0 && write(trace_fd, line, (size_t)n) < 0)
		trace_fd = -1;
}

/* The strongest level at most `want' that the backend can apply. */
static int clamp_level(int want)
{
	if (want == COPVM_BOOST_RT && !caps.rt)
		want = COPVM_BOOST_NICE;
	if (want == COPVM_BOOST_NICE && caps.nice_floor >= 0)
		want = COPVM_BOOST_SLICE;
	if (want == COPVM_BOOST_SLICE && !caps.slice)
		want = COPVM_BOOST_NONE;
	return want;
}

/* The nice value that goes with `level' at frequency `f'. */
static int nice_for(int level, double f)
{
	int floor = caps.nice_floor < NICE_FLOOR ? NICE_FLOOR : caps.nice_floor;

	return cosched_boost_nice(pvmi_cosched_set.model, level, f, floor,
				  &thresholds);
}

/* Hands the task's input files to the backend to watch (arrival.c)
 * while the model boosts on arrival and the backend can do it in the
 * kernel, with the boost a wake would give itself; else no watch. */
static void arrivals_update(void)
{
	int level = COPVM_BOOST_NONE;

	if (pvmi_cosched_page && rules()->boost == COSCHED_BOOSTS_ON_WAKE &&
	    caps.arrival && backend->watch)
		level = clamp_level(COPVM_BOOST_RT);
	if (level == COPVM_BOOST_NONE)
		pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
	else
		pvmi_cosched_arrivals_set(backend->watch, level,
					  nice_for(level, 0), dcs_tq_ns);
}

/* Puts this task at `level' for a box from `now'; records it. */
static void apply_self(int level, int nice, uint64_t box, uint64_t now)
{
	struct cosched_page *pg = pvmi_cosched_page;
	int old = pg->boost;

	if (backend->apply(level, nice, box) < 0) {
		if (level > old)
			pg->refusals++;
		return;
	}
	pg->boost_nice = level == COPVM_BOOST_NONE ? 0 : nice;
	pg->boost_slice = level != COPVM_BOOST_NONE && caps.slice;
	__atomic_store_n(&pg->boost_until_ns,
			 level == COPVM_BOOST_NONE ? 0 : now + box, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->boost, level, __ATOMIC_RELEASE);
	if (level > old)
		pg->boosts++;
	if (level != old)
		pvmi_cosched_trace(level ? "boost" : "unboost", level, page_tid);
}

static int contended(uint64_t now);

/* The boost F earns now, and applying it when it changed or its box is
 * running out.  No boost is asked while no task waits for a CPU: it
 * could not make the task run any sooner, and it costs (measured at
 * k = 0, docs/results/efficacy/). */
static void decide(uint64_t now)
{
	struct cosched_page *pg = pvmi_cosched_page;
	int on_wake = rules()->boost == COSCHED_BOOSTS_ON_WAKE;
	int want, nice, cur;
	uint64_t until;

	if (on_wake)
		want = COPVM_BOOST_NONE;	/* boosts come with arrivals */
	else
		want = clamp_level(cosched_boost_for(pvmi_cosched_set.model,
						     pg->freq, &thresholds));
	if (want != COPVM_BOOST_NONE && !contended(now))
		want = COPVM_BOOST_NONE;
	nice = nice_for(want, pg->freq);
	cur = __atomic_load_n(&pg->boost, __ATOMIC_ACQUIRE);
	until = __atomic_load_n(&pg->boost_until_ns, __ATOMIC_ACQUIRE);
	if (want == COPVM_BOOST_NONE) {
		/* A boost of ours or a correspondent's: ours to end once
		 * its box ran out (on a wake), or at once (the others). */
		if (cur != COPVM_BOOST_NONE && (!on_wake || now >= until))
			apply_self(COPVM_BOOST_NONE, 0, 0, now);
		return;
	}
	if (want != cur || nice != pg->boost_nice ||
	    now + renew_margin_ns() >= until)
		apply_self(want, nice, box_ns(), now);
}

static const struct cosched_backend_ops *choose_backend(void);

void pvmi_cosched_model_changed(void)
{
	struct cosched_page *pg = pvmi_cosched_page;
	int wants_none = rules()->boost == COSCHED_BOOSTS_NEVER;

	if (!pg)
		return;
	pg->model = pvmi_cosched_set.model;
	if (rules()->wait == COSCHED_WAIT_TWO_CTXSW && !ctxsw_ns)
		ctxsw_ns = pvmi_cosched_ctxsw_ns();
	/* A backend is probed only when the model starts needing one. */
	if (wants_none == (backend == &cosched_backend_none)) {
		arrivals_update();
		return;
	}
	if (pg->boost != COPVM_BOOST_NONE)
		apply_self(COPVM_BOOST_NONE, 0, 0, mono_ns());
	pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
	backend->detach();
	backend = choose_backend();
	if (backend->attach(pg, pvmi_cosched_set.share_ppm) < 0)
		backend = &cosched_backend_none;
	if (backend == &cosched_backend_none) {
		memset(&caps, 0, sizeof(caps));
		if (!wants_none)
			pvmi_cosched_tell_no_backend();
	}
	pg->backend = backend->id;
	arrivals_update();
}

/* Applies what the console or copvm-cosched asked for through the page. */
static void take_requests(struct cosched_page *pg)
{
	int v;

	v = __atomic_exchange_n(&pg->req_model, COSCHED_REQ_NONE, __ATOMIC_ACQ_REL);
	if (v >= 0 && v < COPVM_NMODELS && v != pvmi_cosched_set.model) {
		pvmi_cosched_set.model = v;
		pvmi_cosched_model_changed();
	}
	v = __atomic_exchange_n(&pg->req_p_milli, COSCHED_REQ_NONE, __ATOMIC_ACQ_REL);
	if (v >= 0 && v <= 1000) {
		pvmi_cosched_set.p_milli = v;
		pg->p_milli = v;
	}
	v = __atomic_exchange_n(&pg->req_interval_ms, COSCHED_REQ_NONE,
				__ATOMIC_ACQ_REL);
	if (v >= 1 && v <= 10000) {
		pvmi_cosched_set.interval_ms = v;
		pg->interval_us = v * 1000;
	}
}

void pvmi_cosched_roll(uint64_t now)
{
	struct cosched_page *pg = pvmi_cosched_page;
	uint64_t count, iv, n, elapsed, left;

	if (!pg)
		return;
	if (!now)
		now = mono_ns();
	take_requests(pg);
	iv = interval_ns();
	elapsed = now > pg->interval_start_ns ? now - pg->interval_start_ns : 0;
	count = pg->recvs_now;
	if (cosched_counts_sends(pvmi_cosched_set.model))
		count += pg->sends_now;
	pg->freq = cosched_freq_roll(pg->freq, pvmi_cosched_set.p_milli / 1000.0,
				     count, elapsed, iv, &n);
	if (n > 0) {
		pvmi_cosched_look_rate(n == 1 ? pg->sends_now + pg->recvs_now : 0);
		pg->sends_now = 0;
		pg->recvs_now = 0;
		pg->interval_start_ns += n * iv;
		/* Without a backend there is nothing to apply, and a boost a
		 * correspondent gave us is left to the watchers' time box. */
		if (backend != &cosched_backend_none)
			decide(now);
	}
	left = pg->interval_start_ns + iv > now ? pg->interval_start_ns + iv - now : 0;
	pvmi_cosched_next_roll = pvmi_cosched_coarse_ns() + left;
}

/* Runnable tasks on the machine (/proc/loadavg's running count, this
 * task included), read at most every RUNQ_TTL_NS; *ncpu_out gets the
 * CPUs online.  COPVM_LOADAVG_FILE names another file of the same
 * format (the tests' fixed loads). */
static int runnable_tasks(uint64_t now, long *ncpu_out)
{
	static uint64_t read_at;
	static int running = 1;
	static long ncpu;
	static const char *path;
	char buf[128];
	int fd;
	ssize_t n;
	char *slash;

	if (!ncpu) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		       sysconf(_SC_NPROCESSORS_ONLN) : 1;
		path = getenv("COPVM_LOADAVG_FILE");
		if (!path || !*path)
			path = "/proc/loadavg";
	}
	*ncpu_out = ncpu;
	/* `now' may come from the coarse clock, behind the precise one
	 * of the last read: that reading is fresh too */
	if (read_at && now < read_at + RUNQ_TTL_NS)
		return running;
	read_at = now;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return running;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return running;
	buf[n] = 0;
	slash = strchr(buf, '/');
	if (slash) {
		while (slash > buf && slash[-1] != ' ')
			slash--;
		running = atoi(slash);
	}
	return running;
}

/* Runnable tasks per CPU, for DCS's R. */
static int runq_length(uint64_t now)
{
	long ncpu;
	int running = runnable_tasks(now, &ncpu);

	return (int)((running + ncpu - 1) / ncpu);
}

/* Does some task wait for a CPU: more runnable tasks than CPUs, not
 * counting this one?  Without /proc, assume so. */
static int contended(uint64_t now)
{
	long ncpu;
	int running = runnable_tasks(now, &ncpu);

	return running - 1 >= ncpu;
}

/* DCS: may a boost of the task whose page is `pp' be given now?  Claims
 * the slot (Tp) when it may. */
static int dcs_claim(struct cosched_page *pp, uint64_t now)
{
	uint64_t tp = __atomic_load_n(&pp->last_boosted_ns, __ATOMIC_ACQUIRE);

	if (!cosched_dcs_fair(dcs_e, now, tp, dcs_c_ns, dcs_tq_ns,
			      runq_length(now)))
		return 0;
	return __atomic_compare_exchange_n(&pp->last_boosted_ns, &tp, now, 0,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Boosts correspondent `tid' whose page is `pp' to `level'. */
static void boost_peer(struct cosched_page *pp, int tid, int level, int nice,
		       uint64_t box, uint64_t now)
{
	/* Never above the correspondent's own base priority; a slice
	 * boost keeps its base nice. */
	if (level == COPVM_BOOST_SLICE || nice > pp->base_nice)
		nice = pp->base_nice;
	if (pp->pid <= 0)
		return;
	if (backend->boost_peer(pp->pid, tid, level, nice, box) < 0) {
		pvmi_cosched_page->refusals++;
		return;
	}
	pp->boost_nice = nice;
	pp->boost_slice = caps.slice;
	__atomic_store_n(&pp->boost_until_ns, now + box, __ATOMIC_RELEASE);
	__atomic_store_n(&pp->boost, level, __ATOMIC_RELEASE);
	__atomic_add_fetch(&pp->boosted_by_peers, 1, __ATOMIC_RELAXED);
	pvmi_cosched_page->peer_boosts++;
	pvmi_cosched_trace("peer", level, tid);
}

/* pvmi_cosched_peer_sent() once a correspondent may be boosted: `peer'
 * is the model's rule, `level' our boost (COSCHED_PEER_RAISE). */
static __attribute__((noinline)) void peer_sent(int tid, int peer, int level)
{
	struct cosched_page *pg = pvmi_cosched_page, *pp;
	uint64_t now, box;

	if (!caps.peers || PVMI_TID_HOST(tid) != PVMI_TID_HOST(pvmi.mytid))
		return;
	if (peer == COSCHED_PEER_RAISE) {
		pp = pvmi_cosched_peer_page(tid);
		if (!pp)
			return;
		/* Already at our level for a while yet: nothing to do, the
		 * common case, without a clock read. */
		now = pvmi_cosched_coarse_ns();
		box = box_ns();
		if (__atomic_load_n(&pp->boost, __ATOMIC_ACQUIRE) >= level &&
		    __atomic_load_n(&pp->boost_until_ns, __ATOMIC_ACQUIRE) >
		    now + box / 2)
			return;
		boost_peer(pp, tid, level, pg->boost_nice, box, now);
		return;
	}
	/* COSCHED_PEER_WAKE: a correspondent waiting in a receive. */
	pp = pvmi_cosched_peer_page(tid);
	if (!pp || !__atomic_load_n(&pp->waiting, __ATOMIC_ACQUIRE))
		return;
	now = mono_ns();
	if (!contended(now) || !dcs_claim(pp, now))
		return;
	level = clamp_level(COPVM_BOOST_RT);
	if (level != COPVM_BOOST_NONE)
		boost_peer(pp, tid, level, nice_for(level, 0), dcs_tq_ns, now);
}

/* After a send to task `tid': whether the model boosts it, the common
 * "no" without a frame (cosched.h). */
void pvmi_cosched_peer_sent(int tid)
{
	int peer = rules()->peer, level = pvmi_cosched_page->boost;

	/* the common case, without a frame: a model that boosts no
	 * correspondent, or raises them to a boost we do not have */
	if (peer == COSCHED_PEER_NONE ||
	    (peer == COSCHED_PEER_RAISE && level == COPVM_BOOST_NONE))
		return;
	peer_sent(tid, peer, level);
}

long pvmi_cosched_spin_ns(long lin_ns)
{
	struct cosched_page *pg = pvmi_cosched_page;
	long s;

	if (!pg)
		return lin_ns;
	s = (long)cosched_spin_ns(pvmi_cosched_set.model, pg->boost, ctxsw_ns,
				  (uint64_t)lin_ns);
	pg->spin_ns = (uint32_t)s;
	return s;
}

long pvmi_cosched_recv_spin_ns(long lin_ns)
{
	struct cosched_page *pg = pvmi_cosched_page;
	long s = pvmi_cosched_spin_ns(lin_ns);

	/* The idle-machine half of the policy: the run-queue reading is a
	 * file read at most every RUNQ_TTL_NS, none per wait.  A send that
	 * waits for room keeps the model's bound: it must soon go and read
	 * its own input, which the peer may be waiting for.  A tick of
	 * staleness is nothing to a 10 ms reading: the coarse clock, a few
	 * times cheaper than mono_ns on these VMs, does. */
	if (s > 0 && s < IDLE_SPIN_NS && !contended(pvmi_cosched_coarse_ns())) {
		s = IDLE_SPIN_NS;
		if (pg)
			pg->spin_ns = (uint32_t)s;
	}
	return s;
}

int pvmi_cosched_spin_rationed(unsigned hit_rate)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return 1;
	return cosched_spin_rationed(pvmi_cosched_set.model,
				     __atomic_load_n(&pg->boost, __ATOMIC_RELAXED),
				     caps.charged, hit_rate);
}

void pvmi_cosched_blocking(int blocked)
{
	struct cosched_page *pg = pvmi_cosched_page;
	uint64_t now;
	int level;

	if (!pg)
		return;
	/* A task about to block brings F up to date first, so the tools
	 * and its correspondents see it decay while it waits. */
	if (blocked && pvmi_cosched_coarse_ns() >= pvmi_cosched_next_roll)
		pvmi_cosched_roll(0);
	__atomic_store_n(&pg->waiting, blocked, __ATOMIC_RELEASE);
	if (trace_fd >= 0)
		pvmi_cosched_trace(blocked ? "block" : "wake", pg->boost, page_tid);
	if (blocked || rules()->boost != COSCHED_BOOSTS_ON_WAKE ||
	    pg->boost != COPVM_BOOST_NONE)
		return;
	/* An arrival woke us; boost ourselves if it is fair. */
	now = mono_ns();
	if (!contended(now) || !dcs_claim(pg, now))
		return;
	level = clamp_level(COPVM_BOOST_RT);
	if (level != COPVM_BOOST_NONE)
		apply_self(level, nice_for(level, 0), dcs_tq_ns, now);
}

void pvmi_cosched_waited(long spun_ns, int hit, long blocked_ns)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return;
	pg->waits++;
	if (spun_ns > 0) {
		pg->spins++;
		pg->spun_ns += (uint64_t)spun_ns;
		pg->spin_hits += hit != 0;
	}
	if (blocked_ns >= 0) {
		pg->blocks++;
		pg->block_ns += (uint64_t)blocked_ns;
	}
}

/* Appends the page's wait counters to the trace, or to the file of
 * COPVM_WAIT_STATS, as the task leaves. */
static void trace_waits(const struct cosched_page *pg, uint64_t arrivals)
{
	const char *path = getenv(COSCHED_WAITS_ENV);
	char line[300];
	int n, fd = trace_fd;

	if (path && *path)
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%llu %d %x waits %llu %llu %llu %llu %llu %llu\n",
		     (unsigned long long)mono_ns(), (int)getpid(),
		     (unsigned)page_tid, (unsigned long long)pg->waits,
		     (unsigned long long)pg->spins,
		     (unsigned long long)pg->spin_hits,
		     (unsigned long long)(pg->spun_ns / 1000),
		     (unsigned long long)pg->blocks,
		     (unsigned long long)(pg->block_ns / 1000));
	if (n > 0 && backend->arrivals)	/* the kernel's boosts on arrival */
		n += snprintf(line + n, sizeof(line) - n,
			      "%llu %d %x arrivals %llu\n",
			      (unsigned long long)mono_ns(), (int)getpid(),
			      (unsigned)page_tid, (unsigned long long)arrivals);
	if (n > 0 && write(fd, line, (size_t)n) < 0 && fd == trace_fd)
		trace_fd = -1;
	if (fd != trace_fd)
		close(fd);
}

/* The backend to use: the wanted one if its probe succeeds, else (for
 * auto) the next in order of preference, else none. */
static const struct cosched_backend_ops *choose_backend(void)
{
	const struct cosched_backend_ops *const order[] = {
		&cosched_backend_kmod, &cosched_backend_agent,
		&cosched_backend_self,
	};
	int want = pvmi_cosched_set.backend;
	size_t i;

	memset(&caps, 0, sizeof(caps));
	if (rules()->boost == COSCHED_BOOSTS_NEVER || want == COPVM_BACKEND_NONE)
		return &cosched_backend_none;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (want != COPVM_BACKEND_AUTO && want != order[i]->id)
			continue;
		if (order[i]->probe(&caps) == 0)
			return order[i];
		memset(&caps, 0, sizeof(caps));
	}
	return &cosched_backend_none;
}

static void load_dcs_params(void)
{
	const char *s;
	char *end;
	long long v;

	if ((s = getenv("COPVM_DCS_E")) && *s) {
		v = strtoll(s, &end, 10);
		if (!*end && v >= -16 && v <= 16)
			dcs_e = (int)v;
	}
	if ((s = getenv("COPVM_DCS_C_US")) && *s) {
		v = strtoll(s, &end, 10);
		if (!*end && v > -1000000000LL && v < 1000000000LL)
			dcs_c_ns = v * 1000;
	}
	if ((s = getenv("COPVM_DCS_TQ_US")) && *s) {
		v = strtoll(s, &end, 10);
		if (!*end && v > 0 && v < 1000000000LL)
			dcs_tq_ns = (uint64_t)v * 1000;
	}
}

/* Records the transports in the page (cosched.h). */
void pvmi_cosched_note_transports(int local, int tcp)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return;
	if (local)
		pg->local_xport = local;
	if (tcp)
		pg->tcp_xport = tcp;
}

/* The thresholds below f_rt keep their ratios to it: a lower f_rt
 * lowers the nice and slice thresholds with it. */
static void load_thresholds(void)
{
	double f_rt = pvmi_cosched_set.f_rt;

	thresholds.f_rt = f_rt;
	thresholds.f_nice = f_rt * (COSCHED_F_NICE / COSCHED_F_RT);
	thresholds.f_slice = f_rt * (COSCHED_F_SLICE / COSCHED_F_RT);
}

void pvmi_cosched_attach(void)
{
	struct cosched_page *pg;
	const char *trace;
	uint64_t now;

	if (pvmi_cosched_page)
		return;
	pvmi_cosched_settings_load();
	pg = pvmi_cosched_page_create(pvmi.mytid);
	if (!pg)
		return;
	page_tid = pvmi.mytid;
	pg->version = COSCHED_PAGE_VERSION;
	pg->pid = getpid();
	pg->tid = pvmi.mytid;
	pg->uid = getuid();
	pg->model = pvmi_cosched_set.model;
	pg->p_milli = pvmi_cosched_set.p_milli;
	pg->interval_us = pvmi_cosched_set.interval_ms * 1000;
	pg->budget_window_ns = BUDGET_WINDOW_NS;
	pg->req_model = pg->req_p_milli = pg->req_interval_ms = COSCHED_REQ_NONE;
	errno = 0;
	pg->base_nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		pg->base_nice = 0;
	load_dcs_params();
	load_thresholds();
	if (rules()->wait == COSCHED_WAIT_TWO_CTXSW)
		ctxsw_ns = pvmi_cosched_ctxsw_ns();
	trace = getenv(COSCHED_TRACE_ENV);
	if (trace && *trace && trace_fd < 0)
		trace_fd = open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				0644);
	backend = choose_backend();
	if (backend->attach(pg, pvmi_cosched_set.share_ppm) < 0) {
		backend = &cosched_backend_none;
		memset(&caps, 0, sizeof(caps));
	}
	if (backend == &cosched_backend_none &&
	    rules()->boost != COSCHED_BOOSTS_NEVER)
		pvmi_cosched_tell_no_backend();
	pg->backend = backend->id;
	now = mono_ns();
	pg->interval_start_ns = now;
	pvmi_cosched_next_roll = pvmi_cosched_coarse_ns() + interval_ns();
	pvmi_cosched_page = pg;
	__atomic_store_n(&pg->magic, COSCHED_PAGE_MAGIC, __ATOMIC_RELEASE);
	arrivals_update();
	/* A model that boosts always does so from enrolment on. */
	if (rules()->boost == COSCHED_BOOSTS_ALWAYS)
		decide(now);
}

void pvmi_cosched_detach(void)
{
	struct cosched_page *pg = pvmi_cosched_page;
	uint64_t arrivals;

	if (!pg)
		return;
	if (pg->boost != COPVM_BOOST_NONE)
		apply_self(COPVM_BOOST_NONE, 0, 0, mono_ns());
	arrivals = backend->arrivals ? backend->arrivals() : 0;
	pvmi_cosched_arrivals_set(NULL, 0, 0, 0);
	trace_waits(pg, arrivals);
	backend->detach();
	pvmi_cosched_page = NULL;
	pvmi_cosched_page_release(pg, page_tid, 1);
	pvmi_cosched_peer_pages_drop();
	if (trace_fd >= 0) {
		close(trace_fd);
		trace_fd = -1;
	}
}

void pvmi_cosched_forget(void)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return;
	pvmi_cosched_page = NULL;
	pvmi_cosched_page_release(pg, page_tid, 0);
	pvmi_cosched_peer_pages_drop();
}

/*
 * gang_sync.c - EXP's time base: the clock the gang scheduler reads, and
 * how a slave keeps it in step with its master's (common/exp_sync.h).
 *
 * The master's CLOCK_REALTIME is the machine's time base.  A slave under
 * EXP sends DD_CLOCK probes to its master, EXP_SYNC_PROBES in a round,
 * one at a time; the master stamps each on arrival and departure and
 * answers with its slot schedule (mode, IP, PS).  The slave keeps the
 * offset of the round's sample with the smallest round trip and takes
 * the master's schedule if it differs from its own.  A round runs when
 * the slave joins, when the host table changes (a host added), and every
 * EXP_SYNC_PERIOD_MS.  The scheduler then places slots in master time,
 * its clock plus the offset, and arms its timer at the matching time of
 * its own clock.  COPVM_EXP_SYNC=clocks switches the exchange off (the
 * hosts then trust their clocks to agree, as before).
 *
 * Test hook: COPVM_TEST_CLOCK_SKEW_MS adds a fixed skew to every clock
 * read of the scheduler (hosts of one machine share one clock); it is
 * removed from the environment once read, so no task or slave inherits it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "exp_model.h"
#include "exp_sync.h"
#include "pvmd.h"

static int64_t skew_ns;			/* the test hook */
static int64_t offset_ns;		/* master minus ours; 0 unsynced */
static int synced;			/* offset_ns came from a round */
static int exchanging;			/* a slave under EXP, sync on */
static struct exp_params sched;		/* the schedule in force */
static int have_sched;			/* sched is set (EXP runs) */
static int32_t seq;			/* of the probe in flight */
static int in_flight;			/* a probe waits for its answer */
static int probes;			/* probes sent this round */
static uint64_t t0_sent;		/* its t0 */
static long long sent_ms, next_round_ms = -1;
static struct exp_sync_filter filt;
static unsigned long long rounds;
static const struct pvmd_gang_sync_hooks *hooks;

/* Gives the module the function that hears of a new offset or schedule
 * (wiring.c). */
void pvmd_gang_sync_set_hooks(const struct pvmd_gang_sync_hooks *h)
{
	hooks = h;
}

/* Reads the test hook's skew (once, before anything reads the clock)
 * and removes it from the environment. */
void pvmd_gang_clock_init(void)
{
	const char *v = getenv("COPVM_TEST_CLOCK_SKEW_MS");
	char *end;
	long ms;

	if (!v)
		return;
	ms = strtol(v, &end, 10);
	if (*v && !*end && ms > -86400000L && ms < 86400000L) {
		skew_ns = (int64_t)ms * 1000000;
		pvmd_log("EXP: test hook: clock skewed by %+ld ms "
			 "(COPVM_TEST_CLOCK_SKEW_MS)", ms);
	} else {
		pvmd_log("EXP: bad COPVM_TEST_CLOCK_SKEW_MS \"%s\" ignored", v);
	}
	unsetenv("COPVM_TEST_CLOCK_SKEW_MS");
}

/* The scheduler's own clock: CLOCK_REALTIME plus the test skew, ns. */
uint64_t pvmd_gang_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)((int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec +
			  skew_ns);
}

/* The master's time now, as this host best knows it, ns. */
uint64_t pvmd_gang_master_ns(void)
{
	return exp_sync_to_master(pvmd_gang_clock_ns(), offset_ns);
}

/* The CLOCK_REALTIME value at which the master's clock reads `master'
 * (what a timerfd of this host is armed at). */
uint64_t pvmd_gang_realtime_at(uint64_t master)
{
	return exp_sync_to_local(exp_sync_to_local(master, offset_ns),
				 skew_ns);
}

/* The schedule in force into *p; 0, or -1 when there is none. */
int pvmd_gang_schedule(struct exp_params *p)
{
	if (!have_sched)
		return -1;
	*p = sched;
	return 0;
}

static void send_probe(void)
{
	struct pvmi_wbuf w = { 0 };

	seq++;
	if (seq <= 0)
		seq = 1;
	probes++;
	in_flight = 1;
	sent_ms = pvmd_now_ms();
	t0_sent = pvmd_gang_clock_ns();
	pvmi_w_int(&w, seq);
	pvmi_w_u64(&w, t0_sent);
	pvmd_peer_send_dd(PVMI_MASTER_INDEX, PVMI_DD_CLOCK, &w);
	pvmi_w_free(&w);
	pvmd_tick_within(EXP_SYNC_PROBE_TIMEOUT_MS);
}

static void begin_round(void)
{
	exp_sync_reset(&filt);
	probes = 0;
	send_probe();
}

static void end_round(void)
{
	int64_t was = offset_ns, d;

	in_flight = 0;
	next_round_ms = pvmd_now_ms() + EXP_SYNC_PERIOD_MS;
	pvmd_tick_within(EXP_SYNC_PERIOD_MS);
	rounds++;
	if (!filt.n) {
		pvmd_log("EXP: clock round %llu: no usable answer of %d "
			 "(offset kept at %+.3f ms)", rounds, filt.seen,
			 (double)offset_ns / 1e6);
		return;
	}
	offset_ns = filt.best.offset;
	d = offset_ns - was;
	if (!synced || d > 1000000 || d < -1000000)
		pvmd_log("EXP: clock offset to the master %+.3f ms (round "
			 "trip %.3f ms: within %.3f ms), round %llu",
			 (double)offset_ns / 1e6, (double)filt.best.rtt / 1e6,
			 (double)filt.best.rtt / 2e6, rounds);
	else
		pvmd_dbg(PVMD_DBG_NET, "EXP: clock offset %+" PRId64 " ns, "
			 "round trip %" PRIu64 " ns", offset_ns,
			 filt.best.rtt);
	synced = 1;
	if (hooks && hooks->changed && d)
		hooks->changed();
}

/* EXP starts with schedule `p': the master publishes it; a slave also
 * starts its clock rounds (unless COPVM_EXP_SYNC=clocks). */
void pvmd_gang_sync_start(const struct exp_params *p)
{
	const char *how = getenv("COPVM_EXP_SYNC");

	sched = *p;
	have_sched = 1;
	if (!pvmd.slave)
		return;
	if (how && *how && !strcasecmp(how, "clocks")) {
		pvmd_log("EXP: COPVM_EXP_SYNC=clocks: no clock exchange, "
			 "slots on this host's clock");
		return;
	}
	if (how && *how && strcasecmp(how, "messages"))
		pvmd_log("EXP: bad COPVM_EXP_SYNC \"%s\" (using messages)",
			 how);
	exchanging = 1;
}

/* EXP stops: no more rounds. */
void pvmd_gang_sync_stop(void)
{
	exchanging = 0;
	in_flight = 0;
	next_round_ms = -1;
}

/* Slave: the host table came (joined, or a host added): a round now. */
void pvmd_gang_sync_joined(void)
{
	if (exchanging && !in_flight && !pvmd.halting)
		begin_round();
}

/* The loop's tick: a lost probe, the next round. */
void pvmd_gang_sync_tick(void)
{
	long long now = pvmd_now_ms();

	if (!exchanging || pvmd.halting)
		return;
	if (in_flight) {
		if (now - sent_ms < EXP_SYNC_PROBE_TIMEOUT_MS) {
			pvmd_tick_within((int)(sent_ms +
					       EXP_SYNC_PROBE_TIMEOUT_MS - now));
			return;
		}
		in_flight = 0;		/* lost: the next or the end */
		if (probes < EXP_SYNC_PROBES)
			send_probe();
		else
			end_round();
		return;
	}
	if (next_round_ms < 0)
		return;
	if (now >= next_round_ms)
		begin_round();
	else
		pvmd_tick_within((int)(next_round_ms - now));
}

/* Master: answers a DD_CLOCK of `c''s host with its stamps and its
 * schedule. */
void pvmd_gang_sync_request(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	uint64_t t1 = pvmd_gang_clock_ns(), t0;
	struct pvmi_wbuf w = { 0 };
	int32_t s = pvmi_r_int(r);

	t0 = pvmi_r_u64(r);
	if (!pvmd_body_ok(r))
		return;
	pvmi_w_int(&w, s);
	pvmi_w_u64(&w, t0);
	pvmi_w_u64(&w, t1);
	pvmi_w_u64(&w, pvmd_gang_clock_ns());
	pvmi_w_int(&w, have_sched ? sched.mode : -1);
	pvmi_w_int(&w, have_sched ? (int32_t)(sched.ip_ns / 1000) : 0);
	pvmi_w_int(&w, have_sched ? (int32_t)(sched.ps_ns / 1000) : 0);
	pvmd_peer_send_dd(c->host, PVMI_DD_CLOCK_ACK, &w);
	pvmi_w_free(&w);
}

/* Takes a master's schedule if it is valid and not ours; 1 if taken. */
static int take_schedule(int32_t mode, int32_t ip_us, int32_t ps_us)
{
	struct exp_params p;

	if (mode < EXP_STATIC || mode > EXP_DISTRIBUTED ||
	    ip_us < EXP_IP_MS_MIN * 1000 || ip_us > EXP_IP_MS_MAX * 1000 ||
	    ps_us <= 0 || ps_us >= ip_us)
		return 0;
	p.mode = mode;
	p.ip_ns = (uint64_t)ip_us * 1000;
	p.ps_ns = (uint64_t)ps_us * 1000;
	if (p.mode == sched.mode && p.ip_ns == sched.ip_ns &&
	    p.ps_ns == sched.ps_ns)
		return 0;
	sched = p;
	pvmd_log("EXP: schedule from the master: mode %s, IP %.3f ms, "
		 "PS %.3f ms", exp_mode_name(mode), (double)ip_us / 1e3,
		 (double)ps_us / 1e3);
	return 1;
}

/* Slave: the master's answer to a probe. */
void pvmd_gang_sync_answer(struct pvmi_rbuf *r)
{
	uint64_t t3 = pvmd_gang_clock_ns(), t0, t1, t2;
	struct exp_sync_sample smp;
	int32_t s, mode, ip, ps;

	s = pvmi_r_int(r);
	t0 = pvmi_r_u64(r);
	t1 = pvmi_r_u64(r);
	t2 = pvmi_r_u64(r);
	mode = pvmi_r_int(r);
	ip = pvmi_r_int(r);
	ps = pvmi_r_int(r);
	if (!pvmd_body_ok(r) || !exchanging || !in_flight || s != seq ||
	    t0 != t0_sent)
		return;			/* late, or not ours */
	in_flight = 0;
	if (exp_sync_sample(t0, t1, t2, t3, &smp) == 0)
		exp_sync_add(&filt, &smp);
	else
		filt.seen++;
	if (take_schedule(mode, ip, ps) && hooks && hooks->changed)
		hooks->changed();
	if (probes < EXP_SYNC_PROBES)
		send_probe();
	else
		end_round();
}

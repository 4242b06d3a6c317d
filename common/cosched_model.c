/*
 * cosched_model.c - the coscheduling models as data and pure
 * mathematics (cosched_model.h): the model table, the frequency
 * recurrence of the thesis, F = P * F_past + (1 - P) * F_current, which
 * messages each model counts, the boost a frequency earns, the DCS
 * fairness predicate, the CPU budget and the spin bound of a receive.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

#include "copvm.h"
#include "cosched_model.h"

/* The model table, one row per model (docs/cosched.md describes them):
 * name, counting rule, boost rule, peer rule, wait rule. */
const struct cosched_model_rules cosched_models[] = {
	[COPVM_MODEL_LIN] = { "lin", COSCHED_COUNT_BOTH, COSCHED_BOOSTS_NEVER,
			      COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE },
	[COPVM_MODEL_IMP] = { "imp", COSCHED_COUNT_BOTH, COSCHED_BOOSTS_NEVER,
			      COSCHED_PEER_NONE, COSCHED_WAIT_TWO_CTXSW },
	[COPVM_MODEL_HPDT] = { "hpdt", COSCHED_COUNT_BOTH, COSCHED_BOOSTS_ALWAYS,
			       COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE },
	[COPVM_MODEL_DYN] = { "dyn", COSCHED_COUNT_RECVS, COSCHED_BOOSTS_BY_FREQ,
			      COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE },
	[COPVM_MODEL_PRE] = { "pre", COSCHED_COUNT_BOTH, COSCHED_BOOSTS_BY_FREQ,
			      COSCHED_PEER_RAISE, COSCHED_WAIT_ADAPTIVE },
	[COPVM_MODEL_DCS] = { "dcs", COSCHED_COUNT_BOTH, COSCHED_BOOSTS_ON_WAKE,
			      COSCHED_PEER_WAKE, COSCHED_WAIT_ADAPTIVE },
	/* The daemons gang-schedule EXP's tasks (daemon/gang.c). */
	[COPVM_MODEL_EXP] = { "exp", COSCHED_COUNT_BOTH, COSCHED_BOOSTS_NEVER,
			      COSCHED_PEER_NONE, COSCHED_WAIT_ADAPTIVE },
};
_Static_assert(sizeof(cosched_models) / sizeof(cosched_models[0]) ==
	       COPVM_NMODELS,
	       "every model of copvm.h has a row");

static const char *const backend_names[COPVM_NBACKENDS] = {
	[COPVM_BACKEND_AUTO] = "auto", [COPVM_BACKEND_NONE] = "none",
	[COPVM_BACKEND_SELF] = "self", [COPVM_BACKEND_AGENT] = "agent",
	[COPVM_BACKEND_KMOD] = "kmod",
};

char *cosched_model_list(char *buf, size_t len)
{
	size_t used = 0;
	int m, n;

	if (!len)
		return buf;
	buf[0] = 0;
	for (m = 0; m < COPVM_NMODELS && used < len; m++) {
		if (!cosched_models[m].name)
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			     cosched_models[m].name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}

int cosched_model_parse(const char *name)
{
	int m;

	if (!name)
		return -1;
	for (m = 0; m < COPVM_NMODELS; m++)
		if (cosched_models[m].name &&
		    strcasecmp(cosched_models[m].name, name) == 0)
			return m;
	return -1;
}

int cosched_backend_parse(const char *name)
{
	int b;

	if (!name)
		return -1;
	for (b = 0; b < COPVM_NBACKENDS; b++)
		if (strcasecmp(backend_names[b], name) == 0)
			return b;
	return -1;
}

const char *copvm_model_name(int model)
{
	const struct cosched_model_rules *r = cosched_model_rules(model);

	return r ? r->name : NULL;
}

const char *copvm_backend_name(int backend)
{
	return backend >= 0 && backend < COPVM_NBACKENDS ?
	       backend_names[backend] : NULL;
}

int cosched_counts_sends(int model)
{
	const struct cosched_model_rules *r = cosched_model_rules(model);

	return !r || r->count != COSCHED_COUNT_RECVS;
}

static double clamp_p(double p)
{
	if (!(p >= 0.0))	/* also NaN */
		return 0.0;
	return p > 1.0 ? 1.0 : p;
}

double cosched_freq_step(double f_past, double p, uint64_t count,
			 uint64_t interval_ns)
{
	if (interval_ns == 0)
		return f_past;
	p = clamp_p(p);
	return p * f_past + (1.0 - p) * ((double)count * 1e9 / (double)interval_ns);
}

double cosched_freq_roll(double f, double p, uint64_t count,
			 uint64_t elapsed_ns, uint64_t interval_ns,
			 uint64_t *intervals)
{
	uint64_t n;

	if (interval_ns == 0 || elapsed_ns < interval_ns) {
		if (intervals)
			*intervals = 0;
		return f;
	}
	n = elapsed_ns / interval_ns;
	if (intervals)
		*intervals = n;
	f = cosched_freq_step(f, p, count, interval_ns);
	/* Each further interval was empty: F = P * F. */
	p = clamp_p(p);
	if (n > 1) {
		if (p == 0.0 || n > 4096)
			f = p == 1.0 ? f : 0.0;
		else
			f *= pow(p, (double)(n - 1));
	}
	if (f < 1e-6)
		f = 0.0;
	return f;
}

int cosched_boost_for(int model, double f, const struct cosched_thresholds *t)
{
	const struct cosched_model_rules *r = cosched_model_rules(model);

	switch (r ? r->boost : COSCHED_BOOSTS_NEVER) {
	case COSCHED_BOOSTS_ALWAYS:
	case COSCHED_BOOSTS_ON_WAKE:
		return COPVM_BOOST_RT;
	case COSCHED_BOOSTS_BY_FREQ:
		if (f >= t->f_rt)
			return COPVM_BOOST_RT;
		if (f >= t->f_nice)
			return COPVM_BOOST_NICE;
		if (f >= t->f_slice)
			return COPVM_BOOST_SLICE;
		return COPVM_BOOST_NONE;
	default:
		return COPVM_BOOST_NONE;
	}
}

int cosched_nice_for(double f, int floor, const struct cosched_thresholds *t)
{
	double span, x;
	int nice;

	if (floor >= 0 || f < t->f_nice)
		return 0;
	if (f >= t->f_rt || t->f_rt <= t->f_nice)
		return floor;
	span = log(t->f_rt / t->f_nice);
	x = log(f / t->f_nice) / span;	/* 0 at f_nice, 1 at f_rt */
	nice = -1 + (int)lround(x * (double)(floor + 1));
	return nice < floor ? floor : nice;
}

int cosched_boost_nice(int model, int level, double f, int floor,
		       const struct cosched_thresholds *t)
{
	const struct cosched_model_rules *r = cosched_model_rules(model);
	int nice;

	if (level == COPVM_BOOST_RT ||
	    (r && (r->boost == COSCHED_BOOSTS_ALWAYS ||
		   r->boost == COSCHED_BOOSTS_ON_WAKE)))
		return floor;
	if (level != COPVM_BOOST_NICE)
		return 0;
	nice = cosched_nice_for(f, floor, t);
	return nice < 0 ? nice : -1;
}

int cosched_dcs_fair(int e, uint64_t tc_ns, uint64_t tp_ns, int64_t c_ns,
		     uint64_t tq_ns, int r)
{
	double lhs;

	if (tp_ns == 0)
		return 1;
	if (tc_ns < tp_ns)
		tc_ns = tp_ns;
	if (r < 0)
		r = 0;
	lhs = ldexp((double)(tc_ns - tp_ns), e) + (double)c_ns;
	return lhs >= (double)tq_ns * (double)r;
}

int cosched_budget_exceeded(uint64_t cpu_ns, uint64_t window_ns, int share_pct)
{
	if (window_ns == 0)
		return 0;
	return (double)cpu_ns * 100.0 > (double)window_ns * (double)share_pct;
}

uint64_t cosched_spin_ns(int model, int boost, uint64_t ctxsw_ns,
			 uint64_t lin_ns)
{
	const struct cosched_model_rules *r = cosched_model_rules(model);

	if (r && r->wait == COSCHED_WAIT_TWO_CTXSW)
		return 2 * ctxsw_ns;
	return lin_ns;
}

int cosched_spin_rationed(int model, int boost, int charged,
			  unsigned hit_rate)
{
	const struct cosched_model_rules *r = cosched_model_rules(model);

	if (r && r->wait == COSCHED_WAIT_TWO_CTXSW)
		return 0;
	return !(charged && boost >= COPVM_BOOST_NICE &&
		 hit_rate >= COSCHED_HIT_PAYS);
}

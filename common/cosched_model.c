/*
 * cosched_model.c - the pure mathematics of the coscheduling models
 * (cosched_model.h): the frequency recurrence of the thesis,
 * F = P * F_past + (1 - P) * F_current, which messages each model counts,
 * the boost a frequency earns, the DCS fairness predicate, the CPU budget
 * and the spin bound of a receive.
 */
#include <math.h>
#include <stddef.h>
#include <strings.h>

#include "copvm.h"
#include "cosched_model.h"

static const char *const model_names[COPVM_NMODELS] = {
	[COPVM_MODEL_LIN] = "lin", [COPVM_MODEL_IMP] = "imp",
	[COPVM_MODEL_HPDT] = "hpdt", [COPVM_MODEL_DYN] = "dyn",
	[COPVM_MODEL_PRE] = "pre", [COPVM_MODEL_DCS] = "dcs",
	[COPVM_MODEL_EXP] = "exp",
};

static const char *const backend_names[COPVM_NBACKENDS] = {
	[COPVM_BACKEND_AUTO] = "auto", [COPVM_BACKEND_NONE] = "none",
	[COPVM_BACKEND_SELF] = "self", [COPVM_BACKEND_AGENT] = "agent",
	[COPVM_BACKEND_KMOD] = "kmod",
};

static int lookup(const char *const *names, int n, const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < n; i++)
		if (strcasecmp(names[i], name) == 0)
			return i;
	return -1;
}

int cosched_model_parse(const char *name)
{
	return lookup(model_names, COPVM_NMODELS, name);
}

int cosched_backend_parse(const char *name)
{
	return lookup(backend_names, COPVM_NBACKENDS, name);
}

const char *copvm_model_name(int model)
{
	return model >= 0 && model < COPVM_NMODELS ? model_names[model] : NULL;
}

const char *copvm_backend_name(int backend)
{
	return backend >= 0 && backend < COPVM_NBACKENDS ?
	       backend_names[backend] : NULL;
}

int cosched_counts_sends(int model)
{
	return model != COPVM_MODEL_DYN;
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
	switch (model) {
	case COPVM_MODEL_HPDT:
		return COPVM_BOOST_RT;
	case COPVM_MODEL_DYN:
	case COPVM_MODEL_PRE:
	case COPVM_MODEL_DCS:
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
	if (model == COPVM_MODEL_IMP)
		return 2 * ctxsw_ns;
	return lin_ns;
}

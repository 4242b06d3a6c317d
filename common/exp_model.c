/*
 * exp_model.c - EXP's slots, PS adjustment, phases and settings: see
 * exp_model.h.  Arithmetic on 64-bit nanoseconds only; the caller reads
 * the clock and the environment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "exp_model.h"

/* Fills `p' with the defaults: STATIC, IP 100 ms, PS 80 ms. */
void exp_params_default(struct exp_params *p)
{
	p->mode = EXP_STATIC;
	p->ip_ns = EXP_IP_MS_DEFAULT * EXP_MS;
	p->ps_ns = EXP_PS_MS_DEFAULT * EXP_MS;
}

static const char *const mode_names[] = { "static", "balanced",
					  "distributed" };

/* Parses a mode name; the mode or -1. */
int exp_mode_parse(const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < 3; i++)
		if (!strcasecmp(name, mode_names[i]))
			return i;
	return -1;
}

/* The mode's name, or "?". */
const char *exp_mode_name(int mode)
{
	return mode >= 0 && mode < 3 ? mode_names[mode] : "?";
}

/* A whole number of milliseconds in [lo, hi], or -1. */
static long parse_ms(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	return v;
}

static void note(char *msg, size_t size, size_t *used, const char *what,
		 const char *val, const char *dflt)
{
	int n;

	if (!msg || *used >= size)
		return;
	n = snprintf(msg + *used, size - *used, "%sbad %s \"%s\" (using %s)",
		     *used ? "; " : "", what, val, dflt);
	if (n > 0)
		*used += (size_t)n;
}

/* Sets `p' from the environment's strings; the number of bad values. */
int exp_params_parse(struct exp_params *p, const char *mode,
		     const char *ip_ms, const char *ps_ms,
		     char *msg, size_t size)
{
	size_t used = 0;
	char dflt[64];
	long ip, ps;
	int bad = 0, m;

	exp_params_default(p);
	if (msg && size)
		msg[0] = '\0';
	if (mode && *mode) {
		m = exp_mode_parse(mode);
		if (m < 0) {
			note(msg, size, &used, "COPVM_EXP_MODE", mode,
			     "static");
			bad++;
		} else {
			p->mode = m;
		}
	}
	if (ip_ms && *ip_ms) {
		ip = parse_ms(ip_ms, EXP_IP_MS_MIN, EXP_IP_MS_MAX);
		if (ip < 0) {
			snprintf(dflt, sizeof(dflt), "%d ms",
				 EXP_IP_MS_DEFAULT);
			note(msg, size, &used, "COPVM_EXP_IP_MS", ip_ms, dflt);
			bad++;
		} else {
			p->ip_ns = (uint64_t)ip * EXP_MS;
		}
	}
	/* PS defaults to the thesis's proportion, 80 % of IP */
	p->ps_ns = p->ip_ns / 100 * 80;
	if (ps_ms && *ps_ms) {
		ps = parse_ms(ps_ms, 1, (long)(p->ip_ns / EXP_MS) - 1);
		if (ps < 0) {
			snprintf(dflt, sizeof(dflt), "%llu ms",
				 (unsigned long long)(p->ps_ns / EXP_MS));
			note(msg, size, &used, "COPVM_EXP_PS_MS", ps_ms, dflt);
			bad++;
		} else {
			p->ps_ns = (uint64_t)ps * EXP_MS;
		}
	}
	return bad;
}

/* The PS of a period for `d' tasks and a load of `l_milli'. */
uint64_t exp_ps_for_load(const struct exp_params *p, unsigned d,
			 uint64_t l_milli)
{
	uint64_t lo = p->ip_ns / 100 * EXP_PS_MIN_PCT;
	uint64_t hi = p->ip_ns / 100 * EXP_PS_MAX_PCT;
	uint64_t d_milli, ps;

	if (p->mode == EXP_STATIC)
		return p->ps_ns;
	d_milli = (uint64_t)(d ? d : 1) * 1000;
	/* ip_ns <= 1e10 and the fraction <= 1: no overflow when scaled
	 * through a double; the result is rounded down */
	ps = (uint64_t)((double)p->ip_ns * (double)d_milli /
			(double)(d_milli + l_milli));
	if (ps < lo)
		ps = lo;
	if (ps > hi)
		ps = hi;
	return ps;
}

/* The phase offset of host `host'. */
uint64_t exp_phase_offset(const struct exp_params *p, int host)
{
	uint64_t frac;

	if (p->mode != EXP_DISTRIBUTED || host <= 0)
		return 0;
	frac = ((uint64_t)host * 618034u) % 1000000u;
	return p->ip_ns / 1000 * frac / 1000;
}

/* Where `now' falls on host `host' when this period's PS is `ps_ns'. */
void exp_slot_at(const struct exp_params *p, uint64_t now, int host,
		 uint64_t ps_ns, struct exp_slot *s)
{
	uint64_t ip = p->ip_ns ? p->ip_ns : EXP_IP_MS_DEFAULT * EXP_MS;
	uint64_t off = exp_phase_offset(p, host) % ip;
	uint64_t k;

	if (ps_ns == 0)
		ps_ns = 1;
	if (ps_ns >= ip)
		ps_ns = ip - 1;
	/* periods start at off + k * ip; shifted by one period so that a
	 * time before the first offset does not underflow */
	k = (now + ip - off) / ip;
	s->period_start = k * ip + off - ip;
	s->ps_ns = ps_ns;
	if (now - s->period_start < ps_ns) {
		s->in_ps = 1;
		s->start = s->period_start;
		s->end = s->period_start + ps_ns;
	} else {
		s->in_ps = 0;
		s->start = s->period_start + ps_ns;
		s->end = s->period_start + ip;
	}
}

/* Where `now' falls for job `job' of `njobs' sharing the PS. */
void exp_job_slot_at(const struct exp_params *p, uint64_t now, int host,
		     uint64_t ps_ns, int job, int njobs, struct exp_slot *s)
{
	uint64_t ip = p->ip_ns ? p->ip_ns : EXP_IP_MS_DEFAULT * EXP_MS;
	uint64_t part, a, b;

	exp_slot_at(p, now, host, ps_ns, s);
	if (njobs <= 1 || job < 0 || job >= njobs)
		return;
	part = s->ps_ns / (uint64_t)njobs;
	if (part == 0)
		part = 1;
	a = s->period_start + (uint64_t)job * part;
	b = job == njobs - 1 ? s->period_start + s->ps_ns : a + part;
	if (a >= b)			/* a PS shorter than njobs ns */
		b = a + 1;
	if (now < a) {
		s->in_ps = 0;
		s->start = s->period_start;
		s->end = a;
	} else if (now < b) {
		s->in_ps = 1;
		s->start = a;
		s->end = b;
	} else {
		s->in_ps = 0;
		s->start = b;
		s->end = s->period_start + ip;
	}
}

/* One step of the load's smoothing. */
uint64_t exp_load_step(uint64_t old_milli, unsigned sample)
{
	return (old_milli + (uint64_t)sample * 1000) / 2;
}

/*
 * cosched_model.h - the coscheduling models as data and pure
 * mathematics: the model table (one row of rules per model), the
 * frequency recurrence, which messages each model counts, the boost a
 * frequency earns, the DCS fairness predicate, the CPU budget and the
 * receive's spin bound.  No system calls, no mutable state: the policy
 * engine (lib/cosched/), the tools and the tests call these with numbers.
 *
 * Times are nanoseconds of CLOCK_MONOTONIC; frequencies are messages per
 * second.  Models and boost levels are copvm.h's constants.
 */
#ifndef COPVM_COSCHED_MODEL_H
#define COPVM_COSCHED_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "copvm.h"

/*
 * The model table: each model (COPVM_MODEL_*) is one row of rules, and
 * the engine consults the row, never the model.  A new model is a
 * constant in copvm.h, a row in cosched_model.c and its tests; a rule
 * that no row has yet is a new value here and its case in the engine.
 * Every enum starts at 1, so a row that leaves a rule out is caught by
 * the table's test.
 */

/* Which messages F counts. */
enum cosched_count_rule {
	COSCHED_COUNT_BOTH = 1,	/* sends and receives */
	COSCHED_COUNT_RECVS,	/* receives only (DYN) */
};

/* Which boost a task asks for itself, and when. */
enum cosched_boost_rule {
	COSCHED_BOOSTS_NEVER = 1, /* none, and no backend (LIN, IMP, EXP) */
	COSCHED_BOOSTS_ALWAYS,	/* the strongest, nice at the floor, from
				 * enrolment on and renewed (HPDT) */
	COSCHED_BOOSTS_BY_FREQ,	/* the level F earns (the thresholds), asked
				 * at each interval's end (DYN, PRE) */
	COSCHED_BOOSTS_ON_WAKE,	/* the strongest, nice at the floor, for one
				 * quantum when an arrival wakes the task and
				 * the fairness predicate allows; kept to the
				 * end of its box (DCS) */
};

/* What a send to a task of this host does to that correspondent. */
enum cosched_peer_rule {
	COSCHED_PEER_NONE = 1,	/* nothing */
	COSCHED_PEER_RAISE,	/* raises it to the sender's own level, at
				 * most once per half box (PRE) */
	COSCHED_PEER_WAKE,	/* if it waits in a receive, boosts it as
				 * COSCHED_BOOSTS_ON_WAKE would (DCS) */
};

/* How a receive waits. */
enum cosched_wait_rule {
	COSCHED_WAIT_ADAPTIVE = 1, /* copvm's adaptive spin, then block */
	COSCHED_WAIT_TWO_CTXSW,	/* a plain spin of two context switches
				 * (measured at start-up), then block (IMP) */
};

/* One row of the model table. */
struct cosched_model_rules {
	const char *name;		/* "lin", ...: parsed in any case */
	enum cosched_count_rule count;
	enum cosched_boost_rule boost;
	enum cosched_peer_rule peer;
	enum cosched_wait_rule wait;
};

/* The model table, indexed by COPVM_MODEL_*: read it through
 * cosched_model_rules, which the hooks inline. */
extern const struct cosched_model_rules cosched_models[];

/* The row of model `model' (COPVM_MODEL_*), or NULL for an unknown
 * model. */
static inline const struct cosched_model_rules *cosched_model_rules(int model)
{
	return model >= 0 && model < COPVM_NMODELS && cosched_models[model].name ?
	       &cosched_models[model] : NULL;
}

/* Writes the models' names, "lin, imp, ...", into `buf' of `len' bytes
 * (truncated, always terminated); returns `buf'. */
char *cosched_model_list(char *buf, size_t len);

/* Parses a model name ("lin", "PRE", ...); the model or -1. */
int cosched_model_parse(const char *name);
/* Parses a backend name ("auto", "none", "self", "agent", "kmod"); the
 * backend or -1. */
int cosched_backend_parse(const char *name);

/* Non-zero when model `model' counts sends (PRE, HPDT, DCS count both;
 * DYN counts receives only; LIN, IMP and EXP count both for the tools). */
int cosched_counts_sends(int model);

/* End of one interval: F = P * f_past + (1 - P) * count / interval.
 * `p' is clamped to [0, 1]; interval_ns 0 leaves F unchanged. */
double cosched_freq_step(double f_past, double p, uint64_t count,
			 uint64_t interval_ns);

/* Brings F up to date after `elapsed_ns' since the interval began, in
 * which `count' messages were counted: the first interval takes the
 * count, each further whole interval is empty and decays F by P.
 * Returns the new F; *intervals (if not NULL) gets the number of whole
 * intervals passed (0: the interval has not ended, F unchanged). */
double cosched_freq_roll(double f, double p, uint64_t count,
			 uint64_t elapsed_ns, uint64_t interval_ns,
			 uint64_t *intervals);

/* The policy's thresholds: a task communicating at least `f_slice'
 * messages/s earns a short slice, at least `f_nice' a raised priority,
 * at least `f_rt' (where permitted) the real-time boost. */
struct cosched_thresholds {
	double f_slice;
	double f_nice;
	double f_rt;
};
/* Defaults, in messages per second. */
#define COSCHED_F_SLICE		20.0
#define COSCHED_F_NICE		100.0
#define COSCHED_F_RT		1000.0

/* The boost (COPVM_BOOST_*) that frequency `f' earns under `model' (its
 * boost rule): none for LIN, IMP, EXP and an unknown model; the
 * strongest for HPDT and DCS (whose boosts come with arrivals); by the
 * thresholds for DYN and PRE. */
int cosched_boost_for(int model, double f, const struct cosched_thresholds *t);

/* The nice value for a NICE boost at frequency `f': from -1 at f_nice
 * down to `floor' (negative) at f_rt and above, a log scale between. */
int cosched_nice_for(double f, int floor, const struct cosched_thresholds *t);

/* The nice that goes with boost `level' under `model' at frequency `f',
 * given the backend's `floor': the floor for RT and for the models that
 * boost at the strongest (HPDT, DCS); 0 below NICE; else
 * cosched_nice_for, at least one step below 0. */
int cosched_boost_nice(int model, int level, double f, int floor,
		       const struct cosched_thresholds *t);

/* DCS's fairness predicate, 2^E (Tc - Tp) + C >= Tq * R: may a message
 * arrival boost a task last boosted at `tp_ns', now `tc_ns', with a
 * quantum `tq_ns' and `r' runnable tasks?  `c_ns' is the constant C.
 * A task never boosted (tp_ns 0) may be. */
int cosched_dcs_fair(int e, uint64_t tc_ns, uint64_t tp_ns, int64_t c_ns,
		     uint64_t tq_ns, int r);

/* The CPU budget: a boosted task that used more than `share_pct' per
 * cent of a CPU over its budget window `window_ns' is demoted.  Non-zero
 * when `cpu_ns' used in `window_ns' exceeds it. */
int cosched_budget_exceeded(uint64_t cpu_ns, uint64_t window_ns, int share_pct);

/* The spin bound of a receive under `model', given the measured
 * context-switch cost: IMP spins 2 context switches; the others keep
 * `lin_ns', copvm's adaptive spin, boosted or not (a real-time boost
 * that blocked at once paid a wake-up per message: measured worse, see
 * docs/cosched.md).  `boost' is the level in force. */
uint64_t cosched_spin_ns(int model, int boost, uint64_t ctxsw_ns,
			 uint64_t lin_ns);

/* The recent spins' hit rate (in 1/COSCHED_HIT_ONE) from which a task
 * under a charged boost keeps spinning after a spin in vain. */
#define COSCHED_HIT_ONE		256u
#define COSCHED_HIT_PAYS	(COSCHED_HIT_ONE / 2)

/* Is spinning rationed: after a spin that found nothing, or that the
 * kernel cut short, do the next waits block at once?  Yes, except under
 * IMP (always the two-phase spin-block) and for a task at `boost' nice or
 * rt whose backend charges those boosts to a bounded share (`charged')
 * while its recent spins mostly found their message (`hit_rate', in
 * 1/COSCHED_HIT_ONE, at least COSCHED_HIT_PAYS): the share keeps the
 * local jobs' CPU, and blocking would make each reply wake a busy CPU;
 * spins that mostly miss would only spend the share. */
int cosched_spin_rationed(int model, int boost, int charged,
			  unsigned hit_rate);

#endif /* COPVM_COSCHED_MODEL_H */

/*
 * cosched_model.h - the pure mathematics of the coscheduling models:
 * the frequency recurrence, which messages each model counts, the boost
 * a frequency earns, the DCS fairness predicate, the CPU budget and the
 * receive's spin bound.  No system calls, no global state: the policy
 * engine (lib/cosched/) and the tests call these with numbers.
 *
 * Times are nanoseconds of CLOCK_MONOTONIC; frequencies are messages per
 * second.  Models and boost levels are copvm.h's constants.
 */
#ifndef COPVM_COSCHED_MODEL_H
#define COPVM_COSCHED_MODEL_H

#include <stdint.h>

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

/* The boost (COPVM_BOOST_*) that frequency `f' earns under `model':
 * none for LIN, IMP and EXP; the strongest for HPDT; by thresholds for
 * DYN, PRE and DCS. */
int cosched_boost_for(int model, double f, const struct cosched_thresholds *t);

/* The nice value for a NICE boost at frequency `f': from -1 at f_nice
 * down to `floor' (negative) at f_rt and above, a log scale between. */
int cosched_nice_for(double f, int floor, const struct cosched_thresholds *t);

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

#endif /* COPVM_COSCHED_MODEL_H */

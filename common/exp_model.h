/*
 * exp_model.h - the pure mathematics of EXP, explicit coscheduling (the
 * DTS of the thesis): every IP nanoseconds a period starts; in its first
 * PS the PVM tasks of a host run (the PS slot), in the remaining LS =
 * IP - PS they are stopped so that local jobs have the CPU (the LS slot).
 * The daemon (daemon/gang.c) asks which slot a time falls in and when it
 * ends, and sends SIGSTOP/SIGCONT at the boundaries.  No system calls,
 * no global state.
 *
 * Modes:
 *   STATIC       PS fixed (COPVM_EXP_PS_MS); every host in phase.
 *   BALANCED     PS follows the local load, PS = IP * D / (D + L) for D
 *                PVM tasks and L runnable local jobs, clamped to
 *                [EXP_PS_MIN_PCT, EXP_PS_MAX_PCT] per cent of IP; every
 *                host in phase.
 *   DISTRIBUTED  PS as BALANCED, but each host keeps its own phase,
 *                offset from the others' by its host number.
 *
 * Synchronization: instead of the thesis's broadcast of a short message
 * per period, periods start at multiples of IP of the master's
 * CLOCK_REALTIME (plus the host's offset in DISTRIBUTED); a slave finds
 * the master's time by a clock exchange (exp_sync.h) and passes it here,
 * so hosts are in phase to within half the exchange's round trip.  A
 * skew of s shortens the common PS of two hosts by s.
 *
 * Times are nanoseconds of the master's CLOCK_REALTIME since the epoch.  Loads are in
 * thousandths of a job, so that a smoothed load keeps its fraction.
 */
#ifndef COPVM_EXP_MODEL_H
#define COPVM_EXP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define EXP_STATIC		0
#define EXP_BALANCED		1
#define EXP_DISTRIBUTED		2

#define EXP_IP_MS_DEFAULT	100	/* the thesis's EXP */
#define EXP_PS_MS_DEFAULT	80
#define EXP_IP_MS_MIN		10	/* below this, switching dominates */
#define EXP_IP_MS_MAX		10000
/* The range an adjusted PS is kept in, per cent of IP: neither side is
 * ever starved of a slot of its own. */
#define EXP_PS_MIN_PCT		10
#define EXP_PS_MAX_PCT		90

#define EXP_MS			1000000ull	/* ns per ms */

/* EXP's settings. */
struct exp_params {
	int mode;		/* EXP_STATIC, ... */
	uint64_t ip_ns;		/* the period IP */
	uint64_t ps_ns;		/* STATIC's PS (0 < ps_ns < ip_ns) */
};

/* One slot: where `now' falls. */
struct exp_slot {
	int in_ps;		/* 1: PS (tasks run), 0: LS (tasks stopped) */
	uint64_t period_start;	/* start of the period holding `now' */
	uint64_t ps_ns;		/* this period's PS */
	uint64_t start;		/* the slot's start */
	uint64_t end;		/* the slot's end: the next boundary */
};

/* Fills `p' with the defaults: STATIC, IP 100 ms, PS 80 ms. */
void exp_params_default(struct exp_params *p);

/* Parses a mode name (static, balanced, distributed; any case); the mode
 * or -1. */
int exp_mode_parse(const char *name);
/* The mode's name, or "?" for an unknown one. */
const char *exp_mode_name(int mode);

/* Sets `p' from the values of COPVM_EXP_MODE, COPVM_EXP_IP_MS and
 * COPVM_EXP_PS_MS (each may be NULL or empty: default).  A bad value
 * gives that setting its default and a line in `msg' (size `size', may
 * be NULL).  An IP given without PS keeps PS at 80 % of IP; a PS that
 * does not fit in IP falls back to that too.  Returns the number of bad
 * values (0: all good). */
int exp_params_parse(struct exp_params *p, const char *mode,
		     const char *ip_ms, const char *ps_ms,
		     char *msg, size_t size);

/* The PS of a period given `d' PVM tasks and a local load of `l_milli'
 * thousandths of runnable jobs: STATIC's fixed PS, or for the adjusted
 * modes IP * D / (D + L) clamped to [EXP_PS_MIN_PCT, EXP_PS_MAX_PCT] %
 * of IP (D = 0 counts as 1: the tasks about to come are not starved). */
uint64_t exp_ps_for_load(const struct exp_params *p, unsigned d,
			 uint64_t l_milli);

/* The phase offset of host `host' (its index, 1 for the master): 0 in
 * STATIC and BALANCED; in DISTRIBUTED the fractional part of
 * host * 0.618034 (the golden ratio's), times IP, which spreads any
 * number of hosts over the period with no two alike. */
uint64_t exp_phase_offset(const struct exp_params *p, int host);

/* Where `now' falls on host `host' when this period's PS is `ps_ns' (as
 * exp_ps_for_load gave it; 0 or >= IP is clamped into (0, IP)).
 * Fills *s. */
void exp_slot_at(const struct exp_params *p, uint64_t now, int host,
		 uint64_t ps_ns, struct exp_slot *s);

/* Where `now' falls for job `job' of `njobs' whose tasks share host
 * `host''s PS with the other jobs' tasks: the PS is cut into `njobs'
 * equal parts (the last takes the remainder) and the job runs in part
 * `job' only, stopped in the rest of the period, so that the jobs take
 * turns instead of competing.  s->ps_ns is still the whole PS.  With one
 * job, or a job out of range, exp_slot_at's slot.  Fills *s. */
void exp_job_slot_at(const struct exp_params *p, uint64_t now, int host,
		     uint64_t ps_ns, int job, int njobs, struct exp_slot *s);

/* One step of the load's smoothing, an exponential average with weight
 * 1/2: (old + sample * 1000) / 2, in thousandths.  A job that comes or
 * goes moves the estimate half way in one period, fully in a few. */
uint64_t exp_load_step(uint64_t old_milli, unsigned sample);

#endif /* COPVM_EXP_MODEL_H */

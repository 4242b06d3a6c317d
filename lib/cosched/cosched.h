/*
 * cosched.h - the coscheduling engine inside libpvm3, as the rest of the
 * library sees it: hooks on the message paths (sent, received), on the
 * wait of a receive (spin bound, block, wake) and on enrolment.
 *
 * The hooks cost a few nanoseconds and no system call per message: they
 * count into the task's shared page (common/cosched_page.h) and look at a
 * coarse clock; the decisions (F, the wanted boost, the backend's calls)
 * happen once per interval.  With coscheduling off (no page), every hook
 * returns at once.
 */
#ifndef COPVM_COSCHED_H
#define COPVM_COSCHED_H

#include <stdint.h>

#include "task_state.h"	/* PVMI_HIDDEN */

struct cosched_page;

/* The calling task's page, or NULL while coscheduling is off. */
extern struct cosched_page *pvmi_cosched_page PVMI_HIDDEN;

/* Starts coscheduling for the just-enrolled task: settings, page,
 * backend.  Never fails the enrolment: on any error the task runs LIN. */
void pvmi_cosched_attach(void);
/* Records the task's transports in its page (COSCHED_XPORT_*; 0 leaves
 * a field as it is), for the observability tools; no page, no record. */
void pvmi_cosched_note_transports(int local, int tcp);
/* Undoes every boost and removes the page (pvm_exit, detach). */
void pvmi_cosched_detach(void);
/* In a forked child: drops the parent's page and backend state without
 * undoing the parent's boosts. */
void pvmi_cosched_forget(void);

/* A user message to task `tid' was sent. */
void pvmi_cosched_sent(int tid);
/* A user message from task `src' was received. */
void pvmi_cosched_received(int src);

/* The spin bound of the next wait, in ns; `lin_ns' is LIN's bound. */
long pvmi_cosched_spin_ns(long lin_ns);
/* The spin bound of the next receive, in ns: the model's, raised to at
 * least a millisecond while no task waits for a CPU (0 stays 0). */
long pvmi_cosched_recv_spin_ns(long lin_ns);
/* Non-zero when a spin that found nothing makes the next waits block at
 * once (cosched_spin_rationed: not under IMP, nor under a charged boost
 * while the recent spins' `hit_rate', in 1/COSCHED_HIT_ONE, pays). */
int pvmi_cosched_spin_rationed(unsigned hit_rate);
/* The task is about to block in a receive (1) or has woken (0). */
void pvmi_cosched_blocking(int blocked);
/* A receive waited: it spun for `spun_ns' (0: not at all), finding
 * input then when `hit', and blocked for `blocked_ns' (-1: it did not
 * block).  Counted in the page. */
void pvmi_cosched_waited(long spun_ns, int hit, long blocked_ns);

/* ---- inside lib/cosched ---- */

/* Settings of the calling task. */
struct cosched_settings {
	int model;		/* COPVM_MODEL_* */
	int p_milli;		/* P in thousandths */
	int interval_ms;
	int backend;		/* wanted COPVM_BACKEND_* */
	int f_rt;		/* messages/s that earn the strongest boost */
	uint32_t share_ppm;	/* CPU share while boosted (COPVM_SHARE),
				 * ppm of a CPU; 0: the backend's default */
};
extern struct cosched_settings pvmi_cosched_set PVMI_HIDDEN;
/* Makes a change of pvmi_cosched_set.model take effect in the running
 * task: the page, IMP's measurement, and the backend the model needs. */
void pvmi_cosched_model_changed(void);
/* Reads COPVM_MODEL, COPVM_P, COPVM_INTERVAL_MS, COPVM_BACKEND into
 * pvmi_cosched_set over the defaults. */
void pvmi_cosched_settings_load(void);
/* Called when a model that boosts got no backend: prints one line on
 * stderr with the fix, once per process, if the user set the model or
 * the backend (not none) and COPVM_QUIET is unset or 0. */
void pvmi_cosched_tell_no_backend(void);

/* Creates and maps the page of task `tid' in the run directory; the
 * page or NULL. */
struct cosched_page *pvmi_cosched_page_create(int tid);
/* Unmaps `page'; removes its file too when `unlink_it'. */
void pvmi_cosched_page_release(struct cosched_page *page, int tid, int unlink_it);
/* The page of correspondent `tid' on this host, mapped on first use
 * (cached), or NULL when it has none. */
struct cosched_page *pvmi_cosched_peer_page(int tid);
/* Drops every cached correspondent page. */
void pvmi_cosched_peer_pages_drop(void);

/* The end of an interval: brings F up to date, applies requests from
 * the tools, and asks the backend for the wanted boost.  `now' is
 * CLOCK_MONOTONIC in ns, or 0 to read the clock. */
void pvmi_cosched_roll(uint64_t now);
/* After a send to task `tid': the models that boost correspondents
 * (PRE, DCS) decide whether to boost it. */
void pvmi_cosched_peer_sent(int tid);
/* Tells the probe how many messages the last interval had, so that it
 * reads the clock about as often per interval whatever the rate
 * (state.c). */
void pvmi_cosched_look_rate(uint64_t messages);
/* Next end of interval, CLOCK_MONOTONIC_COARSE ns; hooks compare. */
extern uint64_t pvmi_cosched_next_roll PVMI_HIDDEN;
/* Messages the probe lets pass between looks at the clock, and how many
 * are left before the next look (set by pvmi_cosched_look_rate). */
extern unsigned pvmi_cosched_look_every PVMI_HIDDEN;
extern unsigned pvmi_cosched_look_left PVMI_HIDDEN;

/* The context-switch cost on this host, in ns: measured once per run
 * directory and cached there. */
uint64_t pvmi_cosched_ctxsw_ns(void);

/* Appends a line to the boost trace when COPVM_COSCHED_TRACE is set. */
void pvmi_cosched_trace(const char *event, int level, int target);

/* CLOCK_MONOTONIC_COARSE in ns (vDSO, a few ns). */
uint64_t pvmi_cosched_coarse_ns(void);

#endif /* COPVM_COSCHED_H */

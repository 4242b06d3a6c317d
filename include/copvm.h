/*
 * copvm.h - copvm's extensions to PVM 3.4: coscheduling models and their
 * parameters.  pvm3.h stays the stock contract; a program that wants
 * the extensions includes this header too and links with -lpvm3.
 *
 * Every setting here can also come from the environment (copvm(7)):
 *   COPVM_MODEL        lin, imp, hpdt, dyn, pre, dcs or exp
 *   COPVM_P            the past weight P, 0..1 (e.g. 0.5)
 *   COPVM_INTERVAL_MS  the probe's interval in milliseconds
 *   COPVM_BACKEND      auto, none, self, agent or kmod
 * and, for a running task, from the console (`cosched') or the
 * copvm-cosched tool.  An extension call overrides the environment.
 */
#ifndef COPVM_H
#define COPVM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Coscheduling models (values of COPVM_OPT_MODEL). */
#define COPVM_MODEL_LIN		0	/* no coscheduling: the baseline */
#define COPVM_MODEL_IMP		1	/* implicit: two-phase spin-block */
#define COPVM_MODEL_HPDT	2	/* distributed tasks always boosted */
#define COPVM_MODEL_DYN		3	/* dynamic: receive frequency */
#define COPVM_MODEL_PRE		4	/* predictive: send+receive frequency */
#define COPVM_MODEL_DCS		5	/* demand-based: boost on arrival */
#define COPVM_MODEL_EXP		6	/* explicit: the daemons gang-schedule */
#define COPVM_NMODELS		7

/* Boost backends (values of COPVM_OPT_BACKEND). */
#define COPVM_BACKEND_AUTO	0	/* probe: kmod, agent, self, else none */
#define COPVM_BACKEND_NONE	1	/* no boosts */
#define COPVM_BACKEND_SELF	2	/* unprivileged: slice requests, nice */
#define COPVM_BACKEND_AGENT	3	/* the copvm-agent helper */
#define COPVM_BACKEND_KMOD	4	/* the pvm_cosched kernel module */
#define COPVM_NBACKENDS		5

/* Options of copvm_setopt/copvm_getopt.  Values outside the stock
 * option range, so they can never be mistaken for pvm_setopt's. */
#define COPVM_OPT_MODEL		0x10001	/* COPVM_MODEL_* */
#define COPVM_OPT_P		0x10002	/* P in thousandths, 0..1000 */
#define COPVM_OPT_INTERVAL	0x10003	/* probe interval, ms, 1..10000 */
#define COPVM_OPT_BACKEND	0x10004	/* set: wanted; get: in use */
#define COPVM_OPT_FREQ		0x10005	/* get only: F, messages/s */
#define COPVM_OPT_BOOST		0x10006	/* get only: COPVM_BOOST_* now */

/* Boost levels a policy asks of a backend, weakest first. */
#define COPVM_BOOST_NONE	0	/* normal scheduling */
#define COPVM_BOOST_SLICE	1	/* a short EEVDF slice (6.12+) */
#define COPVM_BOOST_NICE	2	/* a raised priority, bounded by a floor */
#define COPVM_BOOST_RT		3	/* time-boxed SCHED_FIFO (agent, kmod) */

/* Sets coscheduling option `what' for the calling task; returns the
 * previous value, or PvmBadParam for an unknown option or a bad value. */
int copvm_setopt(int what, int val);
/* Returns the value of coscheduling option `what' for the calling task,
 * or PvmBadParam for an unknown option. */
int copvm_getopt(int what);

/* The model's name ("lin", "pre", ...), or NULL for an unknown one. */
const char *copvm_model_name(int model);
/* The backend's name ("none", "self", ...), or NULL for an unknown one. */
const char *copvm_backend_name(int backend);

/* The coscheduling state of every task of the virtual machine (where =
 * 0) or of one host (where = its daemon's tid), gathered through the
 * daemons, as text in *text (malloc'd: free it): per host a line
 * "host=NAME dtid=tHEX status=ok|down|old time_ns=NS", then that host's
 * copvm-cosched -r lines (copvm-cosched(1)).  Returns the number of
 * hosts, or PvmBadParam, PvmNoHost, PvmSysErr, PvmNoMem. */
int copvm_cosched_gather(int where, char **text);

/* Precommunication: declares that the active send buffer will be sent
 * to `tid' with `msgtag' with no data dependence on the receives before
 * that send, so the library may prepare it while the task waits in a
 * receive (pvm_indication(3PVM)).  PvmOk, PvmBadParam, PvmNoBuf,
 * PvmNoMem (too many pending). */
int pvm_indication(int tid, int msgtag);

#ifdef __cplusplus
}
#endif

#endif /* COPVM_H */

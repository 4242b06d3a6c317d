/*
 * settings.c - the coscheduling settings of the calling task: defaults,
 * then the environment (COPVM_MODEL, COPVM_P, COPVM_INTERVAL_MS,
 * COPVM_BACKEND, COPVM_F_RT, COPVM_SHARE), then copvm_setopt; and
 * copvm_getopt.  A running task also takes requests from the console
 * and copvm-cosched through its page (cosched.c applies them).  A task
 * whose user asked for boosts (a model or backend set, not the defaults
 * alone) and got none says so once, unless COPVM_QUIET is set.
 */
#include <stdlib.h>
#include <string.h>

#include "compat/log.h"
#include "copvm.h"
#include "cosched.h"
#include "cosched_model.h"
#include "cosched_page.h"
#include "pvmi.h"

/* What a user who sets nothing gets (docs/results/models/ shows why). */
#define DEFAULT_MODEL		COPVM_MODEL_PRE
#define DEFAULT_P_MILLI		500
#define DEFAULT_INTERVAL_MS	10
#define DEFAULT_F_RT		((int)COSCHED_F_RT)

struct cosched_settings pvmi_cosched_set = {
	DEFAULT_MODEL, DEFAULT_P_MILLI, DEFAULT_INTERVAL_MS, COPVM_BACKEND_AUTO,
	DEFAULT_F_RT, 0
};
static int loaded;
/* The user set the model or the backend (environment, copvm_setopt). */
static int asked;
static int told;		/* the no-backend line was printed */

/* Parses a P from text, a fraction from 0 to 1 ("0.5"); in thousandths,
 * or -1 if bad. */
static int parse_p(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0 && v <= 1.0))
		return -1;
	return (int)(v * 1000.0 + 0.5);
}

static int parse_ms(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && !*end && v >= 1 && v <= 10000 ? (int)v : -1;
}

/* Parses a frequency threshold in messages per second, 1 to 10^6; the
 * value or -1. */
static int parse_rate(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && !*end && v >= 1 && v <= 1000000 ? (int)v : -1;
}

/* Parses a share of a CPU, a fraction from 0.0001 to 1 ("0.05"); in
 * parts per million, or 0 if bad. */
static uint32_t parse_share(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0001 && v <= 1.0))
		return 0;
	return (uint32_t)(v * 1e6 + 0.5);
}

void pvmi_cosched_settings_load(void)
{
	const char *s;
	int v;

	if (loaded)
		return;
	loaded = 1;
	if ((s = getenv("COPVM_MODEL")) && *s &&
	    (v = cosched_model_parse(s)) >= 0)
		pvmi_cosched_set.model = v, asked = 1;
	if ((s = getenv("COPVM_P")) && *s && (v = parse_p(s)) >= 0)
		pvmi_cosched_set.p_milli = v;
	if ((s = getenv("COPVM_INTERVAL_MS")) && *s && (v = parse_ms(s)) > 0)
		pvmi_cosched_set.interval_ms = v;
	if ((s = getenv("COPVM_F_RT")) && *s && (v = parse_rate(s)) > 0)
		pvmi_cosched_set.f_rt = v;
	if ((s = getenv("COPVM_BACKEND")) && *s &&
	    (v = cosched_backend_parse(s)) >= 0)
		pvmi_cosched_set.backend = v, asked = 1;
	if ((s = getenv("COPVM_SHARE")) && *s)
		pvmi_cosched_set.share_ppm = parse_share(s);
}

/* Makes a new setting take effect in a running task. */
static void settings_changed(int reprobe)
{
	struct cosched_page *pg = pvmi_cosched_page;

	if (!pg)
		return;
	if (reprobe) {
		pvmi_cosched_detach();
		pvmi_cosched_attach();
		return;
	}
	pg->model = pvmi_cosched_set.model;
	pg->p_milli = pvmi_cosched_set.p_milli;
	pg->interval_us = pvmi_cosched_set.interval_ms * 1000;
	pvmi_cosched_next_roll = 0;	/* decide again at the next hook */
	pvmi_cosched_look_rate(0);
}

PVMI_EXPORT int copvm_setopt(int what, int val)
{
	int *field, lo, hi, old;

	pvmi_cosched_settings_load();
	switch (what) {
	case COPVM_OPT_MODEL:
		field = &pvmi_cosched_set.model, lo = 0, hi = COPVM_NMODELS - 1;
		break;
	case COPVM_OPT_P:
		field = &pvmi_cosched_set.p_milli, lo = 0, hi = 1000;
		break;
	case COPVM_OPT_INTERVAL:
		field = &pvmi_cosched_set.interval_ms, lo = 1, hi = 10000;
		break;
	case COPVM_OPT_BACKEND:
		field = &pvmi_cosched_set.backend, lo = 0, hi = COPVM_NBACKENDS - 1;
		break;
	default:
		return pvmi_error("copvm_setopt", PvmBadParam);
	}
	if (val < lo || val > hi)
		return pvmi_error("copvm_setopt", PvmBadParam);
	old = *field;
	*field = val;
	if (what == COPVM_OPT_MODEL || what == COPVM_OPT_BACKEND)
		asked = 1;
	/* A new backend means probing again; the rest takes effect at the
	 * next hook, a new model with the backend it needs. */
	settings_changed(what == COPVM_OPT_BACKEND);
	if (what == COPVM_OPT_MODEL && val != old)
		pvmi_cosched_model_changed();
	return old;
}

/* Says once per process, on stderr, that the boosts the user asked for
 * cannot be had, and how to get them (cosched.h). */
void pvmi_cosched_tell_no_backend(void)
{
	const char *quiet = getenv("COPVM_QUIET");
	int model = pvmi_cosched_set.model;

	if (told || !asked || pvmi_cosched_set.backend == COPVM_BACKEND_NONE)
		return;
	told = 1;
	if (quiet && *quiet && strcmp(quiet, "0"))
		return;
	pvmlogprintf("coscheduling: model %s runs without boosts: no "
		     "backend (COPVM_BACKEND=%s) is available; start the "
		     "agent (systemctl start copvm-agent) or load the module "
		     "(modprobe pvm_cosched); COPVM_QUIET=1 hides this\n",
		     cosched_model_rules(model) ?
		     cosched_model_rules(model)->name : "?",
		     copvm_backend_name(pvmi_cosched_set.backend));
}

PVMI_EXPORT int copvm_getopt(int what)
{
	struct cosched_page *pg = pvmi_cosched_page;

	pvmi_cosched_settings_load();
	if (pg && pvmi_cosched_coarse_ns() >= pvmi_cosched_next_roll)
		pvmi_cosched_roll(0);
	switch (what) {
	case COPVM_OPT_MODEL:
		return pvmi_cosched_set.model;
	case COPVM_OPT_P:
		return pvmi_cosched_set.p_milli;
	case COPVM_OPT_INTERVAL:
		return pvmi_cosched_set.interval_ms;
	case COPVM_OPT_BACKEND:
		return pg ? pg->backend : COPVM_BACKEND_NONE;
	case COPVM_OPT_FREQ:
		return pg ? (int)(pg->freq + 0.5) : 0;
	case COPVM_OPT_BOOST:
		return pg ? pg->boost : COPVM_BOOST_NONE;
	default:
		return pvmi_error("copvm_getopt", PvmBadParam);
	}
}

/*
 * cosched_read.h - reading and steering the coscheduling pages of the
 * tasks of this host, for the observability tools (copvm-cosched and the
 * console's `cosched'); nothing on a task's message path uses it.
 *
 * A reader opens the user's run directory and its cosched/ folder once
 * (csr_open), refusing both unless they belong to the caller's uid and
 * are writable by nobody else: a tool must not be fed pages, nor write
 * requests into pages, that another user planted.  It then takes a
 * snapshot of the valid pages (csr_load) and may ask tasks to change
 * their model, P or interval (csr_set); the task applies such a request
 * at the end of its current interval.  Errors are negative errno values.
 */
#ifndef COPVM_COSCHED_READ_H
#define COPVM_COSCHED_READ_H

#include <limits.h>

#include "cosched_page.h"

/* The run directory, open: dirfd of copvm-<uid>, and of its cosched/
 * folder (-1 while no task has created it: no tasks). */
struct csr_dir {
	int run_fd;
	int cs_fd;
	char path[PATH_MAX];	/* the run directory, for messages */
};

/* A snapshot of the valid pages, in increasing tid order. */
struct csr_list {
	struct cosched_page *pg;
	int n;
	int skipped;		/* pages refused: stale, foreign, bad */
};

/* A request; a field holding COSCHED_REQ_NONE is left alone. */
struct csr_req {
	int model;		/* COPVM_MODEL_* */
	int p_milli;		/* 0..1000 */
	int interval_ms;	/* 1..10000 */
};

/* Limits of the requests (and of copvm_setopt's values). */
#define CSR_P_MAX		1000
#define CSR_INTERVAL_MIN	1
#define CSR_INTERVAL_MAX	10000

/* The run directory a task of this user would use: $PVM_TMP/copvm-<uid>
 * ($PVM_TMP defaulting to /tmp), written into buf; buf, or NULL if it
 * does not fit. */
char *csr_rundir(char *buf, size_t len);

/* Opens run directory `rundir' (NULL: csr_rundir()'s) and its cosched/
 * folder.  0; -ENOENT: no run directory; -EPERM: it or cosched/ is not
 * the caller's or is group/world writable; -ENOTDIR, other -errno. */
int csr_open(struct csr_dir *d, const char *rundir);

/* Closes what csr_open opened; safe on a closed or failed csr_dir. */
void csr_close(struct csr_dir *d);

/* Reads every valid page (magic, version, uid, file name matching the
 * tid, pid alive) into l->pg, sorted by tid; counts the others in
 * l->skipped.  0 (l->n may be 0) or -errno.  Free with csr_list_free. */
int csr_load(struct csr_dir *d, struct csr_list *l);

/* Frees a list csr_load filled, leaving it empty. */
void csr_list_free(struct csr_list *l);

/* Checks a request: 0, or -EINVAL when a field that is not
 * COSCHED_REQ_NONE is out of range or every field is. */
int csr_req_check(const struct csr_req *r);

/* Adds one "key=value" word to a request: model=NAME, P=0.5 (P or p, a
 * fraction 0..1, at most three decimals), interval=MS.  0, or -EINVAL
 * with *why (if not NULL) saying what is wrong with the word. */
int csr_req_word(struct csr_req *r, const char *word, const char **why);

/* Writes request `r' into the page of task `tid', or of every valid
 * page when tid is 0, with atomic stores.  The number of pages written;
 * -EINVAL: bad request; -ESRCH: no valid page of that tid (0 pages when
 * tid is 0 and there are no tasks); other -errno. */
int csr_set(struct csr_dir *d, int tid, const struct csr_req *r);

/* Names: model (the model table of cosched_model.c), backend
 * "auto".."kmod", boost level "none".."rt"; NULL for a value out of
 * range. */
const char *csr_model_name(int model);
const char *csr_backend_name(int backend);
const char *csr_boost_name(int boost);
/* Transport name: "unix", "shm", "tcp", "uring"; NULL for unknown (0)
 * or out of range. */
const char *csr_xport_name(int xport);

/* Parses a model name (any case); the COPVM_MODEL_* or -1. */
int csr_model_parse(const char *name);

/* Reads a task id as the console writes it: hex, with or without a
 * leading 't'.  The tid, or 0 when `s' is not one. */
int csr_parse_tid(const char *s);

#endif /* COPVM_COSCHED_READ_H */

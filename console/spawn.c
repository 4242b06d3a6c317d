/*
 * spawn.c - starting tasks, and the jobs whose output the console shows.
 *
 * `spawn ->' makes a job: a number printed as "[n]", and the tasks of
 * that spawn plus any task they start in turn (the output destination is
 * inherited).  Their output reaches the console as messages: the console
 * sets PvmOutputTid to itself and PvmOutputCode to a tag of the job's
 * own for the pvm_spawn call, so pvmd sends each task's start, its
 * stdout and stderr bytes, and its end to the console with that tag.
 * Each whole line is printed as "[n:tTID] line", the end as
 * "[n:tTID] EOF", and once every task of the job has ended, "[n]
 * finished".  With ->FILE or ->>FILE the lines go to that file instead
 * and only "[n] finished" comes to the console.
 *
 * The console spawns with PvmNoSpawnParent, as stock's does: its tasks
 * have no parent to send to, and the console is no task's parent.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "console.h"

/* A task of a job whose output has not ended. */
struct job_task {
	int tid;
	char *partial;		/* the unfinished last line */
	size_t len;
};

struct job {
	int num;
	FILE *out;		/* stdout, or the file of ->FILE */
	struct job_task *tasks;
	int ntasks;
	struct job *next;
};

static struct job *jobs;	/* in job number order */
static int last_job;

static struct job *find_job(int num)
{
	struct job *j;

	for (j = jobs; j; j = j->next)
		if (j->num == num)
			return j;
	return NULL;
}

static struct job *new_job(FILE *out)
{
	struct job *j = calloc(1, sizeof(*j)), **pp;

	if (!j)
		return NULL;
	if (++last_job > CON_TAG_JOB_MAX - CON_TAG_JOB)
		last_job = 1;
	j->num = last_job;
	j->out = out;
	for (pp = &jobs; *pp; pp = &(*pp)->next)
		;
	*pp = j;
	return j;
}

static void free_job(struct job *j)
{
	struct job **pp;
	int i;

	for (pp = &jobs; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	if (j->out != stdout)
		fclose(j->out);
	for (i = 0; i < j->ntasks; i++)
		free(j->tasks[i].partial);
	free(j->tasks);
	free(j);
}

/* The entry of `tid' in job `j', added if `add' and missing. */
static struct job_task *job_task(struct job *j, int tid, int add)
{
	struct job_task *grown;
	int i;

	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i].tid == tid)
			return &j->tasks[i];
	if (!add)
		return NULL;
	grown = realloc(j->tasks, (j->ntasks + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	j->tasks = grown;
	memset(&grown[j->ntasks], 0, sizeof(*grown));
	grown[j->ntasks].tid = tid;
	return &grown[j->ntasks++];
}

int con_is_job_tag(int tag)
{
	return tag > CON_TAG_JOB && tag <= CON_TAG_JOB_MAX;
}

/* Writes the whole lines of `t''s partial output, or with `all' the
 * rest too. */
static void flush_lines(int num, FILE *out, struct job_task *t, int all)
{
	size_t start = 0, i;

	for (i = 0; i < t->len; i++) {
		if (t->partial[i] != '\n')
			continue;
		fprintf(out, "[%d:t%x] %.*s\n", num, t->tid, (int)(i - start),
			t->partial + start);
		start = i + 1;
	}
	if (all && start < t->len) {
		fprintf(out, "[%d:t%x] %.*s\n", num, t->tid,
			(int)(t->len - start), t->partial + start);
		start = t->len;
	}
	if (start)	/* (partial may still be NULL when empty) */
		memmove(t->partial, t->partial + start, t->len - start);
	t->len -= start;
	fflush(out);
}

/* Adds `n' bytes of output to task `t' and writes its whole lines. */
static void add_output(int num, FILE *out, struct job_task *t, int n)
{
	char *grown = realloc(t->partial, t->len + n);

	if (!grown)
		return;
	t->partial = grown;
	if (pvm_upkbyte(t->partial + t->len, n, 1) < 0)
		return;
	t->len += n;
	flush_lines(num, out, t, 0);
}

/* The end of task `tid''s output; the end of the job with its last. */
static void end_output(struct job *j, int num, int tid)
{
	struct job_task *t = j ? job_task(j, tid, 0) : NULL;
	FILE *out = j ? j->out : stdout;

	if (t)
		flush_lines(num, out, t, 1);
	fprintf(out, "[%d:t%x] EOF\n", num, tid);
	fflush(out);
	if (!j)
		return;
	if (t) {
		free(t->partial);
		*t = j->tasks[--j->ntasks];
	}
	if (j->ntasks == 0) {
		printf("[%d] finished\n", num);
		free_job(j);
	}
}

void con_job_output(int tag)
{
	int num = tag - CON_TAG_JOB, tid = 0, n = 0;
	struct job *j = find_job(num);
	struct job_task *t, stray = { 0 };

	if (pvm_upkint(&tid, 1, 1) < 0 || pvm_upkint(&n, 1, 1) < 0)
		return;
	if (n < 0) {
		/* A task started (its parent's tid follows). */
		if (j)
			job_task(j, tid, 1);
	} else if (n == 0) {
		end_output(j, num, tid);
	} else if (j && (t = job_task(j, tid, 1))) {
		add_output(num, j->out, t, n);
	} else {
		/* Output of a job already over: print it as it comes. */
		stray.tid = tid;
		add_output(num, stdout, &stray, n);
		flush_lines(num, stdout, &stray, 1);
		free(stray.partial);
	}
}

/* jobs [-l]: the jobs not finished yet and their tasks. */
int con_cmd_jobs(int argc, char **argv)
{
	int longfmt = argc > 1 && !strcmp(argv[1], "-l");
	struct pvmtaskinfo *ti;
	struct job *j;
	int i, n, autoerr;

	/* The long listing has ps's short columns, as in stock. */
	if (longfmt)
		con_ps_header(0);
	for (j = jobs; j; j = j->next) {
		printf(" %d:", j->num);
		if (!longfmt) {
			for (i = 0; i < j->ntasks; i++)
				printf(" t%x", j->tasks[i].tid);
			printf("\n");
			continue;
		}
		printf("\n");
		autoerr = pvm_setopt(PvmAutoErr, 0);
		for (i = 0; i < j->ntasks; i++)
			if (pvm_tasks(j->tasks[i].tid, &n, &ti) >= 0 && n > 0)
				con_ps_row(&ti[0], 0);
		pvm_setopt(PvmAutoErr, autoerr);
	}
	return 0;
}

/* What the options before the program name ask for. */
struct spawn_opts {
	int count;
	int flags;
	char *where;
	int redirect;		/* 0, '>' console, 'w' file, 'a' append */
	const char *file;
};

/* Reads the options; returns the index of the program name, or -1
 * after printing what is wrong. */
static int spawn_options(int argc, char **argv, struct spawn_opts *o)
{
	char *opt, name[256];
	int i;

	memset(o, 0, sizeof(*o));
	o->count = 1;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		opt = argv[i] + 1;
		if (isdigit((unsigned char)*opt)) {
			o->count = atoi(opt);
		} else if (*opt == '>') {
			o->redirect = '>';
			if (opt[1] == '>') {
				o->redirect = 'a';
				o->file = opt + 2;
			} else if (opt[1]) {
				o->redirect = 'w';
				o->file = opt + 1;
			}
			if (o->redirect != '>' && !*o->file) {
				printf("spawn: %s needs a file name\n",
				       argv[i]);
				return -1;
			}
		} else if (*opt == '?') {
			o->flags |= PvmTaskDebug;
		} else if (*opt == '@') {
			fprintf(stderr, "spawn: -@: tracing is not available,"
				" spawning without it\n");
		} else if (!strncmp(opt, "-host=", 6)) {
			o->flags = (o->flags & ~PvmTaskArch) | PvmTaskHost;
			o->where = opt + 6;
		} else if (*opt == ':') {
			/* Only a working directory; any host will do. */
			o->where = opt;
		} else if (*opt) {
			/* A host or an architecture, perhaps with ":dir". */
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(opt, ":"), opt);
			o->flags &= ~(PvmTaskHost | PvmTaskArch);
			o->flags |= con_is_arch(name) ? PvmTaskArch :
							 PvmTaskHost;
			o->where = opt;
		} else {
			break;
		}
	}
	if (i >= argc || !argv[i][0] || !strcmp(argv[i], "-")) {
		printf("incorrect arg count\n");
		return -1;
	}
	return i;
}

/* Sets up job output for this spawn.  Returns the job, or NULL with
 * *failed set when the output file cannot be opened. */
static struct job *start_job(const struct spawn_opts *o, int *failed)
{
	FILE *out = stdout;
	struct job *j;

	*failed = 0;
	if (!o->redirect)
		return NULL;
	if (o->redirect != '>') {
		out = fopen(o->file, o->redirect == 'a' ? "a" : "w");
		if (!out) {
			perror(o->file);
			*failed = 1;
			return NULL;
		}
	}
	j = new_job(out);
	if (!j) {
		if (out != stdout)
			fclose(out);
		perror("spawn");
		*failed = 1;
		return NULL;
	}
	printf("[%d]\n", j->num);
	fflush(stdout);
	return j;
}

/* spawn [options] program [args...] */
int con_cmd_spawn(int argc, char **argv)
{
	struct spawn_opts o;
	struct job *j;
	int first, failed, *tids, rc, n, i;
	int old_tid = 0, old_code = 0;

	first = spawn_options(argc, argv, &o);
	if (first < 0)
		return -1;
	/* A count below 1 still goes to pvm_spawn, which reports it. */
	tids = calloc(o.count > 0 ? o.count : 1, sizeof(*tids));
	if (!tids) {
		perror("spawn");
		return -1;
	}
	j = start_job(&o, &failed);
	if (failed) {
		free(tids);
		return -1;
	}
	if (j) {
		old_tid = pvm_setopt(PvmOutputTid, con_mytid);
		old_code = pvm_setopt(PvmOutputCode, CON_TAG_JOB + j->num);
	}
	rc = pvm_spawn(argv[first], argc > first + 1 ? argv + first + 1 : NULL,
		       o.flags | PvmNoSpawnParent, o.where ? o.where : "",
		       o.count, tids);
	if (j) {
		pvm_setopt(PvmOutputTid, old_tid);
		pvm_setopt(PvmOutputCode, old_code);
	}
	if (rc < 0) {
		/* Nothing started and the library has said why. */
		if (j)
			free_job(j);
		free(tids);
		return -1;
	}
	n = rc;
	printf("%d successful\n", n);
	for (i = 0; i < o.count; i++) {
		if (tids[i] > 0) {
			printf("t%x\n", tids[i]);
			if (j)
				job_task(j, tids[i], 1);
		} else {
			printf("%s\n", con_errtext(tids[i]));
		}
	}
	/* A job none of whose tasks started never finishes: drop it. */
	if (j && j->ntasks == 0)
		free_job(j);
	free(tids);
	return n == o.count ? 0 : -1;
}

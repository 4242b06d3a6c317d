/*
 * cosched_read.c - the observability tools' access to the coscheduling
 * pages of this host (see cosched_read.h): the checks on the run
 * directory, the scan of cosched/, snapshots of the valid pages, and the
 * requests written into them.
 *
 * Pages are read with pread(2) into a copy rather than mapped: a copy is
 * one snapshot per task, so a row of the table is printed from values
 * read together, and a page that is truncated or replaced while we look
 * costs a short read rather than a SIGBUS.  Only csr_set maps a page
 * (shared, read-write), because the req fields must be stored atomically
 * into the very memory the task reads them from; it checks the file's
 * size first, and tasks never truncate a page (they unlink it).
 *
 * Every file is opened relative to the directory descriptors csr_open
 * checked, with O_NOFOLLOW, and must be a regular file of the caller's
 * uid: a symbolic link or another user's file is skipped, never read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_model.h"
#include "cosched_read.h"
#include "proto.h"

static const char *const boost_names[] = { "none", "slice", "nice", "rt" };

#define NBOOSTS ((int)(sizeof(boost_names) / sizeof(boost_names[0])))

/* The names come from the model table and the backends' table
 * (cosched_model.c), the library's own. */
const char *csr_model_name(int model)
{
	return copvm_model_name(model);
}

const char *csr_backend_name(int backend)
{
	return copvm_backend_name(backend);
}

const char *csr_xport_name(int xport)
{
	static const char *const names[] = { NULL, "unix", "shm", "tcp",
					     "uring" };

	return xport > 0 && xport < (int)(sizeof(names) / sizeof(names[0])) ?
	       names[xport] : NULL;
}

const char *csr_boost_name(int boost)
{
	return boost >= 0 && boost < NBOOSTS ? boost_names[boost] : NULL;
}

int csr_model_parse(const char *name)
{
	return cosched_model_parse(name);
}

int csr_parse_tid(const char *s)
{
	unsigned long v;
	char *end;

	if (*s == 't')
		s++;
	if (!isxdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (*end || errno || v == 0 || v > 0x7fffffffUL)
		return 0;
	return (int)v;
}

char *csr_rundir(char *buf, size_t len)
{
	const char *tmp = getenv("PVM_TMP");
	int n;

	/* The same rule as the library's pvmi_rundir(). */
	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(buf, len, PVMI_DIR_FMT, tmp, (unsigned)getuid());
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* A directory we may trust: ours, and nobody else may add to it. */
static int check_dir(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

/* Opens directory `name' (relative to `at') for csr_open; a symbolic
 * link is refused like a foreign directory. */
static int open_dir(int at, const char *name, int *fd)
{
	struct stat st;
	int rc;

	*fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0) {
		rc = -errno;
		/* O_DIRECTORY may say ENOTDIR for a link before O_NOFOLLOW
		 * says ELOOP: ask what it is. */
		if (!fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			return -EPERM;
		return rc;
	}
	rc = check_dir(*fd);
	if (rc) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

int csr_open(struct csr_dir *d, const char *rundir)
{
	int rc;

	d->run_fd = d->cs_fd = -1;
	if (!rundir) {
		if (!csr_rundir(d->path, sizeof(d->path)))
			return -ENAMETOOLONG;
	} else if (snprintf(d->path, sizeof(d->path), "%s", rundir) >=
		   (int)sizeof(d->path)) {
		return -ENAMETOOLONG;
	}
	rc = open_dir(AT_FDCWD, d->path, &d->run_fd);
	if (rc)
		return rc;
	rc = open_dir(d->run_fd, COSCHED_DIR, &d->cs_fd);
	if (rc == -ENOENT)
		return 0;	/* no task has enrolled yet */
	if (rc)
		csr_close(d);
	return rc;
}

void csr_close(struct csr_dir *d)
{
	if (d->cs_fd >= 0)
		close(d->cs_fd);
	if (d->run_fd >= 0)
		close(d->run_fd);
	d->run_fd = d->cs_fd = -1;
}

/* The tid a page's file name stands for (exactly COSCHED_PAGE_FMT, as the
 * task writes it), or 0. */
static int name_tid(const char *name)
{
	char back[16];
	int tid;

	if (name[0] != 't')
		return 0;
	tid = csr_parse_tid(name);
	if (!tid)
		return 0;
	snprintf(back, sizeof(back), COSCHED_PAGE_FMT, (unsigned)tid);
	return strcmp(back, name) ? 0 : tid;
}

/* Whether the page's process is still there.  EPERM means a process of
 * another user holds the pid now: the task is gone. */
static int pid_alive(int pid)
{
	return pid > 0 && kill(pid, 0) == 0;
}

/* Whether page `pg' (a copy, or loaded atomically) is the live page of
 * task `tid' of this user. */
static int page_valid(uint32_t magic, uint32_t version, uint32_t uid,
		      int32_t tid, int32_t pid, int want_tid)
{
	return magic == COSCHED_PAGE_MAGIC && version == COSCHED_PAGE_VERSION &&
	       uid == (uint32_t)getuid() && tid == want_tid && pid_alive(pid);
}

/* Opens the page file of `tid' for reading or writing and checks it is a
 * whole page file of ours; the descriptor or -errno (-ESTALE: not a page
 * we may use). */
static int page_open(struct csr_dir *d, int tid, int flags)
{
	char name[16];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), COSCHED_PAGE_FMT, (unsigned)tid);
	fd = openat(d->cs_fd, name,
		    flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP ? -ESTALE : -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -ESTALE;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    st.st_size < (off_t)sizeof(struct cosched_page)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Reads the page of `tid' into `pg'; 0, or -ESTALE when it is not valid,
 * or -errno. */
static int page_read(struct csr_dir *d, int tid, struct cosched_page *pg)
{
	ssize_t n;
	int fd;

	fd = page_open(d, tid, O_RDONLY);
	if (fd < 0)
		return fd;
	n = pread(fd, pg, sizeof(*pg), 0);
	close(fd);
	if (n != (ssize_t)sizeof(*pg))
		return -ESTALE;
	if (!page_valid(pg->magic, pg->version, pg->uid, pg->tid, pg->pid, tid))
		return -ESTALE;
	return 0;
}

/* Stores the fields of `r' that ask for something into the page of `tid';
 * 0, or -ESTALE when it is not a valid page, or -errno. */
static int page_write(struct csr_dir *d, int tid, const struct csr_req *r)
{
	struct cosched_page *pg;
	int fd, ok;

	fd = page_open(d, tid, O_RDWR);
	if (fd < 0)
		return fd;
	pg = mmap(NULL, sizeof(*pg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (pg == MAP_FAILED)
		return -errno;
	ok = page_valid(__atomic_load_n(&pg->magic, __ATOMIC_ACQUIRE),
			__atomic_load_n(&pg->version, __ATOMIC_RELAXED),
			__atomic_load_n(&pg->uid, __ATOMIC_RELAXED),
			__atomic_load_n(&pg->tid, __ATOMIC_RELAXED),
			__atomic_load_n(&pg->pid, __ATOMIC_RELAXED), tid);
	if (ok) {
		/* Each field stands alone: the task takes whichever it
		 * finds set at the end of its interval. */
		if (r->model != COSCHED_REQ_NONE)
			__atomic_store_n(&pg->req_model, r->model,
					 __ATOMIC_RELEASE);
		if (r->p_milli != COSCHED_REQ_NONE)
			__atomic_store_n(&pg->req_p_milli, r->p_milli,
					 __ATOMIC_RELEASE);
		if (r->interval_ms != COSCHED_REQ_NONE)
			__atomic_store_n(&pg->req_interval_ms, r->interval_ms,
					 __ATOMIC_RELEASE);
	}
	munmap(pg, sizeof(*pg));
	return ok ? 0 : -ESTALE;
}

/* Calls fn(d, tid, arg) for each file of cosched/ named like a page;
 * stops at and returns fn's first lack of memory or descriptors, else
 * 0.  *skipped counts the files fn refused and the stray names. */
static int scan(struct csr_dir *d, int (*fn)(struct csr_dir *, int, void *),
		void *arg, int *skipped)
{
	struct dirent *e;
	DIR *dir;
	int fd, tid, rc = 0;

	if (d->cs_fd < 0)
		return 0;
	/* fdopendir owns the descriptor it gets: give it a copy, and
	 * rewind, as the copy shares the offset of earlier scans. */
	fd = dup(d->cs_fd);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rewinddir(dir);
	while ((e = readdir(dir))) {
		tid = name_tid(e->d_name);
		if (!tid) {
			if (e->d_name[0] != '.')
				(*skipped)++;
			continue;
		}
		rc = fn(d, tid, arg);
		if (rc == -ENOMEM || rc == -EMFILE || rc == -ENFILE)
			break;
		if (rc < 0) {
			/* invalid, unreadable, or gone since readdir saw it:
			 * one bad file must not hide the other tasks */
			(*skipped)++;
			rc = 0;
		}
	}
	closedir(dir);
	return rc < 0 ? rc : 0;
}

static int load_one(struct csr_dir *d, int tid, void *arg)
{
	struct csr_list *l = arg;
	struct cosched_page pg, *more;
	int rc;

	rc = page_read(d, tid, &pg);
	if (rc)
		return rc;
	more = realloc(l->pg, (l->n + 1) * sizeof(*l->pg));
	if (!more)
		return -ENOMEM;
	l->pg = more;
	l->pg[l->n++] = pg;
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	const struct cosched_page *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

int csr_load(struct csr_dir *d, struct csr_list *l)
{
	int rc;

	l->pg = NULL;
	l->n = l->skipped = 0;
	rc = scan(d, load_one, l, &l->skipped);
	if (rc) {
		csr_list_free(l);
		return rc;
	}
	if (l->n > 1)
		qsort(l->pg, l->n, sizeof(*l->pg), by_tid);
	return 0;
}

void csr_list_free(struct csr_list *l)
{
	free(l->pg);
	l->pg = NULL;
	l->n = 0;
}

int csr_req_check(const struct csr_req *r)
{
	if (r->model == COSCHED_REQ_NONE && r->p_milli == COSCHED_REQ_NONE &&
	    r->interval_ms == COSCHED_REQ_NONE)
		return -EINVAL;
	if (r->model != COSCHED_REQ_NONE &&
	    (r->model < 0 || r->model >= COPVM_NMODELS))
		return -EINVAL;
	if (r->p_milli != COSCHED_REQ_NONE &&
	    (r->p_milli < 0 || r->p_milli > CSR_P_MAX))
		return -EINVAL;
	if (r->interval_ms != COSCHED_REQ_NONE &&
	    (r->interval_ms < CSR_INTERVAL_MIN ||
	     r->interval_ms > CSR_INTERVAL_MAX))
		return -EINVAL;
	return 0;
}

/* P as a fraction "0", "1", "0.5", ".125", "1.000": thousandths or -1. */
static int parse_p(const char *s)
{
	int whole = 0, frac = 0, digits = 0, scale = 100;

	if (*s >= '0' && *s <= '9') {
		whole = *s++ - '0';
		digits++;
	}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++, digits++) {
			if (!scale)
				return -1;	/* finer than thousandths */
			frac += (*s - '0') * scale;
			scale /= 10;
		}
	}
	if (*s || !digits || whole > 1 || whole * 1000 + frac > CSR_P_MAX)
		return -1;
	return whole * 1000 + frac;
}

static int parse_interval(const char *s)
{
	long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (!strcmp(end, "ms"))
		end += 2;
	if (*end || errno || v < CSR_INTERVAL_MIN || v > CSR_INTERVAL_MAX)
		return -1;
	return (int)v;
}

int csr_req_word(struct csr_req *r, const char *word, const char **why)
{
	const char *eq = strchr(word, '='), *val;
	size_t klen;
	int v;

	if (!eq) {
		if (why)
			*why = "expected model=NAME, P=FRACTION or interval=MS";
		return -EINVAL;
	}
	klen = eq - word;
	val = eq + 1;
	if (klen == 5 && !strncasecmp(word, "model", 5)) {
		v = csr_model_parse(val);
		if (v < 0) {
			static char msg[96];
			char list[64];

			snprintf(msg, sizeof(msg), "unknown model (%s)",
				 cosched_model_list(list, sizeof(list)));
			if (why)
				*why = msg;
			return -EINVAL;
		}
		r->model = v;
	} else if (klen == 1 && (word[0] == 'P' || word[0] == 'p')) {
		v = parse_p(val);
		if (v < 0) {
			if (why)
				*why = "P is a fraction from 0 to 1, at most three decimals";
			return -EINVAL;
		}
		r->p_milli = v;
	} else if (klen == 8 && !strncasecmp(word, "interval", 8)) {
		v = parse_interval(val);
		if (v < 0) {
			if (why)
				*why = "interval is a whole number of ms from 1 to 10000";
			return -EINVAL;
		}
		r->interval_ms = v;
	} else {
		if (why)
			*why = "unknown setting (model, P or interval)";
		return -EINVAL;
	}
	return 0;
}

struct set_all {
	const struct csr_req *r;
	int written;
};

static int set_one(struct csr_dir *d, int tid, void *arg)
{
	struct set_all *s = arg;
	int rc;

	rc = page_write(d, tid, s->r);
	if (!rc)
		s->written++;
	return rc;
}

int csr_set(struct csr_dir *d, int tid, const struct csr_req *r)
{
	struct set_all s = { r, 0 };
	int rc, skipped = 0;

	if (csr_req_check(r) || tid < 0)
		return -EINVAL;
	if (tid) {
		if (d->cs_fd < 0)
			return -ESRCH;
		rc = page_write(d, tid, r);
		if (rc == -ESTALE || rc == -ENOENT)
			return -ESRCH;
		return rc ? rc : 1;
	}
	rc = scan(d, set_one, &s, &skipped);
	return rc ? rc : s.written;
}

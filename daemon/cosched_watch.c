/*
 * cosched_watch.c - the daemon's watch over its tasks' coscheduling pages
 * ($dir/cosched/t<tid hex>, common/cosched_page.h), the backstop of the
 * `self' backend.
 *
 * A task of the self backend boosts itself (a lower nice within
 * RLIMIT_NICE, an EEVDF slice request) and undoes the boost the next time
 * it enters the library; a task that stops calling the library would keep
 * it.  The daemon, same uid, undoes for it:
 *   - a boost whose time box ended (boost_until_ns + WATCH_GRACE_NS);
 *   - a boost that used more than WATCH_SHARE_PCT % of a CPU over the
 *     page's budget window (/proc/PID/schedstat), a demotion, counted in
 *     the page's `demotions'.
 * Undoing puts back base_nice only if the task's nice is still the one
 * the boost set (boost_nice), resets the slice request (SCHED_OTHER with
 * sched_runtime 0) only if the page says boost_slice, and records
 * boost = NONE in the page with atomic stores.  Raising a nice is always
 * permitted to the same uid; lowering it (a "boost" that raised nice) is
 * tried, and logged if refused.
 *
 * The pages are mapped shared when they appear, so looking at them costs
 * memory reads only; an inotify watch on the directory says when pages
 * come and go, so a daemon whose tasks have no page never wakes up for
 * them.  While pages exist the watch looks every WATCH_IDLE_MS (mmap
 * stores raise no event, so this is how a boost is seen), while one is
 * boosted every WATCH_BUSY_MS, or at the end of the earliest box plus
 * WATCH_GRACE_NS when that comes sooner.
 *
 * Only pages of the task table's tasks (tid and pid agreeing) are acted
 * on, whatever their backend: a task of the `none' backend (LIN, IMP)
 * never undoes the boost a correspondent gave it, so the watch does.  The
 * CPU budget applies to pages of the self and none backends; the agent
 * and the module budget their own boosts, and the watch only ends those
 * past their box (a backstop: they undo at the box's end themselves).
 * A page whose pid is gone, or whose pid is a process that is not that
 * task (the table gives the tid another pid, or its COPVM_TID differs),
 * is stale and removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_model.h"
#include "cosched_page.h"
#include "procfile.h"
#include "sched_attr.h"
#include "pvmd.h"

#define WATCH_IDLE_MS		50	/* pages exist, none boosted */
#define WATCH_BUSY_MS		20	/* some page is boosted */
#define WATCH_GRACE_NS		2000000ull	/* after the time box */
#define WATCH_SHARE_PCT		50	/* CPU budget while boosted */
#define WATCH_WINDOW_NS		100000000ull	/* default budget window */

/* One page of the directory. */
struct cw_page {
	struct cw_page *next;
	char name[16];			/* t<tid hex> */
	int tid;
	struct cosched_page *pg;	/* mapped, or NULL: not ready yet */
	int seen;			/* found by the last rescan */
	int tracking;			/* a boost is being budgeted */
	uint64_t win_start;		/* the budget window (monotonic) */
	uint64_t win_cpu;		/* schedstat at its start */
};

static struct pvmd_watch ino_w = { .fd = -1 };
static char pagedir[4300];
static struct cw_page *pages;
static int rescan;			/* the directory changed */
static int pending;			/* a page not mappable yet */
static long long next_ms = -1;		/* our next look, -1: none */
static int active;			/* the watch runs */
static unsigned long long nscans, scan_ns, nundone, ndemoted;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void look_within(int ms)
{
	long long t = pvmd_now_ms() + ms;

	if (next_ms < 0 || t < next_ms)
		next_ms = t;
	pvmd_tick_within(ms);
}

static void on_inotify(struct pvmd_watch *w, uint32_t events)
{
	char buf[4096] __attribute__((aligned(8)));

	(void)events;
	while (read(w->fd, buf, sizeof(buf)) > 0)
		;
	rescan = 1;
	look_within(0);
}

/* Makes the page directory (the library makes it too) and watches it;
 * without inotify the watch rescans while tasks exist. */
void pvmd_cwatch_init(void)
{
	struct stat st;
	int n;

	n = snprintf(pagedir, sizeof(pagedir), "%s/" COSCHED_DIR, pvmd.dir);
	if (n < 0 || (size_t)n >= sizeof(pagedir))
		return;
	if (mkdir(pagedir, 0700) < 0 && errno != EEXIST) {
		pvmd_log("cosched watch: cannot create %s: %s", pagedir,
			 strerror(errno));
		return;
	}
	if (lstat(pagedir, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != pvmd.uid || (st.st_mode & 077)) {
		pvmd_log("cosched watch: %s is not our private directory; "
			 "no watch", pagedir);
		return;
	}
	active = 1;
	rescan = 1;
	ino_w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ino_w.on_event = on_inotify;
	if (ino_w.fd >= 0 &&
	    (inotify_add_watch(ino_w.fd, pagedir, IN_CREATE | IN_MOVED_TO |
			       IN_CLOSE_WRITE | IN_MODIFY | IN_DELETE |
			       IN_MOVED_FROM | IN_ONLYDIR) < 0 ||
	     pvmd_watch_add(&ino_w, EPOLLIN) < 0)) {
		close(ino_w.fd);
		ino_w.fd = -1;
	}
	if (ino_w.fd < 0)
		pvmd_log("cosched watch: no inotify (%s): rescanning while "
			 "tasks exist", strerror(errno));
	look_within(0);
}

static void unmap(struct cw_page *p)
{
	if (p->pg)
		munmap(p->pg, COSCHED_PAGE_SIZE);
	p->pg = NULL;
}

/* Maps a page once it is a regular file of ours, big enough. */
static void try_map(struct cw_page *p)
{
	char path[4400];
	struct stat st;
	void *m;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pagedir, p->name);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != pvmd.uid) {
		close(fd);
		return;
	}
	if (st.st_size < (off_t)sizeof(struct cosched_page)) {
		close(fd);
		pending = 1;
		return;
	}
	m = mmap(NULL, COSCHED_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	close(fd);
	if (m != MAP_FAILED)
		p->pg = m;
}

/* Reads the directory: new pages are added (and mapped), gone ones
 * dropped. */
static void do_rescan(void)
{
	struct cw_page *p, **pp;
	struct dirent *d;
	unsigned tid;
	DIR *dir;
	int n;

	rescan = 0;
	pending = 0;
	dir = opendir(pagedir);
	if (!dir)
		return;
	for (p = pages; p; p = p->next)
		p->seen = 0;
	while ((d = readdir(dir))) {
		n = 0;
		if (sscanf(d->d_name, COSCHED_PAGE_FMT "%n", &tid, &n) != 1 ||
		    d->d_name[n] || n >= (int)sizeof(p->name))
			continue;
		for (p = pages; p; p = p->next)
			if (!strcmp(p->name, d->d_name))
				break;
		if (!p) {
			p = calloc(1, sizeof(*p));
			if (!p)
				break;
			memcpy(p->name, d->d_name, (size_t)n + 1);
			p->tid = (int)tid;
			p->next = pages;
			pages = p;
		}
		p->seen = 1;
		if (!p->pg)
			try_map(p);
	}
	closedir(dir);
	for (pp = &pages; (p = *pp);) {
		if (p->seen) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		unmap(p);
		free(p);
	}
}

static void remove_page(struct cw_page *p, const char *why)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", pagedir, p->name);
	if (unlink(path) == 0)
		pvmd_log("cosched watch: removed stale page %s (%s)", p->name,
			 why);
	unmap(p);
	p->seen = 0;			/* freed by the next rescan */
	rescan = 1;
}

/* The tid in /proc/PID/environ's COPVM_TID, 0 when absent or unknown. */
static int environ_tid(pid_t pid)
{
	static const char key[] = "COPVM_TID=";
	char path[64], buf[16384];
	ssize_t n, i;
	int start = 0;

	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	n = copvm_read_small(path, buf, sizeof(buf));
	if (n < 0)
		return 0;
	for (i = 0; i <= n; i++) {
		if (buf[i] != '\0')
			continue;
		if (!strncmp(buf + start, key, sizeof(key) - 1))
			return atoi(buf + start + sizeof(key) - 1);
		start = (int)i + 1;
	}
	return 0;
}

/* Decides whether page `p' is one of our tasks' (1), not ours but maybe
 * live (0), or stale (-1: removed). */
static int classify(struct cw_page *p)
{
	struct cosched_page *pg = p->pg;
	struct pvmd_task *t = pvmd_task_find(p->tid);
	pid_t pid = pg->pid;
	int etid;

	if (__atomic_load_n(&pg->magic, __ATOMIC_ACQUIRE) !=
	    COSCHED_PAGE_MAGIC)
		return 0;		/* not initialised yet */
	if (pid <= 1 || (kill(pid, 0) < 0 && errno == ESRCH)) {
		remove_page(p, "its process is gone");
		return -1;
	}
	if (t && t->pid == pid && pg->tid == p->tid && pid != getpid())
		return 1;
	if (t && t->pid > 0 && t->pid != pid) {
		remove_page(p, "its task has another process");
		return -1;
	}
	etid = environ_tid(pid);
	if (etid && etid != p->tid) {
		remove_page(p, "its pid is another process");
		return -1;
	}
	return 0;
}

/* CPU time of `pid' (its main thread), ns; 0 when unknown. */
static uint64_t cpu_ns(pid_t pid)
{
	char path[64], buf[128];
	unsigned long long v = 0;

	snprintf(path, sizeof(path), "/proc/%ld/schedstat", (long)pid);
	if (copvm_read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	if (sscanf(buf, "%llu", &v) != 1)
		return 0;
	return v;
}

/* Resets a slice request of `pid' (SCHED_OTHER, runtime 0), keeping its
 * nice `nice' and its reset-on-fork flag (which the kernel does not let
 * an unprivileged caller clear). */
static void reset_slice(pid_t pid, int nice)
{
	struct copvm_sched_attr a;
	uint64_t keep;
	int rc;

	if (copvm_sched_getattr(pid, &a) < 0)
		return;
	if (a.sched_policy != SCHED_OTHER || a.sched_runtime == 0)
		return;
	keep = a.sched_flags & SCHED_FLAG_RESET_ON_FORK;
	memset(&a, 0, sizeof(a));
	a.sched_policy = SCHED_OTHER;
	a.sched_flags = keep;
	a.sched_nice = nice;
	a.sched_runtime = 0;
	rc = copvm_sched_setattr(pid, &a);
	if (rc < 0)
		pvmd_log("cosched watch: pid %ld: cannot reset its slice: %s",
			 (long)pid, strerror(-rc));
}

/* Undoes the boost on page `p' (see the top); `demote' for the budget. */
static void undo(struct cw_page *p, int demote)
{
	struct cosched_page *pg = p->pg;
	pid_t pid = pg->pid;
	int cur, known, bn = pg->boost_nice, base = pg->base_nice;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, (id_t)pid);
	known = !errno;
	if (known && cur == bn && bn != base) {
		if (setpriority(PRIO_PROCESS, (id_t)pid, base) < 0)
			pvmd_log("cosched watch: t%x: cannot put nice back "
				 "to %d: %s", (unsigned)p->tid, base,
				 strerror(errno));
		else
			cur = base;
	}
	/* sched_setattr sets the nice too: only with the nice known */
	if (known && __atomic_load_n(&pg->boost_slice, __ATOMIC_ACQUIRE))
		reset_slice(pid, cur);
	__atomic_store_n(&pg->boost_slice, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->boost_until_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->boost, COPVM_BOOST_NONE, __ATOMIC_RELEASE);
	if (demote) {
		__atomic_add_fetch(&pg->demotions, 1, __ATOMIC_RELAXED);
		ndemoted++;
	} else {
		nundone++;
	}
	p->tracking = 0;
	pvmd_dbg(PVMD_DBG_TASK, "cosched watch: t%x %s", (unsigned)p->tid,
		 demote ? "demoted (CPU budget)" : "unboosted (time box)");
}

/* True if the watch budgets the boosts of page `pg': those of the self
 * backend, and a correspondent's on a page of the none backend. */
static int budgeted(const struct cosched_page *pg)
{
	return pg->backend == COPVM_BACKEND_SELF ||
	       pg->backend == COPVM_BACKEND_NONE;
}

/* Looks at one boosted page of ours; 1 while it stays boosted, with
 * *due lowered to the time its box ends (plus the grace). */
static int check_boost(struct cw_page *p, uint64_t now, uint64_t *due)
{
	struct cosched_page *pg = p->pg;
	uint64_t until, win, cpu, used, span;

	until = __atomic_load_n(&pg->boost_until_ns, __ATOMIC_RELAXED);
	if (!budgeted(pg)) {
		p->tracking = 0;
		goto box;
	}
	win = pg->budget_window_ns;
	if (win < 1000000ull || win > 10000000000ull)
		win = WATCH_WINDOW_NS;
	cpu = cpu_ns(pg->pid);
	if (!p->tracking) {
		p->tracking = 1;
		p->win_start = now;
		p->win_cpu = cpu;
	}
	used = cpu > p->win_cpu ? cpu - p->win_cpu : 0;
	span = now - p->win_start;
	/* shown per window: a look that came late (span > win) scales
	 * what it saw to one window, never more CPU than the window */
	__atomic_store_n(&pg->boosted_cpu_ns,
			 span > win ? (uint64_t)((double)used * win / span) :
				      used, __ATOMIC_RELAXED);
	/* over the budget: more than the share of a whole window already,
	 * or of the window just completed */
	if (cosched_budget_exceeded(used, win, WATCH_SHARE_PCT) ||
	    (span >= win && cosched_budget_exceeded(used, span, WATCH_SHARE_PCT))) {
		undo(p, 1);
		return 0;
	}
	if (span >= win) {
		p->win_start = now;
		p->win_cpu = cpu;
	}
box:
	if (until && now > until + WATCH_GRACE_NS) {
		undo(p, 0);
		return 0;
	}
	if (until && until + WATCH_GRACE_NS < *due)
		*due = until + WATCH_GRACE_NS;
	return 1;
}

/* The loop's tick: rescans if the directory changed, looks at the pages,
 * and asks for the next look only while there is something to watch. */
void pvmd_cwatch_tick(void)
{
	uint64_t t0, now, due;
	struct cw_page *p;
	int boosted = 0, mapped = 0, ms;

	if (!active || next_ms < 0 || pvmd_now_ms() < next_ms)
		return;
	next_ms = -1;
	t0 = mono_ns();
	if (rescan || pending || ino_w.fd < 0)
		do_rescan();
	now = mono_ns();
	due = now + WATCH_BUSY_MS * 1000000ull;
	for (p = pages; p; p = p->next) {
		if (!p->pg)
			continue;
		if (classify(p) != 1) {
			p->tracking = 0;
			if (p->pg)
				mapped++;
			continue;
		}
		mapped++;
		if (__atomic_load_n(&p->pg->boost, __ATOMIC_ACQUIRE) ==
		    COPVM_BOOST_NONE) {
			p->tracking = 0;
			continue;
		}
		boosted += check_boost(p, now, &due);
	}
	nscans++;
	scan_ns += mono_ns() - t0;
	/* the end of the earliest box, rounded up to the loop's ms */
	ms = (int)((due - now + 999999ull) / 1000000ull);
	if (rescan || boosted)
		look_within(rescan ? 0 : ms);
	else if (mapped || pending ||
		 (ino_w.fd < 0 && pvmd_task_count() > 0))
		look_within(WATCH_IDLE_MS);
}

/* A task entered the table: without inotify, start looking again. */
void pvmd_cwatch_task_new(void)
{
	if (active && ino_w.fd < 0 && next_ms < 0)
		look_within(WATCH_IDLE_MS);
}

/* Logs what the watch did and cost (at exit). */
void pvmd_cwatch_report(void)
{
	if (!active || !nscans)
		return;
	pvmd_log("cosched watch: %llu looks, %llu us in all (%.1f us each), "
		 "%llu boosts undone, %llu demoted", nscans, scan_ns / 1000,
		 (double)scan_ns / 1000.0 / (double)nscans, nundone, ndemoted);
}

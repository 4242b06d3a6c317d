/*
 * check_cosched_read.c - unit tests of common/cosched_read.c and of the
 * copvm-cosched tool built on it (common/cosched_cmd.c).  Each test gets
 * a private run directory holding hand-made coscheduling pages: valid
 * ones (of this very process), and pages that must be skipped (wrong
 * magic, another version, a dead pid, another uid, a file name that does
 * not match its tid, a short file, a symbolic link, a stray name).  It
 * checks the scan, the requests written into pages and the refused ones,
 * the refusal of run directories others could write to, and the tool's
 * -r lines, exit statuses and messages on the same pages.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_read.h"

#ifndef COSCHED_TOOL
#define COSCHED_TOOL "tools/copvm-cosched"
#endif

static char base[64];		/* the test's PVM_TMP */
static char rundir[128];	/* base/copvm-<uid> */
static char csdir[160];		/* rundir/cosched */

/* A pid that no process holds: a child that has exited and been reaped
 * (the kernel does not hand it out again this soon). */
static int dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* A page as a task would fill it, with every field set to something the
 * tool's -r output can be checked against. */
static void fill_page(struct cosched_page *pg, int tid, int pid)
{
	memset(pg, 0, sizeof(*pg));
	pg->magic = COSCHED_PAGE_MAGIC;
	pg->version = COSCHED_PAGE_VERSION;
	pg->pid = pid;
	pg->tid = tid;
	pg->uid = getuid();
	pg->model = COPVM_MODEL_PRE;
	pg->backend = COPVM_BACKEND_SELF;
	pg->p_milli = 500;
	pg->interval_us = 10000;
	pg->spin_ns = 50000;
	pg->sends_total = 10;
	pg->recvs_total = 12;
	pg->freq = 123.25;
	pg->boost = COPVM_BOOST_NICE;
	pg->boost_nice = -5;
	pg->base_nice = 2;
	pg->boost_until_ns = 777000000;
	pg->boosts = 3;
	pg->peer_boosts = 4;
	pg->demotions = 1;
	pg->refusals = 6;
	pg->boosted_cpu_ns = 5000000;
	pg->budget_window_ns = 1000000000;
	pg->boosted_by_peers = 2;
	pg->npeers = 2;
	pg->peers[0].tid = 0x40002;
	pg->peers[1].tid = 0x40003;
	pg->req_model = COSCHED_REQ_NONE;
	pg->req_p_milli = COSCHED_REQ_NONE;
	pg->req_interval_ms = COSCHED_REQ_NONE;
	pg->local_xport = COSCHED_XPORT_SHM;
	pg->tcp_xport = COSCHED_XPORT_URING;
}

/* Writes `pg' as file `name' of cosched/, padded to a whole page, or cut
 * to `len' bytes when len is not 0. */
static void write_page(const char *name, const struct cosched_page *pg,
		       size_t len)
{
	char path[256], buf[COSCHED_PAGE_SIZE];
	int fd;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, pg, sizeof(*pg));
	snprintf(path, sizeof(path), "%s/%s", csdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len ? len : sizeof(buf)),
			 (ssize_t)(len ? len : sizeof(buf)));
	close(fd);
}

static void read_back(int tid, struct cosched_page *pg)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/t%x", csdir, (unsigned)tid);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, pg, sizeof(*pg)), (ssize_t)sizeof(*pg));
	close(fd);
}

/* The pages of every test: t40001 and t40002 valid (this process),
 * t40003..t4000a and "junk" to be skipped.  t40002 is written first, so
 * that the sort by tid shows. */
static void make_pages(void)
{
	struct cosched_page pg;
	char path[256], target[256];

	fill_page(&pg, 0x40002, getpid());
	pg.model = COPVM_MODEL_DCS;
	pg.boost = COPVM_BOOST_NONE;
	pg.npeers = 0;
	pg.local_xport = COSCHED_XPORT_UNKNOWN;	/* an older task's page */
	pg.tcp_xport = COSCHED_XPORT_UNKNOWN;
	write_page("t40002", &pg, 0);
	fill_page(&pg, 0x40001, getpid());
	write_page("t40001", &pg, 0);

	fill_page(&pg, 0x40003, getpid());
	pg.magic = 0x12345678;
	write_page("t40003", &pg, 0);		/* wrong magic */
	fill_page(&pg, 0x40004, dead_pid());
	write_page("t40004", &pg, 0);		/* dead pid */
	fill_page(&pg, 0x40005, getpid());
	pg.version = COSCHED_PAGE_VERSION + 1;
	write_page("t40005", &pg, 0);		/* another version */
	fill_page(&pg, 0x40006, getpid());
	pg.uid = getuid() + 1;
	write_page("t40006", &pg, 0);		/* another user's */
	fill_page(&pg, 0x40008, getpid());
	write_page("t40007", &pg, 0);		/* name and tid differ */
	fill_page(&pg, 0x40009, getpid());
	write_page("t40009", &pg, 100);		/* short */
	write_page("junk", &pg, 0);		/* not a page's name */
	snprintf(path, sizeof(path), "%s/t4000a", csdir);
	snprintf(target, sizeof(target), "%s/t40001", csdir);
	ck_assert_int_eq(symlink(target, path), 0);	/* a link */
}

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/check_cosched_read.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(rundir, sizeof(rundir), "%s/copvm-%u", base,
		 (unsigned)getuid());
	snprintf(csdir, sizeof(csdir), "%s/%s", rundir, COSCHED_DIR);
	ck_assert_int_eq(mkdir(rundir, 0700), 0);
	ck_assert_int_eq(mkdir(csdir, 0700), 0);
	setenv("PVM_TMP", base, 1);
	make_pages();
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", base);
}

START_TEST(names)
{
	ck_assert_str_eq(csr_model_name(COPVM_MODEL_LIN), "lin");
	ck_assert_str_eq(csr_model_name(COPVM_MODEL_HPDT), "hpdt");
	ck_assert_str_eq(csr_model_name(COPVM_MODEL_EXP), "exp");
	ck_assert_ptr_null(csr_model_name(COPVM_NMODELS));
	ck_assert_ptr_null(csr_model_name(-1));
	ck_assert_str_eq(csr_backend_name(COPVM_BACKEND_AUTO), "auto");
	ck_assert_str_eq(csr_backend_name(COPVM_BACKEND_KMOD), "kmod");
	ck_assert_ptr_null(csr_backend_name(COPVM_NBACKENDS));
	ck_assert_str_eq(csr_xport_name(COSCHED_XPORT_SHM), "shm");
	ck_assert_str_eq(csr_xport_name(COSCHED_XPORT_URING), "uring");
	ck_assert_ptr_null(csr_xport_name(COSCHED_XPORT_UNKNOWN));
	ck_assert_ptr_null(csr_xport_name(99));
	ck_assert_str_eq(csr_boost_name(COPVM_BOOST_NONE), "none");
	ck_assert_str_eq(csr_boost_name(COPVM_BOOST_RT), "rt");
	ck_assert_ptr_null(csr_boost_name(COPVM_BOOST_RT + 1));
	ck_assert_int_eq(csr_model_parse("PRE"), COPVM_MODEL_PRE);
	ck_assert_int_eq(csr_model_parse("dcs"), COPVM_MODEL_DCS);
	ck_assert_int_eq(csr_model_parse("nope"), -1);
	ck_assert_int_eq(csr_parse_tid("t40001"), 0x40001);
	ck_assert_int_eq(csr_parse_tid("40001"), 0x40001);
	ck_assert_int_eq(csr_parse_tid("t"), 0);
	ck_assert_int_eq(csr_parse_tid("x1"), 0);
	ck_assert_int_eq(csr_parse_tid("40001z"), 0);
	ck_assert_int_eq(csr_parse_tid("0"), 0);
	ck_assert_int_eq(csr_parse_tid("100000000"), 0);
}
END_TEST

START_TEST(load_skips_bad_pages)
{
	struct csr_dir d;
	struct csr_list l;

	ck_assert_int_eq(csr_open(&d, rundir), 0);
	ck_assert_int_eq(csr_load(&d, &l), 0);
	ck_assert_int_eq(l.n, 2);
	ck_assert_int_eq(l.pg[0].tid, 0x40001);
	ck_assert_int_eq(l.pg[1].tid, 0x40002);
	ck_assert_int_eq(l.pg[1].model, COPVM_MODEL_DCS);
	/* t40003..t40007, t40009, t4000a, junk */
	ck_assert_int_eq(l.skipped, 8);
	csr_list_free(&l);
	ck_assert_ptr_null(l.pg);
	/* a second scan of the same csr_dir sees the same */
	ck_assert_int_eq(csr_load(&d, &l), 0);
	ck_assert_int_eq(l.n, 2);
	csr_list_free(&l);
	csr_close(&d);
	csr_close(&d);
}
END_TEST

START_TEST(default_rundir)
{
	struct csr_dir d;
	struct csr_list l;
	char buf[256];

	ck_assert_str_eq(csr_rundir(buf, sizeof(buf)), rundir);
	ck_assert_ptr_null(csr_rundir(buf, 8));
	ck_assert_int_eq(csr_open(&d, NULL), 0);
	ck_assert_str_eq(d.path, rundir);
	ck_assert_int_eq(csr_load(&d, &l), 0);
	ck_assert_int_eq(l.n, 2);
	csr_list_free(&l);
	csr_close(&d);
}
END_TEST

START_TEST(no_rundir_no_tasks)
{
	struct csr_dir d;
	struct csr_list l;
	struct csr_req r = { COPVM_MODEL_PRE, COSCHED_REQ_NONE,
			     COSCHED_REQ_NONE };
	char path[256];

	snprintf(path, sizeof(path), "%s/nosuch", base);
	ck_assert_int_eq(csr_open(&d, path), -ENOENT);
	csr_close(&d);
	/* a run directory without cosched/: open, and no tasks */
	snprintf(path, sizeof(path), "%s/empty", base);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(csr_open(&d, path), 0);
	ck_assert_int_eq(d.cs_fd, -1);
	ck_assert_int_eq(csr_load(&d, &l), 0);
	ck_assert_int_eq(l.n, 0);
	ck_assert_int_eq(l.skipped, 0);
	csr_list_free(&l);
	ck_assert_int_eq(csr_set(&d, 0, &r), 0);
	ck_assert_int_eq(csr_set(&d, 0x40001, &r), -ESRCH);
	csr_close(&d);
}
END_TEST

START_TEST(refuses_unsafe_dirs)
{
	struct csr_dir d;
	char path[256];
	int fd;

	ck_assert_int_eq(chmod(rundir, 0770), 0);
	ck_assert_int_eq(csr_open(&d, rundir), -EPERM);
	ck_assert_int_eq(chmod(rundir, 0702), 0);
	ck_assert_int_eq(csr_open(&d, rundir), -EPERM);
	/* read and search by others are harmless */
	ck_assert_int_eq(chmod(rundir, 0755), 0);
	ck_assert_int_eq(csr_open(&d, rundir), 0);
	csr_close(&d);
	ck_assert_int_eq(chmod(csdir, 0720), 0);
	ck_assert_int_eq(csr_open(&d, rundir), -EPERM);
	ck_assert_int_eq(d.run_fd, -1);
	ck_assert_int_eq(chmod(csdir, 0700), 0);
	/* a symbolic link is refused, not followed */
	snprintf(path, sizeof(path), "%s/link", base);
	ck_assert_int_eq(symlink(rundir, path), 0);
	ck_assert_int_eq(csr_open(&d, path), -EPERM);
	/* a file where the directory should be */
	snprintf(path, sizeof(path), "%s/file", base);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(csr_open(&d, path), -ENOTDIR);
}
END_TEST

/* Another owner can only be set up as root: chown the run directory to
 * nobody and expect the refusal. */
START_TEST(refuses_foreign_owner)
{
	struct csr_dir d;

	if (getuid() != 0)
		return;		/* not root: cannot give the directory away */
	ck_assert_int_eq(chown(rundir, 65534, 65534), 0);
	ck_assert_int_eq(csr_open(&d, rundir), -EPERM);
	ck_assert_int_eq(chown(rundir, 0, 0), 0);
	ck_assert_int_eq(chown(csdir, 65534, 65534), 0);
	ck_assert_int_eq(csr_open(&d, rundir), -EPERM);
}
END_TEST

START_TEST(req_words)
{
	struct csr_req r = { COSCHED_REQ_NONE, COSCHED_REQ_NONE,
			     COSCHED_REQ_NONE };
	const char *why;
	static const char *const bad[] = {
		"model=nope", "model=", "P=1.5", "P=2", "P=0.1234", "P=",
		"P=-0.5", "P=0.5x", "P=.", "interval=0", "interval=10001",
		"interval=", "interval=-3", "interval=5s", "foo=1", "model",
		"Px=1", "intervalx=3",
	};
	size_t i;

	ck_assert_int_eq(csr_req_check(&r), -EINVAL);	/* asks nothing */
	ck_assert_int_eq(csr_req_word(&r, "model=PRE", NULL), 0);
	ck_assert_int_eq(r.model, COPVM_MODEL_PRE);
	ck_assert_int_eq(csr_req_word(&r, "P=0.5", NULL), 0);
	ck_assert_int_eq(r.p_milli, 500);
	ck_assert_int_eq(csr_req_word(&r, "p=1", NULL), 0);
	ck_assert_int_eq(r.p_milli, 1000);
	ck_assert_int_eq(csr_req_word(&r, "P=.125", NULL), 0);
	ck_assert_int_eq(r.p_milli, 125);
	ck_assert_int_eq(csr_req_word(&r, "P=0", NULL), 0);
	ck_assert_int_eq(r.p_milli, 0);
	ck_assert_int_eq(csr_req_word(&r, "P=1.000", NULL), 0);
	ck_assert_int_eq(r.p_milli, 1000);
	ck_assert_int_eq(csr_req_word(&r, "interval=20", NULL), 0);
	ck_assert_int_eq(r.interval_ms, 20);
	ck_assert_int_eq(csr_req_word(&r, "interval=10000ms", NULL), 0);
	ck_assert_int_eq(r.interval_ms, 10000);
	ck_assert_int_eq(csr_req_word(&r, "interval=1", NULL), 0);
	ck_assert_int_eq(r.interval_ms, 1);
	ck_assert_int_eq(csr_req_check(&r), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		ck_assert_msg(csr_req_word(&r, bad[i], &why) == -EINVAL,
			      "accepted %s", bad[i]);
		ck_assert_ptr_nonnull(why);
	}
	/* an unknown model is answered with the model table's names */
	why = NULL;
	ck_assert_int_eq(csr_req_word(&r, "model=nope", &why), -EINVAL);
	ck_assert_str_eq(why, "unknown model (lin, imp, hpdt, dyn, pre, dcs, exp)");
	for (i = 0; i < COPVM_NMODELS; i++)
		ck_assert_int_eq(csr_model_parse(csr_model_name((int)i)), (int)i);
	/* the refused words left the request as it was */
	ck_assert_int_eq(r.model, COPVM_MODEL_PRE);
	ck_assert_int_eq(r.p_milli, 1000);
	ck_assert_int_eq(r.interval_ms, 1);
}
END_TEST

START_TEST(req_check_ranges)
{
	static const struct csr_req bad[] = {
		{ COPVM_NMODELS, COSCHED_REQ_NONE, COSCHED_REQ_NONE },
		{ -2, COSCHED_REQ_NONE, COSCHED_REQ_NONE },
		{ COSCHED_REQ_NONE, 1001, COSCHED_REQ_NONE },
		{ COSCHED_REQ_NONE, -2, COSCHED_REQ_NONE },
		{ COSCHED_REQ_NONE, COSCHED_REQ_NONE, 0 },
		{ COSCHED_REQ_NONE, COSCHED_REQ_NONE, 10001 },
		{ COSCHED_REQ_NONE, COSCHED_REQ_NONE, COSCHED_REQ_NONE },
	};
	static const struct csr_req good[] = {
		{ 0, COSCHED_REQ_NONE, COSCHED_REQ_NONE },
		{ COPVM_NMODELS - 1, 0, 1 },
		{ COSCHED_REQ_NONE, 1000, 10000 },
	};
	struct cosched_page pg;
	struct csr_dir d;
	size_t i;

	ck_assert_int_eq(csr_open(&d, rundir), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(csr_req_check(&bad[i]), -EINVAL);
		ck_assert_int_eq(csr_set(&d, 0x40001, &bad[i]), -EINVAL);
		ck_assert_int_eq(csr_set(&d, 0, &bad[i]), -EINVAL);
	}
	read_back(0x40001, &pg);
	ck_assert_int_eq(pg.req_model, COSCHED_REQ_NONE);
	ck_assert_int_eq(pg.req_p_milli, COSCHED_REQ_NONE);
	ck_assert_int_eq(pg.req_interval_ms, COSCHED_REQ_NONE);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_int_eq(csr_req_check(&good[i]), 0);
	csr_close(&d);
}
END_TEST

START_TEST(set_one_task)
{
	struct csr_req r = { COPVM_MODEL_DYN, COSCHED_REQ_NONE, 25 };
	struct cosched_page pg;
	struct csr_dir d;

	ck_assert_int_eq(csr_open(&d, rundir), 0);
	ck_assert_int_eq(csr_set(&d, 0x40001, &r), 1);
	read_back(0x40001, &pg);
	ck_assert_int_eq(pg.req_model, COPVM_MODEL_DYN);
	ck_assert_int_eq(pg.req_p_milli, COSCHED_REQ_NONE);
	ck_assert_int_eq(pg.req_interval_ms, 25);
	/* the rest of the page is the task's and stays as it was */
	ck_assert_int_eq(pg.model, COPVM_MODEL_PRE);
	ck_assert_uint_eq(pg.interval_us, 10000);
	read_back(0x40002, &pg);
	ck_assert_int_eq(pg.req_model, COSCHED_REQ_NONE);
	/* a second request changes only what it asks */
	r.model = COSCHED_REQ_NONE;
	r.interval_ms = COSCHED_REQ_NONE;
	r.p_milli = 250;
	ck_assert_int_eq(csr_set(&d, 0x40001, &r), 1);
	read_back(0x40001, &pg);
	ck_assert_int_eq(pg.req_model, COPVM_MODEL_DYN);
	ck_assert_int_eq(pg.req_p_milli, 250);
	ck_assert_int_eq(pg.req_interval_ms, 25);
	csr_close(&d);
}
END_TEST

START_TEST(set_all_valid_tasks)
{
	struct csr_req r = { COPVM_MODEL_HPDT, 750, COSCHED_REQ_NONE };
	struct cosched_page pg;
	struct csr_dir d;
	int tid;

	ck_assert_int_eq(csr_open(&d, rundir), 0);
	ck_assert_int_eq(csr_set(&d, 0, &r), 2);
	read_back(0x40001, &pg);
	ck_assert_int_eq(pg.req_model, COPVM_MODEL_HPDT);
	ck_assert_int_eq(pg.req_p_milli, 750);
	read_back(0x40002, &pg);
	ck_assert_int_eq(pg.req_model, COPVM_MODEL_HPDT);
	/* the pages to skip were not written */
	for (tid = 0x40003; tid <= 0x40007; tid++) {
		read_back(tid, &pg);
		ck_assert_int_eq(pg.req_model, COSCHED_REQ_NONE);
	}
	csr_close(&d);
}
END_TEST

START_TEST(set_unknown_or_stale_tid)
{
	struct csr_req r = { COPVM_MODEL_LIN, COSCHED_REQ_NONE,
			     COSCHED_REQ_NONE };
	struct cosched_page pg;
	struct csr_dir d;
	int tid;

	ck_assert_int_eq(csr_open(&d, rundir), 0);
	ck_assert_int_eq(csr_set(&d, 0x40099, &r), -ESRCH);
	for (tid = 0x40003; tid <= 0x4000a; tid++)
		ck_assert_int_eq(csr_set(&d, tid, &r), -ESRCH);
	for (tid = 0x40003; tid <= 0x40007; tid++) {
		read_back(tid, &pg);
		ck_assert_int_eq(pg.req_model, COSCHED_REQ_NONE);
	}
	ck_assert_int_eq(csr_set(&d, -1, &r), -EINVAL);
	csr_close(&d);
}
END_TEST

/* Runs the tool with `args' (PVM_TMP is the test's); its exit status,
 * stdout in out and stderr in err (each cut to len). */
static int run_tool(const char *args, char *out, char *err, size_t len)
{
	char cmd[1024], path[2][256];
	char *buf[2] = { out, err };
	FILE *f;
	size_t n;
	int st, i;

	for (i = 0; i < 2; i++)
		snprintf(path[i], sizeof(path[i]), "%s/tool.%d", base, i + 1);
	snprintf(cmd, sizeof(cmd), "%s %s >%s 2>%s", COSCHED_TOOL, args,
		 path[0], path[1]);
	st = system(cmd);
	ck_assert(WIFEXITED(st));
	for (i = 0; i < 2; i++) {
		f = fopen(path[i], "r");
		ck_assert_ptr_nonnull(f);
		n = fread(buf[i], 1, len - 1, f);
		buf[i][n] = '\0';
		fclose(f);
	}
	return WEXITSTATUS(st);
}

START_TEST(tool_raw_lines)
{
	char out[4096], err[1024], want[1024], host[256];

	ck_assert_int_eq(run_tool("-r", out, err, sizeof(out)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(gethostname(host, sizeof(host)), 0);
	snprintf(want, sizeof(want),
		 "tid=t40001 pid=%d model=pre p=0.500 interval_us=10000"
		 " freq=123.250 boost=nice nice=-5 backend=self spin_ns=50000"
		 " sends=10 recvs=12 peers=t40002,t40003 boosts=3"
		 " peer_boosts=4 demotions=1 boosted_cpu_ns=5000000"
		 " budget_window_ns=1000000000 boosted_by_peers=2 waiting=0"
		 " req_model=- req_p_milli=- req_interval_ms=-"
		 " base_nice=2 boost_until_ns=777000000 local=shm tcp=uring refusals=6\n"
		 "tid=t40002 pid=%d model=dcs p=0.500 interval_us=10000"
		 " freq=123.250 boost=none nice=-5 backend=self spin_ns=50000"
		 " sends=10 recvs=12 peers=- boosts=3"
		 " peer_boosts=4 demotions=1 boosted_cpu_ns=5000000"
		 " budget_window_ns=1000000000 boosted_by_peers=2 waiting=0"
		 " req_model=- req_p_milli=- req_interval_ms=-"
		 " base_nice=2 boost_until_ns=777000000 local=- tcp=- refusals=6\n"
		 "node=%s tasks=2 boosts=6 peer_boosts=8 demotions=2"
		 " boosted_cpu_ns=10000000 budget_window_ns=1000000000"
		 " budget_pct=1.0 skipped=8\n",
		 (int)getpid(), (int)getpid(), host);
	ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(tool_table)
{
	char out[4096], err[1024];

	ck_assert_int_eq(run_tool("", out, err, sizeof(out)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "TID"));
	ck_assert_ptr_nonnull(strstr(out, "  t40001 "));
	ck_assert_ptr_nonnull(strstr(out, " nice -5 "));
	ck_assert_ptr_nonnull(strstr(out, " TRANSPORT "));
	ck_assert_ptr_nonnull(strstr(out, " shm/uring "));
	ck_assert_ptr_nonnull(strstr(out, " -/- "));
	ck_assert_ptr_nonnull(strstr(out, "t40002,t40003\n"));
	ck_assert_ptr_nonnull(strstr(out, "10.0ms / 1.00s (1.0%)"));
	ck_assert_ptr_nonnull(strstr(out, "(8 stale or foreign pages skipped)"));
	ck_assert_int_eq(run_tool("--help", out, err, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: copvm-cosched"));
	/* the models offered are the model table's */
	ck_assert_ptr_nonnull(strstr(out, "model=NAME  lin, imp, hpdt, dyn, pre, dcs, exp\n"));
}
END_TEST

START_TEST(tool_set_and_errors)
{
	char out[4096], err[1024];
	struct cosched_page pg;

	ck_assert_int_eq(run_tool("set t40001 model=dcs interval=5", out, err,
				  sizeof(out)), 0);
	ck_assert_str_eq(out, "t40001: request written; applied at the end"
			 " of its interval\n");
	read_back(0x40001, &pg);
	ck_assert_int_eq(pg.req_model, COPVM_MODEL_DCS);
	ck_assert_int_eq(pg.req_interval_ms, 5);
	ck_assert_int_eq(pg.req_p_milli, COSCHED_REQ_NONE);
	ck_assert_int_eq(run_tool("-r", out, err, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, " req_model=dcs req_p_milli=-"
				     " req_interval_ms=5 "));

	ck_assert_int_eq(run_tool("set P=0.25", out, err, sizeof(out)), 0);
	ck_assert_str_eq(out, "2 tasks: request written; applied at the end"
			 " of each one's interval\n");
	read_back(0x40002, &pg);
	ck_assert_int_eq(pg.req_p_milli, 250);

	ck_assert_int_eq(run_tool("set t40099 model=pre", out, err,
				  sizeof(out)), 1);
	ck_assert_str_eq(err, "copvm-cosched: set: no coscheduled task t40099"
			 " on this host\n");
	ck_assert_int_eq(run_tool("set t40004 model=pre", out, err,
				  sizeof(out)), 1);
	ck_assert_int_eq(run_tool("set all P=2", out, err, sizeof(out)), 2);
	ck_assert_ptr_nonnull(strstr(err, "P=2: P is a fraction"));
	ck_assert_int_eq(run_tool("set all model=fast", out, err,
				  sizeof(out)), 2);
	ck_assert_int_eq(run_tool("set all interval=0", out, err,
				  sizeof(out)), 2);
	ck_assert_int_eq(run_tool("set xyz model=pre", out, err,
				  sizeof(out)), 2);
	ck_assert_int_eq(run_tool("set t40001", out, err, sizeof(out)), 2);
	ck_assert_int_eq(run_tool("-q", out, err, sizeof(out)), 2);
	ck_assert_ptr_nonnull(strstr(err, "unexpected argument \"-q\""));
	read_back(0x40002, &pg);
	ck_assert_int_eq(pg.req_model, COSCHED_REQ_NONE);
	ck_assert_int_eq(pg.req_interval_ms, COSCHED_REQ_NONE);
}
END_TEST

START_TEST(tool_no_rundir_no_tasks)
{
	char out[4096], err[1024], want[512], cmd[512];

	/* no tasks: only pages to skip (t4000a now dangles) */
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/t40001 '%s'/t40002", csdir,
		 csdir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(run_tool("-r", out, err, sizeof(out)), 1);
	ck_assert_str_eq(out, "");
	snprintf(want, sizeof(want), "copvm-cosched: no coscheduled tasks in"
		 " %s (8 stale or foreign pages skipped)\n", rundir);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(run_tool("set model=pre", out, err, sizeof(out)), 1);
	/* no run directory */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rundir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(run_tool("", out, err, sizeof(out)), 1);
	snprintf(want, sizeof(want), "copvm-cosched: no run directory %s",
		 rundir);
	ck_assert_ptr_nonnull(strstr(err, want));
	/* bad values are reported as such even then */
	ck_assert_int_eq(run_tool("set P=3", out, err, sizeof(out)), 2);
	/* a run directory others may write to */
	ck_assert_int_eq(mkdir(rundir, 0777), 0);
	ck_assert_int_eq(chmod(rundir, 0777), 0);
	ck_assert_int_eq(run_tool("", out, err, sizeof(out)), 1);
	ck_assert_ptr_nonnull(strstr(err, "refusing"));
}
END_TEST

static Suite *cosched_read_suite(void)
{
	Suite *s = suite_create("cosched_read");
	TCase *tc = tcase_create("reader");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, names);
	tcase_add_test(tc, load_skips_bad_pages);
	tcase_add_test(tc, default_rundir);
	tcase_add_test(tc, no_rundir_no_tasks);
	tcase_add_test(tc, refuses_unsafe_dirs);
	tcase_add_test(tc, refuses_foreign_owner);
	tcase_add_test(tc, req_words);
	tcase_add_test(tc, req_check_ranges);
	tcase_add_test(tc, set_one_task);
	tcase_add_test(tc, set_all_valid_tasks);
	tcase_add_test(tc, set_unknown_or_stale_tid);
	suite_add_tcase(s, tc);
	tc = tcase_create("tool");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tool_raw_lines);
	tcase_add_test(tc, tool_table);
	tcase_add_test(tc, tool_set_and_errors);
	tcase_add_test(tc, tool_no_rundir_no_tasks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cosched_read_suite());
	int nf;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}

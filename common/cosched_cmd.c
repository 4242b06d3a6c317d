/*
 * cosched_cmd.c - the `cosched' command of copvm-cosched and the console
 * (see cosched_cmd.h): argument handling, the table of tasks and the
 * node summary, the raw key=value lines, and `set'.
 *
 * The raw form is a contract with scripts and tests: one line per task,
 * starting with tid=, then one line starting with node=; keys are only
 * ever added at the end of a line, never renamed or reordered.  Numbers
 * in it are exact (integers, or fixed decimals for P and F); tids are
 * written as the console writes them (t40001).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_cmd.h"
#include "cosched_model.h"

void csr_usage(FILE *out, const char *prog)
{
	char models[96];

	cosched_model_list(models, sizeof(models));
	fprintf(out,
		"Usage: %s [-r]\n"
		"       %s set [TID|all] [model=NAME] [P=FRACTION] [interval=MS]\n"
		"Shows the coscheduling state of this host's PVM tasks, or asks\n"
		"tasks to change model, P or interval at the end of their interval.\n"
		"  -r          raw key=value lines, one per task, then one for the node\n"
		"  TID         a task id in hex, with or without the leading t\n"
		"  all         every task of this host (the default)\n"
		"  model=NAME  %s\n"
		"  P=FRACTION  the past weight, 0 to 1 (e.g. 0.5)\n"
		"  interval=MS the probe's interval, 1 to 10000 ms\n",
		prog, prog, models);
}

static void print_tid_list(FILE *out, const struct cosched_page *pg,
			   const char *none)
{
	int i, n = pg->npeers;

	if (n < 0)
		n = 0;
	if (n > COSCHED_MAX_PEERS)
		n = COSCHED_MAX_PEERS;
	if (!n)
		fputs(none, out);
	for (i = 0; i < n; i++)
		fprintf(out, "%st%x", i ? "," : "", (unsigned)pg->peers[i].tid);
}

/* A name from a table, or the number when the page holds an unknown
 * value (a newer library): never NULL. */
static const char *name_or_num(const char *name, int v, char *buf,
			       size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "%d", v);
	return buf;
}

/* Boosted CPU over the budget window, per cent of one CPU; -1: no
 * window. */
static double budget_pct(uint64_t cpu_ns, uint64_t window_ns)
{
	return window_ns ? 100.0 * (double)cpu_ns / (double)window_ns : -1.0;
}

struct node_sum {
	uint64_t boosts, peer_boosts, demotions, cpu_ns, window_ns;
	double pct;
	int have_window;
};

static void node_sum(const struct csr_list *l, struct node_sum *s)
{
	const struct cosched_page *pg;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < l->n; i++) {
		pg = &l->pg[i];
		s->boosts += pg->boosts;
		s->peer_boosts += pg->peer_boosts;
		s->demotions += pg->demotions;
		s->cpu_ns += pg->boosted_cpu_ns;
		/* Tasks of one host share the budget's settings; should
		 * they differ, the longest window is shown, and the per
		 * cent adds each task's own share. */
		if (pg->budget_window_ns > s->window_ns)
			s->window_ns = pg->budget_window_ns;
		if (pg->budget_window_ns) {
			s->pct += budget_pct(pg->boosted_cpu_ns,
					     pg->budget_window_ns);
			s->have_window = 1;
		}
	}
}

/* A transport's name, "-" while unknown, its number if not ours. */
static const char *xport(int32_t v, char *buf, size_t len)
{
	if (v == COSCHED_XPORT_UNKNOWN)
		return "-";
	return name_or_num(csr_xport_name(v), v, buf, len);
}

static void print_req(FILE *out, const char *key, int32_t v, int model)
{
	char num[16];

	if (v == COSCHED_REQ_NONE)
		fprintf(out, " %s=-", key);
	else if (model)
		fprintf(out, " %s=%s", key,
			name_or_num(csr_model_name(v), v, num, sizeof(num)));
	else
		fprintf(out, " %s=%d", key, v);
}

static void print_raw(FILE *out, const struct csr_list *l, const char *host)
{
	const struct cosched_page *pg;
	struct node_sum s;
	char n1[16], n2[16], n3[16];
	int i;

	for (i = 0; i < l->n; i++) {
		pg = &l->pg[i];
		fprintf(out, "tid=t%x pid=%d model=%s p=%u.%03u interval_us=%u"
			" freq=%.3f boost=%s nice=%d backend=%s spin_ns=%u"
			" sends=%llu recvs=%llu peers=",
			(unsigned)pg->tid, pg->pid,
			name_or_num(csr_model_name(pg->model), pg->model,
				    n1, sizeof(n1)),
			pg->p_milli / 1000, pg->p_milli % 1000,
			pg->interval_us, pg->freq,
			name_or_num(csr_boost_name(pg->boost), pg->boost,
				    n2, sizeof(n2)),
			pg->boost_nice,
			name_or_num(csr_backend_name(pg->backend), pg->backend,
				    n3, sizeof(n3)),
			pg->spin_ns,
			(unsigned long long)pg->sends_total,
			(unsigned long long)pg->recvs_total);
		print_tid_list(out, pg, "-");
		fprintf(out, " boosts=%llu peer_boosts=%llu demotions=%llu"
			" boosted_cpu_ns=%llu budget_window_ns=%llu"
			" boosted_by_peers=%llu waiting=%d",
			(unsigned long long)pg->boosts,
			(unsigned long long)pg->peer_boosts,
			(unsigned long long)pg->demotions,
			(unsigned long long)pg->boosted_cpu_ns,
			(unsigned long long)pg->budget_window_ns,
			(unsigned long long)pg->boosted_by_peers,
			pg->waiting);
		print_req(out, "req_model", pg->req_model, 1);
		print_req(out, "req_p_milli", pg->req_p_milli, 0);
		print_req(out, "req_interval_ms", pg->req_interval_ms, 0);
		fprintf(out, " base_nice=%d boost_until_ns=%llu local=%s"
			" tcp=%s refusals=%llu\n", pg->base_nice,
			(unsigned long long)pg->boost_until_ns,
			xport(pg->local_xport, n1, sizeof(n1)),
			xport(pg->tcp_xport, n2, sizeof(n2)),
			(unsigned long long)pg->refusals);
	}
	node_sum(l, &s);
	fprintf(out, "node=%s tasks=%d boosts=%llu peer_boosts=%llu"
		" demotions=%llu boosted_cpu_ns=%llu budget_window_ns=%llu"
		" budget_pct=", host, l->n,
		(unsigned long long)s.boosts,
		(unsigned long long)s.peer_boosts,
		(unsigned long long)s.demotions,
		(unsigned long long)s.cpu_ns,
		(unsigned long long)s.window_ns);
	if (s.have_window)
		fprintf(out, "%.1f", s.pct);
	else
		fputc('-', out);
	fprintf(out, " skipped=%d\n", l->skipped);
}

/* "10ms", or "2.5ms" for an interval that is not whole milliseconds. */
static const char *fmt_ms(uint32_t us, char *buf, size_t len)
{
	if (us % 1000 == 0)
		snprintf(buf, len, "%ums", us / 1000);
	else
		snprintf(buf, len, "%.3gms", us / 1000.0);
	return buf;
}

/* A duration in ns, in the unit that suits it: "800ns", "12.5us",
 * "3.2ms", "1.50s". */
static const char *fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

static void print_table(FILE *out, const struct csr_list *l, const char *host)
{
	const struct cosched_page *pg;
	struct node_sum s;
	char n1[16], n2[16], n3[16], iv[24], spin[24], boost[32], cpu[24];
	char win[24], tidb[16], xp[32], n4[16];
	int i;

	fprintf(out, "%8s %7s %-5s %5s %8s %9s %-8s %-7s %-9s %7s %8s %8s"
		"  %s\n", "TID", "PID", "MODEL", "P", "INTERVAL", "F(msg/s)",
		"BOOST", "BACKEND", "TRANSPORT", "SPIN", "SENDS", "RECVS",
		"PEERS");
	for (i = 0; i < l->n; i++) {
		pg = &l->pg[i];
		if (pg->boost == COPVM_BOOST_NICE)
			snprintf(boost, sizeof(boost), "nice %d", pg->boost_nice);
		else
			snprintf(boost, sizeof(boost), "%s",
				 name_or_num(csr_boost_name(pg->boost),
					     pg->boost, n2, sizeof(n2)));
		snprintf(tidb, sizeof(tidb), "t%x", (unsigned)pg->tid);
		snprintf(xp, sizeof(xp), "%s/%s",
			 xport(pg->local_xport, n1, sizeof(n1)),
			 xport(pg->tcp_xport, n4, sizeof(n4)));
		fprintf(out, "%8s %7d %-5s %u.%03u %8s %9.1f %-8s %-7s %-9s %7s"
			" %8llu %8llu  ",
			tidb, pg->pid,
			name_or_num(csr_model_name(pg->model), pg->model,
				    n1, sizeof(n1)),
			pg->p_milli / 1000, pg->p_milli % 1000,
			fmt_ms(pg->interval_us, iv, sizeof(iv)), pg->freq,
			boost,
			name_or_num(csr_backend_name(pg->backend), pg->backend,
				    n3, sizeof(n3)), xp,
			fmt_ns(pg->spin_ns, spin, sizeof(spin)),
			(unsigned long long)pg->sends_total,
			(unsigned long long)pg->recvs_total);
		print_tid_list(out, pg, "-");
		fputc('\n', out);
	}
	node_sum(l, &s);
	fprintf(out, "\n%-24s %5s %8s %11s %9s  %s\n", "HOST", "TASKS",
		"BOOSTS", "PEER-BOOSTS", "DEMOTIONS", "BOOSTED CPU / BUDGET WINDOW");
	fprintf(out, "%-24s %5d %8llu %11llu %9llu  ", host, l->n,
		(unsigned long long)s.boosts,
		(unsigned long long)s.peer_boosts,
		(unsigned long long)s.demotions);
	if (s.have_window)
		fprintf(out, "%s / %s (%.1f%%)\n",
			fmt_ns(s.cpu_ns, cpu, sizeof(cpu)),
			fmt_ns(s.window_ns, win, sizeof(win)), s.pct);
	else
		fprintf(out, "%s / - (no budget)\n",
			fmt_ns(s.cpu_ns, cpu, sizeof(cpu)));
	if (l->skipped)
		fprintf(out, "(%d stale or foreign page%s skipped)\n",
			l->skipped, l->skipped == 1 ? "" : "s");
}

void csr_print(FILE *out, const struct csr_list *l, const char *host, int raw)
{
	if (raw)
		print_raw(out, l, host);
	else
		print_table(out, l, host);
}

static int open_err(FILE *err, const char *prog, const struct csr_dir *d,
		    int rc)
{
	if (rc == -ENOENT)
		fprintf(err, "%s: no run directory %s (no pvmd has run as this"
			" user with this PVM_TMP)\n", prog, d->path);
	else if (rc == -EPERM)
		fprintf(err, "%s: refusing %s or its %s/: not owned by you, or"
			" writable by group or others\n", prog, d->path,
			COSCHED_DIR);
	else
		fprintf(err, "%s: %s: %s\n", prog, d->path, strerror(-rc));
	return CSR_EXIT_FAIL;
}

static int cmd_show(struct csr_dir *d, const char *prog, const char *host,
		    int raw, FILE *out, FILE *err)
{
	struct csr_list l;
	int rc;

	rc = csr_load(d, &l);
	if (rc) {
		fprintf(err, "%s: reading %s/%s: %s\n", prog, d->path,
			COSCHED_DIR, strerror(-rc));
		return CSR_EXIT_FAIL;
	}
	if (!l.n) {
		fprintf(err, "%s: no coscheduled tasks in %s", prog, d->path);
		if (l.skipped)
			fprintf(err, " (%d stale or foreign page%s skipped)",
				l.skipped, l.skipped == 1 ? "" : "s");
		fputc('\n', err);
		csr_list_free(&l);
		return CSR_EXIT_FAIL;
	}
	csr_print(out, &l, host, raw);
	csr_list_free(&l);
	return CSR_EXIT_OK;
}

/* Reads "set"'s words: [TID|all] key=value...; 0 or CSR_EXIT_USAGE after
 * saying why. */
static int set_parse(int argc, char **argv, const char *prog, FILE *err,
		     int *tid, struct csr_req *r)
{
	const char *why = NULL;
	int i = 0;

	*tid = 0;
	r->model = r->p_milli = r->interval_ms = COSCHED_REQ_NONE;
	if (argc > 0 && !strchr(argv[0], '=')) {
		if (strcmp(argv[0], "all")) {
			*tid = csr_parse_tid(argv[0]);
			if (!*tid) {
				fprintf(err, "%s: set: \"%s\" is not a task id"
					" (hex, e.g. t40001) nor all\n", prog,
					argv[0]);
				return CSR_EXIT_USAGE;
			}
		}
		i = 1;
	}
	if (i == argc) {
		fprintf(err, "%s: set: nothing to set (model=NAME, P=FRACTION,"
			" interval=MS)\n", prog);
		return CSR_EXIT_USAGE;
	}
	for (; i < argc; i++) {
		if (csr_req_word(r, argv[i], &why)) {
			fprintf(err, "%s: set: %s: %s\n", prog, argv[i], why);
			return CSR_EXIT_USAGE;
		}
	}
	return 0;
}

static int set_apply(struct csr_dir *d, int tid, const struct csr_req *r,
		     const char *prog, FILE *out, FILE *err)
{
	int rc;

	rc = csr_set(d, tid, r);
	if (rc == -ESRCH) {
		fprintf(err, "%s: set: no coscheduled task t%x on this host\n",
			prog, (unsigned)tid);
		return CSR_EXIT_FAIL;
	}
	if (rc < 0) {
		fprintf(err, "%s: set: %s\n", prog, strerror(-rc));
		return CSR_EXIT_FAIL;
	}
	if (rc == 0) {
		fprintf(err, "%s: set: no coscheduled tasks in %s\n", prog,
			d->path);
		return CSR_EXIT_FAIL;
	}
	if (tid)
		fprintf(out, "t%x: request written; applied at the end of its"
			" interval\n", (unsigned)tid);
	else
		fprintf(out, "%d task%s: request written; applied at the end"
			" of each one's interval\n", rc, rc == 1 ? "" : "s");
	return CSR_EXIT_OK;
}

int csr_cmd(int argc, char **argv, const char *prog, const char *host,
	    FILE *out, FILE *err)
{
	struct csr_dir d;
	struct csr_req r;
	char hostbuf[256];
	int raw = 0, set = 0, rc, i = 1, tid = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help"))) {
		csr_usage(out, prog);
		return CSR_EXIT_OK;
	}
	if (argc > 1 && !strcmp(argv[1], "-r")) {
		raw = 1;
		i = 2;
	} else if (argc > 1 && !strcmp(argv[1], "set")) {
		set = 1;
		i = 2;
	}
	if (!set && i < argc) {
		fprintf(err, "%s: unexpected argument \"%s\"\n", prog, argv[i]);
		csr_usage(err, prog);
		return CSR_EXIT_USAGE;
	}
	if (set) {
		/* Bad values are reported before looking for tasks. */
		rc = set_parse(argc - i, argv + i, prog, err, &tid, &r);
		if (rc)
			return rc;
	}
	if (!host) {
		if (gethostname(hostbuf, sizeof(hostbuf)))
			strcpy(hostbuf, "localhost");
		hostbuf[sizeof(hostbuf) - 1] = '\0';
		host = hostbuf;
	}
	rc = csr_open(&d, NULL);
	if (rc)
		return open_err(err, prog, &d, rc);
	if (set)
		rc = set_apply(&d, tid, &r, prog, out, err);
	else
		rc = cmd_show(&d, prog, host, raw, out, err);
	csr_close(&d);
	return rc;
}

/*
 * cosched_snap.c - one snapshot of the coscheduling of the whole virtual
 * machine, as the daemons gather it (copvm_cosched_gather: a line per
 * host, then its copvm-cosched -r lines), read into rows and printed as
 * one table: copvm-cosched top prints one every interval, with rates
 * against the one before; the console's cosched -a prints one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cosched_snap.h"

/* The value of `key' in a key=value line into out; 0, or -1 if absent. */
static int kv(const char *line, const char *key, char *out, size_t len)
{
	size_t k = strlen(key), n;
	const char *p = line;

	for (;;) {
		if (!strncmp(p, key, k) && p[k] == '=')
			break;
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	p += k + 1;
	n = strcspn(p, " \n");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

static unsigned long long kv_ull(const char *line, const char *key)
{
	char buf[32];

	return kv(line, key, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

static struct csr_row *snap_add(struct csr_snap *s)
{
	struct csr_row *r;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		r = realloc(s->rows, (size_t)s->cap * sizeof(*r));
		if (!r)
			return NULL;
		s->rows = r;
	}
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* A task's row from its -r line, on host `host' at `time_ns'. */
static void task_row(struct csr_row *r, const char *line, const char *host,
		     unsigned long long time_ns)
{
	char buf[32];

	snprintf(r->host, sizeof(r->host), "%s", host);
	r->time_ns = time_ns;
	if (!kv(line, "tid", buf, sizeof(buf)))
		r->tid = (int)strtol(buf[0] == 't' ? buf + 1 : buf, NULL, 16);
	if (kv(line, "model", r->model, sizeof(r->model)))
		strcpy(r->model, "?");
	if (kv(line, "p", r->p, sizeof(r->p)))
		strcpy(r->p, "?");
	if (kv(line, "boost", r->boost, sizeof(r->boost)))
		strcpy(r->boost, "?");
	if (kv(line, "local", r->local, sizeof(r->local)))
		strcpy(r->local, "-");
	if (kv(line, "tcp", r->tcp, sizeof(r->tcp)))
		strcpy(r->tcp, "-");
	r->freq = kv(line, "freq", buf, sizeof(buf)) ? 0 : strtod(buf, NULL);
	if (!kv(line, "nice", buf, sizeof(buf)))
		r->nice = atoi(buf);
	r->cpu_ns = kv_ull(line, "boosted_cpu_ns");
	r->window_ns = kv_ull(line, "budget_window_ns");
	r->boosts = kv_ull(line, "boosts");
	r->demotions = kv_ull(line, "demotions");
	r->refusals = kv_ull(line, "refusals");
}

/* A host without a snapshot, or without tasks: a row with tid 0 whose
 * `boost' says why. */
static void host_row(struct csr_snap *s, const char *host, const char *why)
{
	struct csr_row *r = snap_add(s);

	if (!r)
		return;
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->boost, sizeof(r->boost), "%s", why);
}

/* Reads the text of copvm_cosched_gather into `s' (cosched_snap.h). */
void csr_snap_parse(struct csr_snap *s, char *text)
{
	char host[64] = "-", status[16] = "ok", *line, *save = NULL;
	unsigned long long t = 0;
	int ntask = -1;
	struct csr_row *r;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "host=", 5)) {
			if (ntask == 0)
				host_row(s, host, "(no tasks)");
			kv(line, "host", host, sizeof(host));
			if (kv(line, "status", status, sizeof(status)))
				strcpy(status, "?");
			t = kv_ull(line, "time_ns");
			s->hosts++;
			ntask = 0;
			if (!strcmp(status, "down"))
				host_row(s, host, "(no answer)");
			else if (!strcmp(status, "old"))
				host_row(s, host, "(old pvmd)");
			else if (strcmp(status, "ok"))
				host_row(s, host, status);
			if (strcmp(status, "ok"))
				ntask = -1;
		} else if (!strncmp(line, "tid=", 4) && ntask >= 0) {
			r = snap_add(s);
			if (!r)
				return;
			task_row(r, line, host, t);
			ntask++;
			s->tasks++;
		}
	}
	if (ntask == 0)
		host_row(s, host, "(no tasks)");
}

static const struct csr_row *find(const struct csr_snap *s, const struct csr_row *r)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->rows[i].tid == r->tid &&
		    !strcmp(s->rows[i].host, r->host))
			return &s->rows[i];
	return NULL;
}

/* "12.0", or "-" without an earlier snapshot of the task. */
static const char *rate(char *buf, size_t len, unsigned long long now,
			unsigned long long then, double dt)
{
	if (dt <= 0)
		return "-";
	snprintf(buf, len, "%.1f", now >= then ? (now - then) / dt : 0.0);
	return buf;
}

static const char *dur(char *buf, size_t len, unsigned long long ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%.0fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

/* Prints `s' as a table, with rates against `prev' (cosched_snap.h). */
void csr_snap_print(FILE *out, const struct csr_snap *s,
		    const struct csr_snap *prev, double interval)
{
	char b1[24], b2[24], b3[24], share[48], boost[24], xp[40], now[16];
	const struct csr_row *r, *p;
	time_t t = time(NULL);
	double dt;
	int i;

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&t));
	if (interval > 0)
		fprintf(out, "copvm-cosched top - %s, %d host%s, %d task%s,"
			" every %.1fs\n", now, s->hosts,
			s->hosts == 1 ? "" : "s", s->tasks,
			s->tasks == 1 ? "" : "s", interval);
	else
		fprintf(out, "coscheduling of the virtual machine - %s, %d"
			" host%s, %d task%s\n", now, s->hosts,
			s->hosts == 1 ? "" : "s", s->tasks,
			s->tasks == 1 ? "" : "s");
	fprintf(out, "%-16s %8s %-5s %5s %9s %-8s %-17s %8s %8s %8s %s\n",
		"HOST", "TID", "MODEL", "P", "F(msg/s)", "BOOST",
		"SHARE/BUDGET", "BOOST/s", "DEMOT/s", "REFUS/s", "TRANSPORT");
	for (i = 0; i < s->n; i++) {
		r = &s->rows[i];
		if (!r->tid) {
			fprintf(out, "%-16s %8s %s\n", r->host, "-", r->boost);
			continue;
		}
		p = prev ? find(prev, r) : NULL;
		dt = p && r->time_ns > p->time_ns ?
		     (r->time_ns - p->time_ns) / 1e9 : 0;
		if (!strcmp(r->boost, "nice"))
			snprintf(boost, sizeof(boost), "nice %d", r->nice);
		else
			snprintf(boost, sizeof(boost), "%s", r->boost);
		if (r->window_ns)
			snprintf(share, sizeof(share), "%s/%s",
				 dur(b1, sizeof(b1), r->cpu_ns),
				 dur(b2, sizeof(b2), r->window_ns));
		else
			snprintf(share, sizeof(share), "-");
		snprintf(xp, sizeof(xp), "%s/%s", r->local, r->tcp);
		snprintf(b3, sizeof(b3), "t%x", (unsigned)r->tid);
		fprintf(out, "%-16s %8s %-5s %5s %9.1f %-8s %-17s",
			r->host, b3, r->model, r->p, r->freq, boost, share);
		fprintf(out, " %8s", rate(b1, sizeof(b1), r->boosts,
					  p ? p->boosts : 0, dt));
		fprintf(out, " %8s", rate(b1, sizeof(b1), r->demotions,
					  p ? p->demotions : 0, dt));
		fprintf(out, " %8s %s\n", rate(b1, sizeof(b1), r->refusals,
					       p ? p->refusals : 0, dt), xp);
	}
}

/* Frees the rows of `s' and empties it (cosched_snap.h). */
void csr_snap_free(struct csr_snap *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}


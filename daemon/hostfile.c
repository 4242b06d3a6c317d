/*
 * hostfile.c - the hostfile given on pvmd's command line, host lines of
 * pvm_addhosts(), and the test "is this name us?".
 *
 * The syntax is stock PVM's: one host per line, `#' comments, options
 * `name=value' after the host name, a `*' line setting defaults for the
 * lines after it, and `&host' for hosts whose options are kept for a
 * later pvm_addhosts() but which are not started now.  The options:
 *   lo=  login name on the host        so=  start-up: ms (by hand); pw is
 *   dx=  pvmd to run there                  refused (no rexec passwords)
 *   ep=  spawn search path             wd=  tasks' working directory
 *   bx=  debugger                      sp=  speed, 1..1000000
 *   ip=  name or address to reach the host by
 *   ht=  (copvm) how long, in ms, the host may stay silent before it is
 *        declared dead (daemon/peer.c), 200..3600000
 * Unknown options are ignored, as stock does.  This host's own line sets
 * its ep=, wd=, bx= and sp=, and its ip= the address the master listens
 * on for other daemons (addhost.c); the other lines are returned to be
 * started.
 * A pvm_addhosts() line gets the options of the hostfile's last `*' line,
 * then those of its `&' entry, then its own.
 *
 * Host names go to a remote shell, so only letters, digits, `.', `-' and
 * `_' are accepted in them; lo= and dx= are limited the same way (plus
 * `/', `~', `$', `{', `}' and `+' in dx=).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

#define HF_LINE_MAX	4096

struct hf_opts {
	char *ep, *wd, *bx, *lo, *so, *dx, *ip;
	int speed;		/* 0 = unset */
	int htmo;		/* ht=, 0 = unset */
};

struct later {
	struct later *next;
	char *name;
	struct hf_opts o;
};

static struct hf_opts last_defaults;
static struct later *laters;
static char *self_ip;		/* ip= of our own line */

/* True when `a' and `b' name the same host: equal, or equal up to the
 * first dot when one of them has no domain. */
int pvmd_same_name(const char *a, const char *b)
{
	size_t la, lb;
	const char *dot;

	if (!a || !b || !*a || !*b)
		return 0;
	if (!strcmp(a, b))
		return 1;
	dot = strchr(a, '.');
	la = dot ? (size_t)(dot - a) : strlen(a);
	dot = strchr(b, '.');
	lb = dot ? (size_t)(dot - b) : strlen(b);
	return la == lb && !strncmp(a, b, la) &&
	       (a[la] == '\0' || b[lb] == '\0');
}

/* True when `name' designates this host: ".", "localhost", our name, or
 * our name and `name' agreeing up to the first dot of the shorter. */
int pvmd_is_self(const char *name)
{
	if (!name || !*name)
		return 0;
	if (!strcmp(name, ".") || !strcmp(name, "localhost") ||
	    !strcmp(name, "localhost.localdomain"))
		return 1;
	return pvmd_same_name(name, pvmd.hostname);
}

static void set_str(char **dst, const char *val)
{
	char *s = strdup(val);

	if (!s)
		return;
	free(*dst);
	*dst = s;
}

static void opts_free(struct hf_opts *o)
{
	free(o->ep);
	free(o->wd);
	free(o->bx);
	free(o->lo);
	free(o->so);
	free(o->dx);
	free(o->ip);
	memset(o, 0, sizeof(*o));
}

static void copy_one(char **dst, const char *src)
{
	if (src)
		set_str(dst, src);
}

/* Overlays `src' on `dst': what `src' sets wins. */
static void opts_merge(struct hf_opts *dst, const struct hf_opts *src)
{
	copy_one(&dst->ep, src->ep);
	copy_one(&dst->wd, src->wd);
	copy_one(&dst->bx, src->bx);
	copy_one(&dst->lo, src->lo);
	copy_one(&dst->so, src->so);
	copy_one(&dst->dx, src->dx);
	copy_one(&dst->ip, src->ip);
	if (src->speed)
		dst->speed = src->speed;
	if (src->htmo)
		dst->htmo = src->htmo;
}

static int safe_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-", *s) ||
		      (extra && strchr(extra, *s))))
			return 0;
	return 1;
}

/* Applies one `key=value' word to `o'; returns -1 for a value that may
 * not go to a remote shell. */
static int apply_opt(struct hf_opts *o, const char *word, const char *where)
{
	const char *eq = strchr(word, '='), *v;
	long sp;

	if (!eq) {
		pvmd_log("%s: option \"%s\" has no value, ignored", where,
			 word);
		return 0;
	}
	v = eq + 1;
	if (!strncmp(word, "ep=", 3)) {
		set_str(&o->ep, v);
	} else if (!strncmp(word, "wd=", 3)) {
		set_str(&o->wd, v);
	} else if (!strncmp(word, "bx=", 3)) {
		set_str(&o->bx, v);
	} else if (!strncmp(word, "so=", 3)) {
		set_str(&o->so, v);
	} else if (!strncmp(word, "lo=", 3) || !strncmp(word, "ip=", 3)) {
		if (!safe_chars(v, NULL) || !*v) {
			pvmd_log("%s: %s is not a safe value", where, word);
			return -1;
		}
		set_str(word[0] == 'l' ? &o->lo : &o->ip, v);
	} else if (!strncmp(word, "dx=", 3)) {
		if (!safe_chars(v, "/~${}+") || !*v) {
			pvmd_log("%s: %s is not a safe value", where, word);
			return -1;
		}
		set_str(&o->dx, v);
	} else if (!strncmp(word, "sp=", 3)) {
		sp = strtol(v, NULL, 10);
		if (sp >= 1 && sp <= 1000000)
			o->speed = (int)sp;
		else
			pvmd_log("%s: sp=%s out of range [1..1000000]", where,
				 v);
	} else if (!strncmp(word, "ht=", 3)) {
		sp = strtol(v, NULL, 10);
		if (sp >= 200 && sp <= 3600000)
			o->htmo = (int)sp;
		else
			pvmd_log("%s: ht=%s out of range [200..3600000]",
				 where, v);
	}
	return 0;
}

static int apply_words(struct hf_opts *o, char **save, const char *where)
{
	char *word;
	int rc = 0;

	while ((word = strtok_r(NULL, " \t\r\n", save)))
		if (apply_opt(o, word, where) < 0)
			rc = -1;
	return rc;
}

/* Writes "=name key=value ..." (options already resolved) to a new
 * string: the form pvmd_hostspec_parse() takes without applying the
 * defaults again. */
static char *resolved_line(const char *name, const struct hf_opts *o)
{
	char buf[HF_LINE_MAX];
	size_t n;

	n = (size_t)snprintf(buf, sizeof(buf), "=%s", name);
#define ADD(key, val)							\
	do {								\
		if ((val) && n < sizeof(buf))				\
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,	\
					      " " key "=%s", (val));	\
	} while (0)
	ADD("ep", o->ep);
	ADD("wd", o->wd);
	ADD("bx", o->bx);
	ADD("lo", o->lo);
	ADD("so", o->so);
	ADD("dx", o->dx);
	ADD("ip", o->ip);
#undef ADD
	if (o->speed && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " sp=%d",
				      o->speed);
	if (o->htmo && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " ht=%d",
				      o->htmo);
	if (n >= sizeof(buf))
		return NULL;
	return strdup(buf);
}

static void add_later(const char *name, struct hf_opts *o)
{
	struct later *l = calloc(1, sizeof(*l));

	if (!l || !(l->name = strdup(name))) {
		free(l);
		opts_free(o);
		return;
	}
	l->o = *o;
	memset(o, 0, sizeof(*o));
	l->next = laters;
	laters = l;
}

static void apply_self(const struct hf_opts *o)
{
	if (o->ep)
		set_str(&pvmd.opts.ep, o->ep);
	if (o->wd)
		set_str(&pvmd.opts.wd, o->wd);
	if (o->bx)
		set_str(&pvmd.opts.bx, o->bx);
	if (o->speed)
		pvmd.opts.speed = o->speed;
}

/* The ip= of our own hostfile line, or NULL (pvmd.h). */
const char *pvmd_hostfile_self_ip(void)
{
	return self_ip;
}

/* Reads the hostfile (see the top of the file); 0 or -1. */
int pvmd_hostfile_load(const char *path, char ***hosts, int *n)
{
	struct hf_opts defaults = { 0 }, o;
	char line[HF_LINE_MAX], where[HF_LINE_MAX + 32], *save, *host, **v;
	int lineno = 0, found = 0, later;
	FILE *fp;

	*hosts = NULL;
	*n = 0;
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		snprintf(where, sizeof(where), "%s:%d", path, ++lineno);
		save = NULL;
		host = strtok_r(line, " \t\r\n", &save);
		if (!host || host[0] == '#')
			continue;
		if (!strcmp(host, "*")) {
			apply_words(&defaults, &save, where);
			continue;
		}
		later = host[0] == '&';
		host += later;
		memset(&o, 0, sizeof(o));
		opts_merge(&o, &defaults);
		if (apply_words(&o, &save, where) < 0 ||
		    !safe_chars(host, NULL) || !*host) {
			pvmd_log("%s: host \"%s\" skipped", where, host);
			opts_free(&o);
			continue;
		}
		if (later) {
			add_later(host, &o);
		} else if (pvmd_is_self(host)) {
			apply_self(&o);
			if (o.ip)
				set_str(&self_ip, o.ip);
			found = 1;
		} else if ((v = realloc(*hosts, (size_t)(*n + 1) *
					sizeof(*v)))) {
			*hosts = v;
			if ((v[*n] = resolved_line(host, &o)))
				(*n)++;
		}
		opts_free(&o);
	}
	fclose(fp);
	if (!found)
		apply_self(&defaults);
	opts_free(&last_defaults);
	last_defaults = defaults;
	return 0;
}

/* Parses a host line (see the top of the file); 0 or PvmBadParam. */
int pvmd_hostspec_parse(const char *line, struct pvmd_hostspec *spec)
{
	struct hf_opts o = { 0 };
	struct later *l;
	char *copy, *save = NULL, *host;
	int exact = line && line[0] == '=';

	memset(spec, 0, sizeof(*spec));
	copy = strdup(line ? line + exact : "");
	if (!copy)
		return PvmNoMem;
	host = strtok_r(copy, " \t\r\n", &save);
	if (host && host[0] == '&')
		host++;
	if (!host || !*host || !safe_chars(host, NULL) || strlen(host) > 255) {
		free(copy);
		return PvmBadParam;
	}
	if (!exact) {
		opts_merge(&o, &last_defaults);
		for (l = laters; l; l = l->next)
			if (pvmd_same_name(l->name, host))
				opts_merge(&o, &l->o);
	}
	if (apply_words(&o, &save, host) < 0) {
		opts_free(&o);
		free(copy);
		return PvmBadParam;
	}
	spec->name = strdup(host);
	free(copy);
	if (!spec->name) {
		opts_free(&o);
		return PvmNoMem;
	}
	spec->lo = o.lo;
	spec->so = o.so;
	spec->dx = o.dx;
	spec->ip = o.ip;
	spec->opts.ep = o.ep;
	spec->opts.wd = o.wd;
	spec->opts.bx = o.bx;
	spec->opts.speed = o.speed;
	spec->opts.htmo = o.htmo;
	return 0;
}

/* Frees what a hostspec holds. */
void pvmd_hostspec_free(struct pvmd_hostspec *spec)
{
	free(spec->name);
	free(spec->lo);
	free(spec->so);
	free(spec->dx);
	free(spec->ip);
	free(spec->opts.ep);
	free(spec->opts.wd);
	free(spec->opts.bx);
	memset(spec, 0, sizeof(*spec));
}

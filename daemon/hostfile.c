/*
 * hostfile.c - the hostfile given on pvmd's command line, and the test
 * "is this name us?".
 *
 * The syntax is stock PVM's: one host per line, `#' comments, options
 * `name=value' after the host name, a `*' line setting defaults for the
 * lines after it, and `&host' for hosts to be added later.  While copvm
 * runs single-host virtual machines, only this host's entry matters: its
 * ep= (search path), wd= (task working directory), bx= (debugger) and
 * sp= (speed) are applied; other hosts are logged and left out, and the
 * log says so rather than pretending they were added.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

#define HF_LINE_MAX	4096

struct hf_opts {
	char *ep, *wd, *bx;
	int speed;		/* 0 = unset */
};

/* True when `name' designates this host: ".", "localhost", our name, or
 * our name and `name' agreeing up to the first dot of the shorter. */
int pvmd_is_self(const char *name)
{
	size_t a, b;
	const char *dot;

	if (!name || !*name)
		return 0;
	if (!strcmp(name, ".") || !strcmp(name, "localhost") ||
	    !strcmp(name, "localhost.localdomain"))
		return 1;
	if (!strcmp(name, pvmd.hostname))
		return 1;
	dot = strchr(name, '.');
	a = dot ? (size_t)(dot - name) : strlen(name);
	dot = strchr(pvmd.hostname, '.');
	b = dot ? (size_t)(dot - pvmd.hostname) : strlen(pvmd.hostname);
	return a == b && !strncmp(name, pvmd.hostname, a) &&
	       (name[a] == '\0' || pvmd.hostname[b] == '\0');
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
	memset(o, 0, sizeof(*o));
}

static void opts_copy(struct hf_opts *dst, const struct hf_opts *src)
{
	opts_free(dst);
	if (src->ep)
		set_str(&dst->ep, src->ep);
	if (src->wd)
		set_str(&dst->wd, src->wd);
	if (src->bx)
		set_str(&dst->bx, src->bx);
	dst->speed = src->speed;
}

/* Applies one `key=value' word to `o'; unknown or unused keys are
 * accepted silently, as the stock daemon does for options it ignores. */
static void apply_opt(struct hf_opts *o, const char *word, const char *path,
		      int lineno)
{
	const char *eq = strchr(word, '=');
	long sp;

	if (!eq) {
		pvmd_log("%s:%d: option \"%s\" has no value, ignored",
			 path, lineno, word);
		return;
	}
	if (!strncmp(word, "ep=", 3)) {
		set_str(&o->ep, eq + 1);
	} else if (!strncmp(word, "wd=", 3)) {
		set_str(&o->wd, eq + 1);
	} else if (!strncmp(word, "bx=", 3)) {
		set_str(&o->bx, eq + 1);
	} else if (!strncmp(word, "sp=", 3)) {
		sp = strtol(eq + 1, NULL, 10);
		if (sp >= 1 && sp <= 1000000)
			o->speed = (int)sp;
		else
			pvmd_log("%s:%d: sp=%s out of range [1..1000000]",
				 path, lineno, eq + 1);
	}
}

static void parse_line(char *line, struct hf_opts *defaults,
		       struct hf_opts *self, int *found, const char *path,
		       int lineno)
{
	struct hf_opts o = { 0 };
	char *save = NULL, *host, *word;
	int later = 0;

	host = strtok_r(line, " \t\r\n", &save);
	if (!host || host[0] == '#')
		return;
	if (!strcmp(host, "*")) {
		while ((word = strtok_r(NULL, " \t\r\n", &save)))
			apply_opt(defaults, word, path, lineno);
		return;
	}
	if (host[0] == '&') {
		later = 1;
		host++;
	}
	opts_copy(&o, defaults);
	while ((word = strtok_r(NULL, " \t\r\n", &save)))
		apply_opt(&o, word, path, lineno);
	if (pvmd_is_self(host) && !later) {
		opts_copy(self, &o);
		*found = 1;
	} else if (!pvmd_is_self(host)) {
		pvmd_log("%s:%d: host %s not added: multi-host virtual "
			 "machines are not implemented yet (a later issue)",
			 path, lineno, host);
	}
	opts_free(&o);
}

/* Reads `path' and fills pvmd.opts from the entry for this host (or the
 * `*' defaults when the file has none); 0, or -1 if it cannot be read. */
int pvmd_hostfile_load(const char *path)
{
	struct hf_opts defaults = { 0 }, self = { 0 };
	char line[HF_LINE_MAX];
	int lineno = 0, found = 0;
	FILE *fp;

	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		lineno++;
		parse_line(line, &defaults, &self, &found, path, lineno);
	}
	fclose(fp);
	if (!found)
		opts_copy(&self, &defaults);
	if (self.ep)
		set_str(&pvmd.opts.ep, self.ep);
	if (self.wd)
		set_str(&pvmd.opts.wd, self.wd);
	if (self.bx)
		set_str(&pvmd.opts.bx, self.bx);
	if (self.speed)
		pvmd.opts.speed = self.speed;
	opts_free(&defaults);
	opts_free(&self);
	return 0;
}

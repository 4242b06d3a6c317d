/*
 * parse.c - from a command line to a command: words, aliases, dispatch.
 *
 * A line is split into words at blanks; '...' and "..." keep blanks
 * inside a word and a backslash takes the next character literally, as
 * in a shell, but nothing else is expanded ($HOME, ~ and ; stay as they
 * are, as in stock's console).  A line whose first word starts with '#'
 * is a comment, which lets $HOME/.pvmrc carry remarks.
 *
 * Aliases replace the first word of a line by their words.  Expansion
 * repeats while the new first word is another alias; an alias whose
 * first word is its own name stops there (so `alias ls ls -l' works),
 * and a cycle through several aliases is reported as "alias loop".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"

#define MAX_WORDS	256

struct alias {
	char *name;
	char **words;		/* what the name stands for */
	int nwords;
	struct alias *next;
};

/* In definition order, which is the order `alias' lists them in. */
static struct alias *aliases;

int con_split(char *line, char **words, int max)
{
	char *in = line, *out = line;
	int n = 0;

	for (;;) {
		char quote = 0;

		while (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r')
			in++;
		if (!*in)
			break;
		if (n == max) {
			printf("command too long\n");
			return -1;
		}
		words[n++] = out;
		for (; *in; in++) {
			if (quote) {
				if (*in == quote)
					quote = 0;
				else if (*in == '\\' && quote == '"' && in[1])
					*out++ = *++in;
				else
					*out++ = *in;
				continue;
			}
			if (*in == ' ' || *in == '\t' || *in == '\n' ||
			    *in == '\r')
				break;
			if (*in == '\'' || *in == '"')
				quote = *in;
			else if (*in == '\\' && in[1])
				*out++ = *++in;
			else if (*in != '\\')
				*out++ = *in;
		}
		if (quote) {
			printf("unmatched %c\n", quote);
			return -1;
		}
		/* `out' never passes `in', so the terminator cannot clobber
		 * input not read yet, except the separator just seen. */
		if (*in)
			in++;
		*out++ = '\0';
	}
	return n;
}

static struct alias *find_alias(const char *name)
{
	struct alias *a;

	for (a = aliases; a; a = a->next)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

static void free_alias(struct alias *a)
{
	int i;

	for (i = 0; i < a->nwords; i++)
		free(a->words[i]);
	free(a->words);
	free(a->name);
	free(a);
}

/* Replaces words[0] by its alias, repeatedly.  Returns the new word
 * count, or -1 after printing what went wrong. */
static int expand_aliases(char **words, int n)
{
	const struct alias *seen[MAX_WORDS];
	int nseen = 0, i;

	for (;;) {
		const struct alias *a = find_alias(words[0]);

		if (!a)
			return n;
		for (i = 0; i < nseen; i++)
			if (seen[i] == a) {
				printf("alias loop\n");
				return -1;
			}
		seen[nseen++] = a;
		if (n - 1 + a->nwords > MAX_WORDS || nseen == MAX_WORDS) {
			printf("command too long\n");
			return -1;
		}
		memmove(words + a->nwords, words + 1, (n - 1) * sizeof(*words));
		for (i = 0; i < a->nwords; i++)
			words[i] = a->words[i];
		n += a->nwords - 1;
		if (!strcmp(a->words[0], a->name))
			return n;
	}
}

int con_run_line(const char *line)
{
	char *copy = strdup(line), *words[MAX_WORDS + 1];
	const struct con_cmd *cmd;
	int n, rc = -1;

	if (!copy) {
		perror("pvm");
		return -1;
	}
	n = con_split(copy, words, MAX_WORDS);
	if (n <= 0 || words[0][0] == '#') {
		free(copy);
		return n < 0 ? -1 : 0;
	}
	n = expand_aliases(words, n);
	if (n < 0)
		goto out;
	cmd = con_find_cmd(words[0]);
	if (!cmd) {
		printf("%s: not found\n", words[0]);
		goto out;
	}
	if (n - 1 < cmd->minargs ||
	    (cmd->maxargs >= 0 && n - 1 > cmd->maxargs)) {
		printf("%s: wrong #args\n", cmd->name);
		goto out;
	}
	words[n] = NULL;
	rc = cmd->run(n, words);
out:
	free(copy);
	return rc;
}

static void print_alias(const struct alias *a)
{
	int i;

	printf("%s\t", a->name);
	for (i = 0; i < a->nwords; i++)
		printf(i ? " %s" : "%s", a->words[i]);
	printf("\n");
}

/* alias [name [command args...]]: list, show one, or define. */
int con_cmd_alias(int argc, char **argv)
{
	struct alias *a, **pp;
	int i;

	if (argc == 1) {
		for (a = aliases; a; a = a->next)
			print_alias(a);
		return 0;
	}
	if (argc == 2) {
		a = find_alias(argv[1]);
		if (a)
			print_alias(a);
		return 0;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		goto nomem;
	a->name = strdup(argv[1]);
	a->words = calloc(argc - 2, sizeof(*a->words));
	if (!a->name || !a->words)
		goto nomem;
	for (i = 2; i < argc; i++) {
		a->words[a->nwords] = strdup(argv[i]);
		if (!a->words[a->nwords])
			goto nomem;
		a->nwords++;
	}
	/* A new definition takes the old one's place in the list. */
	for (pp = &aliases; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->name, a->name)) {
			a->next = (*pp)->next;
			free_alias(*pp);
			break;
		}
	}
	*pp = a;
	return 0;
nomem:
	if (a)
		free_alias(a);
	perror("alias");
	return -1;
}

/* unalias name...: forget aliases; unknown names are ignored. */
int con_cmd_unalias(int argc, char **argv)
{
	struct alias **pp, *a;
	int i;

	for (i = 1; i < argc; i++) {
		for (pp = &aliases; *pp; pp = &(*pp)->next) {
			if (!strcmp((*pp)->name, argv[i])) {
				a = *pp;
				*pp = a->next;
				free_alias(a);
				break;
			}
		}
	}
	return 0;
}

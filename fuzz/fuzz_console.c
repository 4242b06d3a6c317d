/*
 * fuzz_console.c - libFuzzer target for the console's command parser
 * (console/parse.c): word splitting with quotes and backslashes, alias
 * definitions and their expansion, and the lookup of the command with
 * its argument counts.
 *
 * The input is a script of console lines.  A line starting with `alias'
 * or `unalias' runs that command (they touch no virtual machine); any
 * other line is split, alias-expanded and looked up exactly as
 * con_run_line() does, but the command is not run: running would start
 * and drive a daemon.  parse.c is compiled into this file so that its
 * static alias list can be emptied after each input and its expansion
 * called directly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../console/parse.c"

static void parse_one(const char *line)
{
	char *copy = strdup(line), *words[MAX_WORDS + 1];
	const struct con_cmd *cmd;
	int n, i;

	if (!copy)
		return;
	n = con_split(copy, words, MAX_WORDS);
	if (n > MAX_WORDS)
		abort();
	for (i = 0; i < n; i++)
		(void)con_parse_tid(words[i]);
	if (n > 0 && !strcmp(words[0], "alias")) {
		con_cmd_alias(n, words);
	} else if (n > 0 && !strcmp(words[0], "unalias")) {
		con_cmd_unalias(n, words);
	} else if (n > 0 && words[0][0] != '#') {
		n = expand_aliases(words, n);
		if (n > MAX_WORDS)
			abort();
		if (n > 0) {
			words[n] = NULL;
			cmd = con_find_cmd(words[0]);
			if (cmd && cmd->minargs > cmd->maxargs &&
			    cmd->maxargs >= 0)
				abort();
		}
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char *text, *line, *save = NULL;
	struct alias *a;

	if (!quiet) {
		/* the commands' output is of no interest */
		if (!freopen("/dev/null", "w", stdout))
			abort();
		quiet = 1;
	}
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		parse_one(line);
	while ((a = aliases)) {
		aliases = a->next;
		free_alias(a);
	}
	free(text);
	return 0;
}

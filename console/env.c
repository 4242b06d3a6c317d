/*
 * env.c - the console's own settings: echo, setenv, export, unexport,
 * getopt, setopt.
 *
 * The environment matters because spawned tasks get the variables named
 * in PVM_EXPORT (pvm_export and pvm_unexport edit that list); setenv
 * changes the console's environment, so `setenv X 1' followed by
 * `export X' hands X=1 to every task spawned later.
 *
 * getopt and setopt work on the console task's PVM options, named as in
 * pvm3.h.  Only the options a program can sensibly ask about are
 * listed, in the order of their codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "console.h"

extern char **environ;

static const struct {
	const char *name;
	int what;
} options[] = {
	{ "PvmRoute", PvmRoute },
	{ "PvmDebugMask", PvmDebugMask },
	{ "PvmAutoErr", PvmAutoErr },
	{ "PvmOutputTid", PvmOutputTid },
	{ "PvmOutputCode", PvmOutputCode },
	{ "PvmTraceTid", PvmTraceTid },
	{ "PvmTraceCode", PvmTraceCode },
	{ "PvmTraceBuffer", PvmTraceBuffer },
	{ "PvmTraceOptions", PvmTraceOptions },
	{ "PvmFragSize", PvmFragSize },
	{ "PvmResvTids", PvmResvTids },
	{ "PvmSelfOutputTid", PvmSelfOutputTid },
	{ "PvmSelfOutputCode", PvmSelfOutputCode },
	{ "PvmSelfTraceTid", PvmSelfTraceTid },
	{ "PvmSelfTraceCode", PvmSelfTraceCode },
	{ "PvmSelfTraceBuffer", PvmSelfTraceBuffer },
	{ "PvmSelfTraceOptions", PvmSelfTraceOptions },
	{ "PvmShowTids", PvmShowTids },
	{ "PvmOutputContext", PvmOutputContext },
	{ "PvmTraceContext", PvmTraceContext },
	{ "PvmSelfOutputContext", PvmSelfOutputContext },
	{ "PvmSelfTraceContext", PvmSelfTraceContext },
	{ "PvmNoReset", PvmNoReset },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

/* echo args...: the arguments, one blank apart. */
int con_cmd_echo(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		printf(i > 1 ? " %s" : "%s", argv[i]);
	printf("\n");
	return 0;
}

/* setenv: list; setenv NAME: show; setenv NAME words...: set. */
int con_cmd_setenv(int argc, char **argv)
{
	char **e, *value;
	size_t len = 0;
	int i;

	if (argc == 1) {
		for (e = environ; e && *e; e++)
			printf("%s\n", *e);
		return 0;
	}
	if (argc == 2) {
		value = getenv(argv[1]);
		if (value)
			printf("%s\n", value);
		return 0;
	}
	for (i = 2; i < argc; i++)
		len += strlen(argv[i]) + 1;
	value = calloc(1, len);
	if (!value) {
		perror("setenv");
		return -1;
	}
	for (i = 2; i < argc; i++) {
		if (i > 2)
			strcat(value, " ");
		strcat(value, argv[i]);
	}
	if (setenv(argv[1], value, 1) < 0) {
		perror("setenv");
		free(value);
		return -1;
	}
	free(value);
	return 0;
}

/* export [names...]: add to PVM_EXPORT, or show it. */
int con_cmd_export(int argc, char **argv)
{
	const char *list;
	int i;

	if (argc == 1) {
		list = getenv("PVM_EXPORT");
		printf("PVM_EXPORT=%s\n", list ? list : "");
		return 0;
	}
	for (i = 1; i < argc; i++)
		pvm_export(argv[i]);
	return 0;
}

/* unexport [names...]: remove from PVM_EXPORT. */
int con_cmd_unexport(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		pvm_unexport(argv[i]);
	return 0;
}

/* The option called `name', or -1 (after saying so). */
static int find_option(const char *name)
{
	size_t i;

	for (i = 0; i < NOPTIONS; i++)
		if (!strcmp(options[i].name, name))
			return (int)i;
	printf("PVM Option \"%s\" Unknown.\n", name);
	return -1;
}

/* getopt [option]: one option's value, or all of them. */
int con_cmd_getopt(int argc, char **argv)
{
	size_t i;
	int k;

	if (argc == 2) {
		k = find_option(argv[1]);
		if (k < 0)
			return -1;
		printf("%s Currently Set to %d\n", options[k].name,
		       pvm_getopt(options[k].what));
		return 0;
	}
	for (i = 0; i < NOPTIONS; i++)
		printf("%s Currently Set to %d\n", options[i].name,
		       pvm_getopt(options[i].what));
	return 0;
}

/* setopt option value: change one option of the console task. */
int con_cmd_setopt(int argc, char **argv)
{
	char *end;
	long v;
	int k, old;

	k = find_option(argv[1]);
	if (k < 0)
		return -1;
	v = strtol(argv[2], &end, 0);
	if (end == argv[2] || *end) {
		printf("setopt: %s: not a number\n", argv[2]);
		return -1;
	}
	/* An old value may be negative (PvmAutoErr -1): only a failure
	 * records its code in pvm_errno. */
	pvm_errno = 0;
	old = pvm_setopt(options[k].what, (int)v);
	if (old < 0 && pvm_errno == old)
		return -1;
	printf("%s Changed from %d to %d\n", options[k].name, old,
	       pvm_getopt(options[k].what));
	return 0;
}

/*
 * pvmrun - start copies of a PVM program the way the console's
 * "spawn -N -> prog" does, and wait until every copy has exited.
 *
 * The integration tests use it for examples that are meant to be spawned
 * rather than started from a shell (spmd needs siblings), and for children
 * that only talk to their parent (inherit2).  The same source is built
 * against copvm by `make check' and against the stock library by the
 * tests themselves, so it must stay within the PVM 3.4 API.
 *
 * usage: pvmrun [-n count] [-c] [-m] program [args...]
 *   -n count  copies to start together (they are siblings), default 1
 *   -c        move to a new context first, so the children inherit it
 *   -m        print every message a child sends us: its tag, context and
 *             string body (children are expected to pack one string)
 * The children's output is caught (pvm_catchout) onto our stdout.
 * Exit status: 0 when all copies started and exited, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"

/* A tag no example uses, for the task-exit notifications. */
#define EXIT_TAG 0x7e11

static int usage(void)
{
	fprintf(stderr, "usage: pvmrun [-n count] [-c] [-m] program [args...]\n");
	return 1;
}

/* Print one message from a child: tag, context and its string body. */
static void show_message(int bufid)
{
	int len = 0, tag = 0, src = 0;
	char *text;

	pvm_bufinfo(bufid, &len, &tag, &src);
	text = calloc(1, (size_t)len + 1);
	if (text == NULL || pvm_upkstr(text) < 0)
		printf("pvmrun: message from t%x tag %d context %d (no string)\n",
		       src, tag, pvm_getcontext());
	else
		printf("pvmrun: message from t%x tag %d context %d: %s\n",
		       src, tag, pvm_getcontext(), text);
	fflush(stdout);
	free(text);
}

int main(int argc, char **argv)
{
	int count = 1, newctx = 0, messages = 0;
	int *tids, started, left, i, opt, status = 0;

	while ((opt = getopt(argc, argv, "+n:cm")) != -1) {
		switch (opt) {
		case 'n':
			count = atoi(optarg);
			break;
		case 'c':
			newctx = 1;
			break;
		case 'm':
			messages = 1;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc || count < 1)
		return usage();

	if (pvm_mytid() < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (newctx)
		pvm_setcontext(pvm_newcontext());
	pvm_catchout(stdout);

	tids = calloc((size_t)count, sizeof(*tids));
	if (tids == NULL) {
		pvm_exit();
		return 1;
	}
	started = pvm_spawn(argv[optind], argc - optind > 1 ? argv + optind + 1 : NULL,
			    PvmTaskDefault, "", count, tids);
	if (started < count) {
		fprintf(stderr, "pvmrun: started %d of %d copies of %s\n",
			started < 0 ? 0 : started, count, argv[optind]);
		for (i = 0; i < count; i++)
			if (tids[i] < 0)
				fprintf(stderr, "pvmrun: copy %d: error %d\n", i, tids[i]);
		status = 1;
	}
	if (started <= 0) {
		pvm_exit();
		return 1;
	}

	/* Failed slots hold error codes; ask only about the started tasks. */
	left = 0;
	for (i = 0; i < count; i++)
		if (tids[i] > 0)
			tids[left++] = tids[i];
	pvm_notify(PvmTaskExit, EXIT_TAG, left, tids);

	while (left > 0) {
		int bufid = pvm_recv(-1, -1), tag = 0;

		if (bufid < 0) {
			fprintf(stderr, "pvmrun: pvm_recv: error %d\n", bufid);
			status = 1;
			break;
		}
		pvm_bufinfo(bufid, NULL, &tag, NULL);
		if (tag == EXIT_TAG)
			left--;
		else if (messages)
			show_message(bufid);
	}

	free(tids);
	pvm_exit();
	return status;
}

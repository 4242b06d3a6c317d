/*
 * trace - trace masks, the trace options and PvmResvTids as a program
 * built against stock PVM sees them (diff-opts.sh, issue 13 items 24-26).
 * The parent sets options and masks, spawns itself with "child", and the
 * child reports what it inherited in a message the parent prints.
 */
#include <stdio.h>
#include <string.h>

#include "pvm3.h"

/* Stock's pvm3.h does not declare these. */
int pvm_gettmask(int who, char *mask);
int pvm_settmask(int who, char *mask);

#define SHOW(call) do { \
	int rc_ = (call); \
	fflush(stderr); \
	printf("%s = %d\n", #call, rc_); \
	fflush(stdout); \
} while (0)

static const int opts[] = {
	PvmTraceBuffer, PvmTraceOptions, PvmSelfTraceBuffer,
	PvmSelfTraceOptions, PvmTraceTid, PvmTraceCode, PvmResvTids
};
#define NOPTS ((int)(sizeof(opts) / sizeof(opts[0])))

static void show_mask(const char *who, const char *mask)
{
	printf("%s mask: %zu chars \"%s\"\n", who, strlen(mask), mask);
	fflush(stdout);
}

/* The child: its options and masks, sent to the parent. */
static int child(void)
{
	char self[256], kids[256];
	int i, v;

	memset(self, 'x', sizeof(self));
	memset(kids, 'x', sizeof(kids));
	pvm_gettmask(PvmTaskSelf, self);
	pvm_gettmask(PvmTaskChild, kids);
	pvm_initsend(PvmDataDefault);
	for (i = 0; i < NOPTS; i++) {
		v = pvm_getopt(opts[i]);
		pvm_pkint(&v, 1, 1);
	}
	pvm_pkstr(self);
	pvm_pkstr(kids);
	pvm_send(pvm_parent(), 5);
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	char mask[256], self[256], kids[256], *cargv[] = { "child", NULL };
	struct timeval tmout = { 20, 0 };	/* it may take its time */
	int me, i, v, kid = 0;

	me = pvm_mytid();
	if (me < 0)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();

	/* 26: masks before anything is set */
	memset(mask, 'x', sizeof(mask));
	SHOW(pvm_gettmask(PvmTaskSelf, mask));
	show_mask("self", mask);
	memset(mask, 'x', sizeof(mask));
	SHOW(pvm_gettmask(PvmTaskChild, mask));
	show_mask("child", mask);

	/* 25: trace options stored and returned */
	for (i = 0; i < NOPTS; i++)
		printf("option %d = %d\n", opts[i], pvm_getopt(opts[i]));
	SHOW(pvm_setopt(PvmTraceBuffer, 4096));
	SHOW(pvm_setopt(PvmTraceOptions, PvmTraceCount));
	SHOW(pvm_setopt(PvmSelfTraceBuffer, 2048));
	SHOW(pvm_setopt(PvmSelfTraceOptions, PvmTraceTime));
	for (i = 0; i < NOPTS; i++)
		printf("option %d = %d\n", opts[i], pvm_getopt(opts[i]));

	/* 24: reserved tags */
	v = 7;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	SHOW(pvm_send(me, -5));
	SHOW(pvm_setopt(PvmResvTids, 1));
	SHOW(pvm_send(me, -5));
	SHOW(pvm_trecv(me, -5, &tmout) > 0);
	SHOW(pvm_setopt(PvmResvTids, 0));

	/* 26: a child's mask set, then inherited */
	pvm_gettmask(PvmTaskChild, mask);
	mask[0] = 'A';
	mask[3] = 'C';
	SHOW(pvm_settmask(PvmTaskChild, mask));
	memset(mask, 'x', sizeof(mask));
	pvm_gettmask(PvmTaskChild, mask);
	show_mask("child after settmask", mask);

	SHOW(pvm_spawn("trace", cargv, PvmTaskDefault, "", 1, &kid));
	if (kid <= 0)
		return 1;
	pvm_recv(kid, 5);
	for (i = 0; i < NOPTS; i++) {
		pvm_upkint(&v, 1, 1);
		printf("child's option %d = %d\n", opts[i], v);
	}
	pvm_upkstr(self);
	pvm_upkstr(kids);
	show_mask("child's self", self);
	show_mask("child's child", kids);
	pvm_exit();
	return 0;
}

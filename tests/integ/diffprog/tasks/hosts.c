/*
 * hosts - pvm_hostsync and pvm_getfds as a program built against stock
 * PVM sees them (diff-tasks.sh, issue 13 items 18, 19).  pvm_hostsync
 * with a task's tid uses that task's host.  pvm_getfds counts one
 * descriptor, two once a direct route from a task is up, one again once
 * that task has gone (docs/stock-behaviour.md).  Spawned with "echo" it
 * answers two messages of its parent, with direct routing on, and leaves
 * at the third.  Stock notices a route's end only when it next reads
 * it, which may come after the exit notify: the last count is taken
 * once that has happened (or after 5 s).
 */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "pvm3.h"

#define SHOW(call) do { \
	int rc_ = (call); \
	fflush(stderr); \
	printf("%s = %d\n", #call, rc_); \
	fflush(stdout); \
} while (0)

static int echo(void)
{
	int i, v;

	pvm_setopt(PvmRoute, PvmRouteDirect);
	for (i = 0; i < 2; i++) {
		pvm_recv(pvm_parent(), 1);
		pvm_upkint(&v, 1, 1);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&v, 1, 1);
		pvm_send(pvm_parent(), 2);
	}
	pvm_recv(pvm_parent(), 4);
	pvm_exit();
	return 0;
}

static void ping(int kid)
{
	int v = 5;

	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(kid, 1);
	pvm_recv(kid, 2);
}

int main(int argc, char **argv)
{
	struct timeval clk, delta;
	char *cargv[] = { "echo", NULL };
	int me, host, kid = 0, *fds, i;
	struct timeval tick = { 0, 100000 };

	me = pvm_mytid();
	if (me < 0)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "echo"))
		return echo();
	host = pvm_tidtohost(me);

	/* 18: a task's tid names its host */
	SHOW(pvm_hostsync(host, &clk, &delta));
	SHOW(pvm_hostsync(me, &clk, &delta));
	SHOW(pvm_hostsync(me + 100, &clk, &delta));
	SHOW(pvm_hostsync(0x00fc0000, &clk, &delta));
	SHOW(pvm_hostsync(0x00fc0001, &clk, &delta));

	/* 19: one descriptor, one more per direct route, one again once
	 * the task at the other end has gone */
	SHOW(pvm_getfds(&fds));
	pvm_setopt(PvmRoute, PvmRouteDirect);
	SHOW(pvm_spawn("hosts", cargv, PvmTaskDefault, "", 1, &kid));
	if (kid <= 0)
		return 1;
	SHOW(pvm_notify(PvmTaskExit, 3, 1, &kid));
	ping(kid);
	ping(kid);
	SHOW(pvm_getfds(&fds));
	pvm_initsend(PvmDataDefault);
	pvm_send(kid, 4);
	SHOW(pvm_recv(-1, 3) > 0);
	for (i = 0; i < 50 && pvm_getfds(&fds) > 1; i++)
		pvm_trecv(-1, 99, &tick);
	SHOW(pvm_getfds(&fds));
	pvm_exit();
	return 0;
}

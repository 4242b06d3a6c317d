/*
 * hosts - pvm_hostsync and pvm_getfds as a program built against stock
 * PVM sees them (diff-tasks.sh, issue 13 items 18, 19).  pvm_hostsync
 * with a task's tid uses that task's host.  pvm_getfds lists more
 * sockets once a direct route is up (the exact count differs on purpose:
 * docs/stock-behaviour-tasks.md).  Spawned with "echo" it answers two
 * messages of its parent, with direct routing on.
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
	int me, host, kid = 0, *fds, before;

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

	/* 19: the daemon socket first, more once direct routes are up */
	before = pvm_getfds(&fds);
	SHOW(before >= 1);
	pvm_setopt(PvmRoute, PvmRouteDirect);
	SHOW(pvm_spawn("hosts", cargv, PvmTaskDefault, "", 1, &kid));
	if (kid <= 0)
		return 1;
	ping(kid);
	ping(kid);
	SHOW(pvm_getfds(&fds) > before);
	pvm_exit();
	return 0;
}

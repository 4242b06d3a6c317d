/*
 * kill - pvm_kill of a task that catches SIGTERM, as a program built
 * against stock PVM sees it (diff-tasks.sh, issue 13 item 14).  pvm_kill
 * only sends SIGTERM: the task stays a task (pvm_pstat finds it, no exit
 * notify yet) until a SIGKILL through pvm_sendsig ends it; then its exit
 * is notified, and nothing else comes.  (Whether stock delivers a
 * message a task sent just before a SIGKILL before or after the notify
 * varies from run to run, so the program takes it first.)  Spawned with
 * "catch" it is the child: it catches SIGTERM, then tells its parent
 * ("caught", then "final") and waits to be killed.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"

#define SHOW(call) do { \
	int rc_ = (call); \
	fflush(stderr); \
	printf("%s = %d\n", #call, rc_); \
	fflush(stdout); \
} while (0)

static volatile sig_atomic_t terms;

static void on_term(int sig)
{
	terms++;
}

static void send_int(int tid, int tag, int v)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(tid, tag);
}

static int child(void)
{
	struct sigaction sa;
	sigset_t block, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	send_int(pvm_parent(), 1, 0);		/* ready */
	while (!terms)
		sigsuspend(&old);
	send_int(pvm_parent(), 3, terms);	/* caught */
	send_int(pvm_parent(), 4, 44);		/* final */
	for (;;)
		pause();			/* until SIGKILL */
}

int main(int argc, char **argv)
{
	char *cargv[] = { "catch", NULL };
	int me, kid = 0, bufid, len, tag, src, v;

	me = pvm_mytid();
	if (me < 0)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "catch"))
		return child();

	SHOW(pvm_spawn("kill", cargv, PvmTaskDefault, "", 1, &kid));
	if (kid <= 0)
		return 1;
	SHOW(pvm_notify(PvmTaskExit, 90, 1, &kid));
	pvm_recv(kid, 1);
	SHOW(pvm_kill(kid));
	pvm_recv(kid, 3);
	pvm_upkint(&v, 1, 1);
	printf("child caught SIGTERM %d time(s)\n", v);
	SHOW(pvm_pstat(kid));
	SHOW(pvm_nrecv(-1, 90) > 0);
	/* the last message, sent before the kill, is here by now */
	pvm_recv(kid, 4);
	pvm_upkint(&v, 1, 1);
	printf("final message %d\n", v);
	SHOW(pvm_sendsig(kid, SIGKILL));
	for (;;) {
		bufid = pvm_recv(-1, -1);
		pvm_bufinfo(bufid, &len, &tag, &src);
		pvm_upkint(&v, 1, 1);
		if (tag == 90)
			printf("then tag 90: the exit of %s\n",
			       v == kid ? "the child" : "another task");
		else
			printf("then tag %d from %s: %d\n", tag,
			       src == kid ? "the child" : "another task", v);
		if (tag == 90)
			break;
	}
	SHOW(pvm_pstat(kid));
	pvm_exit();
	return 0;
}

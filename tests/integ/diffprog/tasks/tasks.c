/*
 * tasks - signals, notifies and raw output collection as a program built
 * against stock PVM sees them (diff-tasks.sh, issue 13 items 13, 15-17).
 * Run without arguments it is the parent; spawned with "exit" it sends one
 * message to its parent and exits; with "print" it writes two lines on
 * stdout and exits.  Tids are printed as t%x so that normalize.pl labels
 * them; the notify's source is printed in decimal so that it is not.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pvm3.h"

#define SHOW(call) do { \
	int rc_ = (call); \
	fflush(stderr); \
	printf("%s = %d\n", #call, rc_); \
	fflush(stdout); \
} while (0)

static int spawn_child(char *mode)
{
	char *argv[] = { mode, NULL };
	int tid = 0;

	if (pvm_spawn("tasks", argv, PvmTaskDefault, "", 1, &tid) != 1) {
		printf("spawn %s failed: %d\n", mode, tid);
		return -1;
	}
	return tid;
}

/* Item 13 and 16: signals to a task that has gone, the exit notify. */
static void gone_task(void)
{
	int me = pvm_mytid(), child, src, tag, len, who, n = 0;

	child = spawn_child("exit");
	if (child < 0)
		return;
	SHOW(pvm_notify(PvmTaskExit, 90, 1, &child));
	pvm_recv(child, 1);
	pvm_upkint(&n, 1, 1);
	printf("message from t%x: %d\n", child, n);
	pvm_bufinfo(pvm_recv(-1, 90), &len, &tag, &src);
	pvm_upkint(&who, 1, 1);
	printf("exit notify: tag %d, source %d, about t%x (child t%x)\n",
	       tag, src, who, child);
	fflush(stdout);

	SHOW(pvm_kill(child));
	SHOW(pvm_sendsig(child, SIGTERM));
	/* never used on this host; a host that does not exist */
	SHOW(pvm_kill(me + 100));
	SHOW(pvm_sendsig(me + 100, SIGUSR1));
	SHOW(pvm_kill(0x00fc0001));
	SHOW(pvm_sendsig(0x00fc0001, SIGUSR1));
}

/* Item 15: notify requests stock refuses. */
static void bad_notifies(void)
{
	int me = pvm_mytid(), host = pvm_tidtohost(me);

	SHOW(pvm_notify(PvmTaskExit, 91, 0, &me));
	SHOW(pvm_notify(PvmTaskExit, 91, 1, &host));
	SHOW(pvm_notify(PvmTaskExit, 91, -1, &me));
	SHOW(pvm_notify(PvmHostDelete, 91, 0, &host));
	SHOW(pvm_notify(PvmTaskExit | PvmNotifyCancel, 91, 0, &me));
}

/* Items 16 and 17: the raw output stream of a child.  How the text is
 * cut into records depends on timing, so the text is shown once, whole;
 * the other records (count -2, -1, 0) are shown as they come. */
static void raw_output(void)
{
	int me = pvm_mytid(), child, src, tag, len, tid, count, have = 0;
	int extra;
	char data[256], text[1024] = "";

	pvm_setopt(PvmOutputTid, me);
	pvm_setopt(PvmOutputCode, 77);
	child = spawn_child("print");
	if (child < 0)
		return;
	do {
		pvm_bufinfo(pvm_recv(-1, 77), &len, &tag, &src);
		pvm_upkint(&tid, 1, 1);
		pvm_upkint(&count, 1, 1);
		if (count > 0 && count < (int)sizeof(data)) {
			pvm_upkbyte(data, count, 1);
			data[count] = '\0';
			if (strlen(text) + count < sizeof(text))
				strcat(text, data);
			if (have++)
				continue;
		}
		extra = 0;
		if (count < 0 && pvm_upkint(&extra, 1, 1) < 0)
			extra = -1;
		printf("output record: source %d, task t%x (child t%x), "
		       "%s %d, then t%x (me t%x)\n", src, tid, child,
		       count > 0 ? "text" : "count", count > 0 ? 1 : count,
		       extra, me);
		fflush(stdout);
	} while (count != 0);
	printf("output text: \"%s\"\n", text);
	pvm_setopt(PvmOutputTid, 0);
}

int main(int argc, char **argv)
{
	int n = 42;

	if (pvm_mytid() < 0)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "exit")) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&n, 1, 1);
		pvm_send(pvm_parent(), 1);
		pvm_exit();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "print")) {
		printf("first line\n");
		fflush(stdout);
		printf("second line\n");
		pvm_exit();
		return 0;
	}
	gone_task();
	bad_notifies();
	raw_output();
	pvm_exit();
	return 0;
}

/*
 * mhpart - the program of mh-partition.sh: a host that vanishes without
 * a word (its network cut by the script), seen from a task of the master.
 *
 * usage: mhpart MODE
 *   cut ROUTE FILE
 *                 spawns a task on node2 and exchanges messages with it
 *                 (ROUTE: direct, or default through the daemons), asks
 *                 for its exit notify and node2's HostDelete, has it send
 *                 numbered messages every 20 ms from then on, prints "cut
 *                 node2 now" and waits in pvm_recv for an answer that
 *                 never comes.  When node2 is declared dead: what the
 *                 receive returned, whether the numbered messages that
 *                 came before were in order, the notifies, what sends to
 *                 the task return, the host table; on stderr the time
 *                 from "cut" to the end of the receive.  Then it prints
 *                 "heal node2 now", waits for FILE to exist (the script
 *                 healed the link), and says how many messages came in
 *                 the 2 s after (none may: the old incarnation is gone).
 *   flood         spawns a task on node2 that stops itself (SIGSTOP),
 *                 prints "cut node2 now" and sends it 1 MiB messages
 *                 over a direct route until a send fails: the sends
 *                 block once the socket buffers are full, and the one
 *                 blocked when node2 is declared dead must return
 *                 PvmNoHost (no call waits for ever); on stderr, how
 *                 much was sent and the time from the cut
 *   chat N        spawns a task on node2 and exchanges N checked,
 *                 numbered messages with it, one every 100 ms (for a
 *                 slow, lossy link that must not be declared dead)
 *   chatfor S     the same for S seconds; says how many came (over a
 *                 direct route, or through the daemons when MHPART_ROUTE
 *                 is "default")
 *   again         adds node2 again and exchanges a message with a task
 *                 spawned there
 * The other host is node2, or the one MHPART_HOST names.  Copies spawned
 * run "child-echo": they answer each message until told to stop.  Exit status 0, or 1 when
 * something went wrong (said on stderr).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvm3.h"
#include "mhutil.h"

#define TAG_DATA	31
#define TAG_ECHO	32
#define TAG_EXIT	33
#define TAG_HDEL	34
#define TAG_STOP	35
#define TAG_CHATTER	36
#define TAG_SEQ		37
#define TAG_SLEEP	38
#define FLOOD_SIZE	(1 << 20)

static int failed;
static const char *victim = "node2";	/* the host cut off */

static void bad(const char *what)
{
	fprintf(stderr, "mhpart: %s\n", what);
	failed = 1;
}

static long long now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Sends message number `k' (k + 1 ints of value k, checksummed). */
static int send_data(int tid, int k)
{
	int buf[64], i, n = k % 64 + 1;
	unsigned sum;

	for (i = 0; i < n; i++)
		buf[i] = k * 7 + i;
	sum = checksum((unsigned char *)buf, n * (int)sizeof(int));
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&k, 1, 1);
	pvm_pkint(&n, 1, 1);
	pvm_pkint(buf, n, 1);
	pvm_pkuint(&sum, 1, 1);
	return pvm_send(tid, TAG_DATA);
}

/* Checks the echo of message number `k'; 0 when it came intact, in
 * order, within 10 s. */
static int recv_echo(int tid, int k)
{
	struct timeval tmo = { 10, 0 };
	int buf[64], i, n, got;
	unsigned sum;

	if (pvm_trecv(tid, TAG_ECHO, &tmo) <= 0)
		return -1;
	pvm_upkint(&got, 1, 1);
	pvm_upkint(&n, 1, 1);
	if (got != k || n != k % 64 + 1)
		return -1;
	pvm_upkint(buf, n, 1);
	pvm_upkuint(&sum, 1, 1);
	for (i = 0; i < n; i++)
		if (buf[i] != k * 7 + i)
			return -1;
	return sum == checksum((unsigned char *)buf, n * (int)sizeof(int)) ?
	       0 : -1;
}

static void child_echo(void)
{
	int parent = pvm_parent(), bufid, len, tag, src, k, n, buf[64];
	unsigned sum;

	pvm_setopt(PvmRoute, PvmAllowDirect);
	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0)
			break;
		pvm_bufinfo(bufid, &len, &tag, &src);
		if (tag == TAG_CHATTER)
			break;
		if (tag == TAG_SLEEP) {
			/* stopped: what is sent to us fills the buffers */
			pvm_initsend(PvmDataDefault);
			pvm_send(parent, TAG_SLEEP);
			kill(getpid(), SIGSTOP);
			continue;
		}
		if (tag != TAG_DATA)
			goto out;
		pvm_upkint(&k, 1, 1);
		pvm_upkint(&n, 1, 1);
		if (n < 1 || n > 64)
			break;
		pvm_upkint(buf, n, 1);
		pvm_upkuint(&sum, 1, 1);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&k, 1, 1);
		pvm_pkint(&n, 1, 1);
		pvm_pkint(buf, n, 1);
		pvm_pkuint(&sum, 1, 1);
		pvm_send(parent, TAG_ECHO);
	}
	/* numbered messages until stopped (or killed with the host) */
	for (k = 0; pvm_nrecv(parent, TAG_STOP) == 0; k++) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&k, 1, 1);
		if (pvm_send(parent, TAG_SEQ) < 0)
			break;
		usleep(20000);
	}
out:
	pvm_exit();
}

static int spawn_child(const char *mode, int direct)
{
	char *args[] = { (char *)mode, NULL };
	int tid;

	if (direct)
		pvm_setopt(PvmRoute, PvmRouteDirect);
	else
		pvm_setopt(PvmRoute, PvmDontRoute);
	if (pvm_spawn("mhpart", args, PvmTaskHost, (char *)victim, 1,
		      &tid) != 1) {
		bad("spawn on the other host failed");
		return -1;
	}
	return tid;
}

/* `n' echoed messages with `tid', `gap_ms' apart; 0 when all came. */
static int exchange(int tid, int n, int gap_ms)
{
	int k;

	for (k = 0; k < n; k++) {
		if (send_data(tid, k) < 0 || recv_echo(tid, k) < 0) {
			fprintf(stderr, "mhpart: message %d of %d lost or "
				"damaged\n", k, n);
			failed = 1;
			return -1;
		}
		if (gap_ms)
			usleep((useconds_t)gap_ms * 1000);
	}
	return 0;
}

/* Message number `k' echoed by `tid', then 100 ms of rest; 0 when it
 * came back intact and in order. */
static int exchange_one(int tid, int k)
{
	if (send_data(tid, k) < 0 || recv_echo(tid, k) < 0) {
		fprintf(stderr, "mhpart: message %d lost or damaged\n", k);
		failed = 1;
		return -1;
	}
	usleep(100000);
	return 0;
}

/* Takes the numbered messages queued from `tid'; 1 when they were
 * numbered from 0 on, in order, and at least one came. */
static int seq_in_order(int tid)
{
	int k, want = 0;

	while (pvm_nrecv(tid, TAG_SEQ) > 0) {
		pvm_upkint(&k, 1, 1);
		if (k != want++)
			return 0;
	}
	return want > 0;
}

static void do_cut(int direct, const char *healed)
{
	int tid, dt, bufid, len, tag, src, v, i, rc, n, a;
	struct timeval tmo = { 10, 0 };
	long long t0;

	tid = spawn_child("child-echo", direct);
	if (tid < 0 || exchange(tid, 20, 0) < 0)
		return;
	printf("20 messages exchanged with a task of %s\n", victim);
	dt = pvm_tidtohost(tid);
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &tid);
	pvm_notify(PvmHostDelete, TAG_HDEL, 1, &dt);
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_CHATTER);
	usleep(200000);
	printf("cut %s now\n", victim);
	fflush(stdout);
	t0 = now_ms();
	rc = pvm_recv(tid, TAG_ECHO);
	fprintf(stderr, "mhpart: the receive returned after %lld ms\n",
		now_ms() - t0);
	printf("recv from the task of the lost host = %d\n", rc);
	printf("its numbered messages before: %s\n",
	       seq_in_order(tid) ? "in order" : "missing or out of order");
	for (i = 0; i < 2; i++) {
		bufid = pvm_trecv(-1, -1, &tmo);
		if (bufid <= 0) {
			bad("a notify did not come");
			return;
		}
		pvm_bufinfo(bufid, &len, &tag, &src);
		pvm_upkint(&v, 1, 1);
		printf("%s %s\n", tag == TAG_EXIT ? "task exit:" :
		       tag == TAG_HDEL ? "host delete:" : "other:",
		       v == tid ? "the task there" : v == dt ? victim : "?");
	}
	pvm_initsend(PvmDataDefault);
	printf("send to it = %d\n", pvm_send(tid, TAG_DATA));
	printf("mcast to it = %d\n", pvm_mcast(&tid, 1, TAG_DATA));
	printf("psend to it = %d\n", pvm_psend(tid, TAG_DATA, &v, 1, PVM_INT));
	printf("nrecv from it = %d\n", pvm_nrecv(tid, -1));
	if (pvm_config(&n, &a, NULL) >= 0)
		printf("%d host(s) left\n", n);
	printf("heal %s now\n", victim);
	fflush(stdout);
	for (i = 0; i < 400 && access(healed, F_OK) != 0; i++)
		usleep(50000);
	sleep(2);
	for (n = 0; pvm_nrecv(-1, -1) > 0; n++)
		;
	printf("messages after the heal: %d\n", n);
}

static void do_flood(void)
{
	struct timeval tmo = { 10, 0 };
	char *buf = calloc(1, FLOOD_SIZE);
	int tid = spawn_child("child-echo", 1), rc, n = 0;
	long long t0;

	if (tid < 0 || !buf || exchange(tid, 5, 0) < 0) {
		free(buf);
		return;
	}
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_SLEEP);
	if (pvm_trecv(tid, TAG_SLEEP, &tmo) <= 0) {
		bad("the other task did not go to sleep");
		free(buf);
		return;
	}
	printf("cut %s now\n", victim);
	fflush(stdout);
	t0 = now_ms();
	pvm_initsend(PvmDataInPlace);
	pvm_pkbyte(buf, FLOOD_SIZE, 1);
	while ((rc = pvm_send(tid, TAG_DATA)) >= 0 && now_ms() - t0 < 60000)
		n++;
	fprintf(stderr, "mhpart: %d MiB sent, then the send returned after "
		"%lld ms\n", n, now_ms() - t0);
	printf("flood to the task of the lost host ended with %d\n", rc);
	free(buf);
}

static void do_chat(int n)
{
	int tid = spawn_child("child-echo", 1);

	if (tid < 0 || exchange(tid, n, 100) < 0)
		return;
	printf("%d messages exchanged with a task of %s\n", n, victim);
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_STOP);
}

/* Messages as do_chat does for `secs' seconds; says how many came. */
static void do_chat_for(int secs)
{
	const char *route = getenv("MHPART_ROUTE");
	int tid = spawn_child("child-echo", !route || strcmp(route, "default")),
	    k;
	long long t0 = now_ms();

	if (tid < 0)
		return;
	for (k = 0; now_ms() - t0 < secs * 1000LL; k++)
		if (exchange_one(tid, k) < 0)
			return;
	printf("%d s: %d messages exchanged with a task of %s, intact and "
	       "in order\n", secs, k, victim);
	fprintf(stderr, "mhpart: %d messages in %lld ms\n", k,
		now_ms() - t0);
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_STOP);
}

static void do_again(void)
{
	char *hn[1] = { (char *)victim };
	int info, tid, n, a;

	if (pvm_addhosts(hn, 1, &info) != 1) {
		fprintf(stderr, "mhpart: pvm_addhosts %s: %d\n", victim,
			info);
		failed = 1;
		return;
	}
	if (pvm_config(&n, &a, NULL) >= 0)
		printf("%s added again: %d hosts\n", victim, n);
	tid = spawn_child("child-echo", 1);
	if (tid < 0 || exchange(tid, 5, 0) < 0)
		return;
	printf("5 messages exchanged with a new task of %s\n", victim);
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_STOP);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (getenv("MHPART_HOST") && *getenv("MHPART_HOST"))
		victim = getenv("MHPART_HOST");
	if (!strcmp(mode, "child-echo")) {
		child_echo();
		return 0;
	}
	if (pvm_mytid() < 0)
		return 1;
	if (!strcmp(mode, "cut") && argc > 3)
		do_cut(!strcmp(argv[2], "direct"), argv[3]);
	else if (!strcmp(mode, "flood"))
		do_flood();
	else if (!strcmp(mode, "chat") && argc > 2)
		do_chat(atoi(argv[2]));
	else if (!strcmp(mode, "chatfor") && argc > 2)
		do_chat_for(atoi(argv[2]));
	else if (!strcmp(mode, "again"))
		do_again();
	else
		bad("usage: mhpart cut direct|default FILE | flood | chat N | "
		    "chatfor S | again");
	fflush(stdout);
	pvm_exit();
	return failed;
}

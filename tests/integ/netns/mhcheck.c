/*
 * mhcheck - a PVM program for the multi-host tests (tests/integ/mh-*.sh).
 *
 * Plain PVM 3.4: the same source is built against copvm by `make check'
 * and against stock PVM by the tests, and both runs' outputs are
 * compared.  It prints only what does not depend on the run (host names
 * rather than tids, sorted lists), so that the outputs can match.  Each
 * copy it spawns runs it again with a "child-..." mode; spawn finds it
 * as "mhcheck" on the search path of each host.
 *
 * usage: mhcheck MODE [ARGS]
 *   hosts N       wait (30 s at most) until the machine has N hosts
 *   config        the host table
 *   mcast         one task per host, one pvm_mcast to all, their answers
 *   tasks         8 tasks spread by default, pvm_tasks of all and of each
 *   routes R      messages of 0 B .. 4 MiB with checksums, and order, to a
 *                 task on node2; R = direct (PvmRouteDirect on both
 *                 sides) or default (PvmDontRoute)
 *   place         a sequence of spawns, where each task landed
 *   notify        TaskExit notifies on remote tasks, after their messages
 *   mbox          the mailbox used from several hosts
 *   fault         (copvm) a host deleted and one whose daemon is killed,
 *                 with their tasks' output caught, see mh-fault.sh
 *   add HOST...   pvm_addhosts, and what it says for each
 *   hold          8 tasks spread by default, then wait for ever
 *   killsender    (mh-uring.sh) a task on node2 floods us with 16 MiB
 *                 messages over a direct route until the script kills
 *                 it: every whole message intact, then its exit notify
 *   killreceiver  (mh-uring.sh) we flood a task on node2 that stopped
 *                 itself, until the script kills it: our sends return,
 *                 its exit notify comes
 *   spin          (mh-exp-skew.sh) enrol, say our pid, then spin on the
 *                 CPU until killed, for the daemon's EXP to stop and
 *                 continue
 * Exit status 0, or 1 when something went wrong (said on stderr).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvm3.h"
#include "mhutil.h"
#include "cosched_page.h"

#define TAG_DATA	11
#define TAG_ECHO	12
#define TAG_SEQ		13
#define TAG_DONE	14
#define TAG_EXIT	15
#define TAG_HDEL	16
#define TAG_HADD	17
#define TAG_TOKEN	18
#define TAG_HADD_ONCE	19
#define TAG_FLOOD	20
#define TAG_READY	21
#define MAX_SIZE	(4 << 20)
#define FLOOD_SIZE	(16 << 20)

static int failed;

static void bad(const char *what)
{
	fprintf(stderr, "mhcheck: %s\n", what);
	failed = 1;
}

/* The name of the host whose daemon is `dtid'. */
static const char *host_name(int dtid)
{
	static char name[64];
	struct pvmhostinfo *h;
	int n, a, i;

	snprintf(name, sizeof(name), "?%x", dtid);
	if (pvm_config(&n, &a, &h) < 0)
		return name;
	for (i = 0; i < n; i++)
		if (h[i].hi_tid == dtid)
			snprintf(name, sizeof(name), "%s", h[i].hi_name);
	return name;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints `n' lines sorted. */
static void print_sorted(char **lines, int n)
{
	int i;

	qsort(lines, (size_t)n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i++) {
		printf("%s\n", lines[i]);
		free(lines[i]);
	}
}


static int spawn_on(const char *host, char **args, int n, int *tids)
{
	return pvm_spawn("mhcheck", args, host ? PvmTaskHost : PvmTaskDefault,
			 (char *)host, n, tids);
}

static int wait_hosts(int want)
{
	int i, n, a;

	for (i = 0; i < 300; i++) {
		if (pvm_config(&n, &a, NULL) >= 0 && n >= want)
			return 0;
		usleep(100000);
	}
	return 1;
}

static void show_config(void)
{
	struct pvmhostinfo *h;
	int n, a, i;

	if (pvm_config(&n, &a, &h) < 0) {
		bad("pvm_config failed");
		return;
	}
	printf("%d hosts, %d arch\n", n, a);
	for (i = 0; i < n; i++)
		printf("%s dtid=%x arch=%s speed=%d dsig=%x mstat=%d\n",
		       h[i].hi_name, h[i].hi_tid, h[i].hi_arch, h[i].hi_speed,
		       h[i].hi_dsig, pvm_mstat(h[i].hi_name));
	printf("mstat(nosuchhost)=%d\n", pvm_mstat("nosuchhost"));
}

/* ---- children ---- */

static void child_token(void)
{
	char buf[64];
	int me = pvm_mytid();

	pvm_recv(pvm_parent(), TAG_TOKEN);
	pvm_upkstr(buf);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&me, 1, 1);
	pvm_pkstr(buf);
	pvm_send(pvm_parent(), TAG_TOKEN);
	pvm_exit();
}

static void child_echo(int direct)
{
	int parent = pvm_parent(), len, tag, src, bufid, seq, want = 0;
	unsigned char *buf = malloc(MAX_SIZE);
	unsigned sum;

	pvm_setopt(PvmRoute, direct ? PvmRouteDirect : PvmDontRoute);
	for (;;) {
		bufid = pvm_recv(parent, -1);
		if (bufid < 0 || !buf)
			break;
		pvm_bufinfo(bufid, &len, &tag, &src);
		if (tag == TAG_DATA) {
			pvm_upkint(&len, 1, 1);
			if (len > 0)
				pvm_upkbyte((char *)buf, len, 1);
			sum = checksum(buf, len);
			pvm_initsend(PvmDataRaw);
			pvm_pkint(&len, 1, 1);
			pvm_pkuint(&sum, 1, 1);
			if (len > 0)
				pvm_pkbyte((char *)buf, len, 1);
			pvm_send(parent, TAG_ECHO);
		} else if (tag == TAG_SEQ) {
			pvm_upkint(&seq, 1, 1);
			if (seq != want)
				want = -1000000;
			want++;
		} else if (tag == TAG_DONE) {
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&want, 1, 1);
			pvm_send(parent, TAG_DONE);
		} else {
			break;
		}
	}
	free(buf);
	pvm_exit();
}

/* The contents of flood message `k'. */
static void flood_fill(unsigned char *p, int n, int k)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + k + (i >> 12));
}

/* Floods the parent with 16 MiB messages over a direct route until it
 * is killed (killsender). */
static void child_flood(void)
{
	int parent = pvm_parent(), k;
	unsigned char *buf = malloc(FLOOD_SIZE);

	pvm_setopt(PvmRoute, PvmRouteDirect);
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_READY);
	for (k = 0; buf; k++) {
		flood_fill(buf, FLOOD_SIZE, k);
		pvm_initsend(PvmDataRaw);
		pvm_pkint(&k, 1, 1);
		pvm_pkbyte((char *)buf, FLOOD_SIZE, 1);
		if (pvm_send(parent, TAG_FLOOD) < 0)
			break;
	}
	free(buf);
	pvm_exit();
}

/* Takes one message, answers, then stops itself for the parent's flood
 * to fill the circuit until the script kills it (killreceiver). */
static void child_sink(void)
{
	int parent = pvm_parent();

	pvm_recv(parent, TAG_FLOOD);
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_READY);
	raise(SIGSTOP);
	pvm_recv(parent, TAG_EXIT);
	pvm_exit();
}

/* Waits for a message, sends "last words" and exits at once (notify);
 * with `direct', over a direct route. */
static void child_last(int direct)
{
	int me = pvm_mytid();

	if (direct)
		pvm_setopt(PvmRoute, PvmRouteDirect);
	pvm_recv(pvm_parent(), TAG_DATA);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&me, 1, 1);
	pvm_send(pvm_parent(), TAG_DATA);
	pvm_exit();
}

static void child_mbox(void)
{
	int me = pvm_mytid(), v = PvmNoHost, idx;
	char host[64];

	snprintf(host, sizeof(host), "%s", host_name(pvm_tidtohost(me)));
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(host);
	idx = pvm_putinfo("mh-class", pvm_getsbuf(), PvmMboxMultiInstance);
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(host);
	pvm_putinfo("mh-persist", pvm_getsbuf(), PvmMboxPersistent |
		    PvmMboxMultiInstance);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&idx, 1, 1);
	pvm_send(pvm_parent(), TAG_DATA);
	/* wait for the parent's go, then read what it left */
	pvm_recv(pvm_parent(), TAG_TOKEN);
	if ((idx = pvm_recvinfo("mh-from-parent", 0, PvmMboxDefault)) > 0) {
		pvm_setrbuf(idx);	/* as pvm_putinfo(3PVM) does it */
		pvm_upkint(&v, 1, 1);
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(pvm_parent(), TAG_DATA);
	pvm_recv(pvm_parent(), TAG_DONE);
	pvm_exit();
}

static void child_sleep(void)
{
	pvm_mytid();
	pvm_recv(pvm_parent(), TAG_DONE);
	pvm_exit();
}

/* ---- modes ---- */

static void do_mcast(void)
{
	struct pvmhostinfo *h;
	char *args[] = { "child-token", NULL }, *lines[64], line[200], tok[100];
	int n, a, i, tids[64], got = 0, tid, nl = 0;

	pvm_config(&n, &a, &h);
	for (i = 0; i < n && i < 64; i++)
		if (spawn_on(h[i].hi_name, args, 1, &tids[i]) != 1)
			bad("spawn on a host failed");
	pvm_initsend(PvmDataDefault);
	pvm_pkstr("token-42");
	if (pvm_mcast(tids, n, TAG_TOKEN) < 0)
		bad("pvm_mcast failed");
	for (i = 0; i < n; i++) {
		if (pvm_recv(-1, TAG_TOKEN) < 0)
			break;
		pvm_upkint(&tid, 1, 1);
		pvm_upkstr(tok);
		snprintf(line, sizeof(line), "%s got %.60s",
			 host_name(pvm_tidtohost(tid)), tok);
		lines[nl++] = strdup(line);
		got++;
	}
	printf("%d hosts, %d answers\n", n, got);
	print_sorted(lines, nl);
}

static void do_tasks(void)
{
	struct pvmtaskinfo *t;
	struct pvmhostinfo *h;
	char *args[] = { "child-sleep", NULL }, *lines[256], line[200];
	int tids[8], n, a, i, k, nl = 0, me = pvm_mytid();

	if (spawn_on(NULL, args, 8, tids) != 8)
		bad("spawn of 8 failed");
	if (pvm_tasks(0, &n, &t) < 0) {
		bad("pvm_tasks(0) failed");
		return;
	}
	/* only ours: what earlier programs left may still be exiting, and
	 * stock lists a stray tid-0 entry per slave */
	for (i = 0; i < n && nl < 256; i++) {
		if (t[i].ti_tid == 0 || (t[i].ti_tid != me &&
					 t[i].ti_ptid != me))
			continue;
		snprintf(line, sizeof(line), "task on %s parent=%s flag=%d %s",
			 host_name(t[i].ti_host), t[i].ti_ptid == me ? "me" :
			 t[i].ti_ptid ? "other" : "none", t[i].ti_flag & ~4,
			 t[i].ti_tid == me ? "(me)" : t[i].ti_a_out);
		lines[nl++] = strdup(line);
	}
	print_sorted(lines, nl);
	pvm_config(&n, &a, &h);
	for (i = 0; i < n; i++) {
		pvm_tasks(h[i].hi_tid, &k, &t);
		for (a = 0, nl = 0; a < k; a++)
			nl += t[a].ti_tid != 0 && (t[a].ti_ptid == me ||
						   t[a].ti_tid == me);
		printf("pvm_tasks(%s) = %d\n", h[i].hi_name, nl);
	}
	printf("pvm_tasks(one remote) = %d\n",
	       pvm_tasks(tids[0], &k, &t) < 0 ? -1 : k);
	printf("pvm_pstat(remote) = %d\n", pvm_pstat(tids[0]));
	printf("pvm_tidtohost(remote) = %s\n",
	       host_name(pvm_tidtohost(tids[0])));
	for (i = 0; i < 8 && pvm_tidtohost(tids[i]) == pvm_tidtohost(me);
	     i++)
		;
	if (i < 8) {
		struct timeval clk, delta;

		printf("pvm_sendsig(remote, 0) = %d\n", pvm_sendsig(tids[i], 0));
		printf("pvm_hostsync(remote host) = %d\n",
		       pvm_hostsync(pvm_tidtohost(tids[i]), &clk, &delta));
		pvm_notify(PvmTaskExit, TAG_EXIT, 1, &tids[i]);
		printf("pvm_kill(remote) = %d\n", pvm_kill(tids[i]));
		pvm_recv(-1, TAG_EXIT);
		pvm_upkint(&k, 1, 1);
		printf("exit notify after the kill: %s\n",
		       k == tids[i] ? "yes" : "no");
		printf("pvm_pstat(killed) = %d\n", pvm_pstat(tids[i]));
	}
	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, 8, TAG_DONE);
}


/* The TCP transport this task's coscheduling page names
 * (COSCHED_XPORT_*), -1 without a page (stock PVM). */
static int page_tcp_xport(void)
{
	const char *tmp = getenv("PVM_TMP");
	char path[512];
	int fd, v = -1;

	snprintf(path, sizeof(path), "%s/copvm-%u/" COSCHED_DIR "/"
		 COSCHED_PAGE_FMT, tmp && *tmp ? tmp : "/tmp",
		 (unsigned)getuid(), (unsigned)pvm_mytid());
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &v, sizeof(v), offsetof(struct cosched_page,
					       tcp_xport)) != sizeof(v))
		v = -1;
	close(fd);
	return v;
}

static void do_routes(int direct)
{
	static const int sizes[] = { 0, 1, 7, 1000, 4096, 65536, 100003,
				     1 << 20, MAX_SIZE };
	char *args[] = { "child-echo", direct ? "direct" : "default", NULL };
	unsigned char *out = malloc(MAX_SIZE), *in = malloc(MAX_SIZE);
	unsigned sum;
	int child, i, j, len, bufid, seqs = 500, fds0, fds1, *fds;

	if (!out || !in) {
		bad("out of memory");
		return;
	}
	pvm_setopt(PvmRoute, direct ? PvmRouteDirect : PvmDontRoute);
	if (spawn_on("node2", args, 1, &child) != 1) {
		bad("spawn on node2 failed");
		return;
	}
	fds0 = pvm_getfds(&fds);
	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		len = sizes[i];
		for (j = 0; j < len; j++)
			out[j] = (unsigned char)(j * 131 + len + i);
		pvm_initsend(PvmDataRaw);
		pvm_pkint(&len, 1, 1);
		if (len > 0)
			pvm_pkbyte((char *)out, len, 1);
		if (pvm_send(child, TAG_DATA) < 0)
			bad("pvm_send failed");
		bufid = pvm_recv(child, TAG_ECHO);
		if (bufid < 0) {
			bad("no echo");
			break;
		}
		pvm_upkint(&j, 1, 1);
		pvm_upkuint(&sum, 1, 1);
		if (j > 0)
			pvm_upkbyte((char *)in, j, 1);
		printf("%d bytes: %s\n", len, j == len &&
		       sum == checksum(out, len) &&
		       !memcmp(in, out, (size_t)len) ? "ok" : "CORRUPT");
	}
	for (i = 0; i < seqs; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		pvm_send(child, TAG_SEQ);
	}
	pvm_initsend(PvmDataDefault);
	pvm_send(child, TAG_DONE);
	pvm_recv(child, TAG_DONE);
	pvm_upkint(&j, 1, 1);
	printf("%d messages in order: %s\n", seqs, j == seqs ? "yes" : "NO");
	fds1 = pvm_getfds(&fds);
	fprintf(stderr, "mhcheck: descriptors %d before, %d after\n", fds0,
		fds1);
	fprintf(stderr, "mhcheck: io_uring rings %d\n", uring_fds());
	fprintf(stderr, "mhcheck: page tcp transport %d\n", page_tcp_xport());
	pvm_initsend(PvmDataDefault);
	pvm_send(child, TAG_EXIT);
	free(out);
	free(in);
}

/* What a descriptors check prints: the fds of pvm_getfds and the rings. */
static void show_fds(const char *when)
{
	int *fds;

	fprintf(stderr, "mhcheck: descriptors %d %s\n", pvm_getfds(&fds),
		when);
	fprintf(stderr, "mhcheck: io_uring rings %d\n", uring_fds());
}

/* A flooding sender on node2 killed mid-stream (see the top). */
static void do_killsender(void)
{
	char *args[] = { "child-flood", NULL };
	unsigned char *in = malloc(FLOOD_SIZE), *want = malloc(FLOOD_SIZE);
	int child, got = 0, intact = 1, k, len, tag, src, bufid, seen_exit = 0;

	if (!in || !want) {
		bad("out of memory");
		return;
	}
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (spawn_on("node2", args, 1, &child) != 1) {
		bad("spawn on node2 failed");
		return;
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &child);
	pvm_recv(child, TAG_READY);
	/* until the notify, then until a second passes without a message:
	 * what the dead sender's kernel still had to send may come after
	 * the notify (it reached us later), whole or not at all */
	for (;;) {
		struct timeval tmo = { 1, 0 };

		bufid = seen_exit ? pvm_trecv(-1, -1, &tmo) : pvm_recv(-1, -1);
		if (bufid == 0)
			break;
		if (bufid < 0) {
			bad("pvm_recv failed");
			break;
		}
		pvm_bufinfo(bufid, &len, &tag, &src);
		if (tag == TAG_EXIT) {
			seen_exit = 1;
			continue;
		}
		if (tag != TAG_FLOOD || len < FLOOD_SIZE) {
			bad("an unexpected message");
			intact = 0;
			continue;
		}
		pvm_upkint(&k, 1, 1);
		pvm_upkbyte((char *)in, FLOOD_SIZE, 1);
		flood_fill(want, FLOOD_SIZE, k);
		if (k != got || memcmp(in, want, FLOOD_SIZE))
			intact = 0;
		if (++got == 1)
			printf("kill the sender now\n");
	}
	printf("sender's exit notify: %s\n", seen_exit ? "yes" : "no");
	printf("whole messages intact and in order: %s\n",
	       got > 0 && intact ? "yes" : "NO");
	show_fds("after");
	free(in);
	free(want);
}

/* A stopped receiver on node2 killed while we flood it (see the top). */
static void do_killreceiver(void)
{
	char *args[] = { "child-sink", NULL };
	unsigned char *buf = malloc(FLOOD_SIZE);
	int child, i, rc, sends_ok = 1;

	if (!buf) {
		bad("out of memory");
		return;
	}
	pvm_setopt(PvmRoute, PvmRouteDirect);
	if (spawn_on("node2", args, 1, &child) != 1) {
		bad("spawn on node2 failed");
		return;
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &child);
	pvm_initsend(PvmDataDefault);
	pvm_send(child, TAG_FLOOD);
	pvm_recv(child, TAG_READY);
	printf("kill the receiver now\n");
	for (i = 0; i < 16; i++) {
		flood_fill(buf, FLOOD_SIZE, i);
		pvm_initsend(PvmDataRaw);
		pvm_pkbyte((char *)buf, FLOOD_SIZE, 1);
		rc = pvm_send(child, TAG_FLOOD);
		if (rc < 0 && rc != PvmNoTask)
			sends_ok = 0;
	}
	printf("sends returned: %s\n", sends_ok ? "yes" : "NO");
	rc = pvm_recv(-1, TAG_EXIT);
	printf("receiver's exit notify: %s\n", rc >= 0 ? "yes" : "no");
	show_fds("after");
	free(buf);
}

static void do_place(void)
{
	static const struct { int flag; char *where; int n; } seq[] = {
		{ 0, NULL, 1 }, { 0, NULL, 5 }, { 0, NULL, 1 }, { 0, NULL, 1 },
		{ PvmTaskHost | PvmHostCompl, "node2", 1 }, { 0, NULL, 6 },
		{ PvmTaskHost | PvmHostCompl, "node3", 4 }, { 0, NULL, 2 },
		{ PvmTaskArch, "LINUX64", 7 }, { PvmTaskHost, "node3", 3 },
		{ 0, NULL, 1 }, { PvmTaskHost | PvmHostCompl, ".", 4 },
		{ 0, NULL, 9 }, { PvmTaskHost, "nosuchhost", 2 },
		{ PvmTaskArch, "SUN4", 1 }, { 0, NULL, 1 },
	};
	char *args[] = { "child-sleep", NULL };
	int tids[16], all[128], na = 0, i, k, rc;

	for (i = 0; i < (int)(sizeof(seq) / sizeof(seq[0])); i++) {
		rc = pvm_spawn("mhcheck", args, seq[i].flag, seq[i].where,
			       seq[i].n, tids);
		printf("spawn %d (flag %d, %s) = %d:", seq[i].n, seq[i].flag,
		       seq[i].where ? seq[i].where : "-", rc);
		for (k = 0; k < seq[i].n; k++) {
			if (tids[k] > 0) {
				printf(" %s", host_name(pvm_tidtohost(tids[k])));
				all[na++] = tids[k];
			} else {
				printf(" %d", tids[k]);
			}
		}
		printf("\n");
	}
	pvm_initsend(PvmDataDefault);
	pvm_mcast(all, na, TAG_DONE);
}

static void do_notify(void)
{
	char *args[] = { "child-last", NULL, NULL }, *lines[8], line[100];
	static const char *where[4] = { "node2", "node3", "node1", "node4" };
	int kids[4], i, tid, v, bufid, len, tag, src, nl = 0;
	int order_ok = 1, seen[4] = { 0, 0, 0, 0 };

	/* the one on node4 answers over a direct route */
	for (i = 0; i < 4; i++) {
		args[1] = i == 3 ? "direct" : NULL;
		if (spawn_on(where[i], args, 1, &kids[i]) != 1)
			bad("spawn failed");
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, 4, kids);
	pvm_initsend(PvmDataDefault);
	pvm_mcast(kids, 4, TAG_DATA);
	/* per child: its message must come before its exit notify */
	for (i = 0; i < 8; i++) {
		bufid = pvm_recv(-1, -1);
		pvm_bufinfo(bufid, &len, &tag, &src);
		pvm_upkint(&v, 1, 1);
		for (tid = 0; tid < 4 && kids[tid] != v; tid++)
			;
		if (tid == 4) {
			bad("message from an unknown task");
			continue;
		}
		if (tag == TAG_DATA)
			seen[tid] = 1;
		else if (tag == TAG_EXIT && !seen[tid])
			order_ok = 0;
		snprintf(line, sizeof(line), "%s of the task on %s",
			 tag == TAG_DATA ? "message" : "exit notify",
			 host_name(pvm_tidtohost(v)));
		lines[nl++] = strdup(line);
	}
	print_sorted(lines, nl);
	printf("messages before exit notifies: %s\n", order_ok ? "yes" : "NO");
	/* a notify on a task that does not exist (any more) fires at once */
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, kids);
	bufid = pvm_recv(-1, TAG_EXIT);
	pvm_upkint(&v, 1, 1);
	printf("notify on a gone task: %s\n", v == kids[0] ? "at once" : "?");
}

static void do_mbox(void)
{
	char *args[] = { "child-mbox", NULL }, host[64], *lines[16], line[100];
	struct timeval tmo = { 10, 0 };
	int kids[2], i, v, nl = 0, nclasses, *nent;
	struct pvmmboxinfo *classes;

	if (spawn_on("node3", args, 1, &kids[0]) != 1 ||
	    spawn_on("node4", args, 1, &kids[1]) != 1) {
		bad("spawn failed");
		return;
	}
	for (i = 0; i < 2; i++)
		if (pvm_trecv(-1, TAG_DATA, &tmo) <= 0) {
			bad("no answer from a child");
			return;
		}
	for (i = 0; i < 2; i++) {
		if ((v = pvm_recvinfo("mh-class", i, PvmMboxDefault)) < 0)
			continue;
		pvm_setrbuf(v);
		pvm_upkstr(host);
		snprintf(line, sizeof(line), "mh-class has %s", host);
		lines[nl++] = strdup(line);
	}
	print_sorted(lines, nl);
	v = 4242;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	printf("putinfo from here = %d\n",
	       pvm_putinfo("mh-from-parent", pvm_getsbuf(), PvmMboxDefault));
	pvm_initsend(PvmDataDefault);
	pvm_mcast(kids, 2, TAG_TOKEN);
	for (i = 0; i < 2; i++) {
		pvm_recv(-1, TAG_DATA);
		pvm_upkint(&v, 1, 1);
		printf("a child read %d\n", v);
	}
	/* (the notify first: stock may not fire one on a remote task that
	 * is already gone) */
	pvm_notify(PvmTaskExit, TAG_EXIT, 2, kids);
	pvm_initsend(PvmDataDefault);
	pvm_mcast(kids, 2, TAG_DONE);
	pvm_recv(-1, TAG_EXIT);
	pvm_recv(-1, TAG_EXIT);
	if (pvm_getmboxinfo("mh-*", &nclasses, &classes) >= 0) {
		for (i = 0, nl = 0; i < nclasses; i++) {
			nent = &classes[i].mi_nentries;
			snprintf(line, sizeof(line), "after exits: %s has %d",
				 classes[i].mi_name, *nent);
			lines[nl++] = strdup(line);
		}
		print_sorted(lines, nl);
	}
}

/* See mh-fault.sh: a host deleted with tasks on it, one whose daemon is
 * killed (the script does that when we say "kill node3 now"). */
static void do_fault(void)
{
	char *args[] = { "child-sleep", NULL }, *hn[3] = { "node4", "nosuch",
							   "node1" };
	int t3[2], t4[2], all[4], dt[2] = { 0xc0000, 0x100000 }, infos[4], i;
	int bufid, len, tag, src, v, rc, t2;
	struct timeval tmo = { 15, 0 };

	/* the output of the tasks whose host goes can never end: pvm_exit
	 * must not wait for it (it did, for ever) */
	pvm_catchout(stderr);
	if (spawn_on("node3", args, 2, t3) != 2 ||
	    spawn_on("node4", args, 2, t4) != 2) {
		bad("spawn failed");
		return;
	}
	memcpy(all, t3, sizeof(t3));
	memcpy(all + 2, t4, sizeof(t4));
	pvm_notify(PvmTaskExit, TAG_EXIT, 4, all);
	pvm_notify(PvmHostDelete, TAG_HDEL, 2, dt);
	pvm_notify(PvmHostAdd, TAG_HADD, -1, NULL);
	/* a second request, other tag, once: both are kept */
	pvm_notify(PvmHostAdd, TAG_HADD_ONCE, 1, NULL);
	rc = pvm_delhosts(hn, 3, infos);
	printf("delhosts node4 nosuch node1 = %d: %d %d %d\n", rc, infos[0],
	       infos[1], infos[2]);
	for (i = 0; i < 3; i++) {
		bufid = pvm_trecv(-1, -1, &tmo);
		if (bufid <= 0) {
			bad("no notify after pvm_delhosts");
			return;
		}
		pvm_bufinfo(bufid, &len, &tag, &src);
		pvm_upkint(&v, 1, 1);
		printf("%s %s\n", tag == TAG_EXIT ? "task exit:" : "host delete:",
		       v == t4[0] || v == t4[1] ? "a task of node4" :
		       v == 0x100000 ? "node4" : "?");
	}
	printf("kill node3 now\n");
	fflush(stdout);
	for (i = 0; i < 3; i++) {
		bufid = pvm_trecv(-1, -1, &tmo);
		if (bufid <= 0) {
			bad("no notify after node3's daemon died");
			return;
		}
		pvm_bufinfo(bufid, &len, &tag, &src);
		pvm_upkint(&v, 1, 1);
		printf("%s %s\n", tag == TAG_EXIT ? "task exit:" : "host delete:",
		       v == t3[0] || v == t3[1] ? "a task of node3" :
		       v == 0xc0000 ? "node3" : "?");
	}
	pvm_initsend(PvmDataDefault);
	printf("send to a task of the dead host = %d\n", pvm_send(t3[0], 1));
	printf("pstat of it = %d, mstat node3 = %d, mstat node4 = %d\n",
	       pvm_pstat(t3[0]), pvm_mstat("node3"), pvm_mstat("node4"));
	show_config();
	/* the rest keeps working */
	if (spawn_on("node2", args, 1, &t2) != 1)
		bad("spawn on node2 after the failures failed");
	printf("pstat of a new task on node2 = %d\n", pvm_pstat(t2));
	hn[0] = "node3";
	hn[1] = "node4";
	rc = pvm_addhosts(hn, 2, infos);
	printf("addhosts node3 node4 again = %d\n", rc);
	bufid = pvm_trecv(-1, TAG_HADD, &tmo);
	if (bufid > 0) {
		pvm_upkint(&v, 1, 1);
		printf("host add notify: %d hosts\n", v);
	}
	bufid = pvm_trecv(-1, TAG_HADD_ONCE, &tmo);
	if (bufid > 0) {
		pvm_upkint(&v, 1, 1);
		printf("second host add notify: %d hosts\n", v);
	}
	if (spawn_on("node3", args, 1, t3) != 1)
		bad("spawn on the re-added node3 failed");
	printf("pstat of a new task on node3 = %d\n", pvm_pstat(t3[0]));
	show_config();
	all[0] = t2;
	all[1] = t3[0];
	pvm_initsend(PvmDataDefault);
	pvm_mcast(all, 2, TAG_DONE);
}

static void do_hold(void)
{
	char *args[] = { "child-sleep", NULL };
	int tids[8];

	if (spawn_on(NULL, args, 8, tids) != 8)
		bad("spawn of 8 failed");
	printf("holding\n");
	pvm_recv(-1, TAG_DONE);
}

static void do_spin(void)
{
	volatile unsigned long n = 0;

	printf("spinning pid %ld\n", (long)getpid());
	fflush(stdout);
	for (;;)
		n++;
}

static void do_add(char **names, int n)
{
	int infos[16], i, rc;

	if (n > 16)
		n = 16;
	rc = pvm_addhosts(names, n, infos);
	printf("pvm_addhosts = %d\n", rc);
	for (i = 0; i < n; i++)
		printf("%s: %s\n", names[i], infos[i] > 0 ? "added" : "failed");
	if (rc != n)
		failed = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "child-token"))
		child_token();
	else if (!strcmp(mode, "child-echo"))
		child_echo(argc > 2 && !strcmp(argv[2], "direct"));
	else if (!strcmp(mode, "child-last"))
		child_last(argc > 2 && !strcmp(argv[2], "direct"));
	else if (!strcmp(mode, "child-mbox"))
		child_mbox();
	else if (!strcmp(mode, "child-sleep"))
		child_sleep();
	else if (!strcmp(mode, "child-flood"))
		child_flood();
	else if (!strcmp(mode, "child-sink"))
		child_sink();
	if (!strncmp(mode, "child-", 6))
		return 0;
	if (pvm_mytid() < 0)
		return 1;
	if (!strcmp(mode, "hosts"))
		failed = wait_hosts(argc > 2 ? atoi(argv[2]) : 1);
	else if (!strcmp(mode, "config"))
		show_config();
	else if (!strcmp(mode, "mcast"))
		do_mcast();
	else if (!strcmp(mode, "tasks"))
		do_tasks();
	else if (!strcmp(mode, "routes"))
		do_routes(argc > 2 && !strcmp(argv[2], "direct"));
	else if (!strcmp(mode, "place"))
		do_place();
	else if (!strcmp(mode, "notify"))
		do_notify();
	else if (!strcmp(mode, "mbox"))
		do_mbox();
	else if (!strcmp(mode, "fault"))
		do_fault();
	else if (!strcmp(mode, "hold"))
		do_hold();
	else if (!strcmp(mode, "killsender"))
		do_killsender();
	else if (!strcmp(mode, "killreceiver"))
		do_killreceiver();
	else if (!strcmp(mode, "add"))
		do_add(argv + 2, argc - 2);
	else if (!strcmp(mode, "spin"))
		do_spin();
	else
		bad("unknown mode");
	pvm_exit();
	return failed;
}

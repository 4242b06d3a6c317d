/*
 * mhgroup - dynamic groups across emulated hosts: the program of
 * tests/integ/mh-group.sh and of bench/bench-mh-barrier.sh.
 *
 * Plain PVM 3.4 (pvm3.h, -lgpvm3 -lpvm3): `make check' builds it against
 * copvm, the scripts build the same source against Debian's libraries,
 * and the outputs of both runs are compared.  The first copy, on node1,
 * is the conductor: it spawns members with PvmTaskHost on every host
 * (copy i on node(i % hosts + 1)), checks with pvm_tidtohost that they
 * landed there, and has them make group calls by sending them commands;
 * each answers with the call's result (and data, for the collective
 * calls), which the conductor checks against what it computes itself.
 * The conductor is no member, so it also checks what a non-member gets.
 * It prints what does not depend on the run (no tids), so that stock's
 * and copvm's outputs can be compared, and every check that fails is
 * said on stderr and makes the exit status 1.  An answer that does not
 * come within a time limit is a failure too: no check can hang.
 *
 * usage: mhgroup MODE [stock]
 *   check         instances, gettid/getinst/gsize, barriers, freeze,
 *                 pvm_reduce (every type, the four functions), gather,
 *                 scatter and bcast, with members on every host
 *   errors        PvmNoGroup, PvmNotInGroup, bad barrier/freeze counts
 *   die-inside    a member on node4 killed inside a barrier
 *   die-before    one killed while the others wait at a barrier for it
 *                 (copvm: stock waits for ever)
 *   host-cut SERVER-HOST  (copvm only) node2 cut off silently while
 *                 members elsewhere wait at a barrier for all (mh-group-
 *                 loss.sh; the group server started on SERVER-HOST)
 *   `stock' expects stock's results where they differ from copvm's
 *   (docs/groups.md) instead of copvm's.
 * usage: mhgroup bench [-n tasks] [-i iters] [-w warmup]
 *                 the mean time of one pvm_barrier of `tasks' members
 *                 spread over the hosts, timed by the first (on node1):
 *                 "barrier tasks N iters I usec T hosts H server NODE"
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "pvm3.h"

#define TAG_CMD		31	/* conductor -> member: a command */
#define TAG_REP		32	/* member -> conductor: its answer */
#define TAG_EXIT	33	/* exit notifies */
#define TAG_BCAST	34	/* the messages of pvm_bcast */
#define TAG_COLL	100	/* + a call number: collective data */

#define MAXKIDS		16
#define COUNT		5	/* elements per member in reduce/gather/scatter */
#define NO_ANSWER	(-1000)
#define GROUP		"mhg"

enum {
	OP_JOIN, OP_LEAVE, OP_GSIZE, OP_GETINST, OP_GETTID, OP_BARRIER,
	OP_FREEZE, OP_BCAST, OP_RECV, OP_REDUCE, OP_GATHER, OP_SCATTER,
	OP_ERRS, OP_EXIT
};

/* The calls OP_ERRS makes, in the order of its answer. */
#define NERRS 10
static const char *const err_calls[NERRS] = {
	"lvgroup", "gsize", "getinst(self)", "gettid(0)", "barrier",
	"bcast", "freezegroup", "reduce", "gather", "scatter"
};

static const struct {
	int code;
	const char *name;
	int size;
} types[] = {
	{ PVM_BYTE, "BYTE", 1 }, { PVM_SHORT, "SHORT", sizeof(short) },
	{ PVM_INT, "INT", sizeof(int) }, { PVM_FLOAT, "FLOAT", sizeof(float) },
	{ PVM_CPLX, "CPLX", 2 * sizeof(float) },
	{ PVM_DOUBLE, "DOUBLE", sizeof(double) },
	{ PVM_DCPLX, "DCPLX", 2 * sizeof(double) },
	{ PVM_LONG, "LONG", sizeof(long) },
	{ PVM_USHORT, "USHORT", sizeof(unsigned short) },
	{ PVM_UINT, "UINT", sizeof(unsigned) },
	{ PVM_ULONG, "ULONG", sizeof(unsigned long) },
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

enum { FN_SUM, FN_PRODUCT, FN_MAX, FN_MIN, NFNS };
static const char *const fn_names[NFNS] = { "PvmSum", "PvmProduct",
					    "PvmMax", "PvmMin" };

static int failed;

__attribute__((format(printf, 1, 2)))
static void bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mhgroup: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	failed = 1;
}

static const char *rc_name(int rc)
{
	static char other[32];

	switch (rc) {
	case PvmBadParam: return "PvmBadParam";
	case PvmMismatch: return "PvmMismatch";
	case PvmSysErr: return "PvmSysErr";
	case PvmDupGroup: return "PvmDupGroup";
	case PvmNoGroup: return "PvmNoGroup";
	case PvmNotInGroup: return "PvmNotInGroup";
	case PvmNoInst: return "PvmNoInst";
	case NO_ANSWER: return "no answer";
	}
	snprintf(other, sizeof(other), "%d", rc);
	return other;
}

/* Prints "what = rc" and checks it. */
static void expect(const char *what, int got, int want)
{
	printf("%s = %s\n", what, rc_name(got));
	if (got != want)
		bad("%s: got %d, expected %d", what, got, want);
}

/* ---- data of the collective calls ---- */

/* Element j of instance `inst''s contribution to a reduction with `fn'.
 * Small exact values, so that float sums and products are exact in any
 * order; products stay within a short; unsigned types and bytes get no
 * negative values; complex moduli differ between instances (no ties for
 * PvmMax/PvmMin). */
static void gen(int type, int fn, int inst, int j, double *re, double *im)
{
	int cplx = type == PVM_CPLX || type == PVM_DCPLX;
	int real = type == PVM_FLOAT || type == PVM_DOUBLE;
	int sign = type != PVM_BYTE && type != PVM_USHORT && type != PVM_UINT &&
		   type != PVM_ULONG;

	*im = 0;
	if (cplx && fn == FN_PRODUCT) {
		*re = (inst + j) % 2 ? 1 : 2;
		*im = (inst + j) % 2 ? 1 : 0;
	} else if (cplx) {
		*re = inst + 1 + j;
		*im = (inst + j) % 2;
	} else if (fn == FN_PRODUCT) {
		*re = ((inst + j) % 3) + 1;
		if (real)
			*re *= 0.5;
	} else {
		*re = ((inst * 5 + j * 3) % 7) - (sign ? 2 : 0);
		if (real)
			*re += 0.5;
	}
}

static void store(int type, void *buf, int j, double re, double im)
{
	switch (type) {
	case PVM_BYTE: ((char *)buf)[j] = (char)re; break;
	case PVM_SHORT: ((short *)buf)[j] = (short)re; break;
	case PVM_INT: ((int *)buf)[j] = (int)re; break;
	case PVM_FLOAT: ((float *)buf)[j] = (float)re; break;
	case PVM_CPLX:
		((float *)buf)[2 * j] = (float)re;
		((float *)buf)[2 * j + 1] = (float)im;
		break;
	case PVM_DOUBLE: ((double *)buf)[j] = re; break;
	case PVM_DCPLX:
		((double *)buf)[2 * j] = re;
		((double *)buf)[2 * j + 1] = im;
		break;
	case PVM_LONG: ((long *)buf)[j] = (long)re; break;
	case PVM_USHORT: ((unsigned short *)buf)[j] = (unsigned short)re; break;
	case PVM_UINT: ((unsigned *)buf)[j] = (unsigned)re; break;
	case PVM_ULONG: ((unsigned long *)buf)[j] = (unsigned long)re; break;
	}
}

static void load(int type, const void *buf, int j, double *re, double *im)
{
	*im = 0;
	switch (type) {
	case PVM_BYTE: *re = ((const char *)buf)[j]; break;
	case PVM_SHORT: *re = ((const short *)buf)[j]; break;
	case PVM_INT: *re = ((const int *)buf)[j]; break;
	case PVM_FLOAT: *re = ((const float *)buf)[j]; break;
	case PVM_CPLX:
		*re = ((const float *)buf)[2 * j];
		*im = ((const float *)buf)[2 * j + 1];
		break;
	case PVM_DOUBLE: *re = ((const double *)buf)[j]; break;
	case PVM_DCPLX:
		*re = ((const double *)buf)[2 * j];
		*im = ((const double *)buf)[2 * j + 1];
		break;
	case PVM_LONG: *re = ((const long *)buf)[j]; break;
	case PVM_USHORT: *re = ((const unsigned short *)buf)[j]; break;
	case PVM_UINT: *re = ((const unsigned *)buf)[j]; break;
	case PVM_ULONG: *re = ((const unsigned long *)buf)[j]; break;
	}
}

static int type_size(int type)
{
	int i;

	for (i = 0; i < NTYPES; i++)
		if (types[i].code == type)
			return types[i].size;
	return 16;
}

/* What reducing instances 0..n-1 with `fn' gives for element j,
 * computed here. */
static void reduce_expected(int type, int fn, int n, int j, double *re,
			    double *im)
{
	double r, i, a, b;
	int k;

	gen(type, fn, 0, j, re, im);
	for (k = 1; k < n; k++) {
		gen(type, fn, k, j, &r, &i);
		a = *re * *re + *im * *im;
		b = r * r + i * i;
		switch (fn) {
		case FN_SUM:
			*re += r;
			*im += i;
			break;
		case FN_PRODUCT:
			a = *re * r - *im * i;
			*im = *re * i + *im * r;
			*re = a;
			break;
		case FN_MAX:
		case FN_MIN:
			if (*im != 0 || i != 0) {	/* complex: modulus */
				if (fn == FN_MAX ? b > a : b < a) {
					*re = r;
					*im = i;
				}
			} else if (fn == FN_MAX ? r > *re : r < *re) {
				*re = r;
			}
			break;
		}
	}
}

/* ---- members ---- */

static void reply(int rc, const void *data, int bytes)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&rc, 1, 1);
	if (data && bytes > 0)
		pvm_pkbyte((char *)data, bytes, 1);
	pvm_send(pvm_parent(), TAG_REP);
}

static void (*const fns[NFNS])(int *, void *, void *, int *, int *) = {
	PvmSum, PvmProduct, PvmMax, PvmMin
};

/* pvm_reduce of `type' with fns[fn] to instance `root'; the root answers
 * with its result. */
static void member_reduce(char *g, int type, int fn, int root)
{
	char buf[COUNT * 16];
	double re, im;
	int inst = pvm_getinst(g, pvm_mytid()), j, rc;

	for (j = 0; j < COUNT; j++) {
		gen(type, fn, inst, j, &re, &im);
		store(type, buf, j, re, im);
	}
	rc = pvm_reduce(fns[fn], buf, COUNT, type,
			TAG_COLL + type * NFNS + fn, g, root);
	reply(rc, inst == root && rc >= 0 ? buf : NULL,
	      COUNT * type_size(type));
}

/* Gather: instance i gives i * 10 + j; scatter: the root hands out
 * k * 100 + j for the k-th block.  The root of a gather and every
 * member of a scatter answer with what they got. */
static void member_gather(char *g, int type, int root, int scatter)
{
	double all[MAXKIDS * COUNT], mine[COUNT];
	int ints[MAXKIDS * COUNT], imine[COUNT];
	int n = pvm_gsize(g), inst = pvm_getinst(g, pvm_mytid()), j, rc;
	int dbl = type == PVM_DOUBLE, tag = TAG_COLL + 200 + scatter;
	void *a = dbl ? (void *)all : (void *)ints;
	void *m = dbl ? (void *)mine : (void *)imine;

	if (n < 1 || n > MAXKIDS) {
		reply(n < 0 ? n : PvmBadParam, NULL, 0);
		return;
	}
	for (j = 0; j < n * COUNT; j++)
		store(type, a, j, (j / COUNT) * 100 + j % COUNT, 0);
	for (j = 0; j < COUNT; j++)
		store(type, m, j, inst * 10 + j, 0);
	if (scatter) {
		rc = pvm_scatter(m, a, COUNT, type, tag, g, root);
		reply(rc, rc >= 0 ? m : NULL, COUNT * type_size(type));
	} else {
		rc = pvm_gather(a, m, COUNT, type, tag, g, root);
		reply(rc, inst == root && rc >= 0 ? a : NULL,
		      n * COUNT * type_size(type));
	}
}

/* Makes every call OP_ERRS lists on group g, with PvmAutoErr off. */
static void errs_here(const char *g, int *rc)
{
	int x[COUNT] = { 0 }, all[MAXKIDS * COUNT];

	pvm_setopt(PvmAutoErr, 0);
	rc[0] = pvm_lvgroup((char *)g);
	rc[1] = pvm_gsize((char *)g);
	rc[2] = pvm_getinst((char *)g, pvm_mytid());
	rc[3] = pvm_gettid((char *)g, 0);
	rc[4] = pvm_barrier((char *)g, 2);
	pvm_initsend(PvmDataDefault);
	rc[5] = pvm_bcast((char *)g, TAG_BCAST);
	rc[6] = pvm_freezegroup((char *)g, 2);
	rc[7] = pvm_reduce(PvmSum, x, COUNT, PVM_INT, TAG_COLL + 300,
			   (char *)g, 0);
	rc[8] = pvm_gather(all, x, COUNT, PVM_INT, TAG_COLL + 301, (char *)g,
			   0);
	rc[9] = pvm_scatter(x, all, COUNT, PVM_INT, TAG_COLL + 302, (char *)g,
			    0);
	pvm_setopt(PvmAutoErr, 1);
}

static void member_errors(char *g)
{
	int rc[NERRS];

	errs_here(g, rc);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(rc, NERRS, 1);
	pvm_send(pvm_parent(), TAG_REP);
}

static void member(void)
{
	int parent = pvm_parent(), op, a, b, c, rc, v, got;
	char g[64];
	struct timeval tmo;

	for (;;) {
		if (pvm_recv(parent, TAG_CMD) < 0)
			break;
		pvm_upkint(&op, 1, 1);
		pvm_upkint(&a, 1, 1);
		pvm_upkint(&b, 1, 1);
		pvm_upkint(&c, 1, 1);
		pvm_upkstr(g);
		switch (op) {
		case OP_JOIN: reply(pvm_joingroup(g), NULL, 0); break;
		case OP_LEAVE: reply(pvm_lvgroup(g), NULL, 0); break;
		case OP_GSIZE: reply(pvm_gsize(g), NULL, 0); break;
		case OP_GETINST: reply(pvm_getinst(g, a), NULL, 0); break;
		case OP_GETTID: reply(pvm_gettid(g, a), NULL, 0); break;
		case OP_BARRIER: reply(pvm_barrier(g, a), NULL, 0); break;
		case OP_FREEZE: reply(pvm_freezegroup(g, a), NULL, 0); break;
		case OP_BCAST:
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&a, 1, 1);
			reply(pvm_bcast(g, TAG_BCAST), NULL, 0);
			break;
		case OP_RECV:
			/* answers the value and the sender, or 0 0 */
			tmo.tv_sec = a / 1000;
			tmo.tv_usec = (a % 1000) * 1000;
			v = got = 0;
			if (pvm_trecv(-1, TAG_BCAST, &tmo) > 0) {
				pvm_upkint(&v, 1, 1);
				pvm_bufinfo(pvm_getrbuf(), &rc, &rc, &got);
			}
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&v, 1, 1);
			pvm_pkint(&got, 1, 1);
			pvm_send(parent, TAG_REP);
			break;
		case OP_REDUCE: member_reduce(g, a, b, c); break;
		case OP_GATHER: member_gather(g, a, c, 0); break;
		case OP_SCATTER: member_gather(g, a, c, 1); break;
		case OP_ERRS: member_errors(g); break;
		default:
			pvm_exit();
			return;
		}
	}
	pvm_exit();
}

/* ---- the conductor ---- */

static int nhosts;
static int kid[MAXKIDS], nkids;

static void send_cmd(int t, int op, const char *g, int a, int b, int c)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&op, 1, 1);
	pvm_pkint(&a, 1, 1);
	pvm_pkint(&b, 1, 1);
	pvm_pkint(&c, 1, 1);
	pvm_pkstr((char *)g);
	pvm_send(t, TAG_CMD);
}

/* The answer of task t (the rest stays in the receive buffer), or
 * NO_ANSWER after `ms' milliseconds. */
static int answer(int t, int ms)
{
	struct timeval tmo = { ms / 1000, (ms % 1000) * 1000 };
	int rc;

	if (pvm_trecv(t, TAG_REP, &tmo) <= 0)
		return NO_ANSWER;
	pvm_upkint(&rc, 1, 1);
	return rc;
}

static int ask(int t, int op, const char *g, int a)
{
	send_cmd(t, op, g, a, 0, 0);
	return answer(t, 20000);
}

/* Sends one command to kids k[0..n-1], then collects their answers into
 * rc[] (all started before any is awaited: barriers). */
static void ask_all(const int *k, int n, int op, const char *g, int a,
		    int *rc)
{
	int i;

	for (i = 0; i < n; i++)
		send_cmd(kid[k[i]], op, g, a, 0, 0);
	for (i = 0; i < n; i++)
		rc[i] = answer(kid[k[i]], 20000);
}

/* Prints "what = rc rc ..." for kids k[0..n-1] and checks each. */
static void expect_all(const char *what, const int *k, int n, int op,
		       const char *g, int a, int want)
{
	int rc[MAXKIDS], i;

	ask_all(k, n, op, g, a, rc);
	printf("%s =", what);
	for (i = 0; i < n; i++) {
		printf(" %s", rc_name(rc[i]));
		if (rc[i] != want)
			bad("%s: a member got %d, expected %d", what, rc[i],
			    want);
	}
	printf("\n");
}

static const char *node_of(int tid)
{
	static char name[64];
	struct pvmhostinfo *h;
	int n, a, i, dtid = pvm_tidtohost(tid);

	snprintf(name, sizeof(name), "?");
	if (pvm_config(&n, &a, &h) >= 0)
		for (i = 0; i < n; i++)
			if (h[i].hi_tid == dtid)
				snprintf(name, sizeof(name), "%s",
					 h[i].hi_name);
	return name;
}

/* Spawns `n' more members, member k on node(k % hosts + 1), and checks
 * that they are there. */
static int spawn_members(int n, const char *mode)
{
	char *args[] = { (char *)mode, NULL }, where[16];
	int i, a;

	if (pvm_config(&nhosts, &a, NULL) < 0 || nhosts < 2) {
		bad("pvm_config: %d hosts, expected at least 2", nhosts);
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(where, sizeof(where), "node%d", nkids % nhosts + 1);
		if (pvm_spawn("mhgroup", args, PvmTaskHost, where, 1,
			      &kid[nkids]) != 1) {
			bad("spawn on %s failed", where);
			return -1;
		}
		if (strcmp(node_of(kid[nkids]), where))
			bad("member spawned on %s is on another host",
			    where);
		pvm_notify(PvmTaskExit, TAG_EXIT, 1, &kid[nkids]);
		nkids++;
	}
	return 0;
}

/* Tells the members to exit and waits (10 s at most) until they have. */
static void end_members(void)
{
	int i, tries, left = 1;

	for (i = 0; i < nkids; i++)
		send_cmd(kid[i], OP_EXIT, "", 0, 0, 0);
	for (tries = 0; left && tries < 100; tries++) {
		for (i = 0, left = 0; i < nkids; i++)
			left += pvm_pstat(kid[i]) == PvmOk;
		if (left)
			usleep(100000);
	}
	if (left)
		bad("%d members did not exit", left);
}

/* inst[k]: the instance kid k should have in GROUP; checked from a
 * member on every host and from the conductor (a non-member). */
static void check_instances(const char *when, const int *inst)
{
	char what[128];
	int h, k, from, rc, n = 0, bad_tid = 0, bad_inst = 0;

	for (k = 0; k < nkids; k++)
		n += inst[k] >= 0;
	for (h = 0; h <= nhosts; h++) {
		from = h < nhosts ? kid[h] : 0;
		for (k = 0; k < nkids; k++) {
			if (inst[k] < 0)
				continue;
			rc = from ? ask(from, OP_GETTID, GROUP, inst[k]) :
				    pvm_gettid(GROUP, inst[k]);
			bad_tid += rc != kid[k];
			rc = from ? ask(from, OP_GETINST, GROUP, kid[k]) :
				    pvm_getinst(GROUP, kid[k]);
			bad_inst += rc != inst[k];
		}
		snprintf(what, sizeof(what), "%s: gsize from %s", when,
			 from ? node_of(from) : "the conductor");
		expect(what, from ? ask(from, OP_GSIZE, GROUP, 0) :
			       pvm_gsize(GROUP), n);
	}
	printf("%s: gettid/getinst from every host: %d and %d wrong\n", when,
	       bad_tid, bad_inst);
	if (bad_tid || bad_inst)
		bad("%s: %d gettid and %d getinst answers wrong", when,
		    bad_tid, bad_inst);
}

/* Instances on every host: joins in order, leaves, rejoins. */
static void check_join(int *inst)
{
	char what[64];
	int k, rc;

	for (k = 0; k < nkids; k++) {
		snprintf(what, sizeof(what), "join from %s",
			 node_of(kid[k]));
		expect(what, ask(kid[k], OP_JOIN, GROUP, 0), k);
		inst[k] = k;
	}
	expect("join again", ask(kid[1], OP_JOIN, GROUP, 0), PvmDupGroup);
	check_instances("8 joined", inst);
	/* kids 2 (node3) and 5 (node2) leave: 2 and 5 become free */
	expect("leave of instance 2", ask(kid[2], OP_LEAVE, GROUP, 0), 0);
	expect("leave of instance 5", ask(kid[5], OP_LEAVE, GROUP, 0), 0);
	inst[2] = inst[5] = -1;
	expect("leave again", ask(kid[2], OP_LEAVE, GROUP, 0), PvmNotInGroup);
	expect("gettid of a free instance", ask(kid[3], OP_GETTID, GROUP, 2),
	       PvmNoInst);
	expect("getinst of a member that left",
	       ask(kid[7], OP_GETINST, GROUP, kid[2]), PvmNotInGroup);
	check_instances("2 left", inst);
	/* the next joiner gets the lowest free instance */
	rc = ask(kid[5], OP_JOIN, GROUP, 0);
	expect("rejoin from node2 (lowest free)", rc, 2);
	inst[5] = rc;
	rc = ask(kid[2], OP_JOIN, GROUP, 0);
	expect("rejoin from node3 (next free)", rc, 5);
	inst[2] = rc;
	check_instances("rejoined", inst);
}

static void check_barriers(void)
{
	int all[MAXKIDS], rc[MAXKIDS], k, i;

	for (k = 0; k < nkids; k++)
		all[k] = k;
	expect_all("barrier(8) on every host", all, nkids, OP_BARRIER, GROUP,
		   nkids, 0);
	expect_all("barrier(-1) on every host", all, nkids, OP_BARRIER, GROUP,
		   -1, 0);
	/* The first arrival fixes the count: a later one with another count
	 * gets PvmMismatch at once and is not counted. */
	send_cmd(kid[0], OP_BARRIER, GROUP, nkids, 0, 0);
	usleep(300000);
	expect("barrier(7) while barrier(8) waits",
	       ask(kid[1], OP_BARRIER, GROUP, nkids - 1), PvmMismatch);
	ask_all(all + 1, nkids - 1, OP_BARRIER, GROUP, nkids, rc + 1);
	rc[0] = answer(kid[0], 20000);
	for (i = 0; i < nkids && rc[i] == 0; i++)
		;
	expect("then barrier(8) from all", i == nkids ? 0 : rc[i], 0);
	expect_all("freezegroup(-1) on every host", all, nkids, OP_FREEZE,
		   GROUP, -1, nkids);
	expect_all("barrier(-1) of the frozen group", all, nkids, OP_BARRIER,
		   GROUP, -1, 0);
	expect("gsize of the frozen group", pvm_gsize(GROUP), nkids);
	expect("join of the frozen group", pvm_joingroup(GROUP),
	       PvmNotInGroup);
}

/* How a reduction of `type' with fns[fn] must end: REDUCE_RIGHT,
 * PvmBadParam, or (stock only) REDUCE_WRONG.  Both refuse a sum or
 * product of bytes; stock also refuses the unsigned types, and its sum,
 * max and min of PVM_LONG come out wrong on this 64-bit host
 * (docs/groups.md). */
#define REDUCE_RIGHT	0
#define REDUCE_WRONG	1
static int reduce_outcome(int type, int fn, int stock)
{
	if (type == PVM_BYTE && (fn == FN_SUM || fn == FN_PRODUCT))
		return PvmBadParam;
	if (!stock)
		return REDUCE_RIGHT;
	if (type == PVM_USHORT || type == PVM_UINT || type == PVM_ULONG)
		return PvmBadParam;
	if (type == PVM_LONG && fn != FN_PRODUCT)
		return REDUCE_WRONG;
	return REDUCE_RIGHT;
}

/* Every type with every function, the root on node3: the root's result
 * compared with reduce_expected(); the others must succeed when the root
 * does (stock's own coordinators may fail with the root otherwise). */
static void check_reduce(const int *at, int root, int stock)
{
	char data[COUNT * 16], what[64];
	double re, im, wr, wi;
	int t, fn, k, j, rc, rootrc, wrong, others, got, want;

	for (t = 0; t < NTYPES; t++) {
		for (fn = 0; fn < NFNS; fn++) {
			snprintf(what, sizeof(what), "reduce %s %s",
				 types[t].name, fn_names[fn]);
			for (k = 0; k < nkids; k++)
				send_cmd(kid[k], OP_REDUCE, GROUP,
					 types[t].code, fn, root);
			rootrc = NO_ANSWER;
			others = 0;
			wrong = 0;
			for (k = 0; k < nkids; k++) {
				rc = answer(kid[k], 20000);
				if (k != at[root]) {
					others += rc != 0;
					continue;
				}
				rootrc = rc;
				if (rc < 0)
					continue;
				pvm_upkbyte(data, COUNT * types[t].size, 1);
				for (j = 0; j < COUNT; j++) {
					load(types[t].code, data, j, &re, &im);
					reduce_expected(types[t].code, fn,
							nkids, j, &wr, &wi);
					if (re == wr && im == wi)
						continue;
					if (!wrong++)
						fprintf(stderr, "mhgroup: %s: "
							"element %d is %.17g%+gi, "
							"not %.17g%+gi\n", what,
							j, re, im, wr, wi);
				}
			}
			got = rootrc < 0 ? rootrc : wrong ? REDUCE_WRONG :
			      REDUCE_RIGHT;
			printf("%s = %s%s\n", what, rc_name(rootrc),
			       rootrc < 0 ? "" : wrong ? " WRONG" : " right");
			want = reduce_outcome(types[t].code, fn, stock);
			if (got != want)
				bad("%s: expected %s", what, want == REDUCE_RIGHT ?
				    "the right result" : want == REDUCE_WRONG ?
				    "stock's wrong result" : rc_name(want));
			if (others && rootrc == 0)
				bad("%s: %d others failed, the root got %d",
				    what, others, rootrc);
		}
	}
}

/* Gather to the root, scatter from the root, of int and double. */
static void check_gather(const int *at, int root, int scatter)
{
	static const int two[2] = { PVM_INT, PVM_DOUBLE };
	double buf[MAXKIDS * COUNT], re, im;
	char what[64];
	int ti, t, k, j, rc, inst, wrong, n;

	for (ti = 0; ti < 2; ti++) {
		t = two[ti];
		for (k = 0; k < nkids; k++)
			send_cmd(kid[k], scatter ? OP_SCATTER : OP_GATHER,
				 GROUP, t, 0, root);
		wrong = 0;
		for (k = 0; k < nkids; k++) {
			rc = answer(kid[k], 20000);
			wrong += rc != 0;
			if (rc != 0 || (!scatter && kid[k] != kid[at[root]]))
				continue;
			n = scatter ? COUNT : nkids * COUNT;
			pvm_upkbyte((char *)buf, n * type_size(t), 1);
			for (inst = 0; inst < nkids && kid[at[inst]] != kid[k];
			     inst++)
				;
			for (j = 0; j < n; j++) {
				load(t, buf, j, &re, &im);
				/* scatter: block `inst' of the root's
				 * k*100+j; gather: i*10+j of instance i */
				wrong += scatter ? re != inst * 100 + j :
					 re != (j / COUNT) * 10 + j % COUNT;
			}
		}
		snprintf(what, sizeof(what), "%s of %s, root on %s",
			 scatter ? "scatter" : "gather",
			 t == PVM_INT ? "INT" : "DOUBLE",
			 node_of(kid[at[root]]));
		printf("%s: %d failed or wrong\n", what, wrong);
		if (wrong)
			bad("%s: %d calls failed or elements wrong", what,
			    wrong);
	}
}

/* A bcast from a member (to the 7 others) and from the conductor (to
 * all 8). */
static void check_bcast(const int *at, int from)
{
	int k, v, src, got = 0, wrong = 0, n;

	for (k = 0; k < nkids; k++)
		if (kid[k] != kid[at[from]])
			send_cmd(kid[k], OP_RECV, "", 10000, 0, 0);
	expect("bcast from a member", ask(kid[at[from]], OP_BCAST, GROUP,
					  4242), 0);
	for (k = 0; k < nkids; k++) {
		if (kid[k] == kid[at[from]])
			continue;
		v = answer(kid[k], 20000);
		pvm_upkint(&src, 1, 1);
		got += v == 4242;
		wrong += v != 4242 || src != kid[at[from]];
	}
	/* the sender is not among the receivers */
	send_cmd(kid[at[from]], OP_RECV, "", 300, 0, 0);
	v = answer(kid[at[from]], 20000);
	printf("bcast from %s: %d of %d others got it, %d wrong, the sender %s"
	       "\n", node_of(kid[at[from]]), got, nkids - 1, wrong,
	       v ? "got it too" : "did not");
	if (got != nkids - 1 || wrong || v)
		bad("bcast: %d of %d got it", got, nkids - 1);

	for (k = 0; k < nkids; k++)
		send_cmd(kid[k], OP_RECV, "", 10000, 0, 0);
	pvm_initsend(PvmDataDefault);
	v = 77;
	pvm_pkint(&v, 1, 1);
	expect("bcast from the conductor", pvm_bcast(GROUP, TAG_BCAST), 0);
	for (k = 0, got = 0, wrong = 0; k < nkids; k++) {
		v = answer(kid[k], 20000);
		pvm_upkint(&src, 1, 1);
		got += v == 77;
		wrong += v != 77 || src != pvm_mytid();
	}
	n = nkids;
	printf("bcast from the conductor: %d of %d got it, %d wrong\n", got, n,
	       wrong);
	if (got != n || wrong)
		bad("bcast from the conductor: %d of %d got it", got, n);
}

static void do_check(int stock)
{
	int inst[MAXKIDS], at[MAXKIDS], k;

	if (spawn_members(8, "member") < 0)
		return;
	for (k = 0; k < nkids; k++)
		printf("member %d on %s\n", k, node_of(kid[k]));
	check_join(inst);
	for (k = 0; k < nkids; k++) {
		if (inst[k] < 0 || inst[k] >= nkids) {
			bad("instances are not 0..%d: giving up", nkids - 1);
			end_members();
			return;
		}
		at[inst[k]] = k;
	}
	check_barriers();
	check_reduce(at, 5, stock);
	check_gather(at, 3, 0);
	check_gather(at, 6, 1);
	check_bcast(at, 1);
	end_members();
}

/* Prints OP_ERRS's answer of one task, each call checked against
 * want[] (0: any value >= 0). */
static void expect_errs(const char *who, const int *rc, const int *want)
{
	char what[128];
	int i;

	for (i = 0; i < NERRS; i++) {
		snprintf(what, sizeof(what), "%s: %s", who, err_calls[i]);
		if (want[i] == 0 && rc[i] >= 0)
			printf("%s = ok\n", what);
		else
			expect(what, rc[i], want[i]);
	}
}

static void errs_remote(int t, const char *g, int *rc)
{
	int i;

	send_cmd(t, OP_ERRS, g, 0, 0, 0);
	rc[0] = answer(t, 20000);
	if (rc[0] == NO_ANSWER) {
		bad("errors: no answer from a member");
		for (i = 1; i < NERRS; i++)
			rc[i] = NO_ANSWER;
		return;
	}
	pvm_upkint(rc + 1, NERRS - 1, 1);
}

/* Unknown groups, non-members, bad barrier and freeze counts.  The
 * results that differ between stock and copvm (docs/groups.md) are
 * printed on lines starting with "count:", and only printed. */
static void do_errors(int stock)
{
	static const int nogroup[NERRS] = {
		PvmNoGroup, PvmNoGroup, PvmNoGroup, PvmNoGroup, PvmNoGroup,
		PvmNoGroup, PvmNoGroup, PvmNoGroup, PvmNoGroup, PvmNoGroup
	};
	/* a non-member may ask for sizes and tids, and bcast */
	static const int notin[NERRS] = {
		PvmNotInGroup, 4, PvmNotInGroup, 0, PvmNotInGroup, 0,
		PvmNotInGroup, PvmNotInGroup, PvmNotInGroup, PvmNotInGroup
	};
	const char *bg = "mhg-bad";
	int rc[NERRS], four[4] = { 0, 1, 2, 3 }, k, bad_count;

	if (spawn_members(6, "member") < 0)
		return;
	for (k = 0; k < 4; k++)
		expect("join mhg-bad", ask(kid[k], OP_JOIN, bg, 0), k);
	errs_here("nosuch", rc);
	expect_errs("no such group, from node1", rc, nogroup);
	errs_remote(kid[3], "nosuch", rc);
	expect_errs("no such group, from node4", rc, nogroup);
	/* kid 5 (node2) and the conductor are not in mhg-bad */
	errs_here(bg, rc);
	expect_errs("non-member on node1", rc, notin);
	errs_remote(kid[5], bg, rc);
	expect_errs("non-member on node2", rc, notin);
	expect("getinst of a non-member, from node3",
	       ask(kid[2], OP_GETINST, bg, kid[5]), PvmNotInGroup);
	expect("gettid of instance 4, from node3",
	       ask(kid[2], OP_GETTID, bg, 4), PvmNoInst);
	expect("gsize of mhg-bad, from node4", ask(kid[3], OP_GSIZE, bg, 0),
	       4);

	/* Bad counts, last: copvm answers PvmBadParam, as the man pages
	 * say; stock PvmMismatch, and it keeps the bad count pending, so
	 * that every later barrier of the group fails (docs/groups.md). */
	bad_count = stock ? PvmMismatch : PvmBadParam;
	expect("count: barrier(0)", ask(kid[1], OP_BARRIER, bg, 0), bad_count);
	expect("count: barrier(-2)", ask(kid[2], OP_BARRIER, bg, -2),
	       bad_count);
	expect("count: freezegroup(0)", ask(kid[3], OP_FREEZE, bg, 0),
	       bad_count);
	expect_all("count: then barrier(4) on every host", four, 4,
		   OP_BARRIER, bg, 4, stock ? PvmMismatch : 0);
	end_members();
}

/* Members 0..3, one per host, in a group of their own; the one on node4
 * is killed (SIGKILL) during a barrier of all four:
 *  - inside it: it and two others have arrived, the third arrives after
 *    the kill (stock counts the dead member's arrival, copvm lowers the
 *    count to the three left: both release them);
 *  - before it arrived (`before'), the three others waiting for it: copvm
 *    lowers the count and releases them; stock waits for ever.
 * Either way the three get 0 and the group has three members left. */
static void do_die(int before)
{
	const char *g = before ? "mhg-die-before" : "mhg-die-inside";
	struct timeval tmo = { 10, 0 };
	int k, rc, rcs[3];

	if (spawn_members(4, "member") < 0)
		return;
	for (k = 0; k < 4; k++)
		expect("join", ask(kid[k], OP_JOIN, g, 0), k);
	for (k = 0; k < 2; k++)
		send_cmd(kid[k], OP_BARRIER, g, 4, 0, 0);
	if (before)
		send_cmd(kid[2], OP_BARRIER, g, 4, 0, 0);
	else
		send_cmd(kid[3], OP_BARRIER, g, 4, 0, 0);
	usleep(500000);
	pvm_sendsig(kid[3], SIGKILL);
	rc = pvm_trecv(-1, TAG_EXIT, &tmo) > 0;
	printf("the member on %s killed %s the barrier: %s\n",
	       node_of(kid[3]), before ? "before it came to" : "inside",
	       rc ? "exit notify" : "NO NOTIFY");
	if (!rc)
		bad("die: no exit notify");
	if (!before)
		send_cmd(kid[2], OP_BARRIER, g, 4, 0, 0);
	for (k = 0; k < 3; k++)	/* 10 s in all */
		rcs[k] = answer(kid[k], k ? 1000 : 8000);
	printf("the three others =");
	for (k = 0; k < 3; k++) {
		printf(" %s", rc_name(rcs[k]));
		if (rcs[k] != 0)
			bad("die: the member on %s got %d, expected 0",
			    node_of(kid[k]), rcs[k]);
	}
	printf("\n");
	expect("gsize after the kill", ask(kid[1], OP_GSIZE, g, 0), 3);
	end_members();
}

/* A host cut off without a word (copvm only: mh-group-loss.sh).  The
 * group server is started on `server_at' (PvmTaskHost, so the test knows
 * where it is); four members join, one per host in turn: node1, node2,
 * node3, node1.  The three not on node2 wait in pvm_barrier for all four
 * (the one on node2 never comes), then the script cuts node2 off
 * ("cut node2 now").  When the daemons declare node2 dead, the exit
 * notify of its member comes, and:
 *  - server elsewhere: the group drops the lost member as if it had
 *    died: the barrier releases the three with 0, pvm_gsize says 3 from
 *    every host left, the lost tid is no member, and the three pass
 *    further barriers (-1, and 3);
 *  - server on node2: the groups die with it; the three waiting at the
 *    barrier get PvmNoGroup (their request goes to a new server), as do
 *    later calls.
 * Either way no call waits for ever, and the HostDelete notify comes. */
#define TAG_HDEL	35
static void do_host_cut(const char *server_at)
{
	const char *g = "mhg-cut";
	char *where[1] = { (char *)server_at };
	struct timeval tmo = { 60, 0 }, t0, t1;
	int k, rc, tid, dtid, bufid, v, i, lost = !strcmp(server_at, "node2");
	int three[3] = { 0, 2, 3 }, rcs[3], want;

	if (pvm_spawn("pvmgs", NULL, PvmTaskHost | PvmNoSpawnParent,
		      where[0], 1, &tid) != 1) {
		bad("cannot start the group server on %s", server_at);
		return;
	}
	for (i = 0; i < 100 && pvm_recvinfo("###_COPVM_GROUP_SERVER_###", 0,
					    PvmMboxDefault) < 0; i++)
		usleep(100000);
	printf("group server on %s\n", node_of(tid));
	if (spawn_members(4, "member") < 0)
		return;
	printf("members on");
	for (k = 0; k < 4; k++)
		printf(" %s", node_of(kid[k]));
	printf("\n");
	for (k = 0; k < 4; k++)
		expect("join", ask(kid[k], OP_JOIN, g, 0), k);
	expect("gsize", ask(kid[2], OP_GSIZE, g, 0), 4);
	dtid = pvm_tidtohost(kid[1]);
	pvm_notify(PvmHostDelete, TAG_HDEL, 1, &dtid);
	for (k = 0; k < 3; k++)
		send_cmd(kid[three[k]], OP_BARRIER, g, 4, 0, 0);
	usleep(500000);
	printf("cut node2 now\n");
	gettimeofday(&t0, NULL);
	bufid = pvm_trecv(-1, TAG_EXIT, &tmo);
	gettimeofday(&t1, NULL);
	v = 0;
	if (bufid > 0)
		pvm_upkint(&v, 1, 1);
	printf("exit notify of the member on node2: %s\n",
	       bufid > 0 && v == kid[1] ? "yes" : "NO");
	if (bufid <= 0 || v != kid[1])
		bad("host-cut: no exit notify for the member on node2");
	fprintf(stderr, "mhgroup: the exit notify came after %ld ms\n",
		(long)((t1.tv_sec - t0.tv_sec) * 1000 +
		       (t1.tv_usec - t0.tv_usec) / 1000));
	want = lost ? PvmNoGroup : 0;
	for (k = 0; k < 3; k++)	/* 10 s in all */
		rcs[k] = answer(kid[three[k]], k ? 1000 : 8000);
	printf("the three others' barrier(4) =");
	for (k = 0; k < 3; k++) {
		printf(" %s", rc_name(rcs[k]));
		if (rcs[k] != want)
			bad("host-cut: the member on %s got %d from the "
			    "barrier, expected %d", node_of(kid[three[k]]),
			    rcs[k], want);
	}
	printf("\n");
	tmo.tv_sec = 10;
	bufid = pvm_trecv(-1, TAG_HDEL, &tmo);
	v = 0;
	if (bufid > 0)
		pvm_upkint(&v, 1, 1);
	printf("host delete: %s\n", bufid > 0 && v == dtid ? "node2" : "NONE");
	if (bufid <= 0 || v != dtid)
		bad("host-cut: no HostDelete notify");
	want = lost ? PvmNoGroup : 3;
	expect("gsize on node1", ask(kid[0], OP_GSIZE, g, 0), want);
	expect("gsize on node3", ask(kid[2], OP_GSIZE, g, 0), want);
	expect("gsize of a non-member", pvm_gsize((char *)g), want);
	expect("getinst of the lost member", pvm_getinst((char *)g, kid[1]),
	       lost ? PvmNoGroup : PvmNotInGroup);
	if (lost) {
		expect_all("barrier(-1) of the three", three, 3, OP_BARRIER,
			   g, -1, PvmNoGroup);
	} else {
		expect_all("barrier(-1) of the three", three, 3, OP_BARRIER,
			   g, -1, 0);
		expect_all("barrier(3) of the three", three, 3, OP_BARRIER,
			   g, 3, 0);
	}
	rc = 0;
	for (k = 0; k < 3; k++)
		rc += pvm_pstat(kid[three[k]]) == PvmOk;
	printf("members left running: %d\n", rc);
	end_members();
}

/* ---- the benchmark ---- */

static void bench_member(int tasks, int total)
{
	int i;

	if (pvm_joingroup("mhg-bench") < 0)
		return;
	for (i = 0; i < total; i++)
		if (pvm_barrier("mhg-bench", tasks) < 0)
			break;
	pvm_lvgroup("mhg-bench");
}

static double now_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1e6 + tv.tv_usec;
}

/* The host of the group server, found by its name in pvm_tasks. */
static const char *server_host(void)
{
	struct pvmtaskinfo *t;
	int n, i;
	size_t len;

	if (pvm_tasks(0, &n, &t) < 0)
		return "?";
	for (i = 0; i < n; i++) {
		len = t[i].ti_a_out ? strlen(t[i].ti_a_out) : 0;
		if (len >= 5 && !strcmp(t[i].ti_a_out + len - 5, "pvmgs"))
			return node_of(t[i].ti_tid);
	}
	return "?";
}

static int do_bench(int argc, char **argv)
{
	int tasks = 2, iters = 1000, warmup = 100, opt, i, rc = 0, a;
	char *args[4], ntext[16], ttext[16], where[16];
	double t0, t1;

	while ((opt = getopt(argc, argv, "n:i:w:")) != -1) {
		switch (opt) {
		case 'n': tasks = atoi(optarg); break;
		case 'i': iters = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		default: return 1;
		}
	}
	if (tasks < 1 || tasks > MAXKIDS || iters < 1 || warmup < 0)
		return 1;
	if (pvm_joingroup("mhg-bench") != 0) {
		fprintf(stderr, "mhgroup: not instance 0 of mhg-bench\n");
		return 1;
	}
	pvm_config(&nhosts, &a, NULL);
	snprintf(ntext, sizeof(ntext), "%d", tasks);
	snprintf(ttext, sizeof(ttext), "%d", 1 + warmup + iters);
	args[0] = "bench-member";
	args[1] = ntext;
	args[2] = ttext;
	args[3] = NULL;
	for (i = 1; i < tasks; i++) {
		snprintf(where, sizeof(where), "node%d", i % nhosts + 1);
		if (pvm_spawn("mhgroup", args, PvmTaskHost, where, 1,
			      &kid[nkids]) != 1) {
			fprintf(stderr, "mhgroup: spawn on %s failed\n", where);
			rc = -1;
			break;
		}
		nkids++;
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, nkids, kid);
	for (i = 0; rc == 0 && i < 1 + warmup; i++)
		rc = pvm_barrier("mhg-bench", tasks);
	t0 = now_us();
	for (i = 0; rc == 0 && i < iters; i++)
		rc = pvm_barrier("mhg-bench", tasks);
	t1 = now_us();
	pvm_lvgroup("mhg-bench");
	for (i = 0; i < nkids; i++) {
		if (rc != 0)
			pvm_kill(kid[i]);
		pvm_recv(-1, TAG_EXIT);
	}
	if (rc != 0) {
		fprintf(stderr, "mhgroup: pvm_barrier failed: %d\n", rc);
		return 1;
	}
	printf("barrier tasks %d iters %d usec %.2f hosts %d server %s\n",
	       tasks, iters, (t1 - t0) / iters, nhosts < tasks ? nhosts :
	       tasks, server_host());
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int stock = argc > 2 && !strcmp(argv[2], "stock");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pvm_mytid() < 0)
		return 1;
	if (!strcmp(mode, "member"))
		member();
	else if (!strcmp(mode, "bench-member") && argc > 3)
		bench_member(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(mode, "check"))
		do_check(stock);
	else if (!strcmp(mode, "errors"))
		do_errors(stock);
	else if (!strcmp(mode, "die-inside"))
		do_die(0);
	else if (!strcmp(mode, "die-before"))
		do_die(1);
	else if (!strcmp(mode, "host-cut") && argc > 2)
		do_host_cut(argv[2]);
	else if (!strcmp(mode, "bench"))
		failed = do_bench(argc - 1, argv + 1);
	else
		bad("unknown mode %s", mode);
	pvm_exit();
	return failed;
}

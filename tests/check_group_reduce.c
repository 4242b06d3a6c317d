/*
 * check_group_reduce.c - the collective group calls (group/collective.c,
 * group/reduce_ops.c): PvmMax, PvmMin, PvmSum and PvmProduct called
 * directly, pvm_reduce with each of them on every data type and with a
 * user function, pvm_gather and pvm_scatter, and their errors, on a
 * private pvmd.
 *
 * The collective tests use a group of three: the test task (instance 0)
 * and two forked children.  All three run the same script of calls; the
 * member that ends up with a result checks it, and the children report
 * how many checks failed.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gs_proto.h"
#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_UP		100	/* child -> parent: a value */
#define TAG_GO		101	/* parent -> child: carry on */
#define TAG_DATA	30	/* the collective calls' own messages */
#define NELEM		4
#define NMEMBERS	3
#define GROUP		"red"

static const int types[] = {
	PVM_BYTE, PVM_SHORT, PVM_INT, PVM_FLOAT, PVM_CPLX, PVM_DOUBLE,
	PVM_DCPLX, PVM_LONG, PVM_USHORT, PVM_UINT, PVM_ULONG
};
#define NTYPES	(int)(sizeof(types) / sizeof(types[0]))

typedef void (*reduce_fn)(int *, void *, void *, int *, int *);
static reduce_fn const ops[] = { PvmMax, PvmMin, PvmSum, PvmProduct };
enum { MAX, MIN, SUM, PRODUCT, NOPS };

static int parent_tid;

static void setup(void)
{
	vm_fixture_setup();
	setenv(GS_ENV_PROGRAM, PVMGS_PATH, 1);
}

static int is_cplx(int t)
{
	return t == PVM_CPLX || t == PVM_DCPLX;
}

static int is_unsigned(int t)
{
	return t == PVM_USHORT || t == PVM_UINT || t == PVM_ULONG;
}

/* Stores (re, im) as element k of an array of type t. */
static void put(int t, void *b, int k, double re, double im)
{
	switch (t) {
	case PVM_BYTE:	((signed char *)b)[k] = (signed char)re; break;
	case PVM_SHORT:	((short *)b)[k] = (short)re; break;
	case PVM_INT:	((int *)b)[k] = (int)re; break;
	case PVM_LONG:	((long *)b)[k] = (long)re; break;
	case PVM_USHORT: ((unsigned short *)b)[k] = (unsigned short)re; break;
	case PVM_UINT:	((unsigned *)b)[k] = (unsigned)re; break;
	case PVM_ULONG:	((unsigned long *)b)[k] = (unsigned long)re; break;
	case PVM_FLOAT:	((float *)b)[k] = (float)re; break;
	case PVM_DOUBLE: ((double *)b)[k] = re; break;
	case PVM_CPLX:
		((float *)b)[2 * k] = (float)re;
		((float *)b)[2 * k + 1] = (float)im;
		break;
	case PVM_DCPLX:
		((double *)b)[2 * k] = re;
		((double *)b)[2 * k + 1] = im;
		break;
	}
}

/* Reads element k of an array of type t (imaginary part 0 if real). */
static void get(int t, const void *b, int k, double *re, double *im)
{
	*re = *im = 0;
	switch (t) {
	case PVM_BYTE:	*re = ((const signed char *)b)[k]; break;
	case PVM_SHORT:	*re = ((const short *)b)[k]; break;
	case PVM_INT:	*re = ((const int *)b)[k]; break;
	case PVM_LONG:	*re = ((const long *)b)[k]; break;
	case PVM_USHORT: *re = ((const unsigned short *)b)[k]; break;
	case PVM_UINT:	*re = ((const unsigned *)b)[k]; break;
	case PVM_ULONG:	*re = ((const unsigned long *)b)[k]; break;
	case PVM_FLOAT:	*re = ((const float *)b)[k]; break;
	case PVM_DOUBLE: *re = ((const double *)b)[k]; break;
	case PVM_CPLX:
		*re = ((const float *)b)[2 * k];
		*im = ((const float *)b)[2 * k + 1];
		break;
	case PVM_DCPLX:
		*re = ((const double *)b)[2 * k];
		*im = ((const double *)b)[2 * k + 1];
		break;
	}
}

/* Member `inst''s element k: signed types get a negative one in the
 * middle, complex numbers grow in modulus with the instance. */
static void value(int t, int inst, int k, double *re, double *im)
{
	*im = 0;
	if (is_cplx(t)) {
		*re = inst + 1;
		*im = 2 * k + inst;
	} else {
		*re = (inst + 1) * (k + 1);
		if (inst == 1 && !is_unsigned(t))
			*re = -*re;
	}
}

/* What reducing element k over members 0..n-1 with `op' gives. */
static void expected(int t, int op, int k, int n, double *re, double *im)
{
	double r, i, vr, vi, m, vm;
	int inst;

	value(t, 0, k, &r, &i);
	for (inst = 1; inst < n; inst++) {
		value(t, inst, k, &vr, &vi);
		m = r * r + i * i;
		vm = vr * vr + vi * vi;
		switch (op) {
		case MAX:
			if (is_cplx(t) ? vm > m : vr > r) {
				r = vr;
				i = vi;
			}
			break;
		case MIN:
			if (is_cplx(t) ? vm < m : vr < r) {
				r = vr;
				i = vi;
			}
			break;
		case SUM:
			r += vr;
			i += vi;
			break;
		case PRODUCT:
			m = r * vr - i * vi;
			i = r * vi + i * vr;
			r = m;
			break;
		}
	}
	*re = r;
	*im = i;
}

/* Whether element k of `b' (type t) is (re, im), to float precision. */
static int same(int t, const void *b, int k, double re, double im)
{
	double r, i;

	get(t, b, k, &r, &i);
	return fabs(r - re) <= 1e-5 * (1 + fabs(re)) &&
	       fabs(i - im) <= 1e-5 * (1 + fabs(im));
}

static int byte_arith(int t, int op)
{
	return t == PVM_BYTE && (op == SUM || op == PRODUCT);
}

START_TEST(predefined_functions_on_every_type)
{
	unsigned char x[NELEM * 16], y[NELEM * 16], keep[NELEM * 16];
	double re, im;
	int ti, op, k, n, t, info;

	for (ti = 0; ti < NTYPES; ti++) {
		for (op = 0; op < NOPS; op++) {
			t = types[ti];
			for (k = 0; k < NELEM; k++) {
				value(t, 0, k, &re, &im);
				put(t, x, k, re, im);
			}
			memcpy(keep, x, sizeof(x));
			for (n = 1; n < NMEMBERS; n++) {
				int count = NELEM;

				for (k = 0; k < NELEM; k++) {
					value(t, n, k, &re, &im);
					put(t, y, k, re, im);
				}
				info = 12345;
				ops[op](&t, x, y, &count, &info);
				if (byte_arith(t, op)) {
					ck_assert_int_eq(info, PvmBadParam);
					ck_assert(!memcmp(x, keep, sizeof(x)));
					continue;
				}
				ck_assert_int_eq(info, PvmOk);
				for (k = 0; k < NELEM; k++) {
					expected(t, op, k, n + 1, &re, &im);
					ck_assert_msg(same(t, x, k, re, im),
						      "type %d op %d elem %d",
						      t, op, k);
				}
			}
		}
	}
	/* Not a data type. */
	for (op = 0; op < NOPS; op++) {
		int bad[2] = { PVM_STR, 99 }, count = 1;

		for (k = 0; k < 2; k++) {
			info = 0;
			ops[op](&bad[k], x, y, &count, &info);
			ck_assert_int_eq(info, PvmBadParam);
		}
	}
}
END_TEST

/* A user reduction that depends on the order: x = 10 x + y. */
static void shift_add(int *type, void *x, void *y, int *num, int *info)
{
	int i;

	for (i = 0; i < *num; i++)
		((int *)x)[i] = ((int *)x)[i] * 10 + ((int *)y)[i];
	*info = *type == PVM_INT ? PvmOk : PvmBadParam;
}

/* A user reduction that fails. */
static void refuse(int *type, void *x, void *y, int *num, int *info)
{
	(void)type;
	(void)x;
	(void)y;
	(void)num;
	*info = PvmNoData;
}

/* What every member of the three runs, `inst' being its instance.
 * Returns how many checks failed. */
static int script(int inst)
{
	unsigned char buf[NELEM * 16], all[NMEMBERS * NELEM * 16];
	double re, im;
	int fails = 0, ti, op, k, t, rc, root, x, i;

	/* Every type and predefined operation, the root moving around. */
	for (ti = 0; ti < NTYPES; ti++) {
		for (op = 0; op < NOPS; op++) {
			t = types[ti];
			if (byte_arith(t, op))
				continue;
			root = (ti + op) % NMEMBERS;
			for (k = 0; k < NELEM; k++) {
				value(t, inst, k, &re, &im);
				put(t, buf, k, re, im);
			}
			rc = pvm_reduce(ops[op], buf, NELEM, t, TAG_DATA, GROUP,
					root);
			fails += rc != 0;
			for (k = 0; inst == root && k < NELEM; k++) {
				expected(t, op, k, NMEMBERS, &re, &im);
				fails += !same(t, buf, k, re, im);
			}
		}
	}
	/* A user function sees the root's data first, then the others'
	 * in instance order; its errors come back from the root's call. */
	x = inst + 1;
	rc = pvm_reduce(shift_add, &x, 1, PVM_INT, TAG_DATA, GROUP, 0);
	fails += rc != 0 || (inst == 0 && x != 123);
	x = inst + 1;
	rc = pvm_reduce(shift_add, &x, 1, PVM_INT, TAG_DATA, GROUP, 1);
	fails += rc != 0 || (inst == 1 && x != 213);
	rc = pvm_reduce(refuse, &x, 1, PVM_INT, TAG_DATA, GROUP, 2);
	fails += rc != (inst == 2 ? PvmNoData : 0);

	/* Gather: member i's block lands at offset i. */
	for (k = 0; k < NELEM; k++)
		put(PVM_INT, buf, k, inst * 10 + k, 0);
	rc = pvm_gather(all, buf, NELEM, PVM_INT, TAG_DATA, GROUP, 0);
	fails += rc != 0;
	for (i = 0; inst == 0 && i < NMEMBERS * NELEM; i++)
		fails += !same(PVM_INT, all, i, (i / NELEM) * 10 + i % NELEM,
			       0);
	for (k = 0; k < NELEM; k++)
		put(PVM_DCPLX, buf, k, inst + 0.25 * k, -inst);
	rc = pvm_gather(all, buf, NELEM, PVM_DCPLX, TAG_DATA, GROUP, 2);
	fails += rc != 0;
	for (i = 0; inst == 2 && i < NMEMBERS * NELEM; i++)
		fails += !same(PVM_DCPLX, all, i,
			       i / NELEM + 0.25 * (i % NELEM), -(i / NELEM));

	/* Scatter: member i gets the block at offset i. */
	for (i = 0; i < NMEMBERS * NELEM; i++)
		put(PVM_SHORT, all, i, i * 3 - 7, 0);
	memset(buf, 0, sizeof(buf));
	rc = pvm_scatter(buf, inst == 0 ? all : NULL, NELEM, PVM_SHORT,
			 TAG_DATA, GROUP, 0);
	fails += rc != 0;
	for (k = 0; k < NELEM; k++)
		fails += !same(PVM_SHORT, buf, k, (inst * NELEM + k) * 3 - 7,
			       0);
	for (i = 0; i < NMEMBERS * NELEM; i++)
		put(PVM_FLOAT, all, i, i * 0.5, 0);
	rc = pvm_scatter(buf, all, NELEM, PVM_FLOAT, TAG_DATA, GROUP, 1);
	fails += rc != 0;
	for (k = 0; k < NELEM; k++)
		fails += !same(PVM_FLOAT, buf, k, (inst * NELEM + k) * 0.5, 0);
	return fails;
}

/* A member: joins, meets the others, runs the script, reports. */
static int kid_script(int arg)
{
	int inst = pvm_joingroup(GROUP), fails;

	(void)arg;
	if (inst < 1)
		return 1;
	pvm_setopt(PvmAutoErr, 0);
	if (pvm_barrier(GROUP, NMEMBERS) < 0)
		return 2;
	fails = script(inst);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&fails, 1, 1);
	pvm_send(parent_tid, TAG_UP);
	vm_recv_int(parent_tid, TAG_GO);
	return pvm_lvgroup(GROUP) == 0 ? 0 : 3;
}

START_TEST(reduce_gather_scatter_over_three_members)
{
	pid_t kids[NMEMBERS - 1];
	int tids[NMEMBERS - 1], i, st;

	parent_tid = pvm_mytid();
	ck_assert_int_eq(pvm_joingroup(GROUP), 0);
	pvm_setopt(PvmAutoErr, 0);
	for (i = 0; i < NMEMBERS - 1; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			vm_send_int(parent_tid, TAG_UP, pvm_mytid());
			st = kid_script(0);
			pvm_exit();
			_exit(st);
		}
		tids[i] = vm_recv_int(-1, TAG_UP);
	}
	ck_assert_int_eq(pvm_barrier(GROUP, NMEMBERS), 0);
	ck_assert_int_eq(script(0), 0);
	for (i = 0; i < NMEMBERS - 1; i++)
		ck_assert_int_eq(vm_recv_int(tids[i], TAG_UP), 0);
	for (i = 0; i < NMEMBERS - 1; i++)
		vm_send_int(tids[i], TAG_GO, 0);
	for (i = 0; i < NMEMBERS - 1; i++) {
		ck_assert_int_eq(waitpid(kids[i], &st, 0), kids[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	ck_assert_int_eq(pvm_lvgroup(GROUP), 0);
	pvm_exit();
}
END_TEST

START_TEST(collective_errors)
{
	int x[4] = { 1, 2, 3, 4 }, y[4];

	pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_joingroup("cerr"), 0);
	/* Alone in the group, everything is local and works. */
	ck_assert_int_eq(pvm_reduce(PvmMax, x, 4, PVM_INT, 1, "cerr", 0), 0);
	ck_assert_int_eq(pvm_gather(y, x, 4, PVM_INT, 1, "cerr", 0), 0);
	ck_assert_int_eq(memcmp(x, y, sizeof(x)), 0);
	ck_assert_int_eq(pvm_scatter(y, x, 4, PVM_UINT, 1, "cerr", 0), 0);
	ck_assert_int_eq(pvm_reduce(NULL, x, 4, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, NULL, 4, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 0, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 4, 99, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 4, PVM_STR, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 4, PVM_BYTE, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 4, PVM_INT, -1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 4, PVM_INT, 1, "cerr", 3),
			 PvmNoInst);
	ck_assert_int_eq(pvm_gather(NULL, x, 4, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_gather(y, NULL, 4, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_scatter(y, NULL, 4, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_scatter(NULL, x, 4, PVM_INT, 1, "cerr", 0),
			 PvmBadParam);
	ck_assert_int_eq(pvm_gather(y, x, 4, PVM_INT, 1, "cerr", -1),
			 PvmNoInst);
	ck_assert_int_eq(pvm_lvgroup("cerr"), 0);
	/* Members only. */
	ck_assert_int_eq(pvm_joingroup("cerr2"), 0);
	ck_assert_int_eq(pvm_lvgroup("cerr2"), 0);
	ck_assert_int_eq(pvm_reduce(PvmSum, x, 4, PVM_INT, 1, "cerr2", 0),
			 PvmNoGroup);
	pvm_exit();
}
END_TEST

static Suite *reduce_suite(void)
{
	Suite *s = suite_create("group_reduce");
	TCase *tc = tcase_create("collective");

	tcase_add_unchecked_fixture(tc, setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, predefined_functions_on_every_type);
	tcase_add_test(tc, reduce_gather_scatter_over_three_members);
	tcase_add_test(tc, collective_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reduce_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

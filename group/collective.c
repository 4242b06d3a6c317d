/*
 * collective.c - pvm_reduce, pvm_gather and pvm_scatter, and the
 * predefined reduction functions PvmMax, PvmMin, PvmSum and PvmProduct.
 *
 * The three calls work from the caller's copy of the group's member table
 * (client.c), so the group must not change while they run: the man pages
 * ask for a barrier around them when it might.  Data travels as ordinary
 * messages with the caller's tag in the caller's context, packed with
 * PvmDataDefault; the root takes its partners' messages in instance
 * order, so a reduction combines in the same order on every run.
 * The caller's active send and receive buffers are left as they were.
 * Unlike the other group calls, these report errors through the usual
 * PvmAutoErr printing, as stock's do.
 */
#include <stdlib.h>
#include <string.h>

#include "gpvmi.h"

/*
 * The predefined reduction functions.
 *
 * Each combines y into x element by element: x[i] = op(x[i], y[i]) for
 * *num elements of type *datatype, and sets *info to PvmOk, or to
 * PvmBadParam (x untouched) for a type it does not handle.  They are
 * exported for pvm_reduce() and for direct calls, with stock's
 * signature; Fortran passes every argument by reference, hence the
 * pointers.
 *
 * Types: every integer type, signed and unsigned, the two real types and
 * the two complex ones.  A complex maximum (minimum) is the operand with
 * the larger (smaller) modulus, the first one on a tie.  As the man page
 * says, there is no sum or product of PVM_BYTE (stock 3.4.6 also refuses
 * the unsigned types; copvm handles them).
 */

enum op { OP_MAX, OP_MIN, OP_SUM, OP_PRODUCT };

/* Element-wise loop over one real or integer C type. */
#define REAL_LOOP(T, op, x, y, n)					\
	do {								\
		T *a = (T *)(x);					\
		const T *b = (const T *)(y);				\
		int i;							\
									\
		for (i = 0; i < (n); i++) {				\
			switch (op) {					\
			case OP_MAX:					\
				if (b[i] > a[i])			\
					a[i] = b[i];			\
				break;					\
			case OP_MIN:					\
				if (b[i] < a[i])			\
					a[i] = b[i];			\
				break;					\
			case OP_SUM:					\
				a[i] += b[i];				\
				break;					\
			case OP_PRODUCT:				\
				a[i] *= b[i];				\
				break;					\
			}						\
		}							\
	} while (0)

/* The same over complex numbers stored as (re, im) pairs of T. */
#define CPLX_LOOP(T, op, x, y, n)					\
	do {								\
		T *a = (T *)(x);					\
		const T *b = (const T *)(y);				\
		int i;							\
									\
		for (i = 0; i < (n); i++, a += 2, b += 2) {		\
			T ma = a[0] * a[0] + a[1] * a[1];		\
			T mb = b[0] * b[0] + b[1] * b[1];		\
			T re;						\
									\
			switch (op) {					\
			case OP_MAX:					\
				if (mb > ma) {				\
					a[0] = b[0];			\
					a[1] = b[1];			\
				}					\
				break;					\
			case OP_MIN:					\
				if (mb < ma) {				\
					a[0] = b[0];			\
					a[1] = b[1];			\
				}					\
				break;					\
			case OP_SUM:					\
				a[0] += b[0];				\
				a[1] += b[1];				\
				break;					\
			case OP_PRODUCT:				\
				re = a[0] * b[0] - a[1] * b[1];		\
				a[1] = a[0] * b[1] + a[1] * b[0];	\
				a[0] = re;				\
				break;					\
			}						\
		}							\
	} while (0)

/* Applies `op' for type `type'; PvmOk or PvmBadParam. */
static int combine(enum op op, int type, void *x, const void *y, int n)
{
	if (!x || !y || n < 0)
		return PvmBadParam;
	switch (type) {
	case PVM_BYTE:
		if (op == OP_SUM || op == OP_PRODUCT)
			return PvmBadParam;
		REAL_LOOP(signed char, op, x, y, n);
		break;
	case PVM_SHORT:
		REAL_LOOP(short, op, x, y, n);
		break;
	case PVM_INT:
		REAL_LOOP(int, op, x, y, n);
		break;
	case PVM_LONG:
		REAL_LOOP(long, op, x, y, n);
		break;
	case PVM_USHORT:
		REAL_LOOP(unsigned short, op, x, y, n);
		break;
	case PVM_UINT:
		REAL_LOOP(unsigned int, op, x, y, n);
		break;
	case PVM_ULONG:
		REAL_LOOP(unsigned long, op, x, y, n);
		break;
	case PVM_FLOAT:
		REAL_LOOP(float, op, x, y, n);
		break;
	case PVM_DOUBLE:
		REAL_LOOP(double, op, x, y, n);
		break;
	case PVM_CPLX:
		CPLX_LOOP(float, op, x, y, n);
		break;
	case PVM_DCPLX:
		CPLX_LOOP(double, op, x, y, n);
		break;
	default:
		return PvmBadParam;
	}
	return PvmOk;
}

static void run(enum op op, int *datatype, void *x, void *y, int *num,
		int *info)
{
	int rc;

	if (!datatype || !num)
		rc = PvmBadParam;
	else
		rc = combine(op, *datatype, x, y, *num);
	if (info)
		*info = rc;
}

/* x[i] = the larger of x[i] and y[i] (of two complex numbers, the one
 * with the larger modulus).  *info = PvmOk or PvmBadParam. */
GPVMI_EXPORT void PvmMax(int *datatype, void *x, void *y, int *num,
			 int *info)
{
	run(OP_MAX, datatype, x, y, num, info);
}

/* x[i] = the smaller of x[i] and y[i] (of two complex numbers, the one
 * with the smaller modulus).  *info = PvmOk or PvmBadParam. */
GPVMI_EXPORT void PvmMin(int *datatype, void *x, void *y, int *num,
			 int *info)
{
	run(OP_MIN, datatype, x, y, num, info);
}

/* x[i] += y[i]; not defined for PVM_BYTE.
 * *info = PvmOk or PvmBadParam. */
GPVMI_EXPORT void PvmSum(int *datatype, void *x, void *y, int *num,
			 int *info)
{
	run(OP_SUM, datatype, x, y, num, info);
}

/* x[i] *= y[i] (complex product for the complex types); not defined for
 * PVM_BYTE.  *info = PvmOk or PvmBadParam. */
GPVMI_EXPORT void PvmProduct(int *datatype, void *x, void *y, int *num,
			     int *info)
{
	run(OP_PRODUCT, datatype, x, y, num, info);
}

/*
 * The collective calls.
 */

int gpvmi_typesize(int type)
{
	switch (type) {
	case PVM_BYTE:		return 1;
	case PVM_SHORT:		return (int)sizeof(short);
	case PVM_INT:		return (int)sizeof(int);
	case PVM_FLOAT:		return (int)sizeof(float);
	case PVM_CPLX:		return 2 * (int)sizeof(float);
	case PVM_DOUBLE:	return (int)sizeof(double);
	case PVM_DCPLX:		return 2 * (int)sizeof(double);
	case PVM_LONG:		return (int)sizeof(long);
	case PVM_USHORT:	return (int)sizeof(unsigned short);
	case PVM_UINT:		return (int)sizeof(unsigned int);
	case PVM_ULONG:		return (int)sizeof(unsigned long);
	default:		return 0;
	}
}

int gpvmi_pack(int type, void *p, int n)
{
	switch (type) {
	case PVM_BYTE:		return pvm_pkbyte(p, n, 1);
	case PVM_SHORT:		return pvm_pkshort(p, n, 1);
	case PVM_INT:		return pvm_pkint(p, n, 1);
	case PVM_FLOAT:		return pvm_pkfloat(p, n, 1);
	case PVM_CPLX:		return pvm_pkcplx(p, n, 1);
	case PVM_DOUBLE:	return pvm_pkdouble(p, n, 1);
	case PVM_DCPLX:		return pvm_pkdcplx(p, n, 1);
	case PVM_LONG:		return pvm_pklong(p, n, 1);
	case PVM_USHORT:	return pvm_pkushort(p, n, 1);
	case PVM_UINT:		return pvm_pkuint(p, n, 1);
	case PVM_ULONG:		return pvm_pkulong(p, n, 1);
	default:		return PvmBadParam;
	}
}

int gpvmi_unpack(int type, void *p, int n)
{
	switch (type) {
	case PVM_BYTE:		return pvm_upkbyte(p, n, 1);
	case PVM_SHORT:		return pvm_upkshort(p, n, 1);
	case PVM_INT:		return pvm_upkint(p, n, 1);
	case PVM_FLOAT:		return pvm_upkfloat(p, n, 1);
	case PVM_CPLX:		return pvm_upkcplx(p, n, 1);
	case PVM_DOUBLE:	return pvm_upkdouble(p, n, 1);
	case PVM_DCPLX:		return pvm_upkdcplx(p, n, 1);
	case PVM_LONG:		return pvm_upklong(p, n, 1);
	case PVM_USHORT:	return pvm_upkushort(p, n, 1);
	case PVM_UINT:		return pvm_upkuint(p, n, 1);
	case PVM_ULONG:		return pvm_upkulong(p, n, 1);
	default:		return PvmBadParam;
	}
}

/* Sends `n' elements of `type' at `p' to `tid' with `tag' from a buffer
 * of our own. */
static int send_block(int tid, int tag, int type, void *p, int n)
{
	int saved = pvm_setsbuf(0), mid, rc;

	mid = pvm_mkbuf(PvmDataDefault);
	if (mid < 0) {
		pvm_setsbuf(saved);
		return mid;
	}
	pvm_setsbuf(mid);
	rc = gpvmi_pack(type, p, n);
	if (rc >= 0)
		rc = pvm_send(tid, tag);
	pvm_freebuf(mid);
	pvm_setsbuf(saved);
	return rc < 0 ? rc : PvmOk;
}

/* Receives `n' elements of `type' from `tid' with `tag' into `p'; the
 * message is freed and the active receive buffer left alone. */
static int recv_block(int tid, int tag, int type, void *p, int n)
{
	int saved = pvm_setrbuf(0), b, rc;

	b = pvm_recv(tid, tag);
	rc = b < 0 ? b : gpvmi_unpack(type, p, n);
	if (b > 0)
		pvm_freebuf(b);
	pvm_setrbuf(saved < 0 ? 0 : saved);
	return rc < 0 ? rc : PvmOk;
}

/* The checks the three calls share.  On success the caller is a member,
 * *roottid is the root's tid and *myinst the caller's instance, and
 * *slots a copy of the member table (*nslots long) to free: a message
 * handler run by one of our receives could change the group's copy. */
static int prepare(const char *group, int count, int type, int tag,
		   int root, int *roottid, int *myinst, int **slots,
		   int *nslots)
{
	struct gpvmi_group *g;
	int rc;

	if (count <= 0 || gpvmi_typesize(type) == 0 || tag < 0)
		return PvmBadParam;
	if (!group || !*group)
		return PvmNullGroup;
	g = gpvmi_group_get(group, &rc);
	if (!g)
		return rc;
	if (g->myinst < 0)
		return PvmNotInGroup;
	if (root < 0 || root >= g->nslots || g->slots[root] <= 0)
		return PvmNoInst;
	*slots = malloc((size_t)g->nslots * sizeof(int));
	if (!*slots)
		return PvmNoMem;
	memcpy(*slots, g->slots, (size_t)g->nslots * sizeof(int));
	*nslots = g->nslots;
	*roottid = g->slots[root];
	*myinst = g->myinst;
	return PvmOk;
}

typedef void (*reduce_fn)(int *, void *, void *, int *, int *);

/* Combines the `count' elements of `type' at `data' over the members of
 * `group' with `func'; the result lands in the data of instance `root'.
 * Returns 0, or the first error (a negative info from `func' included). */
GPVMI_EXPORT int pvm_reduce(reduce_fn func, void *data, int count,
			    int datatype, int msgtag, char *group, int root)
{
	int rc, roottid, me, i, n, info, type = datatype, *slots, nslots;
	char *tmp;

	if (!func || !data)
		return lpvmerr("pvm_reduce", PvmBadParam);
	/* The predefined functions have no sum or product of bytes. */
	if (datatype == PVM_BYTE && (func == PvmSum || func == PvmProduct))
		return lpvmerr("pvm_reduce", PvmBadParam);
	rc = prepare(group, count, datatype, msgtag, root, &roottid, &me,
		     &slots, &nslots);
	if (rc < 0)
		return lpvmerr("pvm_reduce", rc);
	if (me != root) {
		free(slots);
		rc = send_block(roottid, msgtag, datatype, data, count);
		return rc < 0 ? lpvmerr("pvm_reduce", rc) : PvmOk;
	}
	tmp = malloc((size_t)count * gpvmi_typesize(datatype));
	if (!tmp) {
		free(slots);
		return lpvmerr("pvm_reduce", PvmNoMem);
	}
	for (i = 0; i < nslots; i++) {
		if (i == root || slots[i] <= 0)
			continue;
		info = recv_block(slots[i], msgtag, datatype, tmp, count);
		if (info < 0) {
			if (rc == PvmOk)
				rc = info;
			continue;
		}
		info = PvmOk;
		n = count;
		func(&type, data, tmp, &n, &info);
		if (info < 0 && rc == PvmOk)
			rc = info;
	}
	free(tmp);
	free(slots);
	return rc < 0 ? lpvmerr("pvm_reduce", rc) : PvmOk;
}

/* Collects `count' elements of `datatype' from every member into
 * `result' of instance `root', member i's at offset i * count. */
GPVMI_EXPORT int pvm_gather(void *result, void *data, int count,
			    int datatype, int msgtag, char *group, int root)
{
	int rc, roottid, me, i, r, size, *slots, nslots;

	if (!data)
		return lpvmerr("pvm_gather", PvmBadParam);
	rc = prepare(group, count, datatype, msgtag, root, &roottid, &me,
		     &slots, &nslots);
	if (rc < 0)
		return lpvmerr("pvm_gather", rc);
	if (me != root) {
		free(slots);
		rc = send_block(roottid, msgtag, datatype, data, count);
		return rc < 0 ? lpvmerr("pvm_gather", rc) : PvmOk;
	}
	if (!result) {
		free(slots);
		return lpvmerr("pvm_gather", PvmBadParam);
	}
	size = count * gpvmi_typesize(datatype);
	memmove((char *)result + (size_t)root * size, data, size);
	for (i = 0; i < nslots; i++) {
		if (i == root || slots[i] <= 0)
			continue;
		r = recv_block(slots[i], msgtag, datatype,
			       (char *)result + (size_t)i * size, count);
		if (r < 0 && rc == PvmOk)
			rc = r;
	}
	free(slots);
	return rc < 0 ? lpvmerr("pvm_gather", rc) : PvmOk;
}

/* Hands member i `count' elements of `datatype' from offset i * count of
 * `data' on instance `root'; each member gets them in `result'. */
GPVMI_EXPORT int pvm_scatter(void *result, void *data, int count,
			     int datatype, int msgtag, char *group, int root)
{
	int rc, roottid, me, i, r, size, *slots, nslots;

	if (!result)
		return lpvmerr("pvm_scatter", PvmBadParam);
	rc = prepare(group, count, datatype, msgtag, root, &roottid, &me,
		     &slots, &nslots);
	if (rc < 0)
		return lpvmerr("pvm_scatter", rc);
	if (me != root) {
		free(slots);
		rc = recv_block(roottid, msgtag, datatype, result, count);
		return rc < 0 ? lpvmerr("pvm_scatter", rc) : PvmOk;
	}
	if (!data) {
		free(slots);
		return lpvmerr("pvm_scatter", PvmBadParam);
	}
	size = count * gpvmi_typesize(datatype);
	for (i = 0; i < nslots; i++) {
		if (i == root || slots[i] <= 0)
			continue;
		r = send_block(slots[i], msgtag, datatype,
			       (char *)data + (size_t)i * size, count);
		if (r < 0 && rc == PvmOk)
			rc = r;
	}
	free(slots);
	memmove(result, (char *)data + (size_t)root * size, size);
	return rc < 0 ? lpvmerr("pvm_scatter", rc) : PvmOk;
}

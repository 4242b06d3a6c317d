/*
 * f_group.c - Fortran binding of the dynamic groups (libgpvm3): joining
 * and leaving, instance numbers, barriers, broadcast, reduce, gather and
 * scatter.
 *
 * Everything here calls libgpvm3, and only this file does, so that a
 * program that uses no group routine links without libgpvm3 when it links
 * libfpvm3 statically.  Group names longer than 31 characters (after the
 * trailing blanks are dropped) are refused with PvmBadParam, as PVM
 * 3.4.6's binding does.
 *
 * A Fortran program passes a reduction as an EXTERNAL routine: PvmMax,
 * PvmMin, PvmSum or PvmProduct (the routines pvmmax_ and friends below),
 * or its own routine(datatype, x, y, num, info).  Both are called with
 * every argument by reference, which is also how libgpvm3 calls the C
 * reductions, so any of them could go to pvm_reduce as is.  The
 * predefined ones are swapped for their C twins all the same, so that
 * libgpvm3 knows them for what they are (it refuses a sum or product of
 * bytes up front, as it does for a C caller).
 */
#include "fpvm.h"

/* pvmmax(datatype, x, y, num, info): x(i) = max(x(i), y(i)); for complex
 * types, the one of larger modulus.  The reduction PvmMax. */
FPVM_EXPORT void pvmmax_(int *datatype, void *x, void *y, int *num,
			 int *info)
{
	PvmMax(datatype, x, y, num, info);
}

/* pvmmin(datatype, x, y, num, info): x(i) = min(x(i), y(i)).  The
 * reduction PvmMin. */
FPVM_EXPORT void pvmmin_(int *datatype, void *x, void *y, int *num,
			 int *info)
{
	PvmMin(datatype, x, y, num, info);
}

/* pvmsum(datatype, x, y, num, info): x(i) = x(i) + y(i).  The reduction
 * PvmSum. */
FPVM_EXPORT void pvmsum_(int *datatype, void *x, void *y, int *num,
			 int *info)
{
	PvmSum(datatype, x, y, num, info);
}

/* pvmproduct(datatype, x, y, num, info): x(i) = x(i) * y(i).  The
 * reduction PvmProduct. */
FPVM_EXPORT void pvmproduct_(int *datatype, void *x, void *y, int *num,
			     int *info)
{
	PvmProduct(datatype, x, y, num, info);
}

/* Converts group name `f' into `buf' (FPVM_GROUPLEN + 1 bytes).  Returns
 * 0, or PvmBadParam if it is too long. */
static int group_name(char *buf, const char *f, size_t flen)
{
	return fpvmi_fstr_in(buf, FPVM_GROUPLEN + 1, f, flen) ? PvmBadParam : 0;
}

/* pvmfjoingroup(group, inum): joins group (creating it if needed); inum
 * gets this task's instance number in it, or an error code. */
FPVM_EXPORT void pvmfjoingroup_(char *group, int *inum, size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*inum = group_name(g, group, grouplen) ?: pvm_joingroup(g);
}

/* pvmflvgroup(group, info): leaves group; info is 0 or an error code. */
FPVM_EXPORT void pvmflvgroup_(char *group, int *info, size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?: pvm_lvgroup(g);
}

/* pvmfgetinst(group, tid, inum): the instance number of task tid in
 * group, or an error code. */
FPVM_EXPORT void pvmfgetinst_(char *group, int *tid, int *inum,
			      size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*inum = group_name(g, group, grouplen) ?: pvm_getinst(g, *tid);
}

/* pvmfgettid(group, inum, tid): the tid of instance inum of group, or an
 * error code. */
FPVM_EXPORT void pvmfgettid_(char *group, int *inum, int *tid,
			     size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*tid = group_name(g, group, grouplen) ?: pvm_gettid(g, *inum);
}

/* pvmfgsize(group, size): the number of members of group, or an error
 * code. */
FPVM_EXPORT void pvmfgsize_(char *group, int *size, size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*size = group_name(g, group, grouplen) ?: pvm_gsize(g);
}

/* pvmfbarrier(group, count, info): waits until count members of group
 * have called it; info is 0 or an error code. */
FPVM_EXPORT void pvmfbarrier_(char *group, int *count, int *info,
			      size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?: pvm_barrier(g, *count);
}

/* pvmfbcast(group, msgtag, info): sends the active send buffer to every
 * other member of group. */
FPVM_EXPORT void pvmfbcast_(char *group, int *msgtag, int *info,
			    size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?: pvm_bcast(g, *msgtag);
}

/* pvmffreezegroup(group, size, info): waits until group has size members
 * and then lets no one join or leave it (size -1: as it is now). */
FPVM_EXPORT void pvmffreezegroup_(char *group, int *size, int *info,
				  size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?: pvm_freezegroup(g, *size);
}

/* The C reduction behind a Fortran one: the C twin of a predefined
 * routine, or `func' itself (a user routine). */
static fpvm_reduce_fn c_reduction(fpvm_reduce_fn func)
{
	if (func == pvmmax_)
		return PvmMax;
	if (func == pvmmin_)
		return PvmMin;
	if (func == pvmsum_)
		return PvmSum;
	if (func == pvmproduct_)
		return PvmProduct;
	return func;
}

/* pvmfreduce(func, data, count, datatype, msgtag, group, rootginst,
 * info): combines the count items in data of every member with func; the
 * result lands in data of instance rootginst. */
FPVM_EXPORT void pvmfreduce_(fpvm_reduce_fn func, void *data, int *count,
			     int *datatype, int *msgtag, char *group,
			     int *rootginst, int *info, size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?:
		pvm_reduce(c_reduction(func), data, *count, *datatype,
			   *msgtag, g, *rootginst);
}

/* pvmfgather(result, data, count, datatype, msgtag, group, rootginst,
 * info): instance rootginst collects every member's count items of data
 * into result, in instance order. */
FPVM_EXPORT void pvmfgather_(void *result, void *data, int *count,
			     int *datatype, int *msgtag, char *group,
			     int *rootginst, int *info, size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?:
		pvm_gather(result, data, *count, *datatype, *msgtag, g,
			   *rootginst);
}

/* pvmfscatter(result, data, count, datatype, msgtag, group, rootginst,
 * info): instance rootginst hands out successive count items of data,
 * one slice to each member's result, in instance order. */
FPVM_EXPORT void pvmfscatter_(void *result, void *data, int *count,
			      int *datatype, int *msgtag, char *group,
			      int *rootginst, int *info, size_t grouplen)
{
	char g[FPVM_GROUPLEN + 1];

	*info = group_name(g, group, grouplen) ?:
		pvm_scatter(result, data, *count, *datatype, *msgtag, g,
			    *rootginst);
}

/*
 * groups.c - dynamic groups: joining and leaving, instance numbers,
 * sizes, barriers, freezing and broadcasting.
 *
 * These calls check their arguments and ask the group server (client.c),
 * except where the task's own copy of a member table may answer: a frozen
 * group's copy answers everything (it cannot change), and pvm_bcast uses
 * the copy of a dynamic group too, as the man page allows ("if the group
 * is changed during a broadcast the change will not be reflected").
 * Like stock's, these calls record errors in pvm_errno without printing.
 *
 * At the end: the rest of the names Debian's libgpvm3.so.3 exports.
 */
#include <stdlib.h>
#include <string.h>

#include "gpvmi.h"
#include "gs_proto.h"

static int bad_name(const char *group)
{
	return !group || !*group;
}

/* One request whose answer is just a status. */
static int simple(int op, const char *group, int arg)
{
	struct gpvmi_reply rep;
	int rc = gpvmi_call(op, group, arg, &rep);

	free(rep.slots);
	if (rc < 0)
		return rc;
	if (rep.frozen && !gpvmi_group_frozen(group)) {
		/* Static now: keep a copy, as stock caches static groups for
		 * members and non-members alike. */
		int r;

		gpvmi_group_drop(group);
		gpvmi_group_get(group, &r);
	}
	return rep.status;
}

/* Enrols the caller in `group' (created if new) and returns its instance
 * number, the lowest one free. */
GPVMI_EXPORT int pvm_joingroup(char *group)
{
	int rc;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	rc = simple(GS_OP_JOIN, group, 0);
	if (rc >= 0)
		gpvmi_group_drop(group);	/* our copy lacks us */
	return gpvmi_quiet(rc);
}

/* Takes the caller out of `group'; its instance number becomes free.
 * A non-member's call frees its copy of the group and fails. */
GPVMI_EXPORT int pvm_lvgroup(char *group)
{
	struct gpvmi_reply rep;
	int rc;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	rc = gpvmi_call(GS_OP_LEAVE, group, 0, &rep);
	free(rep.slots);
	gpvmi_group_drop(group);
	return gpvmi_quiet(rc < 0 ? rc : rep.status);
}

/* Returns the instance number of task `tid' in `group' (any task may
 * ask), PvmNoGroup or PvmNotInGroup. */
GPVMI_EXPORT int pvm_getinst(char *group, int tid)
{
	struct gpvmi_group *g;
	int i;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	g = gpvmi_group_frozen(group);
	if (g) {
		for (i = 0; i < g->nslots; i++)
			if (tid > 0 && g->slots[i] == tid)
				return i;
		return gpvmi_quiet(PvmNotInGroup);
	}
	return gpvmi_quiet(simple(GS_OP_GETINST, group, tid));
}

/* Returns the tid of instance `inst' of `group', PvmNoGroup or
 * PvmNoInst. */
GPVMI_EXPORT int pvm_gettid(char *group, int inst)
{
	struct gpvmi_group *g;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	g = gpvmi_group_frozen(group);
	if (g) {
		if (inst < 0 || inst >= g->nslots || g->slots[inst] <= 0)
			return gpvmi_quiet(PvmNoInst);
		return g->slots[inst];
	}
	return gpvmi_quiet(simple(GS_OP_GETTID, group, inst));
}

/* Returns the number of members `group' has now (a static group: when
 * it was frozen), or PvmNoGroup. */
GPVMI_EXPORT int pvm_gsize(char *group)
{
	struct gpvmi_group *g;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	g = gpvmi_group_frozen(group);
	if (g)
		return g->nmembers;
	return gpvmi_quiet(simple(GS_OP_GSIZE, group, 0));
}

/* Blocks until `count' members of `group' (-1: as many as it has when
 * the first arrives) have called it.  0 or an error. */
GPVMI_EXPORT int pvm_barrier(char *group, int count)
{
	struct gpvmi_reply rep;
	int rc;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	if (count == 0 || count < -1)
		return gpvmi_quiet(PvmBadParam);
	rc = gpvmi_call(GS_OP_BARRIER, group, count, &rep);
	free(rep.slots);
	return gpvmi_quiet(rc < 0 ? rc : rep.status);
}

/* Makes `group' static once `size' members (-1: all it has) have called
 * it; every caller then keeps a copy of the table.  Returns the size. */
GPVMI_EXPORT int pvm_freezegroup(char *group, int size)
{
	struct gpvmi_reply rep;
	int rc;

	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	if (size == 0 || size < -1)
		return gpvmi_quiet(PvmBadParam);
	rc = gpvmi_call(GS_OP_FREEZE, group, size, &rep);
	if (rc == PvmOk && rep.status >= 0 &&
	    !gpvmi_group_store(group, &rep))
		rc = PvmNoMem;
	free(rep.slots);
	return gpvmi_quiet(rc < 0 ? rc : rep.status);
}

/* Sends the active send buffer with `msgtag' to every member of `group'
 * but the caller, who need not be a member.  PvmNoInst when there is
 * nobody to send to. */
GPVMI_EXPORT int pvm_bcast(char *group, int msgtag)
{
	struct gpvmi_group *g;
	int rc;

	if (msgtag < 0)
		return gpvmi_quiet(PvmBadParam);
	if (bad_name(group))
		return gpvmi_quiet(PvmNullGroup);
	g = gpvmi_group_get(group, &rc);
	if (!g)
		return gpvmi_quiet(rc);
	if (g->nothers == 0)
		return gpvmi_quiet(PvmNoInst);
	rc = pvm_mcast(g->others, g->nothers, msgtag);
	return gpvmi_quiet(rc < 0 ? rc : PvmOk);
}

/* Has the group server print its groups, members and pending barriers
 * on its output (the daemon's log).  0 or an error. */
GPVMI_EXPORT int pvm_gsdump(void)
{
	return gpvmi_quiet(gpvmi_dump());
}

/*
 * The rest of the names Debian's libgpvm3.so.3 exports.
 *
 * Stock PVM builds its group server and its group library from the same
 * sources, so libgpvm3 exports the server's own table routines (gs_*)
 * and a few helpers; no published interface declares them and no program
 * of Debian's pvm-examples uses them.  copvm keeps its server's tables in
 * the server (pvmgs.c, gs_db.c), so these exist only so that a program
 * linked against stock's library finds every symbol it might import:
 * each returns PvmNotImpl and does nothing else.  The few that mean
 * something outside stock's server are real: gs_getgstid() and
 * pvm_gsdump() (above) and the variables gstid and pvmgs_tmout
 * (client.c).  pvm_grphostinfo() and pvm_grpvhostinfo() describe the
 * per-host coordinators of stock's hierarchical groups, which copvm's
 * single server does not have: they return PvmNotImpl too.
 * docs/groups.md lists all of them.
 */

/* Every stub: any arguments are ignored. */
#define NOT_IMPLEMENTED(name)				\
	int name(void);					\
	GPVMI_EXPORT int name(void)			\
	{						\
		return PvmNotImpl;			\
	}

/* Returns the group server's tid, starting the server when none runs;
 * PvmSysErr when it cannot be started. */
GPVMI_EXPORT int gs_getgstid(void)
{
	return gpvmi_server();
}

/* Would describe the tasks and coordinator of a group on one host.
 * Returns PvmNotImpl: copvm's groups have no per-host coordinators. */
GPVMI_EXPORT int pvm_grphostinfo(void)
{
	return gpvmi_quiet(PvmNotImpl);
}

/* Would describe every host's share of a group.
 * Returns PvmNotImpl: copvm's groups have no per-host coordinators. */
GPVMI_EXPORT int pvm_grpvhostinfo(void)
{
	return gpvmi_quiet(PvmNotImpl);
}


/* Stands for the server-side barrier bookkeeping of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_barrier)

/* Stands for a search in stock's sorted group tables.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_binsearch)

/* Stands for stock's copy of a static group's table in a task.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_cachegroup)

/* Stands for the removal of a group from stock's tables.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_delete_group)

/* Stands for the host bookkeeping of stock's hierarchical groups.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_delhost)

/* Stands for stock's element size lookup for the collective calls.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_get_datasize)

/* Stands for stock's fetch of a group's tid list for pvm_bcast.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_get_tidlist)

/* Stands for the server-side pvm_getinst of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_getinst)

/* Stands for the server-side pvm_gettid of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_gettid)

/* Stands for the group lookup of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_group)

/* Stands for the server-side pvm_gsize of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_gsize)

/* Stands for the group hash table of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_hash_clear)

/* Stands for the group hash table of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_hash_init)

/* Stands for the group hash table of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_hash_name)

/* Stands for the per-host member counts of stock's hierarchical groups.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_host_all)

/* Stands for the per-host member counts of stock's hierarchical groups.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_host_char)

/* Stands for the server-side pvm_joingroup of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_join)

/* Stands for the server-side pvm_lvgroup of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_leave)

/* Stands for the group list of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_list_insert)

/* Stands for the host bookkeeping of stock's hierarchical groups.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_newhost)

/* Stands for stock's copy of a static group's table in a task.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_newstaticcache)

/* Stands for stock's choice of pack and unpack routines by type.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_pack_unpack)

/* Stands for stock's packing of a static group's table.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_pkstaticinfo)

/* Stands for an allocation helper of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_realloc_int_array)

/* Stands for stock's registration of pvmgs in the mailbox.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_register)

/* Stands for stock's integer answer from pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_retint)

/* Stands for the server-side pvm_freezegroup of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_static)

/* Stands for the group structures of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_struct_destroy)

/* Stands for the group structures of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_struct_init)

/* Stands for the server-side tid list of stock's pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_tidlist)

/* Stands for the host of a member in stock's hierarchical groups.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(gs_tidtohost)

/* Stands for stock's request/answer exchange with pvmgs.
 * Returns PvmNotImpl. */
NOT_IMPLEMENTED(int_query_server)

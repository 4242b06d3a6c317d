/*
 * f_msg.c - Fortran binding: sending and receiving, contexts and message
 * handlers.
 *
 * tid and msgtag -1 are wildcards on the receiving side, as in C.  A
 * Fortran program has no NULL to pass for "no time limit", so pvmftrecv
 * takes sec = -1 for it.  pvmfpsend and pvmfprecv take the fpvm3.h type
 * codes, which have the values of the C PVM_* codes and pass through.
 */
#include "fpvm.h"

/* pvmfsend(tid, msgtag, info): sends the active send buffer to task tid
 * with tag msgtag; info is 0 or an error code. */
FPVM_EXPORT void pvmfsend_(int *tid, int *msgtag, int *info)
{
	*info = pvm_send(*tid, *msgtag);
}

/* pvmfmcast(ntask, tids, msgtag, info): sends the active send buffer to
 * the ntask tasks in tids (the caller itself excepted). */
FPVM_EXPORT void pvmfmcast_(int *ntask, int *tids, int *msgtag, int *info)
{
	*info = pvm_mcast(tids, *ntask, *msgtag);
}

/* pvmfrecv(tid, msgtag, bufid): waits for a message from tid with tag
 * msgtag (-1: any) and makes it the active receive buffer. */
FPVM_EXPORT void pvmfrecv_(int *tid, int *msgtag, int *bufid)
{
	*bufid = pvm_recv(*tid, *msgtag);
}

/* pvmfnrecv(tid, msgtag, bufid): as pvmfrecv without waiting; bufid is 0
 * if no such message has arrived. */
FPVM_EXPORT void pvmfnrecv_(int *tid, int *msgtag, int *bufid)
{
	*bufid = pvm_nrecv(*tid, *msgtag);
}

/* pvmftrecv(tid, msgtag, sec, usec, bufid): as pvmfrecv, waiting at most
 * sec seconds and usec microseconds (sec = -1: no limit); bufid 0 on
 * timeout. */
FPVM_EXPORT void pvmftrecv_(int *tid, int *msgtag, int *sec, int *usec,
			    int *bufid)
{
	struct timeval tmout;

	if (*sec == -1) {
		*bufid = pvm_trecv(*tid, *msgtag, NULL);
		return;
	}
	tmout.tv_sec = *sec;
	tmout.tv_usec = *usec;
	*bufid = pvm_trecv(*tid, *msgtag, &tmout);
}

/* pvmfprobe(tid, msgtag, bufid): the buffer of a matching message that
 * has arrived, without receiving it; 0 if there is none. */
FPVM_EXPORT void pvmfprobe_(int *tid, int *msgtag, int *bufid)
{
	*bufid = pvm_probe(*tid, *msgtag);
}

/* pvmfpsend(tid, msgtag, buf, len, datatype, info): packs len items of
 * type datatype from buf and sends them, in one call. */
FPVM_EXPORT void pvmfpsend_(int *tid, int *msgtag, void *buf, int *len,
			    int *datatype, int *info)
{
	*info = pvm_psend(*tid, *msgtag, buf, *len, *datatype);
}

/* pvmfprecv(tid, msgtag, buf, len, datatype, atid, atag, alen, info):
 * receives a message into buf (at most len items of type datatype);
 * atid, atag and alen get its sender, tag and length. */
FPVM_EXPORT void pvmfprecv_(int *tid, int *msgtag, void *buf, int *len,
			    int *datatype, int *atid, int *atag, int *alen,
			    int *info)
{
	*info = pvm_precv(*tid, *msgtag, buf, *len, *datatype, atid, atag,
			  alen);
}

/* pvmfnewcontext(ctx): a new context, unique in the virtual machine, or
 * an error code. */
FPVM_EXPORT void pvmfnewcontext_(int *ctx)
{
	*ctx = pvm_newcontext();
}

/* pvmfsetcontext(new_ctx, old_ctx): makes new_ctx the context of the
 * messages this task sends and receives; old_ctx gets the previous one. */
FPVM_EXPORT void pvmfsetcontext_(int *new_ctx, int *old_ctx)
{
	*old_ctx = pvm_setcontext(*new_ctx);
}

/* pvmfgetcontext(ctx): the current context. */
FPVM_EXPORT void pvmfgetcontext_(int *ctx)
{
	*ctx = pvm_getcontext();
}

/* pvmffreecontext(ctx, info): gives context ctx back; info is 0 or an
 * error code. */
FPVM_EXPORT void pvmffreecontext_(int *ctx, int *info)
{
	*info = pvm_freecontext(*ctx);
}

/* pvmfaddmhf(src, tag, ctx, unused, func, info): installs func as the
 * handler of messages matching src, tag and ctx; info gets the handler
 * id.  The fourth argument is ignored, and func is called the C way
 * (func(mid), mid by value): both as in PVM 3.4.6's binding, which the
 * manual does not document ("not available" from Fortran). */
FPVM_EXPORT void pvmfaddmhf_(int *src, int *tag, int *ctx, int *unused,
			     int (*func)(int), int *info)
{
	*info = pvm_addmhf(*src, *tag, *ctx, func);
}

/* pvmfdelmhf(mhid, info): removes message handler mhid; info is 0 or an
 * error code. */
FPVM_EXPORT void pvmfdelmhf_(int *mhid, int *info)
{
	*info = pvm_delmhf(*mhid);
}

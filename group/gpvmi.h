/*
 * gpvmi.h - internals shared by the modules of libgpvm3.
 *
 * libgpvm3 is a client of libpvm3's public API only: it finds (or starts)
 * the group server, sends it requests in the reserved context of
 * gs_proto.h and keeps per-group copies of member lists so that
 * pvm_bcast and the collective operations need no server round trip.
 * The public pvm_* functions validate and report errors; the work is in
 * the gpvmi_* functions below.
 */
#ifndef COPVM_GPVMI_H
#define COPVM_GPVMI_H

#include <sys/time.h>

#include "pvm3.h"

#if defined(__GNUC__)
#define GPVMI_EXPORT __attribute__((visibility("default")))
#else
#define GPVMI_EXPORT
#endif

/* libpvm3 exports these without declaring them in pvm3.h. */
int lpvmerr(char *fn, int code);

/* Exported with stock's names but declared in no public header. */
int pvm_gsdump(void);
int gs_getgstid(void);
int pvm_grphostinfo(void);
int pvm_grpvhostinfo(void);

/* Exported variables with stock's names: the server's tid (-1 when not
 * known yet) and the time limit on waiting for the server (NULL: none). */
extern int gstid;
extern struct timeval *pvmgs_tmout;

/* A task's copy of one group's member table. */
struct gpvmi_group {
	struct gpvmi_group *next;
	char *name;
	int *slots;		/* tid by instance, 0 for a free instance */
	int nslots;
	int *others;		/* members other than the caller, by instance */
	int nothers;
	int nmembers;
	int myinst;		/* the caller's instance, -1 if not a member */
	int frozen;		/* static: valid until this task leaves it */
};

/* What the server answered. */
struct gpvmi_reply {
	int status;		/* value of the call or an error code */
	int frozen;
	int nslots;
	int *slots;		/* malloc'd when nslots > 0, else NULL */
};

/* Records `code' in pvm_errno without printing (stock's group calls are
 * silent) and returns it. */
int gpvmi_quiet(int code);

/* Sends request `op' on `group' with `arg' and waits for its answer,
 * keeping the caller's buffers and context.  Returns PvmOk with *rep
 * filled (rep->slots to free), or a local error (PvmSysErr when the
 * server cannot be reached). */
int gpvmi_call(int op, const char *group, int arg, struct gpvmi_reply *rep);

/* The caller's copy of `group', fetched from the server when it has
 * none or the server said it went stale.  NULL with *rc set (PvmNoGroup,
 * PvmSysErr, PvmNoMem) when there is no such group. */
struct gpvmi_group *gpvmi_group_get(const char *group, int *rc);
/* The copy of `group' if the task holds a frozen one, else NULL; reads
 * nothing from the server. */
struct gpvmi_group *gpvmi_group_frozen(const char *group);
/* Makes a copy of `group' from a reply's table (frozen or not); returns
 * it or NULL when out of memory.  The table is taken over. */
struct gpvmi_group *gpvmi_group_store(const char *group,
				      struct gpvmi_reply *rep);
/* Forgets the caller's copy of `group', if any. */
void gpvmi_group_drop(const char *group);

/* The server's tid, found through the mailbox or started; PvmSysErr
 * (reported as stock does) when no server can be had. */
int gpvmi_server(void);
/* Asks the server to print its tables to its output; PvmOk or error. */
int gpvmi_dump(void);

/* Size in bytes of one element of PVM type `type' (PVM_BYTE..PVM_ULONG,
 * a complex counting as one element), or 0 for any other type. */
int gpvmi_typesize(int type);
/* Packs / unpacks `n' elements of `type' at `p' into / from the active
 * send / receive buffer; pvm_pk* / pvm_upk* result. */
int gpvmi_pack(int type, void *p, int n);
int gpvmi_unpack(int type, void *p, int n);

#endif /* COPVM_GPVMI_H */

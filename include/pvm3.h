/*
 * pvm3.h - public interface of copvm, a PVM 3.4 compatible message-passing
 * library.  Function signatures, structure layouts and every numeric value
 * below are those of PVM 3.4.6, so programs built against either header
 * link and run against either library.
 */
#ifndef COPVM_PVM3_H
#define COPVM_PVM3_H

#include <sys/time.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the PVM interface this library implements. */
#define PVM_VER			"3.4.6"
#define PVM_MAJOR_VERSION	3
#define PVM_MINOR_VERSION	4
#define PVM_PATCH_VERSION	6

/* Data encodings for pvm_initsend() and pvm_mkbuf(). */
#define PvmDataDefault		0	/* XDR, safe between any two hosts */
#define PvmDataRaw		1	/* native byte order, no conversion */
#define PvmDataInPlace		2	/* data stays in user memory until sent */
#define PvmDataFoo		PvmDataDefault
#define PvmDataTrace		4

/* pvm_spawn() flags. */
#define PvmTaskDefault		0
#define PvmTaskHost		1	/* `where' names a host */
#define PvmTaskArch		2	/* `where' names an architecture */
#define PvmTaskDebug		4	/* start under the debugger */
#define PvmTaskTrace		8
#define PvmMppFront		16
#define PvmHostCompl		32	/* complement of the host set */
#define PvmNoSpawnParent	64	/* child gets no parent */

/* pvm_notify() kinds. */
#define PvmTaskExit		1
#define PvmHostDelete		2
#define PvmHostAdd		3
#define PvmRouteAdd		4
#define PvmRouteDelete		5
#define PvmNotifyCancel		256

/* pvm_setopt() / pvm_getopt() option codes and their values. */
#define PvmRoute		1
#define PvmDontRoute		1
#define PvmAllowDirect		2
#define PvmRouteDirect		3
#define PvmDebugMask		2
#define PvmAutoErr		3
#define PvmOutputTid		4
#define PvmOutputCode		5
#define PvmTraceTid		6
#define PvmTraceCode		7
#define PvmTraceBuffer		8
#define PvmTraceOptions		9
#define PvmTraceFull		1
#define PvmTraceTime		2
#define PvmTraceCount		3
#define PvmFragSize		10
#define PvmResvTids		11
#define PvmSelfOutputTid	12
#define PvmSelfOutputCode	13
#define PvmSelfTraceTid		14
#define PvmSelfTraceCode	15
#define PvmSelfTraceBuffer	16
#define PvmSelfTraceOptions	17
#define PvmShowTids		18
#define PvmPollType		19
#define PvmPollConstant		1
#define PvmPollSleep		2
#define PvmPollTime		20
#define PvmOutputContext	21
#define PvmTraceContext		22
#define PvmSelfOutputContext	23
#define PvmSelfTraceContext	24
#define PvmNoReset		25

/* pvm_settmask() / pvm_gettmask() selectors. */
#define PvmTaskSelf		0
#define PvmTaskChild		1

/* The context every task starts in. */
#define PvmBaseContext		0

/* Mailbox flags for pvm_putinfo() and pvm_recvinfo(). */
#define PvmMboxDefault		0
#define PvmMboxPersistent	1	/* survives its owner's exit */
#define PvmMboxMultiInstance	2	/* several entries per name */
#define PvmMboxOverWritable	4	/* others may replace it */
#define PvmMboxFirstAvail	8	/* first entry at or after index */
#define PvmMboxReadAndDelete	16	/* remove as it is read */
#define PvmMboxWaitForInfo	32	/* block until an entry exists */
#define PvmMboxMaxFlag		512
#define PvmMboxDirectIndexShift	10
#define PvmMboxMaxDirectIndex \
	((unsigned)1 << (31 - PvmMboxDirectIndexShift))
#define PvmMboxDirectIndexOf(flags) \
	(((flags) & ((PvmMboxMaxDirectIndex - 1) << PvmMboxDirectIndexShift)) \
	 >> PvmMboxDirectIndexShift)
#define PvmMboxDirectIndex(index) \
	(((unsigned)(index) >= PvmMboxMaxDirectIndex) ? \
	 (fprintf(stderr, "Mbox Direct Index Too Large: %d >= %d\n", \
		  (int)(index), (int)PvmMboxMaxDirectIndex), 0) : \
	 ((index) << PvmMboxDirectIndexShift))

/* Mailbox class names reserved for system services. */
#define PVMNORESETCLASS		"###_PVM_NO_RESET_###"
#define PVMHOSTERCLASS		"###_PVM_HOSTER_###"
#define PVMTASKERCLASS		"###_PVM_TASKER_###"
#define PVMTRACERCLASS		"###_PVM_TRACER_###"
#define PVMRMCLASS		"###_PVM_RM_###"

/* Error codes: every failing call returns one of these (negative). */
#define PvmOk			0
#define PvmBadParam		-2
#define PvmMismatch		-3
#define PvmOverflow		-4
#define PvmNoData		-5
#define PvmNoHost		-6
#define PvmNoFile		-7
#define PvmDenied		-8
#define PvmNoMem		-10
#define PvmBadMsg		-12
#define PvmSysErr		-14
#define PvmNoBuf		-15
#define PvmNoSuchBuf		-16
#define PvmNullGroup		-17
#define PvmDupGroup		-18
#define PvmNoGroup		-19
#define PvmNotInGroup		-20
#define PvmNoInst		-21
#define PvmHostFail		-22
#define PvmNoParent		-23
#define PvmNotImpl		-24
#define PvmDSysErr		-25
#define PvmBadVersion		-26
#define PvmOutOfRes		-27
#define PvmDupHost		-28
#define PvmCantStart		-29
#define PvmAlready		-30
#define PvmNoTask		-31
#define PvmNotFound		-32
#define PvmExists		-33
#define PvmHostrNMstr		-34
#define PvmParentNotSet		-35
#define PvmIPLoopback		-36
#define PvmNoEntry		PvmNotFound
#define PvmDupEntry		PvmDenied

/* Data type codes for pvm_psend(), pvm_precv() and pvm_reduce(). */
#define PVM_STR			0
#define PVM_BYTE		1
#define PVM_SHORT		2
#define PVM_INT			3
#define PVM_FLOAT		4
#define PVM_CPLX		5
#define PVM_DOUBLE		6
#define PVM_DCPLX		7
#define PVM_LONG		8
#define PVM_USHORT		9
#define PVM_UINT		10
#define PVM_ULONG		11

#define PVMTMPNAMLEN		128
#define PVMTMPNAMFUN(x)		pvmtmpnam(x)

/* One host of the virtual machine, as pvm_config() reports it. */
struct pvmhostinfo {
	int hi_tid;		/* tid of the host's pvmd */
	char *hi_name;		/* host name */
	char *hi_arch;		/* architecture name, e.g. LINUX64 */
	int hi_speed;		/* relative speed */
	int hi_dsig;		/* data signature */
};

/* One task, as pvm_tasks() reports it. */
struct pvmtaskinfo {
	int ti_tid;		/* task id */
	int ti_ptid;		/* parent's tid */
	int ti_host;		/* tid of the task's pvmd */
	int ti_flag;		/* status flags */
	char *ti_a_out;		/* program name */
	int ti_pid;		/* process id */
};

/* Header fields of a message buffer (pvm_getminfo/pvm_setminfo). */
struct pvmminfo {
	int len;		/* body length in bytes */
	int ctx;		/* context */
	int tag;		/* message tag */
	int wid;		/* wait id */
	int enc;		/* encoding */
	int crc;		/* checksum */
	int src;		/* sender's tid */
	int dst;		/* receiver's tid */
};

/* One mailbox class, as pvm_getmboxinfo() reports it. */
struct pvmmboxinfo {
	char *mi_name;		/* class name */
	int mi_nentries;	/* entries in the class */
	int *mi_indices;	/* their indices */
	int *mi_owners;		/* their owners' tids */
	int *mi_flags;		/* their flags */
};

/* The latest error code of a pvm_* call, and the text of every code. */
extern int pvm_errno;
extern int pvm_nerr;
extern char *pvm_errlist[];

char *pvmtmpnam(char *);
char *pvmgetrsh(void);
char *pvmgettmp(void);
/*
 * Stock's pvm_strerror() takes no argument and returns the text of
 * pvm_errno; the library's symbol does the same, so binaries built against
 * either header agree.  In C99 and C++11 pvm_strerror(code) works too: the
 * macro below sends a call with an argument to copvm_strerror(code).
 */
char *pvm_strerror(void);
char *copvm_strerror(int);
#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || \
	(defined(__cplusplus) && __cplusplus >= 201103L)
#define pvm_strerror(...) (sizeof(#__VA_ARGS__) > 1 ? \
	copvm_strerror(__VA_ARGS__ + 0) : (pvm_strerror)())
#endif

int pvm_addhosts(char **, int, int *);
int pvm_addmhf(int, int, int, int (*)(int));
int pvm_archcode(char *);
int pvm_barrier(char *, int);
int pvm_bcast(char *, int);
int pvm_bufinfo(int, int *, int *, int *);
#if defined(EOF)
int pvm_catchout(FILE *);
#endif
int pvm_config(int *, int *, struct pvmhostinfo **);
int pvm_delhosts(char **, int, int *);
int pvm_delinfo(char *, int, int);
int pvm_delmhf(int);
int pvm_exit(void);
int pvm_export(char *);
int pvm_freebuf(int);
int pvm_freecontext(int);
int pvm_freezegroup(char *, int);
int pvm_gather(void *, void *, int, int, int, char *, int);
int pvm_getcontext(void);
int pvm_getfds(int **);
int pvm_getinst(char *, int);
int pvm_getminfo(int, struct pvmminfo *);
int pvm_getnoresets(int **, int *);
int pvm_getopt(int);
int pvm_getrbuf(void);
int pvm_getsbuf(void);
int pvm_gettid(char *, int);
int pvm_gsize(char *);
int pvm_halt(void);
int pvm_hostsync(int, struct timeval *, struct timeval *);
int pvm_initsend(int);
int pvm_joingroup(char *);
int pvm_kill(int);
int pvm_lvgroup(char *);
int pvm_getmboxinfo(char *, int *, struct pvmmboxinfo **);
int pvm_mcast(int *, int, int);
int pvm_mkbuf(int);
int pvm_mstat(char *);
int pvm_mytid(void);
int pvm_newcontext(void);
int pvm_notify(int, int, int, int *);
int pvm_nrecv(int, int);
int pvm_packf(const char *, ...);
int pvm_parent(void);
int pvm_perror(char *);
int pvm_pkbyte(char *, int, int);
int pvm_pkcplx(float *, int, int);
int pvm_pkdcplx(double *, int, int);
int pvm_pkdouble(double *, int, int);
int pvm_pkfloat(float *, int, int);
int pvm_pkint(int *, int, int);
int pvm_pklong(long *, int, int);
int pvm_pkshort(short *, int, int);
int pvm_pkstr(char *);
int pvm_pkuint(unsigned int *, int, int);
int pvm_pkulong(unsigned long *, int, int);
int pvm_pkushort(unsigned short *, int, int);
int pvm_pkmesg(int);
int pvm_pkmesgbody(int);
int pvm_precv(int, int, void *, int, int, int *, int *, int *);
int pvm_probe(int, int);
int pvm_psend(int, int, void *, int, int);
int pvm_pstat(int);
int pvm_putinfo(char *, int, int);
int pvm_recv(int, int);
int (*pvm_recvf(int (*)(int, int, int)))(int, int, int);
int pvm_recvinfo(char *, int, int);
int pvm_reduce(void (*)(int *, void *, void *, int *, int *),
	       void *, int, int, int, char *, int);

/* Reduction functions for pvm_reduce(). */
void PvmMax(int *, void *, void *, int *, int *);
void PvmMin(int *, void *, void *, int *, int *);
void PvmSum(int *, void *, void *, int *, int *);
void PvmProduct(int *, void *, void *, int *, int *);

int pvm_reg_hoster(void);
int pvm_reg_rm(struct pvmhostinfo **);
int pvm_reg_tasker(void);
int pvm_reg_tracer(int, int, int, int, char *, int, int);
int pvm_scatter(void *, void *, int, int, int, char *, int);
int pvm_send(int, int);
int pvm_sendsig(int, int);
int pvm_setcontext(int);
int pvm_setminfo(int, struct pvmminfo *);
int pvm_setopt(int, int);
int pvm_setrbuf(int);
int pvm_setsbuf(int);
int pvm_siblings(int **);
int pvm_spawn(char *, char **, int, char *, int, int *);
int pvm_start_pvmd(int, char **, int);
int pvm_tasks(int, int *, struct pvmtaskinfo **);
int pvm_tickle(int, int *, int *, int *);
int pvm_tidtohost(int);
int pvm_trecv(int, int, struct timeval *);
int pvm_unexport(char *);
int pvm_unpackf(const char *, ...);
int pvm_upkbyte(char *, int, int);
int pvm_upkcplx(float *, int, int);
int pvm_upkdcplx(double *, int, int);
int pvm_upkdouble(double *, int, int);
int pvm_upkfloat(float *, int, int);
int pvm_upkint(int *, int, int);
int pvm_upklong(long *, int, int);
int pvm_upkshort(short *, int, int);
int pvm_upkstr(char *);
int pvm_upkuint(unsigned int *, int, int);
int pvm_upkulong(unsigned long *, int, int);
int pvm_upkushort(unsigned short *, int, int);
int pvm_upkmesg(void);
char *pvm_version(void);

/* The pre-3.4 name service, kept on top of the mailbox. */
int pvm_delete(char *, int);
int pvm_insert(char *, int, int);
int pvm_lookup(char *, int, int *);

#ifdef __cplusplus
}
#endif

#endif /* COPVM_PVM3_H */

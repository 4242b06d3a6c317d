/*
 * data.c - the global variables stock libpvm3 exports, with
 * stock's sizes and initial values.
 *
 * An executable that reads one of these gets a copy relocation: the
 * dynamic linker reserves the symbol's size in the executable and copies
 * the library's initial contents there, so every size below is part of
 * the ABI and is checked at compile time.  Debian's console reads the
 * trace tables (pvmtevinfo, pvmtevdidlist); libgpvm3 tests pvmmytid,
 * pvmtoplvl and pvmtrc before every group call; resource managers read
 * pvmmyctx and pvmctrc.
 *
 * copvm keeps the task's real state in struct pvmi_state (task_state.h).
 * pvmi_compat_sync() copies it into the stock names; it runs whenever a
 * compat entry point changes that state, and after enrolling and leaving
 * (task_hooks.h).  The copy goes one way: a program writing these
 * variables does not change copvm's behaviour.
 * Variables that point at stock's private structures (message lists,
 * handler tables, wait contexts) stay NULL: copvm has no such objects.
 */
#include <stddef.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "compat/compat.h"
#include "proto.h"
#include "pvmi.h"
#include "task_hooks.h"

/* Stock's private types, only ever seen through pointers here. */
struct encvec;
struct mhp;
struct msgid;
struct pmsg;
struct pvmmclass;
struct waitc;

/* Where a task sends trace events and output (stock's struct Pvmtracer):
 * 68 bytes, the trace mask being 36 characters. */
#define PVMI_TMASK_LEN	36
struct pvmi_tracer {
	int trctid;
	int trcctx;
	int trctag;
	int outtid;
	int outctx;
	int outtag;
	int trcbuf;
	int trcopt;
	char tmask[PVMI_TMASK_LEN];
};

/* One traceable call (stock's struct Pvmtevinfo): its name as the
 * console's "trace" command spells it, and per-task accounting. */
struct pvmi_tevinfo {
	char *name;
	int desc_status;
	struct timeval mark;
	struct timeval total;
	int count;
};

/* One kind of datum in a trace event (stock's struct Pvmtevdid): its
 * short id, as written in trace files, and a description. */
struct pvmi_tevdid {
	char *did;
	char *desc;
};

PVMI_EXPORT struct msgid *pvm_inprecv;
PVMI_EXPORT int pvm_useruid = -1;
PVMI_EXPORT int pvmautoerr = 1;
PVMI_EXPORT struct pvmi_tracer pvmctrc;
PVMI_EXPORT int pvmdebmask;
PVMI_EXPORT int pvmfrgsiz = 4080;
PVMI_EXPORT struct pvmmclass *pvmmboxclasses;
PVMI_EXPORT struct mhp *pvmmidh;
PVMI_EXPORT int pvmmidhsiz;
PVMI_EXPORT int pvmmyctx;
PVMI_EXPORT int pvmmydsig;
PVMI_EXPORT int pvmmyptid = -1;
PVMI_EXPORT char *pvmmytaskname;
PVMI_EXPORT int pvmmytid = -1;
PVMI_EXPORT int pvmmyupid = -1;
PVMI_EXPORT int pvmnoreset;
PVMI_EXPORT int pvmnoresetindex = -1;
PVMI_EXPORT int pvmnsibs = -1;
PVMI_EXPORT struct pmsg *pvmrbuf;
PVMI_EXPORT int pvmrescode;
PVMI_EXPORT int pvmrouteopt = PvmAllowDirect;
PVMI_EXPORT struct pmsg *pvmrxlist;
PVMI_EXPORT struct pmsg *pvmsbuf;
PVMI_EXPORT int pvmschedtid;
PVMI_EXPORT int pvmshowtaskid = 1;
PVMI_EXPORT int *pvmsibtids;
PVMI_EXPORT int pvmtoplvl = 1;
PVMI_EXPORT struct pvmi_tracer pvmtrc;
PVMI_EXPORT struct encvec *pvmtrccodef;
PVMI_EXPORT int pvmtrcdesc;
PVMI_EXPORT struct pmsg *pvmtrcmp;
PVMI_EXPORT int pvmtrcsavekind;
PVMI_EXPORT int pvmtrcsbf;
PVMI_EXPORT int pvmtrcsbfsave;
PVMI_EXPORT int pvmtrctmp;
PVMI_EXPORT struct timeval pvmtrcztv;
PVMI_EXPORT int pvmudpmtu = 4080;
PVMI_EXPORT struct waitc *waitlist;

/* Traceable calls, indexed by stock's TEV_* event numbers (0..108). */
#define EV(n)	{ .name = n }
PVMI_EXPORT struct pvmi_tevinfo pvmtevinfo[] = {
	EV("addhosts"),	EV("barrier"),	EV("bcast"),	EV("bufinfo"),
	EV("config"),	EV("delete"),	EV("delhosts"),	EV("exit"),
	EV("freebuf"),	EV("getfds"),	EV("getinst"),	EV("getopt"),
	EV("getrbuf"),	EV("getsbuf"),	EV("gettid"),	EV("gsize"),
	EV("halt"),	EV("initsend"),	EV("insert"),	EV("joingroup"),
	EV("kill"),	EV("lookup"),	EV("lvgroup"),	EV("mcast"),
	EV("mkbuf"),	EV("mstat"),	EV("mytid"),	EV("notify"),
	EV("nrecv"),	EV("parent"),	EV("perror"),	EV("pkbyte"),
	EV("pkcplx"),	EV("pkdcplx"),	EV("pkdouble"),	EV("pkfloat"),
	EV("pkint"),	EV("pkuint"),	EV("pklong"),	EV("pkulong"),
	EV("pkshort"),	EV("pkushort"),	EV("pkstr"),	EV("probe"),
	EV("pstat"),	EV("recv"),	EV("recvf"),	EV("send"),
	EV("sendsig"),	EV("setopt"),	EV("setrbuf"),	EV("setsbuf"),
	EV("spawn"),	EV("start_pvmd"), EV("tasks"),	EV("tickle"),
	EV("tidtohost"), EV("trecv"),	EV("upkbyte"),	EV("upkcplx"),
	EV("upkdcplx"),	EV("upkdouble"), EV("upkfloat"), EV("upkint"),
	EV("upkuint"),	EV("upklong"),	EV("upkulong"),	EV("upkshort"),
	EV("upkushort"), EV("upkstr"),	EV("version"),	EV("reg_hoster"),
	EV("reg_rm"),	EV("reg_tasker"), EV("reg_tracer"), EV("newtask"),
	EV("endtask"),	EV("spntask"),	EV("archcode"),	EV("catchout"),
	EV("getmwid"),	EV("gettmask"),	EV("hostsync"),	EV("packf"),
	EV("precv"),	EV("psend"),	EV("reduce"),	EV("setmwid"),
	EV("settmask"),	EV("unpackf"),	EV("gather"),	EV("scatter"),
	EV("putinfo"),	EV("getinfo"),	EV("delinfo"),	EV("getmboxinfo"),
	EV("newcontext"), EV("freecontext"), EV("setcontext"),
	EV("getcontext"), EV("siblings"), EV("getminfo"), EV("setminfo"),
	EV("addmhf"),	EV("delmhf"),	EV("mhf_invoke"), EV("timing"),
	EV("profiling"), EV("user_defined"),
};

/* Trace data ids, indexed by stock's TEV_DID_* numbers (0..122). */
PVMI_EXPORT struct pvmi_tevdid pvmtevdidlist[] = {
	{ "AN", "name of an architecture" },
	{ "AC", "data format code of an architecture" },
	{ "AS", "program arguments" },
	{ "BF", "whether the call blocks" },
	{ "CC", "result code" },
	{ "CN", "mailbox class" },
	{ "CI", "index within a mailbox class" },
	{ "CF", "mailbox flags" },
	{ "CD", "data stored in the mailbox" },
	{ "CR", "data read from the mailbox" },
	{ "CL", "mailbox classes listed" },
	{ "CDA", "address of the data of a group operation" },
	{ "CDT", "element type of a group operation" },
	{ "CDX", "data of a group operation" },
	{ "CDC", "element count of a group operation" },
	{ "CGI", "instance of the root of a group operation" },
	{ "CRF", "reduction function" },
	{ "CXC", "context in use" },
	{ "CXF", "context released" },
	{ "CXN", "context created" },
	{ "CXS", "context selected" },
	{ "ERI", "error code" },
	{ "ERR", "error text" },
	{ "FDS", "descriptors in use" },
	{ "FP", "output stream" },
	{ "GN", "group" },
	{ "GI", "instance within a group" },
	{ "GT", "tid of a group member" },
	{ "GS", "members in a group" },
	{ "GBC", "members expected at a barrier" },
	{ "HN", "host" },
	{ "HNL", "hosts" },
	{ "HNA", "alias of a host" },
	{ "HPT", "tid of a host's pvmd" },
	{ "HA", "architecture of a host" },
	{ "HSP", "relative speed of a host" },
	{ "HIS", "host descriptions" },
	{ "HCS", "host clock, seconds" },
	{ "HCU", "host clock, microseconds" },
	{ "HDS", "clock difference, seconds" },
	{ "HDU", "clock difference, microseconds" },
	{ "HS", "state of a host" },
	{ "INB", "bytes in the message described" },
	{ "IMC", "tag of the message described" },
	{ "IST", "sender of the message described" },
	{ "MC", "message tag" },
	{ "MCX", "message context" },
	{ "MB", "message buffer id" },
	{ "MNB", "bytes in the message" },
	{ "SRC", "tid the message comes from" },
	{ "DST", "tid the message goes to" },
	{ "MDL", "tids the message goes to" },
	{ "MTS", "receive timeout, seconds" },
	{ "MTU", "receive timeout, microseconds" },
	{ "MRF", "message matching function" },
	{ "MRB", "receive buffer id" },
	{ "MSB", "send buffer id" },
	{ "ME", "message encoding" },
	{ "MHI", "message handler id" },
	{ "AST", "tid the received message came from" },
	{ "AMC", "tag of the received message" },
	{ "AML", "bytes in the received message" },
	{ "NE", "event to be notified of" },
	{ "NMC", "tag of notify messages" },
	{ "NCT", "number of tids watched" },
	{ "NTL", "tids watched" },
	{ "NH", "host count" },
	{ "NA", "architecture count" },
	{ "OPT", "option" },
	{ "OPV", "option value" },
	{ "OS", "output text" },
	{ "PDA", "address of packed data" },
	{ "PDT", "type of packed data" },
	{ "PC", "elements packed" },
	{ "PSD", "stride of packed data" },
	{ "PSG", "packed string" },
	{ "PF", "pack format" },
	{ "PRF", "profiling counts" },
	{ "RST", "tid to receive from, or -1" },
	{ "RMC", "tag to receive, or -1" },
	{ "RCX", "context to receive in" },
	{ "SN", "signal" },
	{ "SE", "program to spawn" },
	{ "SF", "spawn flags" },
	{ "SW", "where to spawn" },
	{ "SC", "tasks to spawn" },
	{ "STL", "tids spawned" },
	{ "SIB", "tids of the siblings" },
	{ "TID", "task id" },
	{ "PT", "tid of the parent" },
	{ "MT", "tid of the caller" },
	{ "TF", "task flags" },
	{ "TN", "task name" },
	{ "PID", "process id" },
	{ "TT", "tid acted upon" },
	{ "TW", "tasks asked about" },
	{ "TIS", "task descriptions" },
	{ "TNT", "task count" },
	{ "TST", "state of a task" },
	{ "TUS", "user time, seconds" },
	{ "TUU", "user time, microseconds" },
	{ "TSS", "system time, seconds" },
	{ "TSU", "system time, microseconds" },
	{ "TES", "exit status" },
	{ "TA", "tickle arguments" },
	{ "TR", "tickle results" },
	{ "TS", "time stamp, seconds" },
	{ "TU", "time stamp, microseconds" },
	{ "TGS", "elapsed time, seconds" },
	{ "TGU", "elapsed time, microseconds" },
	{ "TMW", "whose trace mask" },
	{ "TM", "trace mask" },
	{ "TRC", "context of trace messages" },
	{ "TRT", "tag of trace messages" },
	{ "TRX", "context of output messages" },
	{ "TRO", "tag of output messages" },
	{ "TRM", "trace mask of the tracer" },
	{ "TRB", "trace buffering of the tracer" },
	{ "TRL", "trace options of the tracer" },
	{ "VER", "PVM version" },
	{ "VCT", "trace events counted" },
	{ "VID", "trace event id" },
	{ "WID", "wait id" },
};

/* The sizes stock executables were linked against (nm -S of Debian's
 * libpvm3.so.3). */
#define ABI_SIZE(sym, size) \
	_Static_assert(sizeof(sym) == (size), #sym " must be " #size " bytes")
ABI_SIZE(pvm_inprecv, 8);
ABI_SIZE(pvm_useruid, 4);
ABI_SIZE(pvmautoerr, 4);
ABI_SIZE(pvmctrc, 0x44);
ABI_SIZE(pvmdebmask, 4);
ABI_SIZE(pvmfrgsiz, 4);
ABI_SIZE(pvmmboxclasses, 8);
ABI_SIZE(pvmmidh, 8);
ABI_SIZE(pvmmidhsiz, 4);
ABI_SIZE(pvmmyctx, 4);
ABI_SIZE(pvmmydsig, 4);
ABI_SIZE(pvmmyptid, 4);
ABI_SIZE(pvmmytaskname, 8);
ABI_SIZE(pvmmytid, 4);
ABI_SIZE(pvmmyupid, 4);
ABI_SIZE(pvmnoreset, 4);
ABI_SIZE(pvmnoresetindex, 4);
ABI_SIZE(pvmnsibs, 4);
ABI_SIZE(pvmrbuf, 8);
ABI_SIZE(pvmrescode, 4);
ABI_SIZE(pvmrouteopt, 4);
ABI_SIZE(pvmrxlist, 8);
ABI_SIZE(pvmsbuf, 8);
ABI_SIZE(pvmschedtid, 4);
ABI_SIZE(pvmshowtaskid, 4);
ABI_SIZE(pvmsibtids, 8);
ABI_SIZE(pvmtevdidlist, 0x7b0);
ABI_SIZE(pvmtevinfo, 0x17d8);
ABI_SIZE(pvmtoplvl, 4);
ABI_SIZE(pvmtrc, 0x44);
ABI_SIZE(pvmtrccodef, 8);
ABI_SIZE(pvmtrcdesc, 4);
ABI_SIZE(pvmtrcmp, 8);
ABI_SIZE(pvmtrcsavekind, 4);
ABI_SIZE(pvmtrcsbf, 4);
ABI_SIZE(pvmtrcsbfsave, 4);
ABI_SIZE(pvmtrctmp, 4);
ABI_SIZE(pvmtrcztv, 0x10);
ABI_SIZE(pvmudpmtu, 4);
ABI_SIZE(waitlist, 8);

/* An empty trace mask as stock writes it: every 4-event group '@'. */
static void empty_tmask(char *m)
{
	memset(m, '@', PVMI_TMASK_LEN - 1);
	m[PVMI_TMASK_LEN - 1] = '\0';
}

/* Copies the task's state (struct pvmi_state) into stock's globals:
 * identity, options and where output and traces go.  Call it after the
 * state changes; not enrolled, the identity reads as stock's -1. */
void pvmi_compat_sync(void)
{
	int on = pvmi_attached();

	pvmmytid = on ? pvmi.mytid : -1;
	pvmmyptid = on ? (pvmi.ptid > 0 ? pvmi.ptid : 0) : -1;
	pvmmyupid = on ? pvmi.pid : -1;
	pvm_useruid = on ? (int)getuid() : -1;
	pvmmydsig = on ? PVMI_DSIG : 0;
	pvmnsibs = on ? pvmi.nsibs : -1;
	pvmsibtids = on && pvmi.nsibs ? pvmi.sibs : NULL;
	pvmmyctx = pvmi.ctx;
	pvmautoerr = pvmi.autoerr;
	pvmdebmask = pvmi.debugmask;
	pvmrouteopt = pvmi.route;
	pvmfrgsiz = pvmi.fragsize;
	pvmrescode = pvmi.resvtids;
	pvmshowtaskid = pvmi.showtids;
	pvmnoreset = pvmi.noreset;

	pvmtrc.trctid = pvmi.selftrctid;
	pvmtrc.trcctx = pvmi.selftrcctx;
	pvmtrc.trctag = pvmi.selftrccode;
	pvmtrc.outtid = pvmi.selfouttid;
	pvmtrc.outctx = pvmi.selfoutctx;
	pvmtrc.outtag = pvmi.selfoutcode;
	pvmctrc.trctid = pvmi.trctid;
	pvmctrc.trcctx = pvmi.trcctx;
	pvmctrc.trctag = pvmi.trccode;
	pvmctrc.outtid = pvmi.outtid;
	pvmctrc.outctx = pvmi.outctx;
	pvmctrc.outtag = pvmi.outcode;
	/* No event is ever traced: both masks stay empty once enrolled. */
	if (on && !pvmtrc.tmask[0])
		empty_tmask(pvmtrc.tmask);
	if (on && !pvmctrc.tmask[0])
		empty_tmask(pvmctrc.tmask);
}

/* Stock's globals follow each enrolment and leave (task_hooks.h). */
__attribute__((constructor)) static void compat_data_hooks(void)
{
	pvmi_task_hook(PVMI_TASK_ENROLLED, pvmi_compat_sync);
	pvmi_task_hook(PVMI_TASK_LEFT, pvmi_compat_sync);
}

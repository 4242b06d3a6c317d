/*
 * trace.c - stand-ins for functions stock libpvm3 exports but that
 * work on stock's private data structures: message and fragment objects
 * (pmsg_*, umbuf_*, fr_*, da_*, midtobuf), task-to-task connection
 * blocks (ttpcb_*, check_route*), wait contexts (wait_*), its message
 * router internals (mesg_input, ogm_complete, check_for_exit, tobuf_dump),
 * its tracing machinery (tev_*, enc_trc_*) and the handlers of its
 * task-control messages (pvm_tc_*).
 *
 * copvm has none of these structures, so no caller can hold a valid
 * object to pass in.  Each function exists only so that binaries linked
 * against stock libpvm3 still load; it has stock's shape, does nothing,
 * and reports failure in the form its return type allows: NULL, nothing
 * (void), or PvmNotImpl.  The exceptions are answers that are true in
 * copvm and that stock-built code relies on: the trace gates say "not
 * tracing" (0), so libgpvm3's traced paths are skipped, and
 * ogm_complete() says a sent message is complete (1), as copvm sends
 * synchronously.
 */
#include "pvmi.h"

struct frag;
struct hostd;
struct pmsg;
struct ttpcb;
struct waitc;

/* Messages and their fragments. */

/* Would make an empty message; returns NULL. */
PVMI_EXPORT struct pmsg *pmsg_new(int master)
{
	return NULL;
}

/* Would drop a reference to message `mp'; does nothing. */
PVMI_EXPORT void pmsg_unref(struct pmsg *mp)
{
}

/* Would add a fragment to `mp' for packing; returns PvmNotImpl. */
PVMI_EXPORT int pmsg_extend(struct pmsg *mp)
{
	return PvmNotImpl;
}

/* Would move the unpack cursor of `mp' to its next fragment;
 * returns PvmNotImpl. */
PVMI_EXPORT int pmsg_decmore(struct pmsg *mp)
{
	return PvmNotImpl;
}

/* Would recount the length of `mp' from its fragments;
 * returns PvmNotImpl. */
PVMI_EXPORT int pmsg_setlen(struct pmsg *mp)
{
	return PvmNotImpl;
}

/* Would set the encoding of `mp' to `enc'; returns PvmNotImpl. */
PVMI_EXPORT int pmsg_setenc(struct pmsg *mp, int enc)
{
	return PvmNotImpl;
}

/* Would pack message `mp2' (header and body) into `mp';
 * returns PvmNotImpl. */
PVMI_EXPORT int pmsg_pack(struct pmsg *mp, struct pmsg *mp2)
{
	return PvmNotImpl;
}

/* Would pack only the body of `mp2' into `mp'; returns PvmNotImpl. */
PVMI_EXPORT int pmsg_packbody(struct pmsg *mp, struct pmsg *mp2)
{
	return PvmNotImpl;
}

/* Would unpack a message packed by pmsg_pack() from `mp' into `mp2';
 * returns PvmNotImpl. */
PVMI_EXPORT int pmsg_unpack(struct pmsg *mp, struct pmsg *mp2)
{
	return PvmNotImpl;
}

/* Would log message `mp' at detail `lvl'; returns PvmNotImpl. */
PVMI_EXPORT int pmsg_dump(struct pmsg *mp, int lvl)
{
	return PvmNotImpl;
}

/* Would map buffer id `mid' to stock's message object (copvm's buffers
 * are not pmsg objects); returns NULL. */
PVMI_EXPORT struct pmsg *midtobuf(int mid)
{
	return NULL;
}

/* Would make a message and give it a buffer id; returns NULL. */
PVMI_EXPORT struct pmsg *umbuf_new(void)
{
	return NULL;
}

/* Would free message `up' and its buffer id; returns PvmNotImpl. */
PVMI_EXPORT int umbuf_free(struct pmsg *up)
{
	return PvmNotImpl;
}

/* Would log buffer `mid' at detail `lvl'; returns PvmNotImpl. */
PVMI_EXPORT int umbuf_dump(int mid, int lvl)
{
	return PvmNotImpl;
}

/* Would log every buffer at detail `lvl'; returns PvmNotImpl. */
PVMI_EXPORT int umbuf_list(int lvl)
{
	return PvmNotImpl;
}

/* Would allocate a fragment of `len' bytes; returns NULL. */
PVMI_EXPORT struct frag *fr_new(int len)
{
	return NULL;
}

/* Would wrap `len' bytes at `cp' as a fragment; returns NULL. */
PVMI_EXPORT struct frag *fr_snew(char *cp, int len)
{
	return NULL;
}

/* Would drop a reference to fragment `fp'; does nothing. */
PVMI_EXPORT void fr_unref(struct frag *fp)
{
}

/* Would allocate a reference-counted data block; returns NULL. */
PVMI_EXPORT char *da_new(int len)
{
	return NULL;
}

/* Would add a reference to data block `p'; does nothing. */
PVMI_EXPORT void da_ref(char *p)
{
}

/* Would drop a reference to data block `p'; does nothing. */
PVMI_EXPORT void da_unref(char *p)
{
}

/* Task-to-task connections and the message router. */

/* Would make a blank connection block; returns NULL. */
PVMI_EXPORT struct ttpcb *ttpcb_new(void)
{
	return NULL;
}

/* Would make and list a connection block for task `tid'; returns NULL. */
PVMI_EXPORT struct ttpcb *ttpcb_creat(int tid)
{
	return NULL;
}

/* Would find the connection block of task `tid'; returns NULL. */
PVMI_EXPORT struct ttpcb *ttpcb_find(int tid)
{
	return NULL;
}

/* Would close and free connection block `pcbp'; does nothing. */
PVMI_EXPORT void ttpcb_delete(struct ttpcb *pcbp)
{
}

/* Would mark connection block `pcbp' dead; does nothing. */
PVMI_EXPORT void ttpcb_dead(struct ttpcb *pcbp)
{
}

/* Would log connection block `pcbp'; returns PvmNotImpl. */
PVMI_EXPORT int ttpcb_dump(struct ttpcb *pcbp)
{
	return PvmNotImpl;
}

/* Would log every connection block; returns PvmNotImpl. */
PVMI_EXPORT int ttpcb_dumpall(void)
{
	return PvmNotImpl;
}

/* Would deliver PvmRouteAdd notifications for a new connection;
 * returns PvmNotImpl. */
PVMI_EXPORT int check_routeadd(struct ttpcb *pcbp)
{
	return PvmNotImpl;
}

/* Would deliver PvmRouteDelete notifications for a closed connection;
 * returns PvmNotImpl. */
PVMI_EXPORT int check_routedelete(struct ttpcb *pcbp)
{
	return PvmNotImpl;
}

/* Would arm a PvmRouteDelete notification for the route to `tid';
 * returns PvmNotImpl. */
PVMI_EXPORT int post_routedelete(int tid, int ctx, int tag)
{
	return PvmNotImpl;
}

/* Would queue incoming message `up' or run its handler;
 * returns PvmNotImpl. */
PVMI_EXPORT int mesg_input(struct pmsg *up)
{
	return PvmNotImpl;
}

/* Tells whether outgoing message `mp' has left; copvm sends
 * synchronously, so returns 1 (complete). */
PVMI_EXPORT int ogm_complete(struct pmsg *mp)
{
	return 1;
}

/* Would react to the exit of task `src' (a hook stock leaves empty on
 * Unix); does nothing. */
PVMI_EXPORT void check_for_exit(int src)
{
}

/* Would print the output-collection buffers of pvm_catchout();
 * returns PvmNotImpl. */
PVMI_EXPORT int tobuf_dump(void)
{
	return PvmNotImpl;
}

/* Wait contexts. */

/* Would set up wait ids from `base' over `range'; does nothing. */
PVMI_EXPORT void wait_init(int base, int range)
{
}

/* Would make a wait context of `kind'; returns NULL. */
PVMI_EXPORT struct waitc *wait_new(int kind)
{
	return NULL;
}

/* Would find the wait context with id `wid'; returns NULL. */
PVMI_EXPORT struct waitc *wait_find(int wid)
{
	return NULL;
}

/* Would find the wait context a reply `mp' from `hp' answers;
 * returns NULL. */
PVMI_EXPORT struct waitc *wait_get(struct hostd *hp, struct pmsg *mp,
				   int kind)
{
	return NULL;
}

/* Would unlink and free wait context `wp'; does nothing. */
PVMI_EXPORT void wait_delete(struct waitc *wp)
{
}

/* Would log wait context `wp'; returns PvmNotImpl. */
PVMI_EXPORT int wait_dump(struct waitc *wp)
{
	return PvmNotImpl;
}

/* Would log every wait context; returns PvmNotImpl. */
PVMI_EXPORT int wait_dumpall(void)
{
	return PvmNotImpl;
}

/* Tracing.  copvm tasks never emit trace events. */

/* Would set up tracing for the task; returns PvmNotImpl. */
PVMI_EXPORT int tev_init(void)
{
	return PvmNotImpl;
}

/* Would open a trace record for call `kind' (entry or exit); returns 0,
 * "no record begun", so the caller packs no trace data. */
PVMI_EXPORT int tev_begin(int kind, int entry_exit)
{
	return 0;
}

/* Decides whether call `kind' is traced; returns 0, "not traced". */
PVMI_EXPORT int tev_do_trace(int kind, int entry_exit)
{
	return 0;
}

/* Would close and send the record tev_begin() opened (never called
 * after tev_begin() returned 0); returns PvmNotImpl. */
PVMI_EXPORT int tev_fin(void)
{
	return PvmNotImpl;
}

/* Would send the buffered trace records; returns PvmNotImpl. */
PVMI_EXPORT int tev_flush(int setflag)
{
	return PvmNotImpl;
}

/* Would write a trace record header into `mp'; returns PvmNotImpl. */
PVMI_EXPORT int enc_trc_hdr(struct pmsg *mp)
{
	return PvmNotImpl;
}

/* Would close the trace record in `mp'; returns PvmNotImpl. */
PVMI_EXPORT int enc_trc_fin(struct pmsg *mp)
{
	return PvmNotImpl;
}

/* Handlers of stock's task-control (TC_*) messages, which copvm tasks
 * neither send nor receive; each takes the message's buffer id. */

/* Would consume a TC_NOOP message; returns PvmNotImpl. */
PVMI_EXPORT int pvm_tc_noop(int mid)
{
	return PvmNotImpl;
}

/* Would apply a TC_SETTMASK message (new trace mask);
 * returns PvmNotImpl. */
PVMI_EXPORT int pvm_tc_settmask(int mid)
{
	return PvmNotImpl;
}

/* Would apply a TC_SETTRACE message (new tracer and output
 * destinations); returns PvmNotImpl. */
PVMI_EXPORT int pvm_tc_settrace(int mid)
{
	return PvmNotImpl;
}

/* Would apply a TC_SETTRCBUF message (trace buffering);
 * returns PvmNotImpl. */
PVMI_EXPORT int pvm_tc_settrcbuf(int mid)
{
	return PvmNotImpl;
}

/* Would apply a TC_SETTRCOPT message (trace options);
 * returns PvmNotImpl. */
PVMI_EXPORT int pvm_tc_settrcopt(int mid)
{
	return PvmNotImpl;
}

/* Would record the sibling list a TC_SIBLINGS message carries (copvm
 * gets it when enrolling); returns PvmNotImpl. */
PVMI_EXPORT int pvm_tc_siblings(int mid)
{
	return PvmNotImpl;
}

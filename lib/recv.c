/*
 * recv.c - the receive queue and everything that takes from it:
 * pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe, pvm_precv, pvm_recvf and the
 * message handlers of pvm_addmhf.
 *
 * Messages are queued in arrival order; a receive takes the first one
 * that matches (source, tag, current context), so messages from one
 * sender are received in the order sent.  How a receive waits
 * for input is wait.c's business.
 *
 * Back-pressure: the queue counts the bytes it holds.  Above
 * COPVM_RXQ_MB MiB (default RXQ_DEFAULT_MB; 0: no limit) the pumps read
 * only what can end the wait under way (conn.h, pvmi_conn_hold): a
 * receive from one task reads that task's circuits, the daemon's link
 * and circuits being written to; the other senders' messages wait in
 * their pipes and those senders block in pvm_send until the queue is
 * below the limit again.  A receive from any task, one with a match
 * function (pvm_recvf) or message handlers installed reads everything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conn.h"
#include "cosched/cosched.h"
#include "wire.h"
#include "msg.h"
#include "precomm.h"
#include "proto.h"
#include "pvmi.h"
#include "recv.h"
#include "task.h"
#include "task_hooks.h"
#include "wait.h"

struct mhf {
	int id;
	int src, tag, ctx;
	int (*fn)(int);
};

/* The receive queue's default limit, MiB. */
#define RXQ_DEFAULT_MB	256

static struct pvmi_msg *q_head, *q_tail;
static uint64_t q_seq;
static size_t q_bytes;		/* body bytes queued */
static size_t q_limit;		/* bytes; 0: none */
static int q_limit_known;
static int q_held;		/* the last pvmi_conn_hold() */
static int (*match_fn)(int, int, int);
static struct mhf *mhfs;
static int nmhf, mhfcap, mhf_next_id;
static int in_handler;
/* The receive under way, when its match is the default one: a message
 * queued that it takes tells the pumps (pvmi_conn_sated).  The short
 * path: once a blocking receive has found no match in the queue
 * (`direct'), the first message to arrive that it takes is handed to it
 * (`got') instead of being queued and searched for: it is the one a
 * search would find, the queue holding no match before it. */
static struct {
	int on, tid, tag;
	int direct;
	struct pvmi_msg *got;
} waiting;

/* The source stock gives every message a daemon makes for a task
 * (notifies, output records): its TIDPVMD, not the daemon's own tid. */
#define STOCK_PVMD_SRC	((int)0x80000000u)

/* Reads the queue's limit from COPVM_RXQ_MB, once; kept out of line,
 * so the callers on the message path need no frame for it. */
static __attribute__((noinline, cold)) void rxq_limit_read(void)
{
	const char *e;
	char *end;
	unsigned long mb;

	q_limit_known = 1;
	q_limit = (size_t)RXQ_DEFAULT_MB << 20;
	e = getenv("COPVM_RXQ_MB");
	if (e && *e) {
		errno = 0;
		mb = strtoul(e, &end, 10);
		if (*end || errno || mb > (SIZE_MAX >> 20))
			fprintf(stderr, "libpvm: COPVM_RXQ_MB=%s is not a "
				"number of MiB; using %d\n", e, RXQ_DEFAULT_MB);
		else
			q_limit = (size_t)mb << 20;
	}
}

/* The limit of the queue in bytes, 0 for none (COPVM_RXQ_MB, read
 * once). */
static inline size_t rxq_limit(void)
{
	if (!q_limit_known)
		rxq_limit_read();
	return q_limit;
}

/* Counts `len' bytes queued; tells the pumps when the queue goes over
 * its limit (q_held: what they were last told; recv.c alone tells them). */
static inline void q_grew(size_t len)
{
	q_bytes += len;
	if (!q_held && rxq_limit() && q_bytes > q_limit) {
		q_held = 1;
		pvmi_conn_hold(1);
	}
}

/* Counts `len' bytes taken out; tells the pumps when the queue is back
 * within its limit (q_held says there is one). */
static inline void q_shrank(size_t len)
{
	q_bytes -= len;
	if (q_held && q_bytes <= q_limit) {
		q_held = 0;
		pvmi_conn_hold(0);
	}
}

static int default_match(const struct pvmi_msg *m, int tid, int tag)
{
	return (tid == -1 || m->src == tid) && (tag == -1 || m->tag == tag) &&
	       m->ctx == pvmi.ctx;
}

/* Tells the pumps when `m', just queued, is what the receive under way
 * waits for. */
static void note_match(const struct pvmi_msg *m)
{
	if (waiting.on && default_match(m, waiting.tid, waiting.tag))
		pvmi_conn_sated(1);
}

/* Queues message `m' for the receives (after output records of
 * pvm_catchout are taken out); a daemon's message gets stock's source. */
void pvmi_rxq_deliver(struct pvmi_msg *m)
{
	/* both take only the library's own messages, of its context: a
	 * user's message is not offered to them */
	if (m->ctx == PVMI_SYS_CTX &&
	    (pvmi_output_take(m) || pvmi_hostwatch_take(m)))
		return;
	if (m->src > 0 && PVMI_TID_LOCAL(m->src) == 0)
		m->src = STOCK_PVMD_SRC;
	m->next = NULL;
	m->seq = ++q_seq;
	if (waiting.direct && !waiting.got &&
	    default_match(m, waiting.tid, waiting.tag)) {
		waiting.got = m;
		pvmi_conn_sated(1);
		return;
	}
	if (q_tail)
		q_tail->next = m;
	else
		q_head = m;
	q_tail = m;
	q_grew(m->len);
	note_match(m);
}

/* Takes `m' out of the queue (nothing when it is not there); the
 * common case, the head, without a walk. */
static void q_unlink(struct pvmi_msg *m)
{
	struct pvmi_msg *prev;

	if (q_head == m) {
		q_head = m->next;
		if (!q_head)
			q_tail = NULL;
	} else {
		for (prev = q_head; prev && prev->next != m; prev = prev->next)
			;
		if (!prev)
			return;
		prev->next = m->next;
		if (q_tail == m)
			q_tail = prev;
	}
	m->next = NULL;
	q_shrank(m->len);
}

/* Forgets queued messages, lost hosts and message handlers (recv.h). */
void pvmi_recv_reset(void)
{
	pvmi_rxq_flush();
	pvmi_msg_rx_drop();
	pvmi_hostwatch_reset();
	free(mhfs);
	mhfs = NULL;
	nmhf = mhfcap = 0;
}

/* Frees every queued message (recv.h). */
void pvmi_rxq_flush(void)
{
	while (q_head) {
		struct pvmi_msg *m = q_head;

		q_head = m->next;
		if (m->mid > 0)
			pvmi_mid_forget(m->mid);
		pvmi_msg_free(m);
	}
	q_tail = NULL;
	q_bytes = 0;
	q_held = 0;
	pvmi_conn_hold(0);
}

/* Gives `m' a buffer id if it has none yet; returns it or PvmNoMem. */
static int ensure_mid(struct pvmi_msg *m)
{
	if (m->mid > 0)
		return m->mid;
	return pvmi_mid_register(m);
}

/* Finds the queued message to receive for (tid, tag), or NULL.  Returns
 * an error code in *err when the user's match function fails. */
static struct pvmi_msg *q_find(int tid, int tag, int *err)
{
	struct pvmi_msg *m, *best = NULL;
	int bestrank = 0;

	*err = PvmOk;
	for (m = q_head; m; m = m->next) {
		int r;

		if (!match_fn) {
			if (default_match(m, tid, tag))
				return m;
			continue;
		}
		if (ensure_mid(m) < 0) {
			*err = PvmNoMem;
			return NULL;
		}
		r = match_fn(m->mid, tid, tag);
		if (r < 0) {
			*err = r;
			return NULL;
		}
		if (r > bestrank) {
			best = m;
			bestrank = r;
			if (r == 1)
				break;
		}
	}
	return best;
}

static int handler_matches(const struct mhf *h, const struct pvmi_msg *m)
{
	return (h->src == -1 || h->src == m->src) &&
	       (h->tag == -1 || h->tag == m->tag) &&
	       (h->ctx == -1 || h->ctx == m->ctx);
}

/* Runs the message handlers on every queued message they claim.  The
 * handler sees the message as the active receive buffer; afterwards the
 * message is freed and the previous receive buffer restored. */
/* The probe counts a message when the program takes it (a receive or a
 * handler), not when it came off the wire: a task working through a
 * backlog read in one burst communicates at the rate it consumes. */
static void count_received(const struct pvmi_msg *m)
{
	if (m->src != pvmi.mytid)
		pvmi_cosched_received(m->src);
}

static void run_handlers(void)
{
	struct pvmi_msg *m, *next;
	int i;

	if (!nmhf || in_handler)
		return;
	for (m = q_head; m; m = next) {
		next = m->next;
		for (i = 0; i < nmhf; i++) {
			int saved, mid;

			if (!handler_matches(&mhfs[i], m))
				continue;
			q_unlink(m);
			count_received(m);
			mid = ensure_mid(m);
			if (mid < 0) {
				pvmi_msg_free(m);
				break;
			}
			pvmi_msg_rewind(m);
			saved = pvmi_rbuf;
			pvmi_rbuf = mid;
			in_handler = 1;
			mhfs[i].fn(mid);
			in_handler = 0;
			pvmi_rbuf = saved == mid ? 0 : saved;
			/* kept if the handler made it its send buffer */
			if (pvmi_mid_lookup(mid) == m && pvmi_sbuf != mid) {
				pvmi_mid_forget(mid);
				pvmi_msg_free(m);
			}
			next = q_head;	/* the handler may have received */
			break;
		}
	}
}

/* Makes `m' the active receive buffer, freeing the previous one. */
static int take(struct pvmi_msg *m)
{
	int mid;

	q_unlink(m);
	count_received(m);
	mid = ensure_mid(m);
	if (mid < 0) {
		pvmi_msg_free(m);
		return PvmNoMem;
	}
	pvmi_rbuf_replace(mid);
	pvmi_msg_rewind(m);
	return mid;
}

/* The short path's take: the message the wait handed over (`got')
 * becomes the receive buffer, without the queue.  It is new from the
 * pipe, so already rewound.  Inline: it is all a small receive does once
 * its message has come. */
static inline __attribute__((always_inline)) int take_got(void)
{
	struct pvmi_msg *m = waiting.got;
	int mid;

	waiting.got = NULL;
	count_received(m);
	mid = pvmi_mid_register(m);
	if (mid < 0) {
		pvmi_msg_free(m);
		return PvmNoMem;
	}
	if (pvmi_rbuf)
		pvmi_rbuf_replace(mid);
	else
		pvmi_rbuf = mid;	/* the common case: cleared as it began */
	return mid;
}

static int receive_wanting(int tid, int tag, long deadline, int peek);

/* Common body of the receive calls.  `deadline': -1 block, 0 poll once,
 * else absolute monotonic ns.  Returns a buffer id, 0 when nothing
 * matched in time, or an error code.  While the queue is over its
 * limit, only what can match is read (see the top). */
static int receive(int tid, int tag, long deadline, int peek)
{
	int plain = !match_fn && !nmhf;	/* the default match alone */
	int old = pvmi_conn_want(tid > 0 && plain ? tid : PVMI_WANT_ANY), rc;

	/* the pumps are unsated here: only a receive's queueing sates
	 * them, and each receive unsates them as it ends.  Receives nest
	 * only inside a message handler, and with handlers installed the
	 * outer one is never sated: no need to restore it */
	waiting.on = plain;
	waiting.tid = tid;
	waiting.tag = tag;
	rc = receive_wanting(tid, tag, deadline, peek);
	waiting.on = 0;
	waiting.direct = 0;
	pvmi_conn_sated(0);
	pvmi_conn_want(old);
	return rc;
}

static int receive_wanting(int tid, int tag, long deadline, int peek)
{
	struct pvmi_msg *m;
	/* the short path's receives: a blocking one, the default match */
	int direct = waiting.on && deadline < 0 && !peek, rc, err;

	rc = pvmi_attach();
	if (rc != PvmOk)
		return rc;
	/* a receive clears the receive buffer as it starts, as stock's do:
	 * one that finds nothing leaves none.  Freed here, before any wait,
	 * it is off the way of the message that answers it */
	if (!peek)
		pvmi_rbuf_replace(0);
	if (deadline == 0)
		pvmi_pump(0);
	else if (!peek)
		pvmi_precomm_recv_begin();
	for (;;) {
		if (waiting.got)
			return take_got();
		run_handlers();
		m = q_find(tid, tag, &err);
		if (err < 0)
			return err;
		if (m)
			return peek ? ensure_mid(m) : take(m);
		/* from here on the first match to arrive is the one: the
		 * short path takes it */
		waiting.direct = direct;
		/* nothing more can come from a task whose host left */
		if (tid > 0 && pvmi_hostwatch_lost(tid))
			return PvmNoHost;
		if (deadline == 0)
			return 0;
		/* precommunication is staged by the wait, once it has not
		 * found input at once */
		rc = pvmi_wait_input(deadline);
		if (waiting.got)
			return take_got();
		if (rc == PvmSysErr)
			return PvmSysErr;
		if (rc == 0 && deadline > 0 && pvmi_now_ns() >= deadline)
			return 0;
	}
}

/* Blocks until a message from `tid' with `tag' (-1: any) arrives in the
 * current context; returns its buffer id, now the receive buffer. */
PVMI_EXPORT int pvm_recv(int tid, int tag)
{
	int rc = receive(tid, tag, -1, 0);

	return rc < 0 ? pvmi_error("pvm_recv", rc) : rc;
}

/* Like pvm_recv but returns 0 at once when no such message is there. */
PVMI_EXPORT int pvm_nrecv(int tid, int tag)
{
	int rc = receive(tid, tag, 0, 0);

	return rc < 0 ? pvmi_error("pvm_nrecv", rc) : rc;
}

/* Like pvm_recv but gives up after `tmout' (NULL: never) and returns 0. */
PVMI_EXPORT int pvm_trecv(int tid, int tag, struct timeval *tmout)
{
	long deadline = -1;
	int rc;

	if (tmout) {
		if (tmout->tv_sec < 0 || tmout->tv_usec < 0)
			return pvmi_error("pvm_trecv", PvmBadParam);
		if (tmout->tv_sec == 0 && tmout->tv_usec == 0)
			deadline = 0;
		else
			deadline = pvmi_now_ns() + tmout->tv_sec * 1000000000L +
				   tmout->tv_usec * 1000L;
	}
	rc = receive(tid, tag, deadline, 0);
	return rc < 0 ? pvmi_error("pvm_trecv", rc) : rc;
}

/* Returns the buffer id of a matching queued message without receiving
 * it (pvm_bufinfo works on it), or 0 when none has arrived. */
PVMI_EXPORT int pvm_probe(int tid, int tag)
{
	int rc = receive(tid, tag, 0, 1);

	return rc < 0 ? pvmi_error("pvm_probe", rc) : rc;
}

/* Bytes of one element of `type' in pvm_precv's buffer (PVM_STR: one
 * byte, as pvm_psend sends it). */
static size_t precv_elem_size(int type)
{
	switch (type) {
	case PVM_STR:
	case PVM_BYTE:		return 1;
	case PVM_SHORT:
	case PVM_USHORT:	return sizeof(short);
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:		return 4;
	case PVM_CPLX:
	case PVM_DOUBLE:	return 8;
	case PVM_DCPLX:		return 16;
	default:		return sizeof(long);
	}
}

/* Receives into `buf' the message's bytes, up to `len' elements of
 * `type' worth, as stock does: no conversion, a longer message cut
 * short without an error.  *rlen gets the message's length in bytes
 * (stock's size, pvm_bufinfo's).  The message is freed. */
PVMI_EXPORT int pvm_precv(int tid, int tag, void *buf, int len, int type,
			  int *rtid, int *rtag, int *rlen)
{
	struct pvmi_msg *m;
	size_t total, cap;
	int mid, saved, rc;

	if (len < 0 || type < PVM_STR || type > PVM_ULONG || (len && !buf))
		return pvmi_error("pvm_precv", PvmBadParam);
	saved = pvmi_rbuf;
	pvmi_rbuf = 0;		/* keep the user's receive buffer */
	mid = receive(tid, tag, -1, 0);
	if (mid < 0) {
		pvmi_rbuf = saved;
		return pvmi_error("pvm_precv", mid);
	}
	m = pvmi_mid_lookup(mid);
	total = pvmi_msg_data_len(m);
	cap = (size_t)len * precv_elem_size(type);
	rc = pvmi_body_bytes(m, buf, total < cap ? total : cap);
	if (rtid)
		*rtid = m->src;
	if (rtag)
		*rtag = m->tag;
	if (rlen)
		*rlen = (int)total;
	pvmi_mid_retire(mid);	/* a small body serves the next frame */
	pvmi_rbuf = saved;
	return rc < 0 ? pvmi_error("pvm_precv", rc) : PvmOk;
}

/* Replaces the function receives use to pick a message; NULL restores
 * the default.  Returns the previous one. */
PVMI_EXPORT int (*pvm_recvf(int (*fn)(int, int, int)))(int, int, int)
{
	int (*old)(int, int, int) = match_fn;

	match_fn = fn;
	return old;
}

/* Whether two values of a handler's key can match one message: equal,
 * or either is the wildcard -1. */
static int key_overlaps(int a, int b)
{
	return a == b || a == -1 || b == -1;
}

/* Installs `fn' for messages matching (src, tag, ctx), -1 = any; it runs
 * when such a message arrives during a receive.  Returns its id, or
 * PvmExists (as stock) when an installed handler could match a message
 * this one matches. */
PVMI_EXPORT int pvm_addmhf(int src, int tag, int ctx, int (*fn)(int))
{
	int i;

	if (!fn)
		return pvmi_error("pvm_addmhf", PvmBadParam);
	for (i = 0; i < nmhf; i++)
		if (key_overlaps(mhfs[i].src, src) &&
		    key_overlaps(mhfs[i].tag, tag) &&
		    key_overlaps(mhfs[i].ctx, ctx))
			return pvmi_error("pvm_addmhf", PvmExists);
	if (nmhf == mhfcap) {
		int ncap = mhfcap ? 2 * mhfcap : 8;
		struct mhf *n = realloc(mhfs, ncap * sizeof(*n));

		if (!n)
			return pvmi_error("pvm_addmhf", PvmNoMem);
		mhfs = n;
		mhfcap = ncap;
	}
	mhfs[nmhf].id = mhf_next_id++;
	mhfs[nmhf].src = src;
	mhfs[nmhf].tag = tag;
	mhfs[nmhf].ctx = ctx;
	mhfs[nmhf].fn = fn;
	return mhfs[nmhf++].id;
}

/* Removes handler `mhid'.  PvmOk, or PvmBadParam/PvmNotFound. */
PVMI_EXPORT int pvm_delmhf(int mhid)
{
	int i;

	if (mhid < 0)
		return pvmi_error("pvm_delmhf", PvmBadParam);
	for (i = 0; i < nmhf; i++) {
		if (mhfs[i].id == mhid) {
			memmove(mhfs + i, mhfs + i + 1,
				(nmhf - i - 1) * sizeof(*mhfs));
			nmhf--;
			return PvmOk;
		}
	}
	return pvmi_error("pvm_delmhf", PvmNotFound);
}

/* Prints the message handler table (a debugging aid stock programs
 * call): a header, `msg' as caption, then one row per installed handler,
 * in the layout stock PVM uses so that tools reading it keep working. */
PVMI_EXPORT void pvmdisplaymhfinfo(const char *who, const char *msg, int tid)
{
	const char *w = who ? who : "";
	int i;

	printf("\n%s t%x: Display Message Handler Information: ndhandles = %d"
	       "\tnhandles = %d\tfl_dhandles = -1\n", w, tid, nmhf, nmhf);
	printf("pvmdisplaymhfinfo: free list.  head <- -< tail\n");
	printf("%s t%x: %s\n", w, tid, msg ? msg : "");
	for (i = 0; i < nmhf; i++)
		printf("%s t%x: dhandles[%2d].mhid = %2d  .handle = %2d     "
		       "handles[%2d].mhid = %2d  .header.src = t%-10x"
		       ".header.ctx = %8d  .header.tag= %8d\n", w, tid, i,
		       mhfs[i].id, i, i, mhfs[i].id, (unsigned)mhfs[i].src,
		       mhfs[i].ctx, mhfs[i].tag);
	printf("\n\n");
	fflush(stdout);
}

/* At each enrolment the queue becomes conn.c's sink. */
static void recv_enrolling(void)
{
	pvmi_conn_set_sink(pvmi_rxq_deliver);
}

/* The receive side's part in enrolling, forking and leaving
 * (task_hooks.h): a forked child drops its parent's queue; leaving
 * forgets the queue, the lost hosts and the message handlers. */
__attribute__((constructor)) static void recv_hooks(void)
{
	pvmi_task_hook(PVMI_TASK_ENROLLING, recv_enrolling);
	pvmi_task_hook(PVMI_TASK_FORKED, pvmi_rxq_flush);
	pvmi_task_hook(PVMI_TASK_LEFT, pvmi_recv_reset);
}

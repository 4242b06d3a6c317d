/*
 * notify.c - the NOTIFY request and the events that fire it.
 *
 * A notify is a promise to send the asking task (the watcher) one
 * PVMI_KIND_USER message, from the daemon's tid, with the tag and context
 * it chose:
 *   PvmTaskExit    per tid; body "int tid" when that task is gone.  On a
 *                  tid that does not exist (or is already gone) it fires
 *                  at once, as stock does.
 *   PvmHostDelete  per daemon tid; body "int dtid".  This host never
 *                  leaves while its tasks run, so it is only recorded;
 *                  any other dtid is not in the machine and fires at once.
 *   PvmHostAdd     a count of messages (-1: no limit, 0: off), replacing
 *                  the watcher's previous one; body "int n, ints[n]
 *                  dtids".  Recorded; it fires when ADDHOSTS adds hosts.
 * Adding PvmNotifyCancel removes the matching requests and, as the man
 * page documents, delivers their messages as if the event had happened
 * (TaskExit and HostDelete; a cancelled HostAdd just stops).  PvmRouteAdd
 * and PvmRouteDelete concern direct routes, which only the library sees:
 * the daemon answers PvmNotImpl.  A watcher's requests die with it.
 * A notify that fired at once is not kept, so cancelling it later finds
 * nothing more to deliver.
 */
#include <stdlib.h>

#include "pvmd.h"

#define MAX_NOTIFY_TIDS	65536

struct notify {
	struct notify *next;
	int kind;
	int watcher;
	int tag, ctx;
	int target;		/* tid or dtid; count for PvmHostAdd */
};

static struct notify *notifies, **notifies_tail = &notifies;

static void fire(int watcher, int tag, int ctx, int target)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, target);
	if (pvmd_send_user(watcher, tag, ctx, &w) < 0)
		pvmd_dbg(PVMD_DBG_MBOX, "notify for t%x: t%x is gone",
			 (unsigned)target, (unsigned)watcher);
	pvmi_w_free(&w);
}

static void add(int kind, int watcher, int tag, int ctx, int target)
{
	struct notify *n = malloc(sizeof(*n));

	if (!n) {
		pvmd_log("out of memory recording a notify");
		return;
	}
	n->next = NULL;
	n->kind = kind;
	n->watcher = watcher;
	n->tag = tag;
	n->ctx = ctx;
	n->target = target;
	*notifies_tail = n;
	notifies_tail = &n->next;
}

/* Removes the entries for which `match' says yes; returns how many. */
static int remove_if(int (*match)(const struct notify *, const void *),
		     const void *arg, int fire_them)
{
	struct notify **pp, *n;
	int k = 0;

	for (pp = &notifies; (n = *pp);) {
		if (!match(n, arg)) {
			pp = &n->next;
			continue;
		}
		*pp = n->next;
		if (fire_them)
			fire(n->watcher, n->tag, n->ctx, n->target);
		free(n);
		k++;
	}
	for (notifies_tail = &notifies; *notifies_tail;
	     notifies_tail = &(*notifies_tail)->next)
		;
	return k;
}

static int same_request(const struct notify *n, const void *arg)
{
	const struct notify *q = arg;

	return n->kind == q->kind && n->watcher == q->watcher &&
	       n->tag == q->tag && n->ctx == q->ctx &&
	       (q->kind == PvmHostAdd || n->target == q->target);
}

static int hostadd_of(const struct notify *n, const void *arg)
{
	return n->kind == PvmHostAdd && n->watcher == *(const int *)arg;
}

static int exit_of(const struct notify *n, const void *arg)
{
	return n->kind == PvmTaskExit && n->target == *(const int *)arg;
}

static int asked_by(const struct notify *n, const void *arg)
{
	return n->watcher == *(const int *)arg;
}

/* Reads the tid list of TaskExit/HostDelete; NULL on a bad body. */
static int32_t *read_tids(struct pvmi_rbuf *r, int cnt)
{
	int32_t *tids;

	if (cnt < 0 || cnt > MAX_NOTIFY_TIDS ||
	    (size_t)cnt > (r->len - r->pos) / 4)
		return NULL;
	tids = malloc(((size_t)cnt + 1) * sizeof(*tids));
	if (!tids)
		return NULL;
	/* an empty list may come as an empty item or as nothing at all */
	if (cnt == 0 && r->pos == r->len && !r->failed)
		return tids;
	if (pvmi_r_ints(r, tids, (size_t)cnt) < 0 || !pvmd_body_ok(r)) {
		free(tids);
		return NULL;
	}
	return tids;
}

static void per_tid(int kind, int cancel, int me, int tag, int ctx,
		    const int32_t *tids, int cnt)
{
	struct notify q = { .kind = kind, .watcher = me, .tag = tag,
			    .ctx = ctx };
	int i, exists;

	for (i = 0; i < cnt; i++) {
		q.target = tids[i];
		if (cancel) {
			remove_if(same_request, &q, 1);
			continue;
		}
		if (kind == PvmTaskExit)
			exists = pvmd_task_find(tids[i]) != NULL;
		else
			exists = tids[i] == pvmd.dtid;
		if (exists)
			add(kind, me, tag, ctx, tids[i]);
		else
			fire(me, tag, ctx, tids[i]);
	}
}

/* NOTIFY: "int what, int tag, int ctx, int cnt, ints[cnt]" (the tid list
 * only for TaskExit and HostDelete, and may be left out when cnt is 0;
 * for HostAdd whatever follows cnt is ignored).  Answers first, then
 * fires. */
void pvmd_op_notify(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	int32_t what, tag, ctx, cnt, *tids = NULL;
	int kind, cancel, me = c->task->tid;

	what = pvmi_r_int(r);
	tag = pvmi_r_int(r);
	ctx = pvmi_r_int(r);
	cnt = pvmi_r_int(r);
	if (r->failed) {
		pvmd_reply_status(c, PVMI_OP_NOTIFY, PvmBadMsg);
		return;
	}
	kind = what & ~PvmNotifyCancel;
	cancel = (what & PvmNotifyCancel) != 0;
	switch (kind) {
	case PvmTaskExit:
	case PvmHostDelete:
		tids = read_tids(r, cnt);
		if (!tids) {
			pvmd_reply_status(c, PVMI_OP_NOTIFY,
					  cnt < 0 ? PvmBadParam : PvmBadMsg);
			return;
		}
		pvmd_reply_status(c, PVMI_OP_NOTIFY, PvmOk);
		per_tid(kind, cancel, me, tag, ctx, tids, cnt);
		free(tids);
		return;
	case PvmHostAdd:
		/* whatever follows cnt is not needed and not checked */
		pvmd_reply_status(c, PVMI_OP_NOTIFY, PvmOk);
		remove_if(hostadd_of, &me, 0);
		if (!cancel && cnt != 0)
			add(PvmHostAdd, me, tag, ctx, cnt);
		return;
	case PvmRouteAdd:
	case PvmRouteDelete:
		pvmd_reply_status(c, PVMI_OP_NOTIFY, PvmNotImpl);
		return;
	default:
		pvmd_reply_status(c, PVMI_OP_NOTIFY, PvmBadParam);
		return;
	}
}

/* Fires the PvmTaskExit notifies on `tid' (in the order they were asked)
 * and drops every request `tid' itself made. */
void pvmd_notify_task_gone(int tid)
{
	remove_if(asked_by, &tid, 0);
	remove_if(exit_of, &tid, 1);
}

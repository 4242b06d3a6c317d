/*
 * notify.c - the NOTIFY request and the events that fire it.
 *
 * A notify is a promise to send the asking task (the watcher) one
 * PVMI_KIND_USER message, from the daemon's tid, with the tag and context
 * it chose:
 *   PvmTaskExit    per tid; body "int tid" when that task is gone.  On a
 *                  tid that does not exist (or is already gone) it fires
 *                  at once, as stock does.
 *   PvmHostDelete  per daemon tid; body "int dtid".  Fires when that host
 *                  leaves the machine (deleted, or its daemon failed);
 *                  a dtid that is not in the machine fires at once.
 *   PvmHostAdd     a count of messages (-1: no limit, 0: off), replacing
 *                  the watcher's previous one with the same tag and
 *                  context (others stay: Debian's console keeps one for
 *                  its `add' and one for its handler); body "int n,
 *                  ints[n] dtids".  Fires each time hosts join.
 * Adding PvmNotifyCancel removes the matching requests and, as the man
 * page documents, delivers their messages as if the event had happened
 * (TaskExit and HostDelete; a cancelled HostAdd just stops).  PvmRouteAdd
 * and PvmRouteDelete concern direct routes, which only the library sees:
 * the daemon answers PvmNotImpl.  A watcher's requests die with it.
 * A notify that fired at once is not kept, so cancelling it later finds
 * nothing more to deliver.
 *
 * A PvmTaskExit on a task of another host is kept twice: the daemon of
 * that host records it (the request is forwarded, remote.c) and fires it
 * when the task goes, through DD_NOTIFY to the watcher's daemon; the
 * watcher's daemon keeps a shadow copy, consumed by whichever comes
 * first: that DD_NOTIFY, a cancel (also forwarded, so the other copy goes
 * too), or the other host leaving the machine, which fires every shadow
 * on its tasks.  So each request is delivered exactly once, and after
 * the task's last messages when they came through the daemons, since
 * they travel the same way.  Requests whose watcher was on a host that
 * left are dropped.
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
	int shadow;		/* also recorded on the target's host */
};

static struct notify *notifies, **notifies_tail = &notifies;

/* Delivers a TaskExit or HostDelete message; a watcher of another host
 * gets it through its daemon (DD_NOTIFY). */
static void fire_kind(int kind, int watcher, int tag, int ctx, int target)
{
	struct pvmi_wbuf w = { 0 };

	if (PVMI_TID_INDEX(watcher) != pvmd.index) {
		pvmi_w_int(&w, kind);
		pvmi_w_int(&w, watcher);
		pvmi_w_int(&w, tag);
		pvmi_w_int(&w, ctx);
		pvmi_w_int(&w, target);
		pvmd_peer_send_dd(PVMI_TID_INDEX(watcher), PVMI_DD_NOTIFY, &w);
		pvmi_w_free(&w);
		return;
	}
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
	n->shadow = 0;
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
			fire_kind(n->kind, n->watcher, n->tag, n->ctx,
				  n->target);
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

static int same_hostadd(const struct notify *n, const void *arg)
{
	const struct notify *q = arg;

	return n->kind == PvmHostAdd && n->watcher == q->watcher &&
	       n->tag == q->tag && n->ctx == q->ctx;
}

static int exit_of(const struct notify *n, const void *arg)
{
	return n->kind == PvmTaskExit && !n->shadow &&
	       n->target == *(const int *)arg;
}

static int shadow_match(const struct notify *n, const void *arg)
{
	const struct notify *q = arg;

	return n->shadow && n->kind == q->kind && n->watcher == q->watcher &&
	       n->tag == q->tag && n->ctx == q->ctx && n->target == q->target;
}

static int on_host(const struct notify *n, const void *arg)
{
	int index = *(const int *)arg;

	return (n->kind == PvmTaskExit && n->shadow &&
		PVMI_TID_INDEX(n->target) == index) ||
	       (n->kind == PvmHostDelete &&
		n->target == PVMI_DAEMON_TID(index));
}

static int watcher_on_host(const struct notify *n, const void *arg)
{
	return PVMI_TID_INDEX(n->watcher) == *(const int *)arg;
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

static void forget_reply(void *arg, int index, struct pvmi_rbuf *r)
{
}

/* Marks the entry just added as a shadow of a remote request. */
static void notifies_tail_shadow(void)
{
	struct notify *n;

	for (n = notifies; n && n->next; n = n->next)
		;
	if (n)
		n->shadow = 1;
}

/* Sends the TaskExit requests (or cancels) on tasks of host `index' to
 * its daemon; `tids' may hold tids of other hosts, which are skipped. */
static void forward_to(int index, int what, int me, int tag, int ctx,
		       const int32_t *tids, int cnt)
{
	struct pvmi_wbuf w = { 0 };
	int32_t *mine = malloc(((size_t)cnt + 1) * sizeof(*mine));
	int i, n = 0;

	if (!mine)
		return;
	for (i = 0; i < cnt; i++)
		if (PVMI_TID_INDEX(tids[i]) == index)
			mine[n++] = tids[i];
	pvmi_w_int(&w, what);
	pvmi_w_int(&w, tag);
	pvmi_w_int(&w, ctx);
	pvmi_w_int(&w, n);
	pvmi_w_ints(&w, mine, (size_t)n);
	if (!w.failed)
		pvmd_forward(index, me, PVMI_OP_NOTIFY, w.data, w.len,
			     forget_reply, NULL);
	pvmi_w_free(&w);
	free(mine);
}

/* True when a TaskExit on `tid' must be recorded on another host. */
static int remote_target(const struct pvmd_conn *c, int tid)
{
	return c->kind != PVMD_CONN_PROXY && tid > 0 &&
	       PVMI_TID_INDEX(tid) != pvmd.index &&
	       pvmd_host_get(PVMI_TID_INDEX(tid)) && PVMI_TID_LOCAL(tid);
}

static void per_tid(const struct pvmd_conn *c, int kind, int cancel, int me,
		    int tag, int ctx, const int32_t *tids, int cnt)
{
	struct notify q = { .kind = kind, .watcher = me, .tag = tag,
			    .ctx = ctx };
	struct pvmd_host *h;
	int i, j, exists, remote, dup;

	for (i = 0; i < cnt; i++) {
		q.target = tids[i];
		remote = kind == PvmTaskExit && remote_target(c, tids[i]);
		if (cancel) {
			remove_if(remote ? shadow_match : same_request, &q, 1);
			continue;
		}
		if (remote) {
			add(kind, me, tag, ctx, tids[i]);
			notifies_tail_shadow();
			continue;
		}
		if (kind == PvmTaskExit) {
			exists = pvmd_task_find(tids[i]) != NULL;
		} else {
			h = pvmd_host_get(PVMI_TID_INDEX(tids[i]));
			exists = h && h->dtid == tids[i];
		}
		if (exists)
			add(kind, me, tag, ctx, tids[i]);
		else
			fire_kind(kind, me, tag, ctx, tids[i]);
	}
	/* one forwarded request per other host involved */
	for (i = 0; kind == PvmTaskExit && i < cnt; i++) {
		if (!remote_target(c, tids[i]))
			continue;
		for (j = 0, dup = 0; j < i && !dup; j++)
			dup = remote_target(c, tids[j]) &&
			      PVMI_TID_INDEX(tids[j]) ==
			      PVMI_TID_INDEX(tids[i]);
		if (!dup)
			forward_to(PVMI_TID_INDEX(tids[i]),
				   kind | (cancel ? PvmNotifyCancel : 0), me,
				   tag, ctx, tids, cnt);
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
	struct notify q = { 0 };

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
		per_tid(c, kind, cancel, me, tag, ctx, tids, cnt);
		free(tids);
		return;
	case PvmHostAdd:
		/* whatever follows cnt is not needed and not checked */
		pvmd_reply_status(c, PVMI_OP_NOTIFY, PvmOk);
		q.kind = PvmHostAdd;
		q.watcher = me;
		q.tag = tag;
		q.ctx = ctx;
		remove_if(same_hostadd, &q, 0);
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

/* A TaskExit of ours fired on another host (DD_NOTIFY): delivered if
 * its shadow is still here, else it was cancelled or already fired. */
void pvmd_notify_remote_fired(int kind, int watcher, int tag, int ctx,
			      int target, int src)
{
	struct notify q = { .kind = kind, .watcher = watcher, .tag = tag,
			    .ctx = ctx, .target = target };

	if (PVMI_TID_INDEX(watcher) != pvmd.index ||
	    PVMI_TID_INDEX(target) != PVMI_TID_INDEX(src))
		return;
	remove_if(shadow_match, &q, 1);
}

/* Tells every task of this host that host `dtid' left (up = 0) or
 * joined (1) the machine: HOSTSTATE in the library's context, before
 * any notify about it (lib/hostwatch.c). */
static void tell_tasks(int dtid, int up)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_task *t;

	pvmi_w_int(&w, dtid);
	pvmi_w_int(&w, up);
	for (t = pvmd_task_first(); t; t = t->next)
		if (t->conn)
			pvmd_send_user(t->tid, PVMI_TAG_HOSTSTATE,
				       PVMI_SYS_CTX, &w);
	pvmi_w_free(&w);
}

/* Host `index' left: our tasks hear of it first, then notifies asked
 * by its tasks go, those on it fire (TaskExit on its tasks first, then
 * HostDelete on it). */
void pvmd_notify_host_gone(int index)
{
	tell_tasks(PVMI_DAEMON_TID(index), 0);
	remove_if(watcher_on_host, &index, 0);
	remove_if(on_host, &index, 1);
}

/* Hosts were added: each PvmHostAdd request gets "int n, ints[n]" with
 * their dtids, and counts down (-1 never does). */
void pvmd_notify_hosts_added(const int32_t *dtids, int n)
{
	struct pvmi_wbuf w = { 0 };
	struct notify **pp, *x;
	int i;

	for (i = 0; i < n; i++)
		tell_tasks(dtids[i], 1);
	pvmi_w_int(&w, n);
	pvmi_w_ints(&w, dtids, (size_t)n);
	for (pp = &notifies; (x = *pp);) {
		if (x->kind != PvmHostAdd) {
			pp = &x->next;
			continue;
		}
		pvmd_send_user(x->watcher, x->tag, x->ctx, &w);
		if (x->target > 0 && --x->target == 0) {
			*pp = x->next;
			free(x);
			continue;
		}
		pp = &x->next;
	}
	for (notifies_tail = &notifies; *notifies_tail;
	     notifies_tail = &(*notifies_tail)->next)
		;
	pvmi_w_free(&w);
}

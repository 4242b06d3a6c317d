/*
 * mbox.c - the message mailbox (pvm_putinfo, pvm_recvinfo, pvm_delinfo,
 * pvm_getmboxinfo).
 *
 * The mailbox is a list of classes (names), each a list of entries sorted
 * by index.  An entry holds a whole message body with its encoding and
 * tag, its owner (the task that stored it, 0 once that task is gone) and
 * the flags it was stored with, exactly as given (pvm_getmboxinfo shows
 * them so, direct index bits included, like stock).
 *
 * Who may change (replace, delete, read-and-delete) an entry: its owner,
 * and anyone when it is OverWritable.  An entry left behind by a task
 * that is gone (Persistent, owner 0) is locked like any other, as in
 * stock PVM.
 *
 * PUT   MultiInstance without a direct index adds an entry at the lowest
 *       free index.  Otherwise the target is the direct index (0 when
 *       none): a free slot is filled; an existing entry is replaced if
 *       the caller may change it (the caller becomes its owner), else
 *       the answer is PvmDenied.  The reply is the index.  As in stock
 *       3.4.6 (checked by experiment), a put on another task's locked
 *       entry gets PvmDenied; PvmExists, which the man page mentions for
 *       an existing key, is never the answer.
 * GET   exact <name,index>, or with FirstAvail the first index >= index;
 *       ReadAndDelete also removes it (PvmDenied if the caller may not);
 *       PvmNotFound when absent, unless WaitForInfo: then the reply waits
 *       until a PUT makes a matching entry (in arrival order), and the
 *       wait is dropped if the waiting task goes away.
 * DEL   exact <name,index>: PvmOk, PvmNotFound or PvmDenied.
 * LIST  every class whose name matches a glob ("" and "*" match all).
 * When a task is gone its entries go too, except Persistent ones, which
 * stay with owner 0.  Empty classes are removed.
 *
 * In a machine of several hosts the mailbox lives on the master: a slave
 * forwards its tasks' mailbox requests there (remote.c), and tells the
 * master when a task is gone; when a host leaves, its tasks' entries go
 * as if each of them had exited.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

struct mb_entry {
	struct mb_entry *next;		/* ascending index */
	int index;
	int owner;			/* 0 when its owner is gone */
	int src;			/* the task that stored it */
	int flags;
	int enc, tag;
	size_t len;
	unsigned char *body;
};

struct mb_class {
	struct mb_class *next;		/* creation order */
	char *name;
	struct mb_entry *entries;
};

struct mb_waiter {
	struct mb_waiter *next;		/* arrival order */
	struct pvmd_conn *conn;
	char *name;
	int index, flags;
};

static struct mb_class *classes;
static struct mb_waiter *waiters;

/* A slave hands its tasks' mailbox requests to the master; true then. */
static int to_master(struct pvmd_conn *c, int op, struct pvmi_rbuf *r)
{
	if (!pvmd.slave || c->kind != PVMD_CONN_TASK)
		return 0;
	pvmd_forward_relay(c, PVMI_MASTER_INDEX, op, r, PvmSysErr);
	return 1;
}

static struct mb_class *class_find(const char *name)
{
	struct mb_class *k;

	for (k = classes; k; k = k->next)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

static struct mb_class *class_get(const char *name)
{
	struct mb_class *k = class_find(name), **pp;

	if (k)
		return k;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->name = strdup(name);
	if (!k->name) {
		free(k);
		return NULL;
	}
	for (pp = &classes; *pp; pp = &(*pp)->next)
		;
	*pp = k;
	return k;
}

static void class_drop_if_empty(struct mb_class *k)
{
	struct mb_class **pp;

	if (k->entries)
		return;
	for (pp = &classes; *pp; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			free(k->name);
			free(k);
			return;
		}
	}
}

static struct mb_entry *entry_at(struct mb_class *k, int index,
				 int first_avail)
{
	struct mb_entry *e;

	if (!k)
		return NULL;
	for (e = k->entries; e; e = e->next) {
		if (e->index == index || (first_avail && e->index > index))
			return e;
		if (e->index > index)
			return NULL;
	}
	return NULL;
}

static void entry_unlink(struct mb_class *k, struct mb_entry *e)
{
	struct mb_entry **pp;

	for (pp = &k->entries; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			free(e->body);
			free(e);
			return;
		}
	}
}

static int may_change(const struct mb_entry *e, int tid)
{
	return e->owner == tid || (e->flags & PvmMboxOverWritable);
}

static int lowest_free(struct mb_class *k)
{
	struct mb_entry *e;
	int i = 0;

	for (e = k->entries; e && e->index == i; e = e->next)
		i++;
	return i;
}

static void entry_insert(struct mb_class *k, struct mb_entry *n)
{
	struct mb_entry **pp;

	for (pp = &k->entries; *pp && (*pp)->index < n->index;
	     pp = &(*pp)->next)
		;
	n->next = *pp;
	*pp = n;
}

/* Answers a GET on `c' with entry `e' of class `k' for task `tid'. */
static void answer_get(struct pvmd_conn *c, int tid, struct mb_class *k,
		       struct mb_entry *e, int flags)
{
	struct pvmi_wbuf w = { 0 };

	if ((flags & PvmMboxReadAndDelete) && !may_change(e, tid)) {
		pvmd_reply_status(c, PVMI_OP_MBOX_GET, PvmDenied);
		return;
	}
	pvmi_w_int(&w, PvmOk);
	pvmi_w_int(&w, e->enc);
	pvmi_w_int(&w, e->tag);
	pvmi_w_int(&w, e->src);
	pvmi_w_bytes(&w, e->body, e->len);
	pvmd_reply(c, PVMI_OP_MBOX_GET, &w);
	if (flags & PvmMboxReadAndDelete) {
		entry_unlink(k, e);
		class_drop_if_empty(k);
	}
}

/* Answers the waiters a PUT on `name' may satisfy, oldest first.  A
 * waiter leaves the list before its reply is sent, since sending may
 * close its connection, which drops that connection's waiters. */
static void wake_waiters(const char *name)
{
	struct mb_waiter **pp, *wt;
	struct pvmd_conn *c;
	struct mb_class *k;
	struct mb_entry *e;

	for (pp = &waiters; (wt = *pp);) {
		c = wt->conn;
		k = strcmp(wt->name, name) ? NULL : class_find(name);
		e = entry_at(k, wt->index, wt->flags & PvmMboxFirstAvail);
		if (!e || !c->task) {
			pp = &wt->next;
			continue;
		}
		*pp = wt->next;
		c->deferred = 0;
		answer_get(c, c->task->tid, k, e, wt->flags);
		free(wt->name);
		free(wt);
		pvmd_conn_resume(c);
	}
}

/* MBOX_PUT: "str name, int flags, int enc, int tag, bytes body". */
void pvmd_op_mbox_put(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct mb_class *k;
	struct mb_entry *e, *n;
	const void *body;
	char *name;
	int32_t flags, enc, tag;
	int me = c->task->tid, index, direct;
	size_t len = 0;

	if (to_master(c, PVMI_OP_MBOX_PUT, r))
		return;
	name = pvmi_r_str(r);
	flags = pvmi_r_int(r);
	enc = pvmi_r_int(r);
	tag = pvmi_r_int(r);
	body = pvmi_r_bytes(r, &len);
	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_MBOX_PUT, PvmBadMsg);
		goto out;
	}
	if (flags < 0) {
		pvmd_reply_status(c, PVMI_OP_MBOX_PUT, PvmBadParam);
		goto out;
	}
	direct = (int)PvmMboxDirectIndexOf(flags);
	k = class_get(name);
	n = calloc(1, sizeof(*n));
	if (!k || !n || !(n->body = malloc(len ? len : 1))) {
		free(n);
		if (k)
			class_drop_if_empty(k);
		pvmd_reply_status(c, PVMI_OP_MBOX_PUT, PvmNoMem);
		goto out;
	}
	memcpy(n->body, body, len);
	n->len = len;
	n->owner = me;
	n->src = me;
	n->flags = flags;	/* listed as given, direct index included */
	n->enc = enc;
	n->tag = tag;
	if ((flags & PvmMboxMultiInstance) && !direct) {
		index = lowest_free(k);
	} else {
		index = direct;
		e = entry_at(k, index, 0);
		if (e && !may_change(e, me)) {
			free(n->body);
			free(n);
			pvmd_reply_status(c, PVMI_OP_MBOX_PUT, PvmDenied);
			goto out;
		}
		if (e)
			entry_unlink(k, e);
	}
	n->index = index;
	entry_insert(k, n);
	pvmd_dbg(PVMD_DBG_MBOX, "t%x put %s[%d] (%zu bytes, flags 0x%x)",
		 (unsigned)me, name, index, len, (unsigned)flags);
	pvmd_reply_status(c, PVMI_OP_MBOX_PUT, index);
	wake_waiters(name);
out:
	free(name);
}

/* MBOX_GET: "str name, int index, int flags". */
void pvmd_op_mbox_get(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct mb_waiter *wt, **pp;
	struct mb_class *k;
	struct mb_entry *e;
	char *name;
	int32_t index, flags;

	if (to_master(c, PVMI_OP_MBOX_GET, r))
		return;
	name = pvmi_r_str(r);
	index = pvmi_r_int(r);
	flags = pvmi_r_int(r);
	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_MBOX_GET, PvmBadMsg);
		goto out;
	}
	if (index < 0) {
		pvmd_reply_status(c, PVMI_OP_MBOX_GET, PvmBadParam);
		goto out;
	}
	k = class_find(name);
	e = entry_at(k, index, flags & PvmMboxFirstAvail);
	if (e) {
		answer_get(c, c->task->tid, k, e, flags);
		goto out;
	}
	if (!(flags & PvmMboxWaitForInfo)) {
		pvmd_reply_status(c, PVMI_OP_MBOX_GET, PvmNotFound);
		goto out;
	}
	wt = calloc(1, sizeof(*wt));
	if (!wt) {
		pvmd_reply_status(c, PVMI_OP_MBOX_GET, PvmNoMem);
		goto out;
	}
	wt->conn = c;
	wt->name = name;
	wt->index = index;
	wt->flags = flags;
	for (pp = &waiters; *pp; pp = &(*pp)->next)
		;
	*pp = wt;
	c->deferred = 1;
	pvmd_dbg(PVMD_DBG_MBOX, "t%x waits for %s[%d]",
		 (unsigned)c->task->tid, name, index);
	return;
out:
	free(name);
}

/* MBOX_DEL: "str name, int index, int flags". */
void pvmd_op_mbox_del(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct mb_class *k;
	struct mb_entry *e;
	char *name;
	int32_t index;
	int st;

	if (to_master(c, PVMI_OP_MBOX_DEL, r))
		return;
	name = pvmi_r_str(r);
	index = pvmi_r_int(r);
	pvmi_r_int(r);			/* no flags are defined */
	if (!pvmd_body_ok(r)) {
		st = PvmBadMsg;
	} else if (index < 0) {
		st = PvmBadParam;
	} else {
		k = class_find(name);
		e = entry_at(k, index, 0);
		if (!e) {
			st = PvmNotFound;
		} else if (!may_change(e, c->task->tid)) {
			st = PvmDenied;
		} else {
			entry_unlink(k, e);
			class_drop_if_empty(k);
			st = PvmOk;
		}
	}
	free(name);
	pvmd_reply_status(c, PVMI_OP_MBOX_DEL, st);
}

static int pattern_match(const char *pat, const char *name)
{
	return !*pat || !strcmp(pat, "*") || !fnmatch(pat, name, 0);
}

/* MBOX_LIST: "str pattern"; reply per class "str name, int n,
 * ints[n] indices, ints[n] owners, ints[n] flags". */
void pvmd_op_mbox_list(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	struct mb_class *k;
	struct mb_entry *e;
	int32_t *v;
	char *pat;
	int n, nk = 0, i, field;

	if (to_master(c, PVMI_OP_MBOX_LIST, r))
		return;
	pat = pvmi_r_str(r);
	if (!pvmd_body_ok(r)) {
		free(pat);
		pvmd_reply_status(c, PVMI_OP_MBOX_LIST, PvmBadMsg);
		return;
	}
	for (k = classes; k; k = k->next)
		nk += pattern_match(pat, k->name);
	pvmi_w_int(&w, nk);
	for (k = classes; k; k = k->next) {
		if (!pattern_match(pat, k->name))
			continue;
		for (n = 0, e = k->entries; e; e = e->next)
			n++;
		v = malloc((size_t)n * sizeof(*v) + 1);
		if (!v) {
			w.failed = 1;
			break;
		}
		pvmi_w_str(&w, k->name);
		pvmi_w_int(&w, n);
		for (field = 0; field < 3; field++) {
			for (i = 0, e = k->entries; e; e = e->next, i++)
				v[i] = field == 0 ? e->index :
				       field == 1 ? e->owner : e->flags;
			pvmi_w_ints(&w, v, (size_t)n);
		}
		free(v);
	}
	free(pat);
	pvmd_reply(c, PVMI_OP_MBOX_LIST, &w);
}

/* Drops the entries of the tasks `match' selects (`tid' itself, or any
 * task of host index -tid); their Persistent ones stay, ownerless. */
static void drop_owned(int tid)
{
	struct mb_class *k, *next;
	struct mb_entry *e, *en;

	for (k = classes; k; k = next) {
		next = k->next;
		for (e = k->entries; e; e = en) {
			en = e->next;
			if (tid > 0 ? e->owner != tid :
			    e->owner <= 0 || PVMI_TID_INDEX(e->owner) != -tid)
				continue;
			if (e->flags & PvmMboxPersistent)
				e->owner = 0;
			else
				entry_unlink(k, e);
		}
		class_drop_if_empty(k);
	}
}

/* Drops the entries `tid' owns; its Persistent ones stay, ownerless. */
void pvmd_mbox_task_gone(int tid)
{
	if (tid > 0)
		drop_owned(tid);
}

/* Drops what the tasks of host `index' own (master). */
void pvmd_mbox_host_gone(int index)
{
	drop_owned(-index);
}

/* Forgets a pending WaitForInfo request of connection `c'. */
void pvmd_mbox_conn_gone(struct pvmd_conn *c)
{
	struct mb_waiter **pp, *wt;

	for (pp = &waiters; (wt = *pp);) {
		if (wt->conn != c) {
			pp = &wt->next;
			continue;
		}
		*pp = wt->next;
		free(wt->name);
		free(wt);
	}
}

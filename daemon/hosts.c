/*
 * hosts.c - who is in the virtual machine: a host leaving, and the table
 * going from the master to the slaves (the table itself: hosttab.c).
 *
 * Every daemon has a copy of the host table; the master's is the
 * authority.  The master enters a host when its slave has connected and
 * said DD_HELLO (addhost.c), removes one when it is deleted or its link
 * to the master breaks, and after each change sends the whole table to
 * every slave (DD_HOSTS).  A slave replaces its copy with what it
 * receives: hosts that appeared fire the PvmHostAdd notifies, hosts that
 * left are removed here as on the master (and a slave that finds itself
 * gone halts).
 *
 * Removing a host is one function, pvmd_host_remove(): its links close,
 * requests waiting for it fail, notifies on its tasks and on it fire, its
 * tasks' mailbox entries go (master), tasks waiting for a sibling list
 * from it are let go.
 *
 * CONFIG and MSTAT are answered from the local copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

/* Removes host `index' and everything tied to it (see the top). */
void pvmd_host_remove(int index, const char *why)
{
	struct pvmd_host *h = pvmd_host_get(index);

	if (!h || index == pvmd.index)
		return;
	pvmd_log("host %s (t%x) left the machine: %s", h->name,
		 (unsigned)h->dtid, why);
	pvmd_host_unlink(index);
	pvmd_peer_forget(index);
	pvmd_remote_host_gone(index);
	pvmd_tasks_siblings_host_gone(index);
	pvmd_notify_host_gone(index);
	if (!pvmd.slave)
		pvmd_mbox_host_gone(index);
	pvmd_host_free(h);
	if (!pvmd.slave && !pvmd.halting)
		pvmd_hosts_broadcast();
}

static void encode_table(struct pvmi_wbuf *w)
{
	struct pvmd_host *h;

	pvmi_w_int(w, pvmd_host_count());
	for (h = pvmd_host_next(0); h; h = pvmd_host_next(h->index)) {
		pvmi_w_int(w, h->index);
		pvmi_w_str(w, h->name);
		pvmi_w_str(w, h->arch);
		pvmi_w_int(w, h->speed);
		pvmi_w_int(w, h->dsig);
		pvmi_w_str(w, h->index == pvmd.index ? "" : h->addr);
		pvmi_w_int(w, h->port);
	}
}

/* Master: sends the table to every slave. */
void pvmd_hosts_broadcast(void)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_host *h;

	encode_table(&w);
	for (h = pvmd_host_next(0); h; h = pvmd_host_next(h->index))
		if (h->index != pvmd.index)
			pvmd_peer_send_dd(h->index, PVMI_DD_HOSTS, &w);
	pvmi_w_free(&w);
}

struct row {
	int index, speed, dsig, port;
	char *name, *arch, *addr;
};

static void free_rows(struct row *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].arch);
		free(v[i].addr);
	}
	free(v);
}

/* Slave: replaces the table with a DD_HOSTS body; 0 or -1. */
int pvmd_hosts_apply(struct pvmi_rbuf *r)
{
	int32_t n = pvmi_r_int(r), *added;
	struct row *v;
	int i, k, nadded = 0, self = 0;
	char keep[PVMI_MAX_HOSTS / 8];

	if (r->failed || n < 1 || n >= PVMI_MAX_HOSTS)
		return -1;
	v = calloc((size_t)n, sizeof(*v));
	added = calloc((size_t)n, sizeof(*added));
	if (!v || !added) {
		free(v);
		free(added);
		return -1;
	}
	for (i = 0; i < n; i++) {
		v[i].index = pvmi_r_int(r);
		v[i].name = pvmi_r_str(r);
		v[i].arch = pvmi_r_str(r);
		v[i].speed = pvmi_r_int(r);
		v[i].dsig = pvmi_r_int(r);
		v[i].addr = pvmi_r_str(r);
		v[i].port = pvmi_r_int(r);
		if (r->failed || v[i].index <= 0 ||
		    v[i].index >= PVMI_MAX_HOSTS) {
			free_rows(v, i + 1);
			free(added);
			return -1;
		}
		self |= v[i].index == pvmd.index;
	}
	if (!self) {
		pvmd_log("the master's host table no longer has us: halting");
		free_rows(v, n);
		free(added);
		pvmd_halt(NULL);
		return 0;
	}
	memset(keep, 0, sizeof(keep));
	for (i = 0; i < n; i++) {
		k = v[i].index;
		keep[k / 8] |= (char)(1 << (k % 8));
		if (k == pvmd.index)
			continue;
		if (!pvmd_host_get(k) && k != PVMI_MASTER_INDEX)
			added[nadded++] = PVMI_DAEMON_TID(k);
		pvmd_host_add(k, v[i].name, v[i].arch, v[i].speed, v[i].dsig,
			      v[i].addr, v[i].port);
	}
	for (k = 1; k < PVMI_MAX_HOSTS; k++)
		if (pvmd_host_get(k) && !(keep[k / 8] & (1 << (k % 8))))
			pvmd_host_remove(k, "deleted by the master");
	if (nadded)
		pvmd_notify_hosts_added(added, nadded);
	free_rows(v, n);
	free(added);
	return 0;
}

/* CONFIG: "int nhost, int narch, then per host: int dtid, str name,
 * str arch, int speed, int dsig", in host-index order. */
void pvmd_op_config(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmd_host *h, *g;
	int narch = 0, seen;

	if (!pvmd_body_ok(r)) {
		pvmd_reply_status(c, PVMI_OP_CONFIG, PvmBadMsg);
		return;
	}
	for (h = pvmd_host_next(0); h; h = pvmd_host_next(h->index)) {
		seen = 0;
		for (g = pvmd_host_next(0); g != h;
		     g = pvmd_host_next(g->index))
			seen |= !strcmp(g->arch, h->arch);
		narch += !seen;
	}
	pvmi_w_int(&w, pvmd_host_count());
	pvmi_w_int(&w, narch);
	for (h = pvmd_host_next(0); h; h = pvmd_host_next(h->index)) {
		pvmi_w_int(&w, h->dtid);
		pvmi_w_str(&w, h->name);
		pvmi_w_str(&w, h->arch);
		pvmi_w_int(&w, h->speed);
		pvmi_w_int(&w, h->dsig);
	}
	pvmd_reply(c, PVMI_OP_CONFIG, &w);
}

/* MSTAT: PvmOk for a host of the machine, PvmNoHost for any other name. */
void pvmd_op_mstat(struct pvmd_conn *c, struct pvmi_rbuf *r)
{
	char *host = pvmi_r_str(r);
	int st;

	if (!pvmd_body_ok(r))
		st = PvmBadMsg;
	else
		st = pvmd_host_find(host) ? PvmOk : PvmNoHost;
	free(host);
	pvmd_reply_status(c, PVMI_OP_MSTAT, st);
}

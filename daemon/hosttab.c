/*
 * hosttab.c - the host table of the virtual machine: one entry per host
 * index, with its name, architecture, speed and how this daemon reaches
 * it.
 *
 * Addresses are per daemon: each keeps how *it* reaches a host (the
 * master's entry on a slave holds the address the slave was given at
 * start-up, since the master has one per network).  The table is a leaf
 * that every module reads; a host joining or leaving the machine, and
 * the table's travel between daemons, are hosts.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

static struct pvmd_host *table[PVMI_MAX_HOSTS];
static int nhosts;

/* Frees a host entry taken out of the table (hosts.c). */
void pvmd_host_free(struct pvmd_host *h)
{
	free(h->name);
	free(h->arch);
	free(h);
}

static int set_host(struct pvmd_host *h, const char *name, const char *arch,
		    int speed, int dsig, const char *addr, int port)
{
	char *n = strdup(name ? name : ""), *a = strdup(arch ? arch : "");

	if (!n || !a) {
		free(n);
		free(a);
		return -1;
	}
	free(h->name);
	free(h->arch);
	h->name = n;
	h->arch = a;
	h->speed = speed;
	h->dsig = dsig;
	if (addr && *addr)
		snprintf(h->addr, sizeof(h->addr), "%s", addr);
	if (port > 0)
		h->port = port;
	return 0;
}

/* Enters or updates host `index'; NULL when out of memory. */
struct pvmd_host *pvmd_host_add(int index, const char *name,
				const char *arch, int speed, int dsig,
				const char *addr, int port)
{
	struct pvmd_host *h;

	if (index <= 0 || index >= PVMI_MAX_HOSTS)
		return NULL;
	h = table[index];
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return NULL;
		h->index = index;
		h->dtid = PVMI_DAEMON_TID(index);
	}
	if (set_host(h, name, arch, speed, dsig, addr, port) < 0) {
		if (!table[index])
			free(h);
		return NULL;
	}
	if (!table[index]) {
		table[index] = h;
		nhosts++;
	}
	pvmd_dbg(PVMD_DBG_HTAB, "host %d: %s (%s, %s:%d)", index, h->name,
		 h->arch, h->addr, h->port);
	return h;
}

/* Makes the entry of this host; 0 or -1. */
int pvmd_hosts_init(void)
{
	return pvmd_host_add(pvmd.index, pvmd.hostname, PVMI_ARCH_NAME,
			     pvmd.opts.speed, PVMI_DSIG, pvmd.addr,
			     pvmd.tcp_port) ? 0 : -1;
}

/* The host of index `index', or NULL. */
struct pvmd_host *pvmd_host_get(int index)
{
	if (index <= 0 || index >= PVMI_MAX_HOSTS)
		return NULL;
	return table[index];
}

/* The host `name' designates, or NULL. */
struct pvmd_host *pvmd_host_find(const char *name)
{
	int i;

	if (!name || !*name)
		return NULL;
	if (pvmd_is_self(name))
		return table[pvmd.index];
	for (i = 1; i < PVMI_MAX_HOSTS; i++)
		if (table[i] && pvmd_same_name(table[i]->name, name))
			return table[i];
	return NULL;
}

/* The next host after index `after' (0: the first), or NULL. */
struct pvmd_host *pvmd_host_next(int after)
{
	int i;

	for (i = after + 1; i < PVMI_MAX_HOSTS; i++)
		if (table[i])
			return table[i];
	return NULL;
}

/* Number of hosts in the table. */
int pvmd_host_count(void)
{
	return nhosts;
}

/* True when the table has hosts besides this one. */
int pvmd_hosts_multi(void)
{
	return nhosts > 1;
}

/* Takes host `index' out of the table, without freeing it (hosts.c). */
void pvmd_host_unlink(int index)
{
	table[index] = NULL;
	nhosts--;
}

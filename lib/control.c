/*
 * control.c - calls answered by the daemon: spawning, killing and
 * signalling tasks, the task and host tables, notifications, contexts,
 * clocks, host management and halting the machine.
 *
 * Each function checks its arguments, writes one request (proto.h), and
 * turns the reply into the stock result.  Tables returned to the caller
 * (pvm_tasks, pvm_config) live until the next call of the same function.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "conn.h"
#include "proto.h"
#include "pvmi.h"
#include "options.h"
#include "task.h"

/* Appends the names listed in $PVM_EXPORT (and PVM_EXPORT itself) as
 * "NAME=value" strings; returns how many were written. */
static int write_exports(struct pvmi_wbuf *w, int dry)
{
	const char *list = getenv("PVM_EXPORT");
	char *copy, *tok, *save = NULL;
	int n = 0;

	if (!list || !*list)
		return 0;
	if (!dry) {
		char *s = malloc(strlen(list) + sizeof("PVM_EXPORT="));

		if (s) {
			strcpy(s, "PVM_EXPORT=");
			strcat(s, list);
			pvmi_w_str(w, s);
			free(s);
		}
	}
	n++;
	copy = strdup(list);
	if (!copy)
		return n;
	for (tok = strtok_r(copy, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		const char *v = getenv(tok);
		char *s;

		if (!v || !strcmp(tok, "PVM_EXPORT"))
			continue;
		n++;
		if (dry)
			continue;
		s = malloc(strlen(tok) + strlen(v) + 2);
		if (!s)
			continue;
		sprintf(s, "%s=%s", tok, v);
		pvmi_w_str(w, s);
		free(s);
	}
	free(copy);
	return n;
}

/* Starts `count' copies of `file' with arguments `argv' on the hosts
 * `flag' and `where' select; fills `tids' with their tids or error codes
 * and returns how many started. */
PVMI_EXPORT int pvm_spawn(char *file, char **argv, int flag, char *where,
			  int count, int *tids)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int argc = 0, rc, i;
	int32_t *res;

	if (!file || !*file || count < 1)
		return pvmi_error("pvm_spawn", PvmBadParam);
	while (argv && argv[argc])
		argc++;
	pvmi_w_str(&w, file);
	pvmi_w_int(&w, flag);
	pvmi_w_str(&w, (flag & (PvmTaskHost | PvmTaskArch)) && where ?
			       where : "");
	pvmi_w_int(&w, count);
	pvmi_w_int(&w, argc);
	for (i = 0; i < argc; i++)
		pvmi_w_str(&w, argv[i]);
	pvmi_w_int(&w, write_exports(&w, 1) + pvmi_trace_env(&w, 1));
	write_exports(&w, 0);
	pvmi_trace_env(&w, 0);
	pvmi_w_int(&w, pvmi.ctx);
	pvmi_w_int(&w, pvmi.outtid);
	pvmi_w_int(&w, pvmi.outcode);
	pvmi_w_int(&w, pvmi.outctx);
	pvmi_w_int(&w, pvmi.trctid);
	pvmi_w_int(&w, pvmi.trccode);
	pvmi_w_int(&w, pvmi.trcctx);
	rc = pvmi_request(PVMI_OP_SPAWN, &w, &r);
	if (rc < 0)
		return pvmi_error("pvm_spawn", rc);
	res = malloc(count * sizeof(*res));
	if (!res)
		return pvmi_error("pvm_spawn", PvmNoMem);
	if (pvmi_r_ints(&r, res, count)) {
		free(res);
		return pvmi_error("pvm_spawn", PvmSysErr);
	}
	if (tids)
		for (i = 0; i < count; i++)
			tids[i] = res[i];
	for (i = 0; i < count; i++)
		if (res[i] > 0)
			pvmi_output_expect(res[i]);
	free(res);
	return rc;
}

static int tid_op(const char *fn, int op, int tid, int arg, int has_arg)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc;

	if (tid <= 0)
		return pvmi_error(fn, PvmBadParam);
	pvmi_w_int(&w, tid);
	if (has_arg)
		pvmi_w_int(&w, arg);
	rc = pvmi_request(op, &w, &r);
	/* A task that has gone, was never there or names no host: stock
	 * returns 0 and prints nothing. */
	if (rc == PvmNoTask || rc == PvmNoHost)
		return PvmOk;
	return rc < 0 ? pvmi_error(fn, rc) : PvmOk;
}

/* Terminates task `tid' (SIGTERM through its daemon). */
PVMI_EXPORT int pvm_kill(int tid)
{
	return tid_op("pvm_kill", PVMI_OP_KILL, tid, 0, 0);
}

/* Sends signal `signum' to task `tid'. */
PVMI_EXPORT int pvm_sendsig(int tid, int signum)
{
	if (signum < 0 || signum >= 65)	/* 0 probes, as kill(2) */
		return pvmi_error("pvm_sendsig", PvmBadParam);
	return tid_op("pvm_sendsig", PVMI_OP_SENDSIG, tid, signum, 1);
}

/* PvmOk when task `tid' is alive, else PvmNoTask (no message printed). */
PVMI_EXPORT int pvm_pstat(int tid)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc;

	if (tid <= 0)
		return pvmi_error("pvm_pstat", PvmBadParam);
	pvmi_w_int(&w, tid);
	rc = pvmi_request(PVMI_OP_PSTAT, &w, &r);
	if (rc == PvmNoTask)
		return rc;
	return rc < 0 ? pvmi_error("pvm_pstat", rc) : PvmOk;
}

/* PvmOk when host `host' is in the machine and running, else PvmNoHost
 * or PvmHostFail. */
PVMI_EXPORT int pvm_mstat(char *host)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc;

	if (!host || !*host)
		return pvmi_error("pvm_mstat", PvmBadParam);
	pvmi_w_str(&w, host);
	rc = pvmi_request(PVMI_OP_MSTAT, &w, &r);
	if (rc == PvmNoHost || rc == PvmHostFail)
		return rc;
	return rc < 0 ? pvmi_error("pvm_mstat", rc) : PvmOk;
}

static void free_taskinfo(struct pvmtaskinfo *t, int n)
{
	int i;

	for (i = 0; t && i < n; i++)
		free(t[i].ti_a_out);
	free(t);
}

/* Lists the tasks of the whole machine (where = 0), of one host (a
 * daemon tid) or one task; the table stays valid until the next call. */
PVMI_EXPORT int pvm_tasks(int where, int *ntask, struct pvmtaskinfo **taskp)
{
	static struct pvmtaskinfo *tab;
	static int ntab;
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc, i;

	pvmi_w_int(&w, where);
	rc = pvmi_request(PVMI_OP_TASKS, &w, &r);
	if (rc < 0)
		return pvmi_error("pvm_tasks", rc);
	free_taskinfo(tab, ntab);
	tab = calloc(rc ? rc : 1, sizeof(*tab));
	ntab = 0;
	if (!tab)
		return pvmi_error("pvm_tasks", PvmNoMem);
	for (i = 0; i < rc; i++) {
		tab[i].ti_tid = pvmi_r_int(&r);
		tab[i].ti_ptid = pvmi_r_int(&r);
		tab[i].ti_host = pvmi_r_int(&r);
		tab[i].ti_flag = pvmi_r_int(&r);
		tab[i].ti_pid = pvmi_r_int(&r);
		tab[i].ti_a_out = pvmi_r_str(&r);
		if (r.failed)
			break;
		ntab++;
	}
	if (r.failed)
		return pvmi_error("pvm_tasks", PvmSysErr);
	if (ntask)
		*ntask = ntab;
	if (taskp)
		*taskp = tab;
	return PvmOk;
}

/* Describes the hosts of the machine; the table stays valid until the
 * next call. */
PVMI_EXPORT int pvm_config(int *nhost, int *narch, struct pvmhostinfo **hostp)
{
	static struct pvmhostinfo *tab;
	static int ntab;
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc, i, na;

	rc = pvmi_request(PVMI_OP_CONFIG, &w, &r);
	if (rc < 0)
		return pvmi_error("pvm_config", rc);
	na = pvmi_r_int(&r);
	for (i = 0; tab && i < ntab; i++) {
		free(tab[i].hi_name);
		free(tab[i].hi_arch);
	}
	free(tab);
	ntab = 0;
	tab = calloc(rc ? rc : 1, sizeof(*tab));
	if (!tab)
		return pvmi_error("pvm_config", PvmNoMem);
	for (i = 0; i < rc && !r.failed; i++) {
		tab[i].hi_tid = pvmi_r_int(&r);
		tab[i].hi_name = pvmi_r_str(&r);
		tab[i].hi_arch = pvmi_r_str(&r);
		tab[i].hi_speed = pvmi_r_int(&r);
		tab[i].hi_dsig = pvmi_r_int(&r);
		ntab++;
	}
	if (r.failed)
		return pvmi_error("pvm_config", PvmSysErr);
	if (nhost)
		*nhost = ntab;
	if (narch)
		*narch = na;
	if (hostp)
		*hostp = tab;
	return PvmOk;
}

/* Asks for a message with `msgtag' when an event `what' happens: one of
 * the `cnt' tasks in `tids' exits (PvmTaskExit), a host is deleted
 * (PvmHostDelete) or `cnt' hosts are added (PvmHostAdd, -1 = always). */
PVMI_EXPORT int pvm_notify(int what, int msgtag, int cnt, int *tids)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int kind = what & ~PvmNotifyCancel, rc, i, n;

	if (kind < PvmTaskExit || kind > PvmRouteDelete || msgtag < 0 ||
	    (what & ~(PvmNotifyCancel | 7)))
		return pvmi_error("pvm_notify", PvmBadParam);
	n = (kind == PvmTaskExit || kind == PvmHostDelete) ? cnt : 0;
	/* as stock: a list of tids must hold at least one, and a task exit
	 * cannot be asked of a daemon */
	if ((n < 1 && (kind == PvmTaskExit || kind == PvmHostDelete)) ||
	    (!tids && n > 0))
		return pvmi_error("pvm_notify", PvmBadParam);
	for (i = 0; i < n; i++)
		if (tids[i] <= 0 ||
		    (kind == PvmTaskExit && !PVMI_TID_LOCAL(tids[i])))
			return pvmi_error("pvm_notify", PvmBadParam);
	pvmi_w_int(&w, what);
	pvmi_w_int(&w, msgtag);
	pvmi_w_int(&w, pvmi.ctx);
	pvmi_w_int(&w, kind == PvmHostAdd ? cnt : n);
	if (n > 0)
		pvmi_w_ints(&w, (const int32_t *)tids, n);
	rc = pvmi_request(PVMI_OP_NOTIFY, &w, &r);
	return rc < 0 ? pvmi_error("pvm_notify", rc) : PvmOk;
}

/* Returns a context number no other task is using. */
PVMI_EXPORT int pvm_newcontext(void)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc = pvmi_request(PVMI_OP_NEWCTX, &w, &r);

	return rc < 0 ? pvmi_error("pvm_newcontext", rc) : rc;
}

/* Gives context `ctx' back; PvmNotFound (as stock) if it is not an
 * allocated context. */
PVMI_EXPORT int pvm_freecontext(int ctx)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc;

	pvmi_w_int(&w, ctx);
	rc = pvmi_request(PVMI_OP_FREECTX, &w, &r);
	return rc < 0 ? pvmi_error("pvm_freecontext", rc) : PvmOk;
}

/* Stops every task and daemon of the machine.  The caller is left
 * unenrolled. */
PVMI_EXPORT int pvm_halt(void)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc = pvmi_request(PVMI_OP_HALT, &w, &r);

	if (rc < 0)
		return pvmi_error("pvm_halt", rc);
	pvmi_detach(0);
	return PvmOk;
}

/* Returns the daemon tid of the host that `tid' runs on. */
PVMI_EXPORT int pvm_tidtohost(int tid)
{
	if (tid <= 0 || PVMI_TID_HOST(tid) == 0)
		return pvmi_error("pvm_tidtohost", PvmBadParam);
	return PVMI_TID_HOST(tid);
}

/* The name stock's error lines give pvm_hostsync. */
#define HOSTSYNC_FN	"pvm_host_sync"

/* Reads the clock of host `host' (a pvmd tid, or any tid of that host)
 * into *clk and its difference from ours into *delta. */
PVMI_EXPORT int pvm_hostsync(int host, struct timeval *clk,
			     struct timeval *delta)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	struct timeval before, after, remote;
	long us;
	int rc;

	/* a task's tid names its host, as in stock */
	if (host > 0 && PVMI_TID_LOCAL(host))
		host = PVMI_TID_HOST(host);
	pvmi_w_int(&w, host);
	gettimeofday(&before, NULL);
	rc = pvmi_request(PVMI_OP_HOSTSYNC, &w, &r);
	gettimeofday(&after, NULL);
	if (rc < 0)
		return pvmi_error(HOSTSYNC_FN, rc);
	remote.tv_sec = pvmi_r_int(&r);
	remote.tv_usec = pvmi_r_int(&r);
	if (r.failed)
		return pvmi_error(HOSTSYNC_FN, PvmSysErr);
	if (clk)
		*clk = remote;
	if (delta) {
		/* Compare with the middle of the round trip. */
		us = (after.tv_sec - before.tv_sec) * 1000000L +
		     (after.tv_usec - before.tv_usec);
		us = (remote.tv_sec - before.tv_sec) * 1000000L +
		     (remote.tv_usec - before.tv_usec) - us / 2;
		delta->tv_sec = us / 1000000L;
		delta->tv_usec = us % 1000000L;
		if (delta->tv_usec < 0) {
			delta->tv_sec--;
			delta->tv_usec += 1000000L;
		}
	}
	return PvmOk;
}

static int hosts_op(const char *fn, int op, char **names, int count,
		    int *infos)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int32_t *res;
	int rc, i;

	if (count < 1 || !names)
		return pvmi_error(fn, PvmBadParam);
	pvmi_w_int(&w, count);
	for (i = 0; i < count; i++)
		pvmi_w_str(&w, names[i]);
	rc = pvmi_request(op, &w, &r);
	if (rc < 0)
		return pvmi_error(fn, rc);
	res = malloc(count * sizeof(*res));
	if (!res)
		return pvmi_error(fn, PvmNoMem);
	if (pvmi_r_ints(&r, res, count)) {
		free(res);
		return pvmi_error(fn, PvmSysErr);
	}
	for (i = 0; infos && i < count; i++)
		infos[i] = res[i];
	free(res);
	return rc;
}

/* Adds the `count' hosts in `names' to the machine; per-host results go
 * to `infos'.  Returns how many were added. */
PVMI_EXPORT int pvm_addhosts(char **names, int count, int *infos)
{
	return hosts_op("pvm_addhosts", PVMI_OP_ADDHOSTS, names, count, infos);
}

/* Removes the `count' hosts in `names'; per-host results go to `infos'.
 * Returns how many were removed. */
PVMI_EXPORT int pvm_delhosts(char **names, int count, int *infos)
{
	return hosts_op("pvm_delhosts", PVMI_OP_DELHOSTS, names, count, infos);
}

/*
 * options.c - per-task settings: pvm_setopt/pvm_getopt, contexts, trace
 * masks, the export list, and small queries (version, arch code, fds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/compat.h"
#include "conn.h"
#include "proto.h"
#include "pvmi.h"
#include "recv.h"
#include "options.h"
#include "pollset.h"
#include "task.h"
#include "wait.h"


#define TMASK_LEN	36	/* stock TEV_MASK_LENGTH */
#define TMASK_CLEAR	'@'	/* stock's character for "no event" */

static char tmask_self[TMASK_LEN];
static char tmask_child[TMASK_LEN];
/* PvmTraceBuffer, PvmTraceOptions and their Self variants: kept, read
 * back and passed to children as stock does; copvm traces nothing. */
static int trcbuf, trcopt, selftrcbuf, selftrcopt;

/* Sets `mask' to `text' as far as it goes, the rest cleared. */
static void tmask_set(char *mask, const char *text)
{
	memset(mask, TMASK_CLEAR, TMASK_LEN - 1);
	mask[TMASK_LEN - 1] = '\0';
	if (text)
		memcpy(mask, text, strnlen(text, TMASK_LEN - 1));
}

/* Once per process: cleared masks, or what the spawning task passed in
 * PVMTMASK, PVMTRCBUF and PVMTRCOPT (its settings for children, which
 * become both this task's own and its children's, as in stock). */
static void trace_inherit(void)
{
	static int done;
	const char *v;

	if (done)
		return;
	done = 1;
	v = getenv("PVMTMASK");
	tmask_set(tmask_self, v);
	tmask_set(tmask_child, v);
	v = getenv("PVMTRCBUF");
	trcbuf = selftrcbuf = v ? atoi(v) : 0;
	v = getenv("PVMTRCOPT");
	trcopt = selftrcopt = v ? atoi(v) : 0;
}

/* Writes the trace settings children inherit, "PVMTMASK=..." and so on,
 * into `w' (nothing when `dry'); returns how many strings that is. */
int pvmi_trace_env(struct pvmi_wbuf *w, int dry)
{
	char s[TMASK_LEN + 32];

	if (dry)
		return 3;
	trace_inherit();
	snprintf(s, sizeof(s), "PVMTMASK=%s", tmask_child);
	pvmi_w_str(w, s);
	snprintf(s, sizeof(s), "PVMTRCBUF=%d", trcbuf);
	pvmi_w_str(w, s);
	snprintf(s, sizeof(s), "PVMTRCOPT=%d", trcopt);
	pvmi_w_str(w, s);
	return 3;
}

/* Enters the caller in (or removes it from) the mailbox class that a
 * console's reset spares, as stock does for PvmNoReset. */
static void set_noreset(int on)
{
	int b, old, tid;

	if (pvmi_attach() != PvmOk)
		return;
	if (on && pvmnoresetindex < 0) {
		tid = pvmi.mytid;
		b = pvm_mkbuf(PvmDataDefault);
		old = pvm_setsbuf(b);
		pvm_pkint(&tid, 1, 1);
		pvm_setsbuf(old);
		pvmnoresetindex = pvm_putinfo(PVMNORESETCLASS, b,
					      PvmMboxMultiInstance);
		pvm_freebuf(b);
	} else if (!on && pvmnoresetindex >= 0) {
		pvm_delinfo(PVMNORESETCLASS, pvmnoresetindex, 0);
		pvmnoresetindex = -1;
	}
}

/* Stock's limits on PvmFragSize: 52 bytes to 1 MiB. */
#define PVMI_FRAG_MIN	52
#define PVMI_FRAG_MAX	(1 << 20)

/* Whether `what' names an option pvm_getopt knows. */
static int option_known(int what)
{
	return what >= PvmRoute && what <= PvmNoReset;
}

/* Returns the value of option `what' (PvmRoute, PvmAutoErr, ...). */
PVMI_EXPORT int pvm_getopt(int what)
{
	switch (what) {
	case PvmRoute:		return pvmi.route;
	case PvmDebugMask:	return pvmi.debugmask;
	case PvmAutoErr:	return pvmi.autoerr;
	case PvmOutputTid:	return pvmi.outtid;
	case PvmOutputCode:	return pvmi.outcode;
	case PvmOutputContext:	return pvmi.outctx;
	case PvmTraceTid:	return pvmi.trctid;
	case PvmTraceCode:	return pvmi.trccode;
	case PvmTraceContext:	return pvmi.trcctx;
	case PvmTraceBuffer:	trace_inherit(); return trcbuf;
	case PvmTraceOptions:	trace_inherit(); return trcopt;
	case PvmFragSize:	return pvmi.fragsize;
	case PvmResvTids:	return pvmi.resvtids;
	case PvmSelfOutputTid:	return pvmi.selfouttid;
	case PvmSelfOutputCode:	return pvmi.selfoutcode;
	case PvmSelfOutputContext: return pvmi.selfoutctx;
	case PvmSelfTraceTid:	return pvmi.selftrctid;
	case PvmSelfTraceCode:	return pvmi.selftrccode;
	case PvmSelfTraceContext: return pvmi.selftrcctx;
	case PvmSelfTraceBuffer: trace_inherit(); return selftrcbuf;
	case PvmSelfTraceOptions: trace_inherit(); return selftrcopt;
	case PvmShowTids:	return pvmi.showtids;
	case PvmPollType:	return pvmi.polltype;
	case PvmPollTime:	return pvmi.polltime;
	case PvmNoReset:	return pvmi.noreset;
	default:
		return pvmi_error("pvm_getopt", PvmBadParam);
	}
}

/* Sets option `what' to `val'; returns the previous value, which may be
 * negative (PvmAutoErr -1), or PvmBadParam for a bad option or value. */
PVMI_EXPORT int pvm_setopt(int what, int val)
{
	int old;
	int *slot = NULL;

	if (!option_known(what))
		return pvmi_error("pvm_setopt", PvmBadParam);
	old = pvm_getopt(what);
	switch (what) {
	case PvmRoute:
		if (val < PvmDontRoute || val > PvmRouteDirect)
			return pvmi_error("pvm_setopt", PvmBadParam);
		slot = &pvmi.route;
		break;
	case PvmDebugMask:	slot = &pvmi.debugmask; break;
	case PvmAutoErr:	slot = &pvmi.autoerr; break;
	case PvmOutputTid:	slot = &pvmi.outtid; break;
	case PvmOutputCode:	slot = &pvmi.outcode; break;
	case PvmOutputContext:	slot = &pvmi.outctx; break;
	case PvmTraceTid:	slot = &pvmi.trctid; break;
	case PvmTraceCode:	slot = &pvmi.trccode; break;
	case PvmTraceContext:	slot = &pvmi.trcctx; break;
	case PvmFragSize:
		if (val < PVMI_FRAG_MIN || val > PVMI_FRAG_MAX)
			return pvmi_error("pvm_setopt", PvmBadParam);
		slot = &pvmi.fragsize;
		break;
	case PvmResvTids:	slot = &pvmi.resvtids; break;
	case PvmSelfOutputTid:	slot = &pvmi.selfouttid; break;
	case PvmSelfOutputCode:	slot = &pvmi.selfoutcode; break;
	case PvmSelfOutputContext: slot = &pvmi.selfoutctx; break;
	case PvmSelfTraceTid:	slot = &pvmi.selftrctid; break;
	case PvmSelfTraceCode:	slot = &pvmi.selftrccode; break;
	case PvmSelfTraceContext: slot = &pvmi.selftrcctx; break;
	case PvmShowTids:	slot = &pvmi.showtids; break;
	case PvmPollType:
		if (val != PvmPollConstant && val != PvmPollSleep)
			return pvmi_error("pvm_setopt", PvmBadParam);
		slot = &pvmi.polltype;
		break;
	case PvmPollTime:
		if (val < 0)
			return pvmi_error("pvm_setopt", PvmBadParam);
		/* The spin budget of a receive, in microseconds. */
		pvmi_set_spin_ns((long)val * 1000L);
		slot = &pvmi.polltime;
		break;
	case PvmNoReset:
		slot = &pvmi.noreset;
		set_noreset(val);
		break;
	/* kept and inherited; tracing itself is not implemented */
	case PvmTraceBuffer:	slot = &trcbuf; break;
	case PvmTraceOptions:	slot = &trcopt; break;
	case PvmSelfTraceBuffer: slot = &selftrcbuf; break;
	case PvmSelfTraceOptions: slot = &selftrcopt; break;
	default:
		return pvmi_error("pvm_setopt", PvmBadParam);
	}
	*slot = val;
	pvmi_compat_sync();
	return old;
}

/* Returns the caller's current message context. */
PVMI_EXPORT int pvm_getcontext(void)
{
	pvmi_attach();
	return pvmi.ctx;
}

/* Makes `ctx' the current context; returns the previous one.  Any value
 * is taken, negative ones included, as stock does. */
PVMI_EXPORT int pvm_setcontext(int ctx)
{
	int old;

	pvmi_attach();
	old = pvmi.ctx;
	pvmi.ctx = ctx;
	pvmi_compat_sync();
	return old;
}

/* Sets the trace mask of the caller (PvmTaskSelf) or of the tasks it
 * spawns (PvmTaskChild).  Masks are kept and inherited; tracing is not
 * implemented. */
PVMI_EXPORT int pvm_settmask(int who, char *mask)
{
	char *dst = who == PvmTaskSelf ? tmask_self :
		    who == PvmTaskChild ? tmask_child : NULL;

	if (!dst || !mask)
		return pvmi_error("pvm_settmask", PvmBadParam);
	trace_inherit();
	tmask_set(dst, mask);
	return PvmOk;
}

/* Copies the trace mask of `who' into `mask' (TMASK_LEN bytes); a mask
 * with no event set is 35 '@' characters, as in stock. */
PVMI_EXPORT int pvm_gettmask(int who, char *mask)
{
	const char *src = who == PvmTaskSelf ? tmask_self :
			  who == PvmTaskChild ? tmask_child : NULL;

	if (!src || !mask)
		return pvmi_error("pvm_gettmask", PvmBadParam);
	trace_inherit();
	memcpy(mask, src, TMASK_LEN);
	return PvmOk;
}

/* Where element `name' starts in the colon-separated list `list', or
 * NULL.  Empty elements are elements too; a name holding a colon is
 * never one. */
static char *find_element(char *list, const char *name)
{
	size_t n = strlen(name);
	char *p = list;

	if (strchr(name, ':'))
		return NULL;
	for (;;) {
		if (!strncmp(p, name, n) && (p[n] == ':' || p[n] == '\0'))
			return p;
		p = strchr(p, ':');
		if (!p)
			return NULL;
		p++;
	}
}

/* Adds `name' to PVM_EXPORT as stock does: nothing for "" or a name
 * already listed, else appended after a colon; the list is otherwise
 * kept as it is, empty elements included. */
static int export_add(const char *name)
{
	char *cur = getenv("PVM_EXPORT"), *out;
	int rc;

	if (!*name || (cur && find_element(cur, name)))
		return PvmOk;
	if (!cur || !*cur)
		return setenv("PVM_EXPORT", name, 1) ? PvmNoMem : PvmOk;
	if (asprintf(&out, "%s:%s", cur, name) < 0)
		return PvmNoMem;
	rc = setenv("PVM_EXPORT", out, 1) ? PvmNoMem : PvmOk;
	free(out);
	return rc;
}

/* Removes the first element `name' of PVM_EXPORT with the colon after it
 * (before it, for the last element), as stock does; nothing else in the
 * list changes. */
static int export_remove(const char *name)
{
	char *cur = getenv("PVM_EXPORT"), *copy, *at, *end;
	int rc;

	if (!*name || !cur)
		return PvmOk;
	copy = strdup(cur);
	if (!copy)
		return PvmNoMem;
	at = find_element(copy, name);
	if (!at) {
		free(copy);
		return PvmOk;
	}
	end = at + strlen(name);
	if (*end == ':')
		end++;
	else if (at > copy)
		at--;
	memmove(at, end, strlen(end) + 1);
	rc = setenv("PVM_EXPORT", copy, 1) ? PvmNoMem : PvmOk;
	free(copy);
	return rc;
}

/* Adds environment variable `name' to those passed to spawned tasks
 * (PVM_EXPORT); "" is accepted and changes nothing. */
PVMI_EXPORT int pvm_export(char *name)
{
	int rc = name ? export_add(name) : PvmBadParam;

	return rc < 0 ? pvmi_error("pvm_export", rc) : PvmOk;
}

/* Removes `name' from the variables passed to spawned tasks. */
PVMI_EXPORT int pvm_unexport(char *name)
{
	int rc = name ? export_remove(name) : PvmBadParam;

	return rc < 0 ? pvmi_error("pvm_unexport", rc) : PvmOk;
}

/* Returns the version string of the PVM interface, "3.4.6". */
PVMI_EXPORT char *pvm_version(void)
{
	return PVM_VER;
}

/* Returns the data format code of architecture `arch' (equal codes can
 * exchange raw data), or PvmNotFound for an unknown name. */
PVMI_EXPORT int pvm_archcode(char *arch)
{
	if (!arch)
		return pvmi_error("pvm_archcode", PvmBadParam);
	if (!strcmp(arch, PVMI_ARCH_NAME))
		return PVMI_DSIG;
	return pvmi_error("pvm_archcode", PvmNotFound);
}

/* pvm_getfds' list, kept until its next call: first the epoll set that
 * is readable whenever the pump has input to take (pollset.h), then the
 * fd of each established circuit of another task. */
static struct {
	int *fd;
	int n, cap;
	int short_of_memory;
} fdlist;

/* Appends `fd' to fdlist; marks it short when out of memory. */
static void fdlist_add(int fd)
{
	int *na, cap;

	if (fdlist.n == fdlist.cap) {
		cap = fdlist.cap ? 2 * fdlist.cap : 16;
		na = realloc(fdlist.fd, cap * sizeof(*na));
		if (!na) {
			fdlist.short_of_memory = 1;
			return;
		}
		fdlist.fd = na;
		fdlist.cap = cap;
	}
	fdlist.fd[fdlist.n++] = fd;
}

/* Adds the fd of link `l' to fdlist when it brings another task's input
 * on an established circuit. */
static void add_circuit_fd(struct link *l, void *unused)
{
	(void)unused;
	if ((l->role == LINK_IN || l->role == LINK_BOTH) && !l->connecting &&
	    !l->gate && !l->dead && l->pipe.fd >= 0)
		fdlist_add(l->pipe.fd);
}

/* Points *fds at one descriptor readable whenever input waits, then
 * one per direct route; returns their count, as stock does. */
PVMI_EXPORT int pvm_getfds(int **fds)
{
	int rc = pvmi_attach();

	if (rc != PvmOk)
		return pvmi_error("pvm_getfds", rc);
	if (!pvmi_link_find(LINK_DAEMON, 0))	/* the daemon has gone */
		return pvmi_error("pvm_getfds", PvmSysErr);
	if (pvmi_pollset_open() < 0 || pvmi_conn_pollset_update() < 0)
		return pvmi_error("pvm_getfds", PvmSysErr); /* out of fds */
	fdlist.n = 0;
	fdlist.short_of_memory = 0;
	fdlist_add(pvmi_pollset_fd());
	pvmi_link_each(add_circuit_fd, NULL);
	if (fdlist.short_of_memory)
		return pvmi_error("pvm_getfds", PvmNoMem);
	*fds = fdlist.fd;
	return fdlist.n;
}

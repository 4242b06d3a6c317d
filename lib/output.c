/*
 * output.c - pvm_catchout: copying the output of spawned tasks to a
 * stream of the parent.
 *
 * pvmd captures each spawned task's stdout and stderr and sends it, as
 * messages in a context reserved for the library, to the task named by
 * PvmOutputTid at spawn time.  Here those messages are taken off the
 * receive queue as they arrive and written out whole lines at a time,
 * framed by "[t<tid>] BEGIN" and "[t<tid>] EOF" lines (the man page says
 * END; stock prints EOF, and so do we) and each prefixed
 * "[t<tid>] " when PvmShowTids is on, as pvm_catchout(3PVM) describes.
 * pvm_exit waits until every task whose output we catch (children we
 * spawned, and grandchildren that report to us) has ended its output,
 * or its host has left the machine (its end can never come then: a
 * HostDelete notify in the library's context says so, asked for once
 * per host of a child; grandchildren's hosts are not watched).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "codec.h"
#include "msg.h"
#include "proto.h"
#include "pvmi.h"
#include "recv.h"
#include "task.h"
#include "task_hooks.h"
#include "conn.h"
#include "daemon_link.h"

/* Output state of one task whose output comes to us. */
struct partial {
	int tid;
	int open;		/* spawned or begun, EOF not yet seen */
	int closed;		/* EOF seen (it may come before the spawn
				 * reply is processed) */
	char *buf;		/* the unfinished last line */
	size_t len;
};

static FILE *catch_file;
static struct partial *parts;
static int nparts;
static int32_t *watched;	/* hosts whose HostDelete we asked for */
static int nwatched;

static void host_gone(int dtid);

static struct partial *partial_for(int tid)
{
	struct partial *n;
	int i;

	for (i = 0; i < nparts; i++)
		if (parts[i].tid == tid)
			return &parts[i];
	n = realloc(parts, (nparts + 1) * sizeof(*n));
	if (!n)
		return NULL;
	parts = n;
	parts[nparts].tid = tid;
	parts[nparts].open = 0;
	parts[nparts].closed = 0;
	parts[nparts].buf = NULL;
	parts[nparts].len = 0;
	return &parts[nparts++];
}

static void emit(int tid, const char *s, size_t n)
{
	if (!catch_file)
		return;
	if (pvmi.showtids)
		fprintf(catch_file, "[t%x] ", tid);
	fwrite(s, 1, n, catch_file);
	fputc('\n', catch_file);
}

static void begin_output(int tid)
{
	struct partial *p = partial_for(tid);

	if (p && !p->closed)
		p->open = 1;
	if (catch_file && pvmi.showtids) {
		fprintf(catch_file, "[t%x] BEGIN\n", tid);
		fflush(catch_file);
	}
}

/* Appends `n' bytes of tid's output, writing out each complete line. */
static void add_output(int tid, const char *data, size_t n)
{
	struct partial *p = partial_for(tid);
	char *nb;
	size_t start = 0, i;

	if (!p)
		return;
	nb = realloc(p->buf, p->len + n + 1);
	if (!nb)
		return;
	p->buf = nb;
	memcpy(p->buf + p->len, data, n);
	p->len += n;
	for (i = 0; i < p->len; i++) {
		if (p->buf[i] == '\n') {
			emit(tid, p->buf + start, i - start);
			start = i + 1;
		}
	}
	memmove(p->buf, p->buf + start, p->len - start);
	p->len -= start;
	if (catch_file)
		fflush(catch_file);
}

static void end_output(int tid)
{
	struct partial *p = partial_for(tid);

	if (p && p->len) {
		emit(tid, p->buf, p->len);
		p->len = 0;
	}
	if (p) {
		p->open = 0;
		p->closed = 1;
	}
	if (catch_file) {
		if (pvmi.showtids)
			fprintf(catch_file, "[t%x] EOF\n", tid);
		fflush(catch_file);
	}
}

int pvmi_output_take(struct pvmi_msg *m)
{
	struct pvmi_rbuf r;
	unsigned char *body;
	size_t len;
	int tid, n;

	if (m->ctx != PVMI_SYS_CTX ||
	    (m->tag != PVMI_TAG_OUTPUT && m->tag != PVMI_TAG_HOSTGONE))
		return 0;
	body = pvmi_msg_flatten(m, &len);
	if (body && m->tag == PVMI_TAG_HOSTGONE) {
		pvmi_r_init(&r, body, len);
		tid = pvmi_r_int(&r);
		if (!r.failed)
			host_gone(tid);
		pvmi_buf_free(body);
		pvmi_msg_free(m);
		return 1;
	}
	if (body) {
		pvmi_r_init(&r, body, len);
		tid = pvmi_r_int(&r);
		n = pvmi_r_int(&r);
		if (!r.failed) {
			if (n > 0) {
				size_t blen;
				const char *b = pvmi_r_bytes(&r, &blen);

				if (b)
					add_output(tid, b, blen);
			} else if (n == 0) {
				end_output(tid);
			} else if (n == -1) {
				begin_output(tid);
			}
		}
		pvmi_buf_free(body);
	}
	pvmi_msg_free(m);
	return 1;
}

/*
 * Asks our daemon, once per host, for a HostDelete notify of host `dtid'
 * in the library's context: when a host goes, the EOF of its tasks'
 * output can never come, and pvm_exit must not wait for it.
 */
static void watch_host(int dtid)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int32_t *n, t = dtid;
	int i;

	if (dtid == PVMI_TID_HOST(pvmi.mytid))
		return;			/* ours goes with us */
	for (i = 0; i < nwatched; i++)
		if (watched[i] == dtid)
			return;
	n = realloc(watched, (nwatched + 1) * sizeof(*n));
	if (!n)
		return;
	watched = n;
	watched[nwatched++] = dtid;
	pvmi_w_int(&w, PvmHostDelete);
	pvmi_w_int(&w, PVMI_TAG_HOSTGONE);
	pvmi_w_int(&w, PVMI_SYS_CTX);
	pvmi_w_int(&w, 1);
	pvmi_w_ints(&w, &t, 1);
	(void)pvmi_request(PVMI_OP_NOTIFY, &w, &r);
}

/* Host `dtid' left the machine: ends the output of its tasks. */
static void host_gone(int dtid)
{
	int i;

	for (i = 0; i < nwatched; i++)
		if (watched[i] == dtid)
			watched[i] = watched[--nwatched];
	for (i = 0; i < nparts; i++)
		if (parts[i].open && PVMI_TID_HOST(parts[i].tid) == dtid)
			end_output(parts[i].tid);
}

void pvmi_output_expect(int tid)
{
	struct partial *p;

	if (catch_file && pvmi.outtid == pvmi.mytid &&
	    pvmi.outctx == PVMI_SYS_CTX && (p = partial_for(tid)) &&
	    !p->closed) {
		p->open = 1;
		watch_host(PVMI_TID_HOST(tid));
	}
}

static int any_open(void)
{
	int i;

	for (i = 0; i < nparts; i++)
		if (parts[i].open)
			return 1;
	return 0;
}

/* At pvm_exit: waits until the output of children caught with
 * pvm_catchout has ended, then forgets it. */
static void output_drain(void)
{
	int i;

	while (catch_file && any_open() && pvmi_conn_daemon_up())
		if (pvmi_pump(-1) == PvmSysErr)
			break;
	for (i = 0; i < nparts; i++)
		free(parts[i].buf);
	free(parts);
	parts = NULL;
	nparts = 0;
	free(watched);
	watched = NULL;
	nwatched = 0;
}

/* Sends the output of tasks the caller spawns from now on to `ff' (NULL:
 * back to the daemon's log).  Returns PvmOk. */
PVMI_EXPORT int pvm_catchout(FILE *ff)
{
	int rc = pvmi_attach();

	if (rc != PvmOk)
		return pvmi_error("pvm_catchout", rc);
	catch_file = ff;
	if (ff) {
		pvmi.outtid = pvmi.mytid;
		pvmi.outcode = PVMI_TAG_OUTPUT;
		pvmi.outctx = PVMI_SYS_CTX;
	} else if (pvmi.outctx == PVMI_SYS_CTX) {
		pvmi.outtid = 0;
		pvmi.outcode = 0;
		pvmi.outctx = 0;
	}
	return PvmOk;
}

/* Drains caught output when the task exits (task_hooks.h). */
__attribute__((constructor)) static void output_hooks(void)
{
	pvmi_task_hook(PVMI_TASK_EXITING, output_drain);
}

/*
 * output.c - forwarding spawned tasks' stdout and stderr.
 *
 * Every spawned task writes both streams into one pipe the daemon reads.
 * When the spawner set an output tid (PvmOutputTid), what is read goes to
 * that task as PVMI_KIND_USER messages with the output code and context,
 * in stock PVM's format (proto.h): "tid, -2, ptid" (spawned) and then
 * "tid, -1, ptid" (started) when the task starts,
 * "tid, n, bytes[n]" for each read, "tid, 0" at end of file.  With no
 * output tid, or once that task is gone, the output goes to the log line
 * by line behind "[t<tid>] ".
 *
 * The output tid may be a task of another host: the messages then go
 * through its daemon, and the link to that daemon is what may be full.
 * Nothing is read from a stream before pvmd_output_announce(), so that
 * the "task started" message comes first, after the spawn's answer.
 *
 * A stream outlives its task's table entry (a task may call pvm_exit and
 * keep printing).  When the destination connection has more than
 * PVMD_OQ_HIGH bytes queued, the stream leaves the epoll set; the task
 * then blocks on its own full pipe, and no one else waits.  It comes back
 * through pvmd_output_kick() once the destination drains or goes away.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "pvmd.h"

#define OUT_READ	65536
#define OUT_LINE	4096

struct ostream {
	struct pvmd_watch w;
	struct ostream *next;
	int tid, ptid;
	int outtid, outcode, outctx;
	int paused;			/* out of the epoll set */
	int announced;			/* may be read */
	size_t linelen;			/* partial line kept for the log */
	char line[OUT_LINE];
};

static struct ostream *streams;

static struct ostream *stream_of(struct pvmd_watch *w)
{
	return (struct ostream *)((char *)w - offsetof(struct ostream, w));
}

/* Whether output of `s' can go to its output tid (else to the log); in
 * *via the connection it goes through, if any is up. */
static int dest_ok(const struct ostream *s, struct pvmd_conn **via)
{
	struct pvmd_task *t;
	int index = PVMI_TID_INDEX(s->outtid);

	*via = NULL;
	if (s->outtid <= 0)
		return 0;
	if (index != pvmd.index) {
		if (!pvmd_host_get(index))
			return 0;
		*via = pvmd_peer_link(index);
		return 1;
	}
	t = pvmd_task_find(s->outtid);
	if (!t || !t->conn || t->conn->dead)
		return 0;
	*via = t->conn;
	return 1;
}

/* Sends "tid, a[, ptid]" or "tid, n, bytes" to the destination. */
static int send_out(struct ostream *s, int n, const void *buf, int with_ptid)
{
	struct pvmi_wbuf w = { 0 };
	int rc;

	pvmi_w_int(&w, s->tid);
	pvmi_w_int(&w, n);
	if (with_ptid)
		pvmi_w_int(&w, s->ptid);
	else if (n > 0)
		pvmi_w_bytes(&w, buf, (size_t)n);
	rc = pvmd_send_user(s->outtid, s->outcode, s->outctx, &w);
	pvmi_w_free(&w);
	return rc;
}

/* Writes complete lines to the log and keeps the last partial one. */
static void to_log(struct ostream *s, const char *buf, size_t n)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(buf, '\n', n);
		k = nl ? (size_t)(nl - buf) + 1 : n;
		if (s->linelen + k > sizeof(s->line)) {
			/* a line longer than the buffer: flush what we have */
			pvmd_log_lines(s->tid, s->line, s->linelen);
			s->linelen = 0;
			if (k > sizeof(s->line)) {
				pvmd_log_lines(s->tid, buf, k);
				buf += k;
				n -= k;
				continue;
			}
		}
		memcpy(s->line + s->linelen, buf, k);
		s->linelen += k;
		if (nl) {
			pvmd_log_lines(s->tid, s->line, s->linelen);
			s->linelen = 0;
		}
		buf += k;
		n -= k;
	}
}

static void stream_free(struct ostream *s)
{
	struct ostream **pp;

	for (pp = &streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	if (!s->paused && s->announced)
		pvmd_watch_del(&s->w);
	close(s->w.fd);
	free(s);
}

static void stream_eof(struct ostream *s)
{
	if (s->linelen)
		pvmd_log_lines(s->tid, s->line, s->linelen);
	if (s->outtid > 0)
		send_out(s, 0, NULL, 0);
	pvmd_dbg(PVMD_DBG_TASK, "t%x: end of output", (unsigned)s->tid);
	stream_free(s);
}

static void on_output(struct pvmd_watch *w, uint32_t events)
{
	struct ostream *s = stream_of(w);
	struct pvmd_conn *dc;
	char buf[OUT_READ];
	ssize_t n;

	do
		n = read(s->w.fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		stream_eof(s);
		return;
	}
	if (!dest_ok(s, &dc) || send_out(s, (int)n, buf, 0) < 0) {
		to_log(s, buf, (size_t)n);
		return;
	}
	if (dc && dc->oq_bytes > PVMD_OQ_HIGH) {
		pvmd_watch_del(&s->w);
		s->paused = 1;
	}
}

/* Starts forwarding a child's output pipe `fd' (taken over on success).
 * Nothing is read or sent before pvmd_output_announce(). */
int pvmd_output_start(int fd, int tid, int ptid, int outtid, int outcode,
		      int outctx)
{
	struct ostream *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	s->w.fd = fd;
	s->w.on_event = on_output;
	s->tid = tid;
	s->ptid = ptid;
	s->outtid = outtid;
	s->outcode = outcode;
	s->outctx = outctx;
	s->next = streams;
	streams = s;
	return 0;
}

/* Sends the "task spawned" and "task started" records of `tid' to its
 * output tid, if any, and starts reading its output; called once the
 * spawner has its reply, so that comes first.  Announcing twice does
 * nothing. */
void pvmd_output_announce(int tid)
{
	struct ostream *s;

	for (s = streams; s; s = s->next) {
		if (s->tid != tid || s->announced)
			continue;
		s->announced = 1;
		if (s->outtid > 0 && send_out(s, -2, NULL, 1) == 0)
			send_out(s, -1, NULL, 1);
		if (pvmd_watch_add(&s->w, EPOLLIN) < 0)
			pvmd_log("cannot watch the output of t%x",
				 (unsigned)tid);
	}
}

/* Lets paused streams read again when their destination has drained
 * below PVMD_OQ_LOW or is gone (their output then goes to the log). */
void pvmd_output_kick(void)
{
	struct pvmd_conn *dc;
	struct ostream *s;

	for (s = streams; s; s = s->next) {
		if (!s->paused || !s->announced)
			continue;
		if (dest_ok(s, &dc) && dc && dc->oq_bytes > PVMD_OQ_LOW)
			continue;
		if (pvmd_watch_add(&s->w, EPOLLIN) == 0)
			s->paused = 0;
	}
}

/*
 * conn_send.c - the sending side of the links: a frame written whole on
 * one link, the same message on many at once (a multicast), and the one
 * send of a message on a circuit that route.c calls, with its one
 * failure path (the link that broke is freed, PvmNoTask).
 *
 * A write hands the frame to the transport's table (send(), or queue()
 * and submit() for a batch) and, while the transport cannot take more,
 * runs the pump of conn.c, which keeps reading input (of the peer being
 * written to too, under back-pressure), so that two tasks sending large
 * messages to each other cannot deadlock.
 */
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "pvmi.h"

#define IOV_INLINE	64

/* Writes the frame whose iovecs are `iov' (`cnt' of them, iov[0] left
 * for the header, filled here: `hdr', or `f' encoded when NULL) to `l',
 * pumping input while the transport cannot take more. */
static int write_frame(struct link *l, struct pvmi_frame *f,
		       const unsigned char *hdr, struct iovec *iov, int cnt)
{
	struct pvmi_tx tx;
	int r, rc = PvmOk, writing;

	if (!hdr) {
		pvmi_frame_encode(f, tx.hdr);
		hdr = tx.hdr;
	}
	iov[0].iov_base = (void *)hdr;
	iov[0].iov_len = sizeof(tx.hdr);
	tx.iov = iov;
	tx.count = cnt;
	tx.next = 0;
	l->busy++;
	/* its input is read while we wait for room; a link with no peer
	 * yet leaves the outer write's peer in place */
	writing = pvmi_conn_writing(l->peer);
	if (!l->peer)
		pvmi_conn_writing(writing);
	while ((r = l->pipe.tp->send(&l->pipe, &tx)) == 0) {
		if (pvmi_link_pump(-1, l->pipe.fd) == PvmSysErr || l->dead)
			break;
	}
	pvmi_conn_writing(writing);
	if (r != 1)
		rc = -1;
	l->busy--;
	return rc;
}

/* Writes a whole frame (header + iov) to `l', pumping input while the
 * transport cannot take more (conn.h). */
int pvmi_link_write(struct link *l, struct pvmi_frame *f,
		    const struct iovec *body, int nbody)
{
	return pvmi_link_write_hdr(l, f, NULL, body, nbody);
}

/* pvmi_link_write() with the header already encoded in `hdr' (NULL:
 * encode `f') (conn.h). */
int pvmi_link_write_hdr(struct link *l, struct pvmi_frame *f,
			const unsigned char *hdr, const struct iovec *body,
			int nbody)
{
	struct iovec stackiov[IOV_INLINE], *iov = stackiov;
	int cnt = nbody + 1, rc;

	if (cnt > IOV_INLINE && !(iov = malloc(cnt * sizeof(*iov))))
		return PvmNoMem;
	if (nbody)
		memcpy(iov + 1, body, nbody * sizeof(*iov));
	rc = write_frame(l, f, hdr, iov, cnt);
	if (iov != stackiov)
		free(iov);
	return rc;
}

/* Gathers a message body into iovecs; returns the count or -1. */
static int body_iov(const struct pvmi_msg *m, struct iovec **iovp,
		    struct iovec *stack, int stackn)
{
	int n;

	if (!m || m->nfrag == 0) {
		*iovp = stack;
		return 0;
	}
	if (m->nfrag > stackn) {
		*iovp = malloc(m->nfrag * sizeof(**iovp));
		if (!*iovp)
			return -1;
	} else {
		*iovp = stack;
	}
	n = pvmi_msg_iov(m, *iovp, m->nfrag);
	return n;
}

/* Writes frame `f' with message `m' on `l'; PvmOk, PvmNoMem, or -1 when
 * the link broke (conn.h). */
int pvmi_link_send(struct link *l, struct pvmi_frame *f,
		   const struct pvmi_msg *m)
{
	return pvmi_link_send_hdr(l, f, NULL, m);
}

/* pvmi_link_send() with the header already encoded in `hdr' (NULL:
 * encode `f') (conn.h).  The body's iovecs are gathered after the
 * header's slot, in the array the write uses. */
int pvmi_link_send_hdr(struct link *l, struct pvmi_frame *f,
		       const unsigned char *hdr, const struct pvmi_msg *m)
{
	struct iovec stack[IOV_INLINE], *iov = stack;
	int nfrag = m ? m->nfrag : 0, n = 0, rc;

	/* a prebuilt header and a flat body: the transport's fast way for
	 * a whole frame when it has one, between frames */
	if (hdr && nfrag <= 1 && l->pipe.tp->send_whole && !l->busy) {
		rc = l->pipe.tp->send_whole(&l->pipe, hdr,
					    nfrag ? m->frags[0].data : NULL,
					    nfrag ? m->frags[0].len : 0);
		if (rc != 0)
			return rc == 1 ? PvmOk : -1;
	}
	if (nfrag + 1 > IOV_INLINE &&
	    !(iov = malloc((nfrag + 1) * sizeof(*iov))))
		return PvmNoMem;
	if (nfrag)
		n = pvmi_msg_iov(m, iov + 1, nfrag);
	f->magic = PVMI_FRAME_MAGIC;
	f->len = m ? m->len : 0;
	rc = write_frame(l, f, hdr, iov, n + 1);
	if (iov != stack)
		free(iov);
	return rc;
}

/* The link `l' broke under a send: it ends now (freed by the sweep,
 * unless a write on it is still under way). */
static void link_broke(struct link *l)
{
	l->dead = 1;
	pvmi_link_sweep();
}

/* A send on `l' that went past pvmi_conn_send() found it broken: it is
 * freed as there (conn.h); returns PvmNoTask. */
int pvmi_conn_broke(struct link *l)
{
	link_broke(l);
	return PvmNoTask;
}

/* Sends frame `f' with message `m' on circuit `l'; a link that breaks is
 * freed (conn.h). */
int pvmi_conn_send(struct link *l, struct pvmi_frame *f,
		   const unsigned char *hdr, const struct pvmi_msg *m)
{
	int rc = pvmi_link_send_hdr(l, f, hdr, m);

	if (rc == -1) {
		link_broke(l);
		return PvmNoTask;
	}
	return rc;
}

/* Sends `m' on every circuit of `c' at once; the links that break are
 * freed (conn.h). */
int pvmi_conn_send_many(struct pvmi_link_copy *c, int n,
			const struct pvmi_msg *m)
{
	int i, broke = 0, rc = pvmi_link_send_many(c, n, m);

	if (rc != PvmOk)
		return rc;
	for (i = 0; i < n; i++) {
		if (c[i].rc != -1)
			continue;
		c[i].l->dead = 1;
		c[i].rc = PvmNoTask;
		broke = 1;
	}
	if (broke)
		pvmi_link_sweep();
	return PvmOk;
}

/* Starts the send of `tx' on `l' (see pvmi_link_send_many); 1 when it
 * is done, 0 when it waits (queued or in the kernel), -1 when `l'
 * broke. */
static int copy_start(struct link *l, struct pvmi_tx *tx)
{
	const struct pvmi_transport *tp = l->pipe.tp;
	int r = tp->queue ? tp->queue(&l->pipe, tx) :
			    tp->send(&l->pipe, tx);

	return r < 0 ? -1 : r;
}

/* Hands every copy left queued to the kernel: the submit() of each
 * transport concerned, once. */
static void copies_submit(struct pvmi_link_copy *c, const int *st, int n)
{
	int i, j, seen;

	for (i = 0; i < n; i++) {
		if (st[i] != 0 || !c[i].l->pipe.tp->submit)
			continue;
		for (j = 0, seen = 0; j < i && !seen; j++)
			seen = st[j] == 0 &&
			       c[j].l->pipe.tp == c[i].l->pipe.tp;
		if (!seen)	/* a failure shows in the sends below */
			c[i].l->pipe.tp->submit();
	}
}

/* Writes `m' on every link of `c', all started before any is waited
 * for (conn.h). */
int pvmi_link_send_many(struct pvmi_link_copy *c, int n,
			const struct pvmi_msg *m)
{
	struct iovec stack[IOV_INLINE], *body, *iov = NULL;
	struct pvmi_tx *tx = NULL;
	int *st = NULL;
	int nb, cnt, i, r, rc = PvmNoMem;

	stack[0].iov_base = NULL;	/* as in pvmi_link_send_hdr() */
	stack[0].iov_len = 0;
	nb = body_iov(m, &body, stack, IOV_INLINE);
	if (nb < 0)
		return PvmNoMem;
	cnt = nb + 1;
	if (n <= 0)
		goto out_ok;
	iov = malloc((size_t)n * cnt * sizeof(*iov));
	tx = malloc((size_t)n * sizeof(*tx));
	st = malloc((size_t)n * sizeof(*st));
	if (!iov || !tx || !st)
		goto out;
	for (i = 0; i < n; i++) {
		struct pvmi_tx *t = tx + i;
		const unsigned char *hdr = c[i].hdr;

		c[i].f.magic = PVMI_FRAME_MAGIC;
		c[i].f.len = m ? m->len : 0;
		if (!hdr) {
			pvmi_frame_encode(&c[i].f, t->hdr);
			hdr = t->hdr;
		}
		t->iov = iov + (size_t)i * cnt;
		t->iov[0].iov_base = (void *)hdr;
		t->iov[0].iov_len = sizeof(t->hdr);
		if (nb)
			memcpy(t->iov + 1, body, nb * sizeof(*iov));
		t->count = cnt;
		t->next = 0;
		c[i].l->busy++;
		st[i] = copy_start(c[i].l, t);
	}
	copies_submit(c, st, n);
	for (i = 0; i < n; i++) {
		struct link *l = c[i].l;

		r = st[i];
		while (r == 0 && (r = l->pipe.tp->send(&l->pipe, tx + i)) == 0)
			if (pvmi_link_pump(-1, l->pipe.fd) == PvmSysErr ||
			    l->dead)
				break;
		c[i].rc = r == 1 ? PvmOk : -1;
	}
	for (i = 0; i < n; i++)
		c[i].l->busy--;
out_ok:
	rc = PvmOk;
out:
	free(st);
	free(tx);
	free(iov);
	if (body != stack)
		free(body);
	return rc;
}

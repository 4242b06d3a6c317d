/*
 * conn_frame.c - what a link does with what its pipe hands up (the
 * sink of every pipe, conn.c): a complete user message goes to the
 * receive queue's sink, any other frame to the hooks of the module that
 * opened the link, and so do the bytes of a handshake.
 *
 * Precommunication (lib/precomm.c): a HELD frame's message is kept on
 * its link, out of the receive queue, until a RELEASE frame with its tag
 * and ctx delivers it (enc 1) or cancels it (enc 0); one never released
 * is freed with the link.  At most HELD_MAX per link; more breaks the
 * protocol.
 */
#include "bufcache.h"
#include "conn.h"
#include "pvmi.h"

#define HELD_MAX	64

/* Keeps message `m' on link `l' until released (conn.h). */
int pvmi_link_held_keep(struct link *l, struct pvmi_msg *m)
{
	struct pvmi_msg **p = &l->held;

	if (l->nheld >= HELD_MAX) {
		pvmi_msg_free(m);
		return -1;
	}
	while (*p)
		p = &(*p)->next;
	m->next = NULL;
	*p = m;
	l->nheld++;
	return 0;
}

/* Delivers or cancels the message a RELEASE frame names (conn.h). */
int pvmi_link_held_release(struct link *l, const struct pvmi_frame *f)
{
	struct pvmi_msg **p, *m;

	if (f->len)
		return -1;
	for (p = &l->held; *p; p = &(*p)->next) {
		m = *p;
		if (m->tag != f->tag || m->ctx != f->ctx)
			continue;
		*p = m->next;
		l->nheld--;
		m->next = NULL;
		if (f->enc == 1)
			pvmi_conn_deliver(m);
		else
			pvmi_msg_free(m);
		return 0;
	}
	return 0;		/* cancelled by a link that ended: nothing */
}

/* Frees the messages `l' still holds: never released, never sent
 * (conn.h). */
void pvmi_link_held_free(struct link *l)
{
	struct pvmi_msg *m;

	while ((m = l->held) != NULL) {
		l->held = m->next;
		pvmi_msg_free(m);
	}
	l->nheld = 0;
}

/* pvmi_conn_frame() past its common case: any frame of link `l'. */
static __attribute__((noinline)) int frame_any(struct link *l,
					       const struct pvmi_frame *f,
					       unsigned char *body)
{
	struct pvmi_msg *m;

	if (f->kind == PVMI_KIND_RELEASE && l->role != LINK_DAEMON) {
		pvmi_buf_free(body);
		return pvmi_link_held_release(l, f);
	}
	if (f->kind != PVMI_KIND_USER &&
	    (f->kind != PVMI_KIND_HELD || l->role == LINK_DAEMON)) {
		if (l->hooks && l->hooks->frame)
			return l->hooks->frame(l, f, body);
		pvmi_buf_free(body);
		return -1;
	}
	if (l->role == LINK_BOTH && f->src != l->peer) {
		pvmi_buf_free(body);
		return -1;
	}
	if (l->role == LINK_IN && !l->peer)
		l->peer = f->src;	/* one task's circuit: for the hold */
	if (l->role == LINK_DAEMON)
		pvmi_conn_drain_peers();
	m = pvmi_msg_from_frame(body, f);
	if (!m) {
		pvmi_buf_free(body);
		return 0;	/* out of memory: the message is lost */
	}
	if (f->kind == PVMI_KIND_HELD)
		return pvmi_link_held_keep(l, m);
	pvmi_conn_deliver(m);
	return 0;
}

/* The common case, as frame_any's checks would let it pass: a user
 * message on a task's circuit from its known peer. */
static inline int plain_user_frame(const struct link *l,
				   const struct pvmi_frame *f)
{
	return f->kind == PVMI_KIND_USER &&
	       ((l->role == LINK_BOTH && f->src == l->peer) ||
		(l->role == LINK_IN && l->peer));
}

/* A complete frame from the pipe of link `arg'; takes `body' (conn.h).
 * The common case first. */
int pvmi_conn_frame(void *arg, const struct pvmi_frame *f,
		    unsigned char *body)
{
	struct link *l = arg;
	struct pvmi_msg *m;

	if (!plain_user_frame(l, f))
		return frame_any(l, f, body);
	m = pvmi_msg_from_frame(body, f);
	if (!m) {
		pvmi_buf_free(body);
		return 0;	/* out of memory: the message is lost */
	}
	pvmi_conn_deliver(m);
	return 0;
}

/* A complete frame of link `arg' whose body its pipe lends (conn.h):
 * taken in pvmi_conn_frame's common case alone. */
int pvmi_conn_frame_lent(void *arg, const struct pvmi_frame *f,
			 unsigned char *body, struct pvmi_lend *lend)
{
	struct link *l = arg;
	struct pvmi_msg *m;

	if (!plain_user_frame(l, f) ||
	    !(m = pvmi_msg_from_lent(body, f, lend)))
		return 0;
	pvmi_conn_deliver(m);
	return 1;
}

/* Handshake bytes from the pipe of link `arg': its owner's (conn.h). */
long pvmi_conn_gate(void *arg, const unsigned char *data, size_t len)
{
	struct link *l = arg;

	if (!l->hooks || !l->hooks->gate_input)
		return -1;
	return l->hooks->gate_input(l, data, len);
}

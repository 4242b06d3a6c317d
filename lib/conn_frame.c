/*
 * conn_frame.c - what a link does with what its pipe hands up (the
 * sink of every pipe, conn.c): a complete user message goes to the
 * receive queue's sink, a HELD one is kept on its link and a RELEASE
 * frame delivers or cancels it (conn_held.c), any other frame goes to
 * the hooks of the module that opened the link, and so do the bytes of
 * a handshake.
 */
#include "bufcache.h"
#include "conn.h"
#include "pvmi.h"

/* A complete frame from the pipe of link `arg'; takes `body' (conn.h). */
int pvmi_conn_frame(void *arg, const struct pvmi_frame *f,
		    unsigned char *body)
{
	struct link *l = arg;
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
	m = pvmi_msg_from_body(body, f->len, f->enc);
	if (!m) {
		pvmi_buf_free(body);
		return 0;	/* out of memory: the message is lost */
	}
	m->src = f->src;
	m->dst = f->dst;
	m->tag = f->tag;
	m->ctx = f->ctx;
	m->wid = f->wid;
	if (f->kind == PVMI_KIND_HELD)
		return pvmi_link_held_keep(l, m);
	pvmi_conn_deliver(m);
	return 0;
}

/* Handshake bytes from the pipe of link `arg': its owner's (conn.h). */
long pvmi_conn_gate(void *arg, const unsigned char *data, size_t len)
{
	struct link *l = arg;

	if (!l->hooks || !l->hooks->gate_input)
		return -1;
	return l->hooks->gate_input(l, data, len);
}

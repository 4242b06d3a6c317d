/*
 * conn_held.c - the messages a link holds for precommunication
 * (lib/precomm.c): a HELD frame's message is kept on its link, out of the
 * receive queue, until a RELEASE frame with its tag and ctx delivers it
 * (enc 1) or cancels it (enc 0); one never released is freed with the
 * link.  At most HELD_MAX per link; more breaks the protocol.
 */
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

/*
 * transport/registry.h - the transports of this build and the choice
 * among them (registry.c), and the making of a pipe: what the layers
 * above the tables call.
 */
#ifndef COPVM_TRANSPORT_REGISTRY_H
#define COPVM_TRANSPORT_REGISTRY_H

#include <string.h>

#include "transport/transport.h"

/* The transport for a new circuit of `reach' (enum pvmi_reach): the
 * first registered for it whose probe(setup) says yes (see transport.h
 * for `setup').  Never NULL: the last of each reach (unix, tcp) is
 * always there.  Never blocks. */
const struct pvmi_transport *pvmi_transport_pick(int reach, int setup);
/* A circuit of `carrier''s reach was accepted on `fd': every registered
 * transport of that reach hears of it (transport.h, accepted), so one
 * that negotiates on the circuit can say its first word. */
void pvmi_transport_accepted(int fd, const struct pvmi_transport *carrier);
/* Makes `p' a pipe of transport `tp' over fd `fd', handing frames to
 * `sink' with `arg'.  Never fails (state is allocated on first use). */
static inline void pvmi_pipe_init(struct pvmi_pipe *p, int fd,
				  const struct pvmi_transport *tp,
				  const struct pvmi_pipe_sink *sink, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->tp = tp;
	p->sink = sink;
	p->arg = arg;
}

#endif /* COPVM_TRANSPORT_REGISTRY_H */

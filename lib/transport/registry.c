/*
 * transport/registry.c - the transports of this build, best first within
 * each reach, and the one rule that picks among them: the first whose
 * probe says yes.  Adding a transport is its file and one line here.
 */
#include "transport/registry.h"

static const struct pvmi_transport *const registered[] = {
	&pvmi_transport_shm,	/* this host: rings, when they work */
	&pvmi_transport_unix,	/* this host: always */
	&pvmi_transport_uring,	/* other hosts: io_uring, when it works */
	&pvmi_transport_tcp,	/* other hosts: always */
};

#define NREG	(sizeof(registered) / sizeof(registered[0]))

/* The first transport of `reach' whose probe says yes (registry.h). */
const struct pvmi_transport *pvmi_transport_pick(int reach, int setup)
{
	const struct pvmi_transport *tp, *last = NULL;
	size_t i;

	for (i = 0; i < NREG; i++) {
		tp = registered[i];
		if (tp->reach != reach)
			continue;
		last = tp;
		if (!tp->probe || tp->probe(setup))
			return tp;
	}
	return last;
}

/* Tells every transport of `carrier''s reach of an accepted circuit
 * (registry.h). */
void pvmi_transport_accepted(int fd, const struct pvmi_transport *carrier)
{
	size_t i;

	for (i = 0; i < NREG; i++)
		if (registered[i]->reach == carrier->reach &&
		    registered[i]->accepted)
			registered[i]->accepted(fd, carrier);
}

/*
 * arrival.c - DCS's boost on arrival, given to the kernel: the files on
 * which input reaches this task (its daemon link, its inbound circuits,
 * the rings' wake eventfd) are handed to a backend that boosts a blocked
 * task when input arrives on one (the module's WATCH), so the boost
 * comes before the task first runs instead of after it woke.
 *
 * conn.c names the files as they come and go (pvmi_cosched_input_added,
 * _gone); the engine says whether they are watched, by which backend
 * and with which boost (pvmi_cosched_arrivals_set), when the model or
 * the backend changes.  At most ARRIVAL_MAX files are kept, the module's
 * own limit: the first ones named (the daemon link, the wake eventfd)
 * are always among them.  A file the backend refuses is simply not
 * watched: the task then boosts itself when it wakes, as without one.
 */
#include <stddef.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched/arrival.h"
#include "pvm_cosched.h"

#define ARRIVAL_MAX	PVM_COSCHED_MAX_WATCH

static struct {
	int fd;
	int watched;		/* the backend accepted it */
} inputs[ARRIVAL_MAX];
static int ninputs;

/* The watch in force: NULL for none. */
static arrival_watch_fn watch;
static int watch_level, watch_nice;
static uint64_t watch_box_ns;
static pid_t watch_pid;		/* the process that asked for it */

/* Asks the backend in force to watch input `i'. */
static void watch_one(int i)
{
	inputs[i].watched = watch(inputs[i].fd, watch_level, watch_nice,
				  watch_box_ns) == 0;
}

/* Ends the watch of input `i', if it has one. */
static void unwatch_one(int i)
{
	if (inputs[i].watched && watch)
		(void)watch(inputs[i].fd, COPVM_BOOST_NONE, 0, 0);
	inputs[i].watched = 0;
}

/* Names input file `fd' (arrival.h). */
void pvmi_cosched_input_added(int fd)
{
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < ninputs; i++)
		if (inputs[i].fd == fd)
			return;
	if (ninputs == ARRIVAL_MAX)
		return;
	inputs[ninputs].fd = fd;
	inputs[ninputs].watched = 0;
	if (watch && watch_pid == getpid())
		watch_one(ninputs);
	ninputs++;
}

/* Forgets input file `fd', still open (arrival.h). */
void pvmi_cosched_input_gone(int fd)
{
	int i;

	for (i = 0; i < ninputs && inputs[i].fd != fd; i++)
		;
	if (i == ninputs)
		return;
	if (watch_pid == getpid())
		unwatch_one(i);
	inputs[i] = inputs[--ninputs];
}

/* Watches every input with `fn' and this boost, or none (arrival.h). */
void pvmi_cosched_arrivals_set(arrival_watch_fn fn, int level, int nice,
			       uint64_t box_ns)
{
	pid_t me = getpid();
	int i;

	if (watch_pid != me) {
		/* a fork: the watches were the parent's, on its device */
		for (i = 0; i < ninputs; i++)
			inputs[i].watched = 0;
		watch = NULL;
	}
	if (fn == watch && (!fn || (level == watch_level &&
				    nice == watch_nice &&
				    box_ns == watch_box_ns)))
		return;
	for (i = 0; i < ninputs; i++)
		unwatch_one(i);
	watch = fn;
	watch_level = level;
	watch_nice = nice;
	watch_box_ns = box_ns;
	watch_pid = me;
	if (!fn)
		return;
	for (i = 0; i < ninputs; i++)
		watch_one(i);
}

/* How many inputs the backend watches now (arrival.h). */
int pvmi_cosched_arrivals_watched(void)
{
	int i, n = 0;

	for (i = 0; i < ninputs; i++)
		n += inputs[i].watched;
	return n;
}

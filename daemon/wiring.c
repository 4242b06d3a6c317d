/*
 * wiring.c - which module hears of the events of a lower one.
 *
 * The daemon's modules form layers: the state, the log and the tables at
 * the bottom, then the loop, the connections and the links, then the
 * request handlers, the dispatcher and main.c on top.  A lower module
 * never calls a higher one by name; where it must report an event (a
 * task entered the table, a child ended, a connection closed, a link
 * broke) it calls a hook, and this file says, in one place, which
 * functions run then and in what order.  main() calls pvmd_wire() first.
 */
#include "pvmd.h"

/* ---- task table (tasktab.c) ---- */

static void task_added(void)
{
	pvmd_gang_task_new();
	pvmd_cwatch_task_new();
}

static const struct pvmd_task_hooks task_hooks = {
	.added = task_added,
	.discarded = pvmd_gang_task_gone,
};

/* Gives every low-level module its hooks (pvmd.h). */
void pvmd_wire(void)
{
	pvmd_task_set_hooks(&task_hooks);
}

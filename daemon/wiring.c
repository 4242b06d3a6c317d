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

/* ---- event loop (loop.c) ---- */

static void loop_tick(void)
{
	pvmd_peer_tick();
	pvmd_addhost_tick();
	pvmd_cwatch_tick();
	pvmd_gang_sync_tick();
	pvmd_costat_tick();
}

static const struct pvmd_loop_hooks loop_hooks = {
	.accepted = pvmd_conn_new,
	.task_gone = pvmd_task_gone,
	.child_ended = pvmd_addhost_child,
	.tick = loop_tick,
	.turn_end = pvmd_conn_turn_end,
	.halt_slaves = pvmd_addhost_halt_all,
	.release_tasks = pvmd_gang_release,
	.tasks_left = pvmd_conn_tasks_left,
	.peers_left = pvmd_conn_peers_left,
};

/* ---- connections (conn.c) ---- */

static void conn_closed(struct pvmd_conn *c)
{
	pvmd_mbox_conn_gone(c);
	pvmd_remote_conn_gone(c);
}

static const struct pvmd_conn_hooks conn_hooks = {
	.frame = pvmd_dispatch,
	.auth_input = pvmd_peer_auth_input,
	.connect_done = pvmd_peer_connect_done,
	.peer_closed = pvmd_peer_closed,
	.proxy_send = pvmd_proxy_send,
	.closed = conn_closed,
	.task_gone = pvmd_task_gone,
	.drained = pvmd_output_kick,
	.turn_end = pvmd_remote_turn_end,
};

/* ---- links to other daemons (peer.c) ---- */

static const struct pvmd_peer_hooks peer_hooks = {
	.expected = pvmd_addhost_expected,
	.host_lost = pvmd_host_remove,
};

/* ---- requests from other daemons (remote.c) ---- */

static const struct pvmd_remote_hooks remote_hooks = {
	.run_op = pvmd_dispatch_op,
};

/* ---- EXP's clock exchange (gang_sync.c) ---- */

static const struct pvmd_gang_sync_hooks gang_sync_hooks = {
	.changed = pvmd_gang_resync,
};

/* Gives every low-level module its hooks (pvmd.h). */
void pvmd_wire(void)
{
	pvmd_task_set_hooks(&task_hooks);
	pvmd_loop_set_hooks(&loop_hooks);
	pvmd_conn_set_hooks(&conn_hooks);
	pvmd_peer_set_hooks(&peer_hooks);
	pvmd_remote_set_hooks(&remote_hooks);
	pvmd_gang_sync_set_hooks(&gang_sync_hooks);
}

/*
 * dd.c - the frames that arrive from other daemons.
 *
 * A link to another daemon carries DAEMON frames (DD_*: a host joining,
 * the host table, requests and their replies, notifies, a task gone, a
 * spawn's sibling list, halt, beats, EXP's clock exchange) and USER
 * frames, messages between tasks of different hosts.  A USER frame is
 * delivered to the local task it names; its src must belong to the host
 * that sent it.  Each DD_* goes to the module whose state it concerns;
 * anything else breaks the link.
 */
#include <stdlib.h>

#include "pvmd.h"

static void daemon_frame(struct pvmd_conn *c, const struct pvmi_frame *f,
			 struct pvmi_rbuf *r)
{
	struct pvmi_wbuf w = { 0 };
	int32_t v[5], n, *tids;

	switch (f->tag) {
	case PVMI_DD_HELLO:
		if (pvmd.slave || pvmd_addhost_hello(c, r) < 0)
			pvmd_conn_close(c, "unexpected DD_HELLO");
		break;
	case PVMI_DD_HOSTS:
		if (!pvmd.slave || c->host != PVMI_MASTER_INDEX ||
		    pvmd_hosts_apply(r) < 0)
			pvmd_log("host table from host %d refused", c->host);
		else
			pvmd_gang_sync_joined();
		break;
	case PVMI_DD_REQUEST:
		pvmd_remote_request(c, r);
		break;
	case PVMI_DD_REPLY:
		pvmd_remote_reply(c, r);
		break;
	case PVMI_DD_NOTIFY:
		for (n = 0; n < 5; n++)
			v[n] = pvmi_r_int(r);
		if (pvmd_body_ok(r))
			pvmd_notify_remote_fired(v[0], v[1], v[2], v[3], v[4],
						 f->src);
		break;
	case PVMI_DD_TASKGONE:
		v[0] = pvmi_r_int(r);
		if (pvmd_body_ok(r) && !pvmd.slave &&
		    PVMI_TID_INDEX(v[0]) == c->host) {
			pvmd_mbox_task_gone(v[0]);
			pvmd_remote_task_gone(v[0]);
			pvmi_w_int(&w, v[0]);
			pvmd_peer_send_dd(c->host, PVMI_DD_GONE_ACK, &w);
		}
		break;
	case PVMI_DD_GONE_ACK:
		v[0] = pvmi_r_int(r);
		if (pvmd_body_ok(r) && pvmd.slave &&
		    c->host == PVMI_MASTER_INDEX &&
		    PVMI_TID_INDEX(v[0]) == pvmd.index)
			pvmd_notify_task_gone(v[0]);
		break;
	case PVMI_DD_SIBLINGS:
		n = pvmi_r_int(r);
		if (r->failed || n < 0 || (size_t)n > r->len / 4)
			break;
		tids = malloc(((size_t)n + 1) * sizeof(*tids));
		if (tids && pvmi_r_ints(r, tids, (size_t)n) == 0)
			pvmd_tasks_siblings(tids, n);
		free(tids);
		break;
	case PVMI_DD_HALT:
		if (pvmd.slave && c->host == PVMI_MASTER_INDEX) {
			pvmd_remote_halt();
		}
		break;
	case PVMI_DD_BEAT:		/* its bytes were the news */
		break;
	case PVMI_DD_CLOCK:
		if (!pvmd.slave)
			pvmd_gang_sync_request(c, r);
		break;
	case PVMI_DD_CLOCK_ACK:
		if (pvmd.slave && c->host == PVMI_MASTER_INDEX)
			pvmd_gang_sync_answer(r);
		break;
	default:
		pvmd_log("unknown daemon op %d from host %d", f->tag,
			 c->host);
	}
	pvmi_w_free(&w);
}

/* Handles a frame from another daemon. */
void pvmd_dd_dispatch(struct pvmd_conn *c, const struct pvmi_frame *f,
		      const unsigned char *body)
{
	struct pvmd_conn *d;
	struct pvmi_rbuf r;

	if (f->kind == PVMI_KIND_USER) {
		if (PVMI_TID_INDEX(f->src) != c->host ||
		    PVMI_TID_INDEX(f->dst) != pvmd.index) {
			pvmd_dbg(PVMD_DBG_NET, "message t%x -> t%x from host "
				 "%d dropped", (unsigned)f->src,
				 (unsigned)f->dst, c->host);
			return;
		}
		d = pvmd_route_user(f, body, f->len);
		if (d)
			pvmd_conn_block_on(c, d);
		return;
	}
	if (f->kind != PVMI_KIND_DAEMON) {
		pvmd_log("frame of kind %u from host %d: dropping the link",
			 f->kind, c->host);
		pvmd_conn_close(c, "protocol error");
		return;
	}
	pvmi_r_init(&r, body, f->len);
	daemon_frame(c, f, &r);
}

/*
 * check_conn_frame.c - unit tests of lib/conn_frame.c, what a link does
 * with the frames its pipe hands up, compiled in from its source against
 * stand-ins for conn.c (the sink, the daemon link's draining): a user
 * message from a circuit's peer is delivered with the frame's header,
 * one from another task on a two-way circuit is refused, a one-way
 * circuit learns its peer from its first message, held messages wait
 * for their release, and other frames go to the link's hooks.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "conn.h"
#include "pvmi.h"

/* ---- stand-ins for conn.c ---- */

static struct pvmi_msg *delivered[8];
static int ndelivered, drains, hook_frames;

void pvmi_conn_deliver(struct pvmi_msg *m)
{
	ck_assert_int_lt(ndelivered, 8);
	delivered[ndelivered++] = m;
}

void pvmi_conn_drain_peers(void)
{
	drains++;
}

static int hook_frame(struct link *l, const struct pvmi_frame *f,
		      unsigned char *body)
{
	hook_frames++;
	pvmi_buf_free(body);
	return 0;
}

static const struct pvmi_link_hooks hooks = { .frame = hook_frame };

/* ---- helpers ---- */

#define PEER	0x40005
#define OTHER	0x40006

static void setup(void)
{
	int i;

	for (i = 0; i < ndelivered; i++)
		pvmi_msg_free(delivered[i]);
	ndelivered = drains = hook_frames = 0;
}

/* A frame of `kind' from `src' with tag `tag' and a body of `len' bytes
 * of value `v'; its body in *body. */
static struct pvmi_frame frame(uint32_t kind, int src, int tag,
			       uint32_t len, int v, unsigned char **body)
{
	struct pvmi_frame f = {
		.magic = PVMI_FRAME_MAGIC, .len = len, .src = src,
		.dst = 0x40001, .tag = tag, .ctx = 3, .enc = PvmDataRaw,
		.wid = 9, .kind = kind,
	};

	*body = pvmi_buf_alloc(len ? len : 1);
	ck_assert_ptr_nonnull(*body);
	memset(*body, v, len);
	return f;
}

static void link_init(struct link *l, int role, int peer)
{
	memset(l, 0, sizeof(*l));
	l->role = role;
	l->peer = peer;
	l->hooks = &hooks;
}

/* ---- tests ---- */

/* From the peer of a two-way circuit, or on a one-way circuit whose peer
 * is known: delivered with the frame's fields and body. */
START_TEST(a_peers_message_is_delivered_whole)
{
	struct link both, in;
	struct pvmi_frame f;
	unsigned char *body;
	struct pvmi_msg *m;

	link_init(&both, LINK_BOTH, PEER);
	f = frame(PVMI_KIND_USER, PEER, 7, 16, 0xab, &body);
	ck_assert_int_eq(pvmi_conn_frame(&both, &f, body), 0);
	ck_assert_int_eq(ndelivered, 1);
	m = delivered[0];
	ck_assert_int_eq(m->src, PEER);
	ck_assert_int_eq(m->dst, 0x40001);
	ck_assert_int_eq(m->tag, 7);
	ck_assert_int_eq(m->ctx, 3);
	ck_assert_int_eq(m->wid, 9);
	ck_assert_int_eq(m->enc, PvmDataRaw);
	ck_assert_uint_eq(m->len, 16);
	ck_assert_int_eq(m->frags[0].data[15], 0xab);
	link_init(&in, LINK_IN, PEER);
	f = frame(PVMI_KIND_USER, PEER, 8, 0, 0, &body);
	ck_assert_int_eq(pvmi_conn_frame(&in, &f, body), 0);
	ck_assert_int_eq(ndelivered, 2);
	ck_assert_int_eq(delivered[1]->tag, 8);
	ck_assert_uint_eq(delivered[1]->len, 0);
	ck_assert_int_eq(drains, 0);
	ck_assert_int_eq(hook_frames, 0);
}
END_TEST

/* Another task's message on a two-way circuit breaks the protocol and
 * is not delivered. */
START_TEST(another_tasks_message_on_a_circuit_is_refused)
{
	struct link both;
	struct pvmi_frame f;
	unsigned char *body;

	link_init(&both, LINK_BOTH, PEER);
	f = frame(PVMI_KIND_USER, OTHER, 7, 8, 1, &body);
	ck_assert_int_eq(pvmi_conn_frame(&both, &f, body), -1);
	ck_assert_int_eq(ndelivered, 0);
}
END_TEST

/* A one-way circuit takes its peer from its first message; the daemon's
 * link drains the circuits before it delivers. */
START_TEST(a_new_circuit_learns_its_peer_the_daemon_drains)
{
	struct link in, d;
	struct pvmi_frame f;
	unsigned char *body;

	link_init(&in, LINK_IN, 0);
	f = frame(PVMI_KIND_USER, PEER, 7, 8, 1, &body);
	ck_assert_int_eq(pvmi_conn_frame(&in, &f, body), 0);
	ck_assert_int_eq(in.peer, PEER);
	ck_assert_int_eq(ndelivered, 1);
	link_init(&d, LINK_DAEMON, 0);
	f = frame(PVMI_KIND_USER, 0x40000, 7, 8, 1, &body);
	ck_assert_int_eq(pvmi_conn_frame(&d, &f, body), 0);
	ck_assert_int_eq(drains, 1);
	ck_assert_int_eq(ndelivered, 2);
}
END_TEST

/* A held message waits on its link until its release; other kinds go to
 * the link's hooks. */
START_TEST(held_messages_wait_other_frames_go_to_the_hooks)
{
	struct link both;
	struct pvmi_frame f;
	unsigned char *body;

	link_init(&both, LINK_BOTH, PEER);
	f = frame(PVMI_KIND_HELD, PEER, 7, 8, 1, &body);
	ck_assert_int_eq(pvmi_conn_frame(&both, &f, body), 0);
	ck_assert_int_eq(ndelivered, 0);
	ck_assert_int_eq(both.nheld, 1);
	f = frame(PVMI_KIND_RELEASE, PEER, 7, 0, 0, &body);
	f.enc = 1;
	ck_assert_int_eq(pvmi_conn_frame(&both, &f, body), 0);
	ck_assert_int_eq(ndelivered, 1);
	ck_assert_int_eq(both.nheld, 0);
	f = frame(PVMI_KIND_REPLY, PEER, 7, 8, 1, &body);
	ck_assert_int_eq(pvmi_conn_frame(&both, &f, body), 0);
	ck_assert_int_eq(hook_frames, 1);
	ck_assert_int_eq(ndelivered, 1);
}
END_TEST

static Suite *conn_frame_suite(void)
{
	Suite *s = suite_create("conn_frame");
	TCase *tc = tcase_create("frames");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, a_peers_message_is_delivered_whole);
	tcase_add_test(tc, another_tasks_message_on_a_circuit_is_refused);
	tcase_add_test(tc, a_new_circuit_learns_its_peer_the_daemon_drains);
	tcase_add_test(tc, held_messages_wait_other_frames_go_to_the_hooks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(conn_frame_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

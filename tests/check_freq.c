/*
 * check_freq.c - unit tests of lib/cosched/freq.c, the probe, compiled
 * in from its source against stand-ins for the engine (the roll and the
 * correspondents' boosts) and the task state (pvmi_check_task_tid is
 * the library's own, inline in task_state.h): what each hook counts, the
 * table of local correspondents and its replacement of the idlest, the
 * messages that are not counted, and how often the probe reads the clock.
 * Each test runs in its own process (the probe keeps static state).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cosched/cosched.h"
#include "cosched_page.h"
#include "proto.h"
#include "pvmi.h"

/* ---- stand-ins ---- */

struct pvmi_state pvmi;

static int rolls, peer_sent_calls, peer_sent_tid;

/* The engine's roll: a new interval, as pvmi_cosched_roll starts one. */
void pvmi_cosched_roll(uint64_t now)
{
	rolls++;
	pvmi_cosched_page->sends_now = 0;
	pvmi_cosched_page->recvs_now = 0;
}

void pvmi_cosched_peer_sent(int tid)
{
	peer_sent_calls++;
	peer_sent_tid = tid;
}

/* ---- fixture ---- */

#define HOST1	(1 << PVMI_TID_HOST_SHIFT)
#define HOST2	(2 << PVMI_TID_HOST_SHIFT)

static struct cosched_page page;

static void setup(void)
{
	memset(&page, 0, sizeof(page));
	pvmi.mytid = HOST1 | 1;
	pvmi_cosched_page = &page;
	/* The interval ends far in the future: no roll unless a test says. */
	pvmi_cosched_next_roll = UINT64_MAX;
}

static const struct cosched_peer *peer_of(int tid)
{
	int i;

	for (i = 0; i < page.npeers; i++)
		if (page.peers[i].tid == tid)
			return &page.peers[i];
	return NULL;
}

/* ---- tests ---- */

START_TEST(without_a_page_nothing_is_counted)
{
	pvmi_cosched_page = NULL;
	pvmi_cosched_next_roll = 0;
	pvmi_cosched_sent(HOST1 | 2);
	pvmi_cosched_received(HOST1 | 2);
	ck_assert_int_eq(rolls, 0);
	ck_assert_int_eq(peer_sent_calls, 0);
	ck_assert_uint_eq(page.sends_total + page.recvs_total, 0);
}
END_TEST

START_TEST(each_direction_is_counted_apart)
{
	int i;

	for (i = 0; i < 3; i++)
		pvmi_cosched_sent(HOST2 | 5);
	for (i = 0; i < 2; i++)
		pvmi_cosched_received(HOST2 | 5);
	ck_assert_uint_eq(page.sends_now, 3);
	ck_assert_uint_eq(page.sends_total, 3);
	ck_assert_uint_eq(page.recvs_now, 2);
	ck_assert_uint_eq(page.recvs_total, 2);
	/* Every send is offered to the engine's correspondent rule. */
	ck_assert_int_eq(peer_sent_calls, 3);
	ck_assert_int_eq(peer_sent_tid, HOST2 | 5);
}
END_TEST

START_TEST(a_receive_from_no_task_is_not_counted)
{
	pvmi_cosched_received(-1);
	pvmi_cosched_received(HOST1);	/* a daemon's tid: no task part */
	ck_assert_uint_eq(page.recvs_now, 0);
	ck_assert_uint_eq(page.recvs_total, 0);
	ck_assert_int_eq(page.npeers, 0);
}
END_TEST

START_TEST(local_correspondents_are_recorded_remote_ones_not)
{
	const struct cosched_peer *p;

	pvmi_cosched_sent(HOST1 | 2);
	pvmi_cosched_sent(HOST1 | 2);
	pvmi_cosched_received(HOST1 | 2);
	pvmi_cosched_received(HOST1 | 3);
	pvmi_cosched_sent(HOST2 | 2);
	pvmi_cosched_received(HOST2 | 2);
	ck_assert_int_eq(page.npeers, 2);
	p = peer_of(HOST1 | 2);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->sends, 2);
	ck_assert_uint_eq(p->recvs, 1);
	ck_assert_int_eq(p->pid, 0);
	p = peer_of(HOST1 | 3);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->sends, 0);
	ck_assert_uint_eq(p->recvs, 1);
	ck_assert_ptr_null(peer_of(HOST2 | 2));
	/* Remote messages are counted all the same. */
	ck_assert_uint_eq(page.sends_total, 3);
	ck_assert_uint_eq(page.recvs_total, 3);
}
END_TEST

START_TEST(a_full_table_replaces_the_idlest)
{
	const struct cosched_peer *p;
	int i;

	for (i = 0; i < COSCHED_MAX_PEERS; i++)
		pvmi_cosched_sent(HOST1 | (10 + i));
	ck_assert_int_eq(page.npeers, COSCHED_MAX_PEERS);
	/* Entry 3 was idle the longest. */
	for (i = 0; i < COSCHED_MAX_PEERS; i++)
		page.peers[i].last_ns = 1000 + (uint64_t)i;
	page.peers[3].last_ns = 1;
	pvmi_cosched_received(HOST1 | 99);
	ck_assert_int_eq(page.npeers, COSCHED_MAX_PEERS);
	ck_assert_ptr_null(peer_of(HOST1 | 13));
	p = peer_of(HOST1 | 99);
	ck_assert_ptr_eq(p, &page.peers[3]);
	/* A new entry starts its counts afresh. */
	ck_assert_uint_eq(p->sends, 0);
	ck_assert_uint_eq(p->recvs, 1);
	ck_assert_uint_gt(p->last_ns, 1000 + COSCHED_MAX_PEERS);
	for (i = 0; i < COSCHED_MAX_PEERS; i++)
		if (i != 3)
			ck_assert_ptr_nonnull(peer_of(HOST1 | (10 + i)));
}
END_TEST

/* The entry found last is tried first: alternating with two peers, or
 * with one, every exchange lands on its own entry and stamps it; an
 * entry of another process's making past npeers is never taken. */
START_TEST(the_last_peer_found_is_tried_first_and_stamped)
{
	const struct cosched_peer *p, *q;
	int i;

	pvmi_cosched_look_rate(0);	/* the clock read at every message */
	for (i = 0; i < 5; i++) {
		pvmi_cosched_received(HOST1 | 2);
		pvmi_cosched_sent(HOST1 | 2);
		pvmi_cosched_received(HOST1 | 3);
	}
	p = peer_of(HOST1 | 2);
	q = peer_of(HOST1 | 3);
	ck_assert_int_eq(page.npeers, 2);
	ck_assert_uint_eq(p->recvs, 5);
	ck_assert_uint_eq(p->sends, 5);
	ck_assert_uint_eq(q->recvs, 5);
	ck_assert_uint_eq(q->sends, 0);
	page.peers[0].last_ns = 0;
	page.peers[1].last_ns = 0;
	pvmi_cosched_received(HOST1 | 3);	/* the last found */
	ck_assert_uint_gt(q->last_ns, 0);
	ck_assert_uint_eq(p->last_ns, 0);
	ck_assert_uint_eq(q->recvs, 6);
	pvmi_cosched_sent(HOST1 | 3);
	ck_assert_uint_eq(q->sends, 1);
	/* a stale entry beyond the table's end is not a hit */
	page.npeers = 1;	/* leaves HOST1|3 at index 1, unused */
	pvmi_cosched_received(HOST1 | 3);
	ck_assert_int_eq(page.npeers, 2);
	ck_assert_uint_eq(page.peers[1].recvs, 1);	/* a new entry */
}
END_TEST

START_TEST(a_message_after_the_interval_counts_in_the_next)
{
	page.sends_now = 5;
	page.recvs_now = 7;
	pvmi_cosched_next_roll = 0;	/* the interval has ended */
	pvmi_cosched_sent(HOST2 | 4);
	ck_assert_int_eq(rolls, 1);
	ck_assert_uint_eq(page.sends_now, 1);
	ck_assert_uint_eq(page.recvs_now, 0);
}
END_TEST

/* Sends `n' messages with the interval always over: the number of rolls
 * is the number of times the probe read the clock. */
static int looks_in(int n)
{
	int i;

	rolls = 0;
	pvmi_cosched_next_roll = 0;
	for (i = 0; i < n; i++)
		pvmi_cosched_sent(HOST2 | 4);
	return rolls;
}

START_TEST(a_busy_task_reads_the_clock_about_eight_times_an_interval)
{
	/* Quiet: every message. */
	pvmi_cosched_look_rate(0);
	ck_assert_int_eq(looks_in(30), 30);
	/* 80 messages last interval: every 10th, the first at once. */
	pvmi_cosched_look_rate(80);
	ck_assert_int_eq(looks_in(30), 3);
	/* Very busy: at most every 64th. */
	pvmi_cosched_look_rate(1000000);
	ck_assert_int_eq(looks_in(130), 3);
}
END_TEST

static Suite *freq_suite(void)
{
	Suite *s = suite_create("freq");
	TCase *tc = tcase_create("probe");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, without_a_page_nothing_is_counted);
	tcase_add_test(tc, each_direction_is_counted_apart);
	tcase_add_test(tc, a_receive_from_no_task_is_not_counted);
	tcase_add_test(tc, local_correspondents_are_recorded_remote_ones_not);
	tcase_add_test(tc, a_full_table_replaces_the_idlest);
	tcase_add_test(tc, the_last_peer_found_is_tried_first_and_stamped);
	tcase_add_test(tc, a_message_after_the_interval_counts_in_the_next);
	tcase_add_test(tc, a_busy_task_reads_the_clock_about_eight_times_an_interval);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(freq_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

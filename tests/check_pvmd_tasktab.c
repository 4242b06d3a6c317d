/*
 * check_pvmd_tasktab.c - the daemon's task table (daemon/tasktab.c)
 * alone, linked with the daemon's state and log only (it is a leaf):
 * tids count up from the daemon's tid and are not reused before the
 * space went round, lookups by tid and pid, the hooks for a task entering
 * and a spawn's task discarded, messages kept for an unregistered task
 * in order, and the socket path's length check.
 *
 * Each Check test runs in its own process (CK_FORK), with an empty table.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

static int added, discarded_tid, discarded_n;

static void on_added(void)
{
	added++;
}

static void on_discarded(int tid)
{
	discarded_tid = tid;
	discarded_n++;
}

static const struct pvmd_task_hooks hooks = {
	.added = on_added,
	.discarded = on_discarded,
};

static void setup(void)
{
	pvmd.index = 1;
	pvmd.dtid = PVMI_DAEMON_TID(1);
	strcpy(pvmd.sessdir, "/tmp/sess");
	pvmd_task_set_hooks(&hooks);
	added = discarded_tid = discarded_n = 0;
}

START_TEST(tids_count_up_from_the_daemons_tid)
{
	struct pvmd_task *a = pvmd_task_new(100, "a", PVMD_TF_SPAWNED);
	struct pvmd_task *b = pvmd_task_new(200, NULL, 0);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(a->tid, pvmd.dtid | 1);
	ck_assert_int_eq(b->tid, pvmd.dtid | 2);
	ck_assert_str_eq(a->aout, "a");
	ck_assert_str_eq(b->aout, "");
	ck_assert_int_eq(a->flags, PVMD_TF_SPAWNED);
	ck_assert_int_eq(pvmd_task_count(), 2);
	ck_assert_int_eq(added, 2);
	/* sorted by tid */
	ck_assert_ptr_eq(pvmd_task_first(), a);
	ck_assert_ptr_eq(a->next, b);
	ck_assert_ptr_null(b->next);
}
END_TEST

START_TEST(lookups_by_tid_and_pid)
{
	struct pvmd_task *a = pvmd_task_new(100, "a", 0);
	struct pvmd_task *b = pvmd_task_new(200, "b", 0);

	ck_assert_ptr_eq(pvmd_task_find(b->tid), b);
	ck_assert_ptr_eq(pvmd_task_find(a->tid), a);
	ck_assert_ptr_null(pvmd_task_find(b->tid + 1));
	ck_assert_ptr_eq(pvmd_task_by_pid(200), b);
	ck_assert_ptr_null(pvmd_task_by_pid(300));
	/* no process yet (a task not started) is never found by pid */
	b->pid = 0;
	ck_assert_ptr_null(pvmd_task_by_pid(0));
}
END_TEST

START_TEST(a_tid_is_not_reused_before_the_space_went_round)
{
	struct pvmd_task *a = pvmd_task_new(100, "a", 0);
	struct pvmd_task *b, *c;
	int first = a->tid;

	b = pvmd_task_new(101, "b", 0);
	pvmd_task_discard(a);
	c = pvmd_task_new(102, "c", 0);
	ck_assert_int_ne(c->tid, first);
	ck_assert_int_eq(c->tid, pvmd.dtid | 3);
	ck_assert_ptr_eq(pvmd_task_first(), b);
	ck_assert_ptr_eq(b->next, c);
}
END_TEST

START_TEST(discard_tells_the_hook_and_leaves_the_table)
{
	struct pvmd_task *a = pvmd_task_new(100, "a", 0);
	int tid = a->tid;

	pvmd_task_discard(a);
	ck_assert_int_eq(discarded_n, 1);
	ck_assert_int_eq(discarded_tid, tid);
	ck_assert_ptr_null(pvmd_task_find(tid));
	ck_assert_int_eq(pvmd_task_count(), 0);
	ck_assert_ptr_null(pvmd_task_first());
}
END_TEST

START_TEST(unlink_leaves_the_task_to_its_caller)
{
	struct pvmd_task *a = pvmd_task_new(100, "a", 0);
	struct pvmd_task *b = pvmd_task_new(200, "b", 0);

	pvmd_task_unlink(a);
	ck_assert_int_eq(pvmd_task_count(), 1);
	ck_assert_ptr_null(pvmd_task_find(a->tid));
	ck_assert_ptr_eq(pvmd_task_first(), b);
	/* not freed, and no hook: tasks.c runs the task's departure */
	ck_assert_str_eq(a->aout, "a");
	ck_assert_int_eq(discarded_n, 0);
	pvmd_task_free(a);
}
END_TEST

START_TEST(held_messages_stay_in_order)
{
	struct pvmd_task *t = pvmd_task_new(100, "a", PVMD_TF_SPAWNED);
	struct pvmi_frame f;
	struct pvmd_held *h;

	memset(&f, 0, sizeof(f));
	f.tag = 1;
	ck_assert_int_eq(pvmd_task_hold(t, &f, "one", 3), 0);
	f.tag = 2;
	ck_assert_int_eq(pvmd_task_hold(t, &f, NULL, 0), 0);
	f.tag = 3;
	ck_assert_int_eq(pvmd_task_hold(t, &f, "three", 5), 0);
	h = t->held;
	ck_assert_int_eq(h->f.tag, 1);
	ck_assert_uint_eq(h->len, 3);
	ck_assert_mem_eq(h->body, "one", 3);
	h = h->next;
	ck_assert_int_eq(h->f.tag, 2);
	ck_assert_uint_eq(h->len, 0);
	h = h->next;
	ck_assert_int_eq(h->f.tag, 3);
	ck_assert_mem_eq(h->body, "three", 5);
	ck_assert_ptr_null(h->next);
	ck_assert_ptr_eq(t->held_tail, &h->next);
}
END_TEST

START_TEST(socket_path_fits_a_sockaddr_un_or_fails)
{
	char buf[4200];

	ck_assert_int_eq(pvmd_task_sockpath(pvmd.dtid | 0x2a, buf,
					    sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/tmp/sess/t4002a");
	memset(pvmd.sessdir, 'x', 200);
	pvmd.sessdir[0] = '/';
	pvmd.sessdir[200] = '\0';
	ck_assert_int_eq(pvmd_task_sockpath(pvmd.dtid | 1, buf, sizeof(buf)),
			 -1);
	/* and a buffer too small for a short path */
	strcpy(pvmd.sessdir, "/tmp/sess");
	ck_assert_int_eq(pvmd_task_sockpath(pvmd.dtid | 1, buf, 8), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pvmd_tasktab");
	TCase *tc = tcase_create("tasktab");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, tids_count_up_from_the_daemons_tid);
	tcase_add_test(tc, lookups_by_tid_and_pid);
	tcase_add_test(tc, a_tid_is_not_reused_before_the_space_went_round);
	tcase_add_test(tc, discard_tells_the_hook_and_leaves_the_table);
	tcase_add_test(tc, unlink_leaves_the_task_to_its_caller);
	tcase_add_test(tc, held_messages_stay_in_order);
	tcase_add_test(tc, socket_path_fits_a_sockaddr_un_or_fails);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

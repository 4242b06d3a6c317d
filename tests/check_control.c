/*
 * check_control.c - calls the daemon answers (lib/control.c, lib/task.c,
 * lib/output.c): spawn with its failures, siblings, notify, kill, task
 * and host tables, pstat/mstat, output catching, exported environment.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#ifndef TASK_CHILD
#error "TASK_CHILD must name the built tests/task_child"
#endif

static char *args(const char *mode)
{
	return (char *)mode;
}

START_TEST(spawn_runs_a_task_that_talks_back)
{
	char *av[] = { args("echo"), NULL };
	int tid, v = 41;

	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	ck_assert_int_gt(tid, 0);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	ck_assert_int_eq(pvm_send(tid, 1), PvmOk);
	ck_assert_int_gt(pvm_recv(tid, 2), 0);
	pvm_upkint(&v, 1, 1);
	ck_assert_int_eq(v, 42);
	pvm_exit();
}
END_TEST

START_TEST(spawn_failures_are_reported_in_the_tid_array)
{
	int tids[2] = { 0, 0 };

	pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_spawn("no-such-program-anywhere", NULL, 0, NULL,
				   2, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoFile);
	ck_assert_int_eq(tids[1], PvmNoFile);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, NULL, PvmTaskHost,
				   "no-such-host", 1, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoHost);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, NULL, 0, NULL, 0, tids),
			 PvmBadParam);
	pvm_exit();
}
END_TEST

START_TEST(siblings_and_parent_are_those_of_the_spawn)
{
	char *av[] = { args("sibs"), NULL };
	int me = pvm_mytid(), tids[3], k, n, parent, sibs[3];

	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 3, tids), 3);
	for (k = 0; k < 3; k++) {
		ck_assert_int_gt(pvm_recv(tids[k], 3), 0);
		pvm_upkint(&n, 1, 1);
		pvm_upkint(&parent, 1, 1);
		ck_assert_int_eq(n, 3);
		ck_assert_int_eq(parent, me);
		pvm_upkint(sibs, 3, 1);
		ck_assert_int_eq(memcmp(sibs, tids, sizeof(sibs)), 0);
	}
	ck_assert_int_eq(pvm_parent(), PvmNoParent);
	ck_assert_int_eq(pvm_siblings(NULL), 1);
	pvm_exit();
}
END_TEST

/* Stock marks such a child's parent PvmParentNotSet (pvm_tasks, and
 * what the child's pvm_parent returns). */
START_TEST(no_spawn_parent_leaves_the_parent_unset)
{
	char *av[] = { args("wait"), NULL };
	struct pvmtaskinfo *ti;
	int tid, n, i, ptid = 0;

	pvm_mytid();
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, PvmNoSpawnParent, NULL, 1,
				   &tid), 1);
	ck_assert_int_eq(pvm_tasks(0, &n, &ti), PvmOk);
	for (i = 0; i < n; i++)
		if (ti[i].ti_tid == tid)
			ptid = ti[i].ti_ptid;
	ck_assert_int_eq(ptid, PvmParentNotSet);
	ck_assert_int_eq(pvm_kill(tid), PvmOk);
	pvm_exit();
}
END_TEST

START_TEST(notify_task_exit_fires_for_kill_and_for_dead_tids)
{
	char *av[] = { args("wait"), NULL };
	int tid, who = 0, ntask, i, found = 0;
	struct pvmtaskinfo *ti;

	pvm_mytid();
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	ck_assert_int_eq(pvm_notify(PvmTaskExit, 50, 1, &tid), PvmOk);
	ck_assert_int_eq(pvm_pstat(tid), PvmOk);
	ck_assert_int_eq(pvm_tasks(0, &ntask, &ti), PvmOk);
	for (i = 0; i < ntask; i++)
		found |= ti[i].ti_tid == tid;
	ck_assert(found);
	ck_assert_int_eq(pvm_kill(tid), PvmOk);
	ck_assert_int_gt(pvm_recv(-1, 50), 0);
	pvm_upkint(&who, 1, 1);
	ck_assert_int_eq(who, tid);
	ck_assert_int_eq(pvm_pstat(tid), PvmNoTask);
	/* A notify on a task already gone fires at once. */
	ck_assert_int_eq(pvm_notify(PvmTaskExit, 51, 1, &tid), PvmOk);
	ck_assert_int_gt(pvm_recv(-1, 51), 0);
	pvm_upkint(&who, 1, 1);
	ck_assert_int_eq(who, tid);
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_notify(99, 1, 1, &tid), PvmBadParam);
	ck_assert_int_eq(pvm_kill(-3), PvmBadParam);
	pvm_exit();
}
END_TEST

START_TEST(config_and_mstat_describe_this_host)
{
	struct pvmhostinfo *hi;
	int nhost, narch, me = pvm_mytid();

	ck_assert_int_eq(pvm_config(&nhost, &narch, &hi), PvmOk);
	ck_assert_int_eq(nhost, 1);
	ck_assert_int_eq(narch, 1);
	ck_assert_str_eq(hi[0].hi_arch, "LINUX64");
	ck_assert_int_eq(hi[0].hi_tid, pvm_tidtohost(me));
	ck_assert_int_eq(pvm_mstat(hi[0].hi_name), PvmOk);
	ck_assert_int_eq(pvm_mstat("no-such-host.invalid"), PvmNoHost);
	ck_assert_int_eq(pvm_archcode("LINUX64"), hi[0].hi_dsig);
	pvm_exit();
}
END_TEST

START_TEST(catchout_copies_child_output_with_tids)
{
	char *av[] = { args("print"), NULL };
	char path[512], line[256], expect[64];
	int tid, lines = 0, saw_begin = 0, saw_end = 0, saw_one = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/caught.txt", vm_fixture_tmp());
	f = fopen(path, "w+");
	ck_assert_ptr_nonnull(f);
	pvm_mytid();
	ck_assert_int_eq(pvm_catchout(f), PvmOk);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	pvm_exit();		/* waits for the child's output to end */
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		snprintf(expect, sizeof(expect), "[t%x] ", tid);
		ck_assert(strncmp(line, expect, strlen(expect)) == 0);
		saw_begin |= strstr(line, "BEGIN") != NULL;
		saw_end |= strstr(line, "EOF") != NULL;
		saw_one |= strstr(line, "line one") != NULL;
		lines++;
	}
	fclose(f);
	ck_assert(saw_begin && saw_end && saw_one);
	ck_assert_int_eq(lines, 5);
}
END_TEST

START_TEST(exported_variables_reach_spawned_tasks)
{
	char *av[] = { args("env"), NULL }, buf[64];
	int tid;

	setenv("COPVM_TEST_VAR", "hello-export", 1);
	pvm_mytid();
	ck_assert_int_eq(pvm_export("COPVM_TEST_VAR"), PvmOk);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	ck_assert_int_gt(pvm_recv(tid, 4), 0);
	pvm_upkstr(buf);
	ck_assert_str_eq(buf, "hello-export");
	ck_assert_int_eq(pvm_unexport("COPVM_TEST_VAR"), PvmOk);
	ck_assert_ptr_null(strstr(getenv("PVM_EXPORT"), "COPVM_TEST_VAR"));
	pvm_exit();
}
END_TEST

static Suite *control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc = tcase_create("tasks");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, spawn_runs_a_task_that_talks_back);
	tcase_add_test(tc, spawn_failures_are_reported_in_the_tid_array);
	tcase_add_test(tc, siblings_and_parent_are_those_of_the_spawn);
	tcase_add_test(tc, no_spawn_parent_leaves_the_parent_unset);
	tcase_add_test(tc, notify_task_exit_fires_for_kill_and_for_dead_tids);
	tcase_add_test(tc, config_and_mstat_describe_this_host);
	tcase_add_test(tc, catchout_copies_child_output_with_tids);
	tcase_add_test(tc, exported_variables_reach_spawned_tasks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(control_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

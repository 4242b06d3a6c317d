/*
 * check_mbox.c - the mailbox as a program sees it (lib/mbox.c with
 * pvmd's store): default, multi-instance, overwritable, first-available,
 * read-and-delete, persistent entries, owners' rights, class listing and
 * the old insert/lookup/delete calls.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

static int make_int_buf(int v)
{
	int b = pvm_mkbuf(PvmDataDefault), old = pvm_setsbuf(b);

	pvm_pkint(&v, 1, 1);
	pvm_setsbuf(old);
	return b;
}

static int read_entry(const char *name, int index, int flags)
{
	int b = pvm_recvinfo((char *)name, index, flags), v = -1, old;

	if (b < 0)
		return b;
	old = pvm_setrbuf(b);
	pvm_upkint(&v, 1, 1);
	pvm_setrbuf(old);
	pvm_freebuf(b);
	return v;
}

START_TEST(default_entry_is_replaced_by_its_owner)
{
	int b1, b2;

	pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	b1 = make_int_buf(11);
	b2 = make_int_buf(22);
	ck_assert_int_eq(pvm_putinfo("one", b1, PvmMboxDefault), 0);
	ck_assert_int_eq(read_entry("one", 0, PvmMboxDefault), 11);
	/* Only the owner may modify a default entry (others: see below). */
	ck_assert_int_eq(pvm_putinfo("one", b2, PvmMboxDefault), 0);
	ck_assert_int_eq(read_entry("one", 0, PvmMboxDefault), 22);
	ck_assert_int_eq(read_entry("nothing", 0, 0), PvmNotFound);
	ck_assert_int_eq(pvm_delinfo("one", 0, 0), PvmOk);
	ck_assert_int_eq(read_entry("one", 0, 0), PvmNotFound);
	ck_assert_int_eq(pvm_delinfo("one", 0, 0), PvmNotFound);
	pvm_exit();
}
END_TEST

/* As pvm_recv: the entry's buffer becomes the receive buffer and the
 * previous receive buffer is freed. */
START_TEST(recvinfo_makes_its_buffer_the_receive_buffer)
{
	int me, old, b, v = 0;

	me = pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_putinfo("active", make_int_buf(33),
				     PvmMboxDefault), 0);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	ck_assert_int_eq(pvm_send(me, 7), PvmOk);
	old = pvm_recv(me, 7);
	ck_assert_int_gt(old, 0);
	b = pvm_recvinfo("active", 0, PvmMboxDefault);
	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(pvm_getrbuf(), b);
	ck_assert_int_eq(pvm_upkint(&v, 1, 1), PvmOk);
	ck_assert_int_eq(v, 33);
	ck_assert_int_eq(pvm_bufinfo(old, NULL, NULL, NULL), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_delinfo("active", 0, 0), PvmOk);
	pvm_exit();
}
END_TEST

START_TEST(multi_instance_and_first_available)
{
	int i, n;
	struct pvmmboxinfo *cl;

	pvm_mytid();
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pvm_putinfo("multi", make_int_buf(100 + i),
					     PvmMboxMultiInstance), i);
	ck_assert_int_eq(read_entry("multi", 2, 0), 102);
	ck_assert_int_eq(pvm_delinfo("multi", 0, 0), PvmOk);
	ck_assert_int_eq(read_entry("multi", 0, PvmMboxFirstAvail), 101);
	ck_assert_int_eq(pvm_getmboxinfo("mul*", &n, &cl), PvmOk);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(cl[0].mi_name, "multi");
	ck_assert_int_eq(cl[0].mi_nentries, 2);
	ck_assert_int_eq(cl[0].mi_indices[0], 1);
	ck_assert_int_eq(cl[0].mi_owners[0], pvm_mytid());
	pvm_exit();
}
END_TEST

START_TEST(read_and_delete_removes_the_entry)
{
	pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_putinfo("rad", make_int_buf(5), 0), 0);
	ck_assert_int_eq(read_entry("rad", 0, PvmMboxReadAndDelete), 5);
	ck_assert_int_eq(read_entry("rad", 0, 0), PvmNotFound);
	pvm_exit();
}
END_TEST

/* An entry made by another task: others may not replace a default one,
 * may replace an overwritable one; non-persistent entries vanish with
 * their owner, persistent ones stay. */
START_TEST(owner_rights_and_persistence)
{
	int st;
	pid_t pid;

	pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	pid = fork();
	if (pid == 0) {
		pvm_mytid();
		pvm_putinfo("theirs", make_int_buf(1), PvmMboxDefault);
		pvm_putinfo("shared", make_int_buf(2), PvmMboxOverWritable);
		pvm_putinfo("kept", make_int_buf(3), PvmMboxPersistent);
		pvm_putinfo("gone", make_int_buf(4), PvmMboxDefault);
		if (fork() == 0) {
			/* a third task checks rights while the owner lives */
			int r1, r2;

			pvm_mytid();
			pvm_setopt(PvmAutoErr, 0);
			r1 = pvm_putinfo("theirs", make_int_buf(9), 0);
			r2 = pvm_delinfo("theirs", 0, 0);
			pvm_exit();
			_exit(r1 == PvmDenied && r2 == PvmDenied ? 0 : 1);
		}
		wait(&st);
		pvm_exit();
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(read_entry("kept", 0, 0), 3);
	ck_assert_int_eq(read_entry("gone", 0, 0), PvmNotFound);
	pvm_exit();
}
END_TEST

START_TEST(overwritable_entry_can_be_replaced)
{
	pvm_mytid();
	ck_assert_int_eq(pvm_putinfo("ow", make_int_buf(1),
				     PvmMboxOverWritable), 0);
	ck_assert_int_ge(pvm_putinfo("ow", make_int_buf(2),
				     PvmMboxOverWritable), 0);
	ck_assert_int_eq(read_entry("ow", 0, 0), 2);
	pvm_exit();
}
END_TEST

START_TEST(wait_for_info_blocks_until_an_entry_appears)
{
	pid_t pid;
	int st;

	pvm_mytid();
	pid = fork();
	if (pid == 0) {
		usleep(200000);
		pvm_mytid();
		pvm_putinfo("later", make_int_buf(77), PvmMboxPersistent);
		pvm_exit();
		_exit(0);
	}
	ck_assert_int_eq(read_entry("later", 0, PvmMboxWaitForInfo), 77);
	waitpid(pid, &st, 0);
	pvm_exit();
}
END_TEST

START_TEST(old_name_service_calls)
{
	int data = 0;

	pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_ge(pvm_insert("svc", -1, 1234), 0);
	ck_assert_int_ge(pvm_lookup("svc", -1, &data), 0);
	ck_assert_int_eq(data, 1234);
	ck_assert_int_eq(pvm_lookup("nosvc", -1, &data), PvmNoEntry);
	ck_assert_int_eq(pvm_putinfo(NULL, 1, 0), PvmBadParam);
	ck_assert_int_eq(pvm_putinfo("x", 99999, 0), PvmNoSuchBuf);
	pvm_exit();
}
END_TEST

static Suite *mbox_suite(void)
{
	Suite *s = suite_create("mbox");
	TCase *tc = tcase_create("mailbox");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, default_entry_is_replaced_by_its_owner);
	tcase_add_test(tc, recvinfo_makes_its_buffer_the_receive_buffer);
	tcase_add_test(tc, multi_instance_and_first_available);
	tcase_add_test(tc, read_and_delete_removes_the_entry);
	tcase_add_test(tc, owner_rights_and_persistence);
	tcase_add_test(tc, overwritable_entry_can_be_replaced);
	tcase_add_test(tc, wait_for_info_blocks_until_an_entry_appears);
	tcase_add_test(tc, old_name_service_calls);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mbox_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

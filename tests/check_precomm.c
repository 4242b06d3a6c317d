/*
 * check_precomm.c - tests of precommunication (lib/precomm.c,
 * pvm_indication) against a private daemon: an indicated message reaches
 * the receiver exactly as a plain send would (bytes, tag, source), sends
 * keep program order, and each misuse (never sent, another buffer, a
 * buffer packed further, a dead destination, too many, bad arguments)
 * behaves as pvm_indication(3) documents.  The peer is tests/task_child
 * in "mirror" mode, which sends back what it received; a body here is
 * (int n, n bytes) pairs.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copvm.h"
#include "pvm3.h"
#include "vm_fixture.h"

#ifndef TASK_CHILD
#error "TASK_CHILD must name the built tests/task_child"
#endif

#define MIRROR_TAG	100
#define BIG		(64 * 1024 + 7)

struct echo {
	int src, tag, len;
	char *bytes;
};

static int spawn_mirror(void)
{
	char *av[] = { "mirror", NULL };
	int tid;

	ck_assert_int_gt(pvm_mytid(), 0);
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, av, 0, NULL, 1, &tid), 1);
	return tid;
}

static void stop_mirror(int tid)
{
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, 99);
}

/* Receives the mirror's report of the next message it got. */
static struct echo next_echo(int tid)
{
	struct echo e;
	int info[3];

	ck_assert_int_gt(pvm_recv(tid, MIRROR_TAG), 0);
	ck_assert_int_eq(pvm_upkint(info, 3, 1), PvmOk);
	e.src = info[0];
	e.tag = info[1];
	e.len = info[2];
	e.bytes = calloc(1, e.len > 0 ? e.len : 1);
	if (e.len > 0)
		ck_assert_int_eq(pvm_upkbyte(e.bytes, e.len, 1), PvmOk);
	return e;
}

/* A new active send buffer holding `len' bytes of pattern `seed'. */
static int packed(int len, int seed)
{
	char *p = malloc(len);
	int b, i;

	for (i = 0; i < len; i++)
		p[i] = (char)(i * 7 + seed);
	b = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(b);
	pvm_pkint(&len, 1, 1);
	pvm_pkbyte(p, len, 1);
	free(p);
	return b;
}

static void check_echo(struct echo e, int tag, int len, int seed)
{
	int i;

	ck_assert_int_eq(e.src, pvm_mytid());
	ck_assert_int_eq(e.tag, tag);
	ck_assert_int_eq(e.len, len);
	for (i = 0; i < len; i++)
		ck_assert_int_eq(e.bytes[i], (char)(i * 7 + seed));
	free(e.bytes);
}

/* The same bytes sent plain and sent after an indication and a receive
 * arrive the same (bytes, tag, source), small and large. */
START_TEST(indicated_message_is_identical_to_a_plain_send)
{
	int c = spawn_mirror(), sizes[] = { 0, 8, 4096, BIG }, i;

	for (i = 0; i < 4; i++) {
		packed(sizes[i], i);
		ck_assert_int_eq(pvm_send(c, 10), PvmOk);
		packed(sizes[i], i);
		ck_assert_int_eq(pvm_indication(c, 11), PvmOk);
		/* waits for the first echo: the indicated one is staged */
		check_echo(next_echo(c), 10, sizes[i], i);
		ck_assert_int_eq(pvm_send(c, 11), PvmOk);
		check_echo(next_echo(c), 11, sizes[i], i);
	}
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* An indicated send leaves after the sends called before it, and before
 * those called after it, whatever the staging did meanwhile. */
START_TEST(sends_keep_program_order)
{
	int c = spawn_mirror(), a, b;

	a = packed(5000, 1);
	ck_assert_int_eq(pvm_indication(c, 20), PvmOk);
	b = packed(300, 2);
	ck_assert_int_eq(pvm_send(c, 21), PvmOk);
	check_echo(next_echo(c), 21, 300, 2);	/* A is staged meanwhile */
	ck_assert_int_eq(pvm_send(c, 22), PvmOk);
	pvm_setsbuf(a);
	ck_assert_int_eq(pvm_send(c, 20), PvmOk);
	pvm_setsbuf(b);
	ck_assert_int_eq(pvm_send(c, 23), PvmOk);
	check_echo(next_echo(c), 22, 300, 2);
	check_echo(next_echo(c), 20, 5000, 1);
	check_echo(next_echo(c), 23, 300, 2);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* At most 8 indications pend; one more fails with PvmNoMem.  Those never
 * sent expire at the second blocking receive, freeing their places. */
START_TEST(too_many_fail_and_unsent_ones_expire)
{
	int c = spawn_mirror(), i;

	pvm_setopt(PvmAutoErr, 0);
	packed(100, 3);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pvm_indication(c, 30 + i), PvmOk);
	ck_assert_int_eq(pvm_indication(c, 40), PvmNoMem);
	/* a newer indication of a pending (tid, tag) replaces it */
	ck_assert_int_eq(pvm_indication(c, 30), PvmOk);
	ck_assert_int_eq(pvm_send(c, 50), PvmOk);
	check_echo(next_echo(c), 50, 100, 3);	/* stages them */
	ck_assert_int_eq(pvm_send(c, 51), PvmOk);
	check_echo(next_echo(c), 51, 100, 3);	/* expires them */
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pvm_indication(c, 60 + i), PvmOk);
	/* left pending at exit: freed there */
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* A send of another buffer to the indicated (tid, tag) sends that buffer
 * and drops the indication; so does a buffer packed further after it. */
START_TEST(another_or_changed_buffer_is_sent_plain)
{
	int c = spawn_mirror(), a;
	char more[10] = "0123456789";
	int ten = 10;

	a = packed(2000, 4);
	ck_assert_int_eq(pvm_indication(c, 70), PvmOk);
	ck_assert_int_eq(pvm_send(c, 1), PvmOk);
	check_echo(next_echo(c), 1, 2000, 4);	/* staged */
	packed(700, 5);
	ck_assert_int_eq(pvm_send(c, 70), PvmOk);
	check_echo(next_echo(c), 70, 700, 5);
	pvm_setsbuf(a);
	ck_assert_int_eq(pvm_send(c, 70), PvmOk);
	check_echo(next_echo(c), 70, 2000, 4);

	ck_assert_int_eq(pvm_indication(c, 71), PvmOk);
	ck_assert_int_eq(pvm_send(c, 2), PvmOk);
	check_echo(next_echo(c), 2, 2000, 4);	/* staged */
	pvm_pkint(&ten, 1, 1);
	pvm_pkbyte(more, 10, 1);
	ck_assert_int_eq(pvm_send(c, 71), PvmOk);
	{
		struct echo e = next_echo(c);

		ck_assert_int_eq(e.tag, 71);
		ck_assert_int_eq(e.len, 2010);
		ck_assert_int_eq(memcmp(e.bytes + 2000, more, 10), 0);
		free(e.bytes);
	}
	stop_mirror(c);
	pvm_exit();
}
END_TEST

/* An indicated send to a task that is gone answers as a plain one. */
START_TEST(dead_destination_answers_as_a_plain_send)
{
	int c = spawn_mirror(), dead, plain, indicated;

	/* a task of this host that does not exist */
	dead = (pvm_mytid() & ~0x3ffff) | 0x3fff0;
	packed(100, 6);
	plain = pvm_send(dead, 80);
	ck_assert_int_eq(pvm_indication(dead, 80), PvmOk);
	ck_assert_int_eq(pvm_send(c, 3), PvmOk);
	check_echo(next_echo(c), 3, 100, 6);	/* staging fails quietly */
	indicated = pvm_send(dead, 80);
	ck_assert_int_eq(indicated, plain);
	/* and the circuit that works still does */
	ck_assert_int_eq(pvm_send(c, 4), PvmOk);
	check_echo(next_echo(c), 4, 100, 6);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

START_TEST(bad_arguments_get_error_codes)
{
	int c = spawn_mirror();

	pvm_setopt(PvmAutoErr, 0);
	packed(10, 7);
	ck_assert_int_eq(pvm_indication(c, -1), PvmBadParam);
	ck_assert_int_eq(pvm_indication(0, 5), PvmBadParam);
	ck_assert_int_eq(pvm_indication(-7, 5), PvmBadParam);
	pvm_setsbuf(0);
	ck_assert_int_eq(pvm_indication(c, 5), PvmNoBuf);
	stop_mirror(c);
	pvm_exit();
}
END_TEST

static Suite *precomm_suite(void)
{
	Suite *s = suite_create("precomm");
	TCase *tc = tcase_create("indication");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup,
				    vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, indicated_message_is_identical_to_a_plain_send);
	tcase_add_test(tc, sends_keep_program_order);
	tcase_add_test(tc, too_many_fail_and_unsent_ones_expire);
	tcase_add_test(tc, another_or_changed_buffer_is_sent_plain);
	tcase_add_test(tc, dead_destination_answers_as_a_plain_send);
	tcase_add_test(tc, bad_arguments_get_error_codes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(precomm_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/*
 * check_shm_lend.c - large bodies lent between tasks of one host
 * (lib/bufheap.c, lib/bufloan.c, REC_LEND in lib/transport/shm.c): the
 * receiver reads them in the sender's heap, intact; a receiver that
 * keeps more than the heap holds still gets them all (the rest go
 * through the ring); a lent body outlives its sender; and a receiver
 * that does not map the heap, or a sender with lending off, gets the
 * same bytes through the ring.
 *
 * Whether a body was read in place is seen from outside the library:
 * the pages of the sender's heap that this process has touched, in its
 * read-only mapping of that heap (/proc/self/smaps).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#define TAG_DATA	21
#define TAG_ECHO	22
#define MB		(1 << 20)
#define BODY		(4 * MB)

/* What the sender sends: `n' messages of `len' bytes, pattern `seed + i'
 * with their checksum. */
static int n_msgs = 4;
static int msg_len = BODY;

/* KiB of the peers' heaps this process has read (read-only mappings of
 * a copvm-heap memfd), or -1 when there is no such mapping. */
static long heap_rss_kb(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");
	long kb = -1, v;
	int in = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			/* a mapping's first line: range perms ... name */
			in = strstr(line, "copvm-heap") &&
			     strstr(line, " r--s ");
			if (in && kb < 0)
				kb = 0;
		} else if (in && sscanf(line, "Rss: %ld kB", &v) == 1) {
			kb += v;
		}
	}
	fclose(f);
	return kb;
}

/* Sends n_msgs messages of msg_len bytes, each after the parent's go. */
static int sender(int parent)
{
	unsigned char *p = malloc(msg_len);
	unsigned int sum;
	int i;

	for (i = 0; i < n_msgs; i++) {
		vm_fill(p, msg_len, (unsigned)i);
		sum = vm_checksum(p, msg_len);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		pvm_pkuint(&sum, 1, 1);
		pvm_pkbyte((char *)p, msg_len, 1);
		if (pvm_send(parent, TAG_DATA) < 0)
			return 1;
	}
	free(p);
	return 0;
}

/* Unpacks message `bufid' as sender() packed it; 0 when intact. */
static int check_msg(int bufid, int want)
{
	static unsigned char *in;
	unsigned int sum;
	int i;

	if (!in)
		in = malloc(16 * MB);
	pvm_setrbuf(bufid);
	if (pvm_upkint(&i, 1, 1) < 0 || pvm_upkuint(&sum, 1, 1) < 0 ||
	    pvm_upkbyte((char *)in, msg_len, 1) < 0)
		return -1;
	return i == want && vm_checksum(in, msg_len) == sum ? 0 : -1;
}

/* A first small message each way, so that the circuits are on their
 * rings before the large ones. */
static int warm_child(int parent)
{
	vm_send_int(parent, TAG_ECHO, 1);
	if (vm_recv_int(parent, TAG_ECHO) != 2)
		return 1;
	vm_send_int(parent, TAG_ECHO, 3);
	return sender(parent);
}

static int start(pid_t *pid)
{
	int me = pvm_mytid(), kid;

	ck_assert_int_gt(me, 0);
	kid = vm_fork_task(warm_child, me, pid);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), 1);
	vm_send_int(kid, TAG_ECHO, 2);
	ck_assert_int_eq(vm_recv_int(kid, TAG_ECHO), 3);
	return kid;
}

START_TEST(large_bodies_are_read_where_the_sender_packed_them)
{
	pid_t pid;
	int kid, i, b;

	vm_set_shm(0);
	if (_i)
		setenv("COPVM_SHM_HEAP_MB", "0", 1);	/* the control */
	kid = start(&pid);
	for (i = 0; i < n_msgs; i++) {
		b = pvm_recv(kid, TAG_DATA);
		ck_assert_int_gt(b, 0);
		ck_assert_int_eq(check_msg(b, i), 0);
	}
	if (_i)
		ck_assert_int_eq(heap_rss_kb(), -1);
	else	/* at least one body's pages read in the sender's heap */
		ck_assert_int_ge(heap_rss_kb(), BODY / 1024);
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

START_TEST(a_receiver_that_keeps_every_message_gets_them_all)
{
	int bufs[40], kid, i;
	pid_t pid;

	/* 40 x 3 MiB, twice what the sender's heap holds */
	n_msgs = 40;
	msg_len = 3 * MB;
	setenv("COPVM_SHM_HEAP_MB", "64", 1);
	vm_set_shm(0);
	kid = start(&pid);
	for (i = 0; i < n_msgs; i++) {
		bufs[i] = pvm_recv(kid, TAG_DATA);
		ck_assert_int_gt(bufs[i], 0);
		pvm_setrbuf(0);	/* kept: never freed by the next receive */
	}
	vm_wait_ok(pid);
	for (i = 0; i < n_msgs; i++)
		ck_assert_int_eq(check_msg(bufs[i], i), 0);
	ck_assert_int_gt(heap_rss_kb(), 0);
	pvm_exit();
}
END_TEST

START_TEST(a_lent_body_outlives_its_sender)
{
	pid_t pid;
	int kid, i, b;

	/* two, as many as a sender lends however much they weigh: more
	 * would go through the ring, and wait there for us to read */
	n_msgs = 2;
	msg_len = 16 * MB;
	vm_set_shm(0);
	kid = start(&pid);
	/* it sent them and left before we read any */
	vm_wait_ok(pid);
	for (i = 0; i < n_msgs; i++) {
		b = pvm_recv(kid, TAG_DATA);
		ck_assert_int_gt(b, 0);
		ck_assert_int_eq(check_msg(b, i), 0);
	}
	ck_assert_int_ge(heap_rss_kb(), 2 * 16 * MB / 1024);
	pvm_exit();
}
END_TEST

START_TEST(a_receiver_that_does_not_map_the_heap_gets_the_bytes)
{
	pid_t pid;
	int kid, i, b;

	setenv("COPVM_SHM_FAULT", "heap", 1);
	vm_set_shm(0);
	kid = start(&pid);
	for (i = 0; i < n_msgs; i++) {
		b = pvm_recv(kid, TAG_DATA);
		ck_assert_int_gt(b, 0);
		ck_assert_int_eq(check_msg(b, i), 0);
	}
	ck_assert_int_eq(heap_rss_kb(), -1);
	ck_assert_int_gt(vm_ring_maps(), 0);	/* the ring carried them */
	vm_wait_ok(pid);
	pvm_exit();
}
END_TEST

static Suite *shm_lend_suite(void)
{
	Suite *s = suite_create("shm_lend");
	TCase *tc = tcase_create("lend");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc,
			    large_bodies_are_read_where_the_sender_packed_them,
			    0, 2);
	tcase_add_test(tc, a_receiver_that_keeps_every_message_gets_them_all);
	tcase_add_test(tc, a_lent_body_outlives_its_sender);
	tcase_add_test(tc, a_receiver_that_does_not_map_the_heap_gets_the_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(shm_lend_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

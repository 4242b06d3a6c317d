/*
 * check_bufheap.c - the export heap and its loans (lib/bufheap.c,
 * lib/bufloan.c, through lib/bufcache.c): a block lent stays until the
 * loan comes back, then is reused; a borrower reads the lender's bytes
 * and gives back through the slot page; a loan outside the heap, a heap
 * that could shrink, a full slot table, the bound on what one circuit
 * holds, and a dead borrower; a pack onto a loan; and a fork that keeps its own copies of what it inherited.
 *
 * One process plays both parts: it maps its own heap as a borrower
 * would (pvmi_loan_map of pvmi_heap_fd), which is what a peer maps.
 * Each test runs in its own process (Check's fork mode), so each starts
 * with no heap.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bufcache.h"
#include "bufheap.h"

#define MB	(1UL << 20)

/* A heap of `mb' MiB, made; its fd. */
static int make_heap(int mb)
{
	char v[16];
	int fd;

	snprintf(v, sizeof(v), "%d", mb);
	setenv("COPVM_SHM_HEAP_MB", v, 1);
	fd = pvmi_heap_fd();
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* The loan of `len' bytes at `p' in our own heap, as a borrower. */
static unsigned char *borrow(struct pvmi_heap_map *m, void *p, size_t len)
{
	struct pvmi_heap_ref ref;
	unsigned char *b;

	ck_assert_int_eq(pvmi_heap_lend(p, len, getpid(), NULL, ~0UL, &ref), 0);
	b = pvmi_loan_take(m, &ref);
	ck_assert_ptr_nonnull(b);
	return b;
}

START_TEST(a_lent_block_is_kept_until_the_loan_comes_back)
{
	struct pvmi_heap_map *m = pvmi_loan_map(make_heap(16));
	unsigned char *a, *b, *loan;

	ck_assert_ptr_nonnull(m);
	a = pvmi_heap_alloc(3 * MB);
	ck_assert_ptr_nonnull(a);
	memset(a, 0x5a, 3 * MB);
	loan = borrow(m, a, 3 * MB);
	ck_assert_ptr_ne(loan, a);	/* another mapping of the same bytes */
	ck_assert_int_eq(loan[0], 0x5a);
	ck_assert_int_eq(loan[3 * MB - 1], 0x5a);
	ck_assert_int_eq(pvmi_heap_free(a), 1);
	/* freed by its owner but lent: its place is not given again */
	b = pvmi_heap_alloc(3 * MB);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(b, a);
	ck_assert_int_eq(pvmi_heap_lent(), 1);
	ck_assert_int_eq(pvmi_loan_len(loan), 3 * MB);
	ck_assert_int_eq(pvmi_loan_end(loan), 1);
	ck_assert_int_eq(pvmi_loan_end(loan), 0);
	ck_assert_int_eq(pvmi_heap_lent(), 0);
	ck_assert_int_eq(pvmi_heap_lends(), 1);
	/* back: first fit finds it again */
	ck_assert_ptr_eq(pvmi_heap_alloc(2 * MB), a);
	pvmi_loan_unmap(m);
}
END_TEST

START_TEST(a_loan_outside_the_heap_is_refused)
{
	struct pvmi_heap_map *m = pvmi_loan_map(make_heap(8));
	struct pvmi_heap_ref ref = { 0, 4096, 0, 1 };
	int outside = 0;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(pvmi_loan_take(m, &ref));
	ref.off = 8 * MB - 4096;
	ck_assert_ptr_nonnull(pvmi_loan_take(m, &ref));
	ref.off = 8 * MB - 4095;		/* one byte past the end */
	ck_assert_ptr_null(pvmi_loan_take(m, &ref));
	ref.off = ~0ULL - 10;			/* wraps around */
	ck_assert_ptr_null(pvmi_loan_take(m, &ref));
	ref.off = 0;
	ref.len = 0;
	ck_assert_ptr_null(pvmi_loan_take(m, &ref));
	ref.len = 4096;
	ref.slot = PVMI_HEAP_SLOTS;
	ck_assert_ptr_null(pvmi_loan_take(m, &ref));
	/* and the lender lends only what lies inside one of its blocks */
	ck_assert_int_ne(pvmi_heap_lend(&outside, 4, getpid(), NULL, ~0UL, &ref), 0);
	{
		unsigned char *a = pvmi_heap_alloc(MB);

		ck_assert_int_ne(pvmi_heap_lend(a, 2 * MB, getpid(), NULL, ~0UL, &ref),
				 0);
		ck_assert_int_eq(pvmi_heap_lend(a + 10, MB - 10, getpid(),
						NULL, ~0UL, &ref), 0);
	}
}
END_TEST

START_TEST(a_heap_that_could_shrink_is_not_mapped)
{
	int fd = memfd_create("not-sealed", MFD_CLOEXEC);
	char path[] = "/tmp/check_bufheap.XXXXXX";
	int file = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 16 * MB), 0);
	ck_assert_ptr_null(pvmi_loan_map(fd));
	ck_assert_int_ge(file, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(file, 16 * MB), 0);
	ck_assert_ptr_null(pvmi_loan_map(file));
	ck_assert_ptr_null(pvmi_loan_map(-1));
	/* sealed but no page past the slots */
	close(fd);
	fd = memfd_create("tiny", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_eq(ftruncate(fd, PVMI_HEAP_DATA_OFF), 0);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	ck_assert_ptr_null(pvmi_loan_map(fd));
}
END_TEST

START_TEST(slots_run_out_and_lending_then_refuses)
{
	unsigned char *a;
	struct pvmi_heap_ref ref;
	int i;

	make_heap(8);
	a = pvmi_heap_alloc(MB);
	ck_assert_ptr_nonnull(a);
	for (i = 0; i < PVMI_HEAP_SLOTS; i++)
		ck_assert_int_eq(pvmi_heap_lend(a, MB, getpid(), NULL, ~0UL, &ref), 0);
	ck_assert_int_ne(pvmi_heap_lend(a, MB, getpid(), NULL, ~0UL, &ref), 0);
	/* a loan whose record was never sent comes straight back */
	ck_assert_int_eq(pvmi_heap_lent(), PVMI_HEAP_SLOTS);
	pvmi_heap_unlend(&ref);
	ck_assert_int_eq(pvmi_heap_lent(), PVMI_HEAP_SLOTS - 1);
	ck_assert_int_eq(pvmi_heap_lend(a, MB, getpid(), NULL, ~0UL, &ref), 0);
}
END_TEST

START_TEST(two_loans_go_over_a_circuit_then_its_cap_bounds_them)
{
	struct pvmi_heap_ref r[6];
	unsigned char *a;
	int one, other, i;

	make_heap(16);
	a = pvmi_heap_alloc(8 * MB);
	ck_assert_ptr_nonnull(a);
	/* two go out whatever they weigh: a ping-pong's */
	ck_assert_int_eq(pvmi_heap_lend(a, 6 * MB, 1, &one, 4 * MB, &r[0]), 0);
	ck_assert_int_eq(pvmi_heap_lend(a, 6 * MB, 1, &one, 4 * MB, &r[1]), 0);
	ck_assert_int_ne(pvmi_heap_lend(a, 1, 1, &one, 4 * MB, &r[2]), 0);
	/* another circuit has a cap of its own */
	ck_assert_int_eq(pvmi_heap_lend(a, 6 * MB, 1, &other, 4 * MB, &r[2]),
			 0);
	pvmi_heap_unlend(&r[0]);
	pvmi_heap_unlend(&r[1]);
	/* then up to the cap */
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pvmi_heap_lend(a, MB, 1, &one, 4 * MB, &r[i]),
				 0);
	ck_assert_int_ne(pvmi_heap_lend(a, MB, 1, &one, 4 * MB, &r[4]), 0);
	pvmi_heap_unlend(&r[3]);
	ck_assert_int_eq(pvmi_heap_lend(a, MB, 1, &one, 4 * MB, &r[4]), 0);
}
END_TEST

START_TEST(loans_of_a_dead_borrower_come_back_when_the_heap_runs_short)
{
	unsigned char *a;
	struct pvmi_heap_ref ref;
	pid_t kid;
	int st;

	make_heap(8);
	a = pvmi_heap_alloc(6 * MB);
	ck_assert_ptr_nonnull(a);
	kid = fork();
	if (kid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(kid, &st, 0), kid);
	ck_assert_int_eq(pvmi_heap_lend(a, 6 * MB, kid, NULL, ~0UL, &ref), 0);
	pvmi_heap_free(a);
	/* the borrower never gave back; it is dead, so the room is ours */
	ck_assert_ptr_eq(pvmi_heap_alloc(7 * MB), a);
	ck_assert_int_eq(pvmi_heap_lent(), 0);
}
END_TEST

START_TEST(a_live_borrower_keeps_its_block)
{
	unsigned char *a;
	struct pvmi_heap_ref ref;

	make_heap(8);
	a = pvmi_heap_alloc(6 * MB);
	ck_assert_int_eq(pvmi_heap_lend(a, 6 * MB, getpid(), NULL, ~0UL, &ref), 0);
	pvmi_heap_free(a);
	ck_assert_ptr_null(pvmi_heap_alloc(7 * MB));
	ck_assert_int_eq(pvmi_heap_lent(), 1);
}
END_TEST

START_TEST(a_pack_onto_a_loan_moves_it_into_our_own_buffer)
{
	struct pvmi_heap_map *m = pvmi_loan_map(make_heap(16));
	unsigned char *a, *loan, *own;

	a = pvmi_buf_alloc(3 * MB);	/* from the heap: above the classes */
	memset(a, 7, 3 * MB);
	loan = borrow(m, a, 3 * MB);	/* which only a heap block can be */
	ck_assert_uint_eq(pvmi_buf_cap(loan), 3 * MB);
	own = pvmi_buf_realloc(loan, 3 * MB + 100);
	ck_assert_ptr_nonnull(own);
	ck_assert_ptr_ne(own, loan);
	ck_assert_int_eq(own[3 * MB - 1], 7);
	ck_assert_int_eq(pvmi_loans_live, 0);
	ck_assert_int_eq(pvmi_heap_lent(), 0);	/* given back */
	own[3 * MB] = 1;			/* and ours to write */
	/* a loan freed as any body is given back too */
	loan = borrow(m, a, 3 * MB);
	pvmi_buf_free(loan);
	ck_assert_int_eq(pvmi_heap_lent(), 0);
	pvmi_buf_free(own);
	pvmi_buf_free(a);
}
END_TEST

START_TEST(a_fork_keeps_its_own_copy_of_what_it_inherited)
{
	struct pvmi_heap_map *m = pvmi_loan_map(make_heap(16));
	unsigned char *a, *loan, *again;
	int go[2], done[2], st;
	char c;
	pid_t kid;

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(done), 0);
	a = pvmi_heap_alloc(2 * MB);
	memset(a, 'x', 2 * MB);
	loan = borrow(m, a, 2 * MB);
	pvmi_heap_free(a);
	kid = fork();
	if (kid == 0) {
		int bad = 0;

		/* the child's loan is not its own to give back */
		bad |= pvmi_loan_end(loan) != 1;
		bad |= write(done[1], "", 1) != 1;
		bad |= read(go[0], &c, 1) != 1;
		/* its parent wrote 'y' where its copy was */
		bad |= loan[0] != 'x' || loan[2 * MB - 1] != 'x';
		bad |= pvmi_heap_alloc(MB) != NULL;	/* and lends none */
		_exit(bad);
	}
	ck_assert_int_eq(read(done[0], &c, 1), 1);
	ck_assert_int_eq(pvmi_heap_lent(), 1);
	ck_assert_int_eq(pvmi_loan_end(loan), 1);
	again = pvmi_heap_alloc(2 * MB);
	ck_assert_ptr_eq(again, a);
	memset(again, 'y', 2 * MB);
	ck_assert_int_eq(write(go[1], "", 1), 1);
	ck_assert_int_eq(waitpid(kid, &st, 0), kid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

START_TEST(lending_is_off_with_a_heap_of_zero)
{
	setenv("COPVM_SHM_HEAP_MB", "0", 1);
	ck_assert_int_eq(pvmi_heap_fd(), -1);
	ck_assert_ptr_null(pvmi_heap_alloc(3 * MB));
	/* and the bodies above the classes come from malloc as before */
	{
		void *b = pvmi_buf_alloc(3 * MB);

		ck_assert_ptr_nonnull(b);
		pvmi_buf_free(b);
	}
}
END_TEST

START_TEST(an_idle_heap_is_closed_as_the_task_leaves)
{
	unsigned char *a;

	make_heap(8);
	a = pvmi_heap_alloc(MB);
	pvmi_heap_release();
	ck_assert_int_ge(fcntl(make_heap(8), F_GETFD), 0);	/* in use */
	pvmi_heap_free(a);
	{
		int fd = pvmi_heap_fd();

		pvmi_heap_release();
		ck_assert_int_lt(fcntl(fd, F_GETFD), 0);
		/* a later offer makes a new one */
		ck_assert_int_ge(pvmi_heap_fd(), 0);
	}
}
END_TEST

static Suite *bufheap_suite(void)
{
	Suite *s = suite_create("bufheap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_lent_block_is_kept_until_the_loan_comes_back);
	tcase_add_test(tc, a_loan_outside_the_heap_is_refused);
	tcase_add_test(tc, a_heap_that_could_shrink_is_not_mapped);
	tcase_add_test(tc, slots_run_out_and_lending_then_refuses);
	tcase_add_test(tc, two_loans_go_over_a_circuit_then_its_cap_bounds_them);
	tcase_add_test(tc,
		       loans_of_a_dead_borrower_come_back_when_the_heap_runs_short);
	tcase_add_test(tc, a_live_borrower_keeps_its_block);
	tcase_add_test(tc, a_pack_onto_a_loan_moves_it_into_our_own_buffer);
	tcase_add_test(tc, a_fork_keeps_its_own_copy_of_what_it_inherited);
	tcase_add_test(tc, lending_is_off_with_a_heap_of_zero);
	tcase_add_test(tc, an_idle_heap_is_closed_as_the_task_leaves);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bufheap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

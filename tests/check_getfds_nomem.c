/*
 * check_getfds_nomem.c - pvm_getfds() (lib/options.c) when its list
 * cannot grow: it says PvmNoMem and leaves *fds alone, and once memory
 * is back the next call lists the epoll set, then one fd per direct
 * circuit of another task, as if nothing had failed.  The list starts
 * at 16 entries and doubles, so its first growth is a process's first
 * call and its second needs 16 circuits.
 *
 * The failures come from tests/tools/alloc_count.so, armed through
 * alloc_count_fail_realloc() for one pointer and size only; main()
 * preloads it by running itself again.  Skips (77) under ASan, which
 * owns malloc.
 */
#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "vm_fixture.h"

#ifndef ALLOC_COUNT_SO
#error "ALLOC_COUNT_SO must name tests/tools/alloc_count.so"
#endif

#define TAG_DATA	31
#define NKIDS		16	/* 1 + 16 entries: the list's second growth */

static void (*fail_realloc)(void *p, size_t size, unsigned n);
static unsigned long (*failed)(void);

/* A pipe whose write end the test closes to let the kids leave. */
static int go[2] = { -1, -1 };

/* Sends the parent one int on a direct route, then waits to be let go
 * (EOF on the go pipe) so that the circuit stays up meanwhile. */
static int send_then_wait(int parent)
{
	char c;

	close(go[1]);
	pvm_setopt(PvmRoute, PvmRouteDirect);
	vm_send_int(parent, TAG_DATA, 77);
	return read(go[0], &c, 1) == 0 ? 0 : 4;
}

/* Whether /proc says that `fd' is open on something named `prefix'. */
static int fd_is(int fd, const char *prefix)
{
	char path[64], name[PATH_MAX];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, name, sizeof(name) - 1);
	if (len < 0)
		return 0;
	name[len] = '\0';
	return !strncmp(name, prefix, strlen(prefix));
}

/* Fails unless fds[0] is an epoll set and the other n - 1 entries are
 * distinct sockets. */
static void check_list(const int *fds, int n)
{
	int i, j;

	ck_assert_msg(fd_is(fds[0], "anon_inode:[eventpoll]"),
		      "fds[0] = %d is no epoll set", fds[0]);
	for (i = 1; i < n; i++) {
		ck_assert_msg(fd_is(fds[i], "socket:"),
			      "fds[%d] = %d is no socket", i, fds[i]);
		for (j = 0; j < i; j++)
			ck_assert_int_ne(fds[j], fds[i]);
	}
}

/* Makes realloc(p, size) fail once, `times' over: each time
 * pvm_getfds() must say PvmNoMem, leave *fds alone and have met that
 * failure. */
static void getfds_fails(void *p, size_t size, int times)
{
	static int poison;
	unsigned long before;
	int *fds, i;

	for (i = 0; i < times; i++) {
		before = failed();
		fail_realloc(p, size, 1);
		fds = &poison;
		ck_assert_int_eq(pvm_getfds(&fds), PvmNoMem);
		ck_assert_ptr_eq(fds, &poison);
		ck_assert_uint_eq(failed() - before, 1);
	}
	fail_realloc(NULL, 0, 0);
}

/* Forks `n' kids that each open a circuit to us, and takes their
 * messages: then we hold n established circuits of other tasks. */
static void start_kids(int me, int n, pid_t *pids)
{
	int i, kid;

	ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
	for (i = 0; i < n; i++) {
		kid = vm_fork_task(send_then_wait, me, &pids[i]);
		ck_assert_int_eq(vm_recv_int(kid, TAG_DATA), 77);
	}
	close(go[0]);
}

/* Lets the kids go and reaps them. */
static void end_kids(int n, const pid_t *pids)
{
	int i;

	close(go[1]);
	for (i = 0; i < n; i++)
		vm_wait_ok(pids[i]);
}

START_TEST(first_growth_fails_then_the_list_comes_whole)
{
	int me, *fds, first, second;
	pid_t pid;

	vm_set_shm(_i);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	pvm_setopt(PvmAutoErr, 0);
	pvm_setopt(PvmRoute, PvmRouteDirect);
	start_kids(me, 1, &pid);
	/* this process's first call: the list grows from nothing to 16 (a
	 * failed call may keep a list for the entries after the one that
	 * failed: no second failure to try on the same growth) */
	getfds_fails(NULL, 16 * sizeof(int), 1);
	ck_assert_int_eq(pvm_getfds(&fds), 2);
	check_list(fds, 2);
	first = fds[0];
	second = fds[1];
	ck_assert_int_eq(pvm_getfds(&fds), 2);
	ck_assert_int_eq(fds[0], first);
	ck_assert_int_eq(fds[1], second);
	end_kids(1, &pid);
	pvm_exit();
}
END_TEST

START_TEST(growth_past_16_fails_then_the_list_comes_whole)
{
	int me, *fds, *old, first;
	pid_t pids[NKIDS];

	vm_set_shm(_i);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	pvm_setopt(PvmAutoErr, 0);
	pvm_setopt(PvmRoute, PvmRouteDirect);
	ck_assert_int_eq(pvm_getfds(&old), 1);
	first = old[0];
	start_kids(me, NKIDS, pids);
	/* 1 + 16 entries: the list of 16 must double, in place or not; a
	 * failed growth must not count as done on the next call either */
	getfds_fails(old, 2 * 16 * sizeof(int), 2);
	ck_assert_int_eq(pvm_getfds(&fds), 1 + NKIDS);
	ck_assert_int_eq(fds[0], first);
	check_list(fds, 1 + NKIDS);
	end_kids(NKIDS, pids);
	pvm_exit();
}
END_TEST

static Suite *getfds_nomem_suite(void)
{
	Suite *s = suite_create("getfds_nomem");
	TCase *tc = tcase_create("nomem");

	tcase_add_unchecked_fixture(tc, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, first_growth_fails_then_the_list_comes_whole,
			    0, 2);
	tcase_add_loop_test(tc, growth_past_16_fails_then_the_list_comes_whole,
			    0, 2);
	suite_add_tcase(s, tc);
	return s;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

int main(int argc, char **argv)
{
	SRunner *sr;
	int nfailed;

	(void)argc;
#ifdef UNDER_ASAN
	puts("SKIP: ASan owns malloc; alloc_count.so cannot fail realloc");
	return 77;
#endif
	fail_realloc = (void (*)(void *, size_t, unsigned))dlsym(
		RTLD_DEFAULT, "alloc_count_fail_realloc");
	failed = (unsigned long (*)(void))dlsym(RTLD_DEFAULT,
						"alloc_count_failed");
	if (!fail_realloc || !failed) {
		if (getenv("CHECK_GETFDS_NOMEM_PRELOADED")) {
			fprintf(stderr, "FAIL: %s did not load\n", ALLOC_COUNT_SO);
			return 1;
		}
		setenv("CHECK_GETFDS_NOMEM_PRELOADED", "1", 1);
		setenv("LD_PRELOAD", ALLOC_COUNT_SO, 1);
		execv("/proc/self/exe", argv);
		perror("execv /proc/self/exe");
		return 1;
	}
	sr = srunner_create(getfds_nomem_suite());
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed ? 1 : 0;
}

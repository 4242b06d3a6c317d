/*
 * check_pvmd_ring.c - the daemon's batched writes through io_uring
 * (daemon/ring.c), on socket pairs, without a daemon: every connection of
 * a batch gets what its socket takes, a full socket answers -EAGAIN at
 * once (the batch never waits for room), a closed peer gives -EPIPE and
 * no SIGPIPE, and only COPVM_URING=1 gives the daemon a ring.
 *
 * Each Check test runs in its own process (CK_FORK).  Tests that need a
 * ring skip their body, saying so, where io_uring is not allowed.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pvmd.h"

#define LEN	1000

/* ring.c logs through the daemon's log; here, stderr. */
void pvmd_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int have_ring(void)
{
	setenv("COPVM_URING", "1", 1);
	if (pvmd_ring_usable())
		return 1;
	fprintf(stderr, "check_pvmd_ring: io_uring not allowed here, the "
		"test checks nothing\n");
	return 0;
}

/* A nonblocking stream socket pair: sv[0] ours, sv[1] the peer's. */
static void pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_ge(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_ge(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
}

/* Writes into `fd' until it takes no more. */
static void fill(int fd)
{
	static char junk[65536];

	while (write(fd, junk, sizeof(junk)) > 0)
		;
	ck_assert(errno == EAGAIN || errno == EWOULDBLOCK);
}

static void aim(struct pvmd_write *w, int fd, struct iovec *iov, char *buf)
{
	iov[0].iov_base = buf;
	iov[0].iov_len = LEN / 2;
	iov[1].iov_base = buf + LEN / 2;
	iov[1].iov_len = LEN - LEN / 2;
	w->fd = fd;
	w->iov = iov;
	w->iovcnt = 2;
}

/* Three connections, the middle one full: the other two get every byte
 * in order, the full one -EAGAIN, all in one batch that returns. */
START_TEST(test_a_batch_writes_each_connection_and_never_waits)
{
	int sv[3][2], i, k;
	struct pvmd_write w[3];
	struct iovec iov[3][2];
	char buf[3][LEN], got[LEN];

	if (!have_ring())
		return;
	for (i = 0; i < 3; i++) {
		pair(sv[i]);
		for (k = 0; k < LEN; k++)
			buf[i][k] = (char)(k * 7 + i);
		aim(&w[i], sv[i][0], iov[i], buf[i]);
	}
	fill(sv[1][0]);
	pvmd_ring_writev(w, 3);
	ck_assert_int_eq(w[0].res, LEN);
	ck_assert_int_eq(w[1].res, -EAGAIN);
	ck_assert_int_eq(w[2].res, LEN);
	ck_assert_uint_eq(pvmd_ring_batches(), 1);
	for (i = 0; i < 3; i += 2) {
		ck_assert_int_eq(read(sv[i][1], got, sizeof(got)), LEN);
		ck_assert_int_eq(memcmp(got, buf[i], LEN), 0);
	}
}
END_TEST

/* A peer gone: -EPIPE for that write, no SIGPIPE, the others written. */
START_TEST(test_a_closed_peer_is_an_error_not_a_signal)
{
	int a[2], b[2];
	struct pvmd_write w[2];
	struct iovec iov[2][2];
	char buf[LEN] = { 0 }, got[LEN];

	if (!have_ring())
		return;
	signal(SIGPIPE, SIG_DFL);	/* a SIGPIPE would end the test */
	pair(a);
	pair(b);
	close(a[1]);
	aim(&w[0], a[0], iov[0], buf);
	aim(&w[1], b[0], iov[1], buf);
	pvmd_ring_writev(w, 2);
	ck_assert_int_eq(w[0].res, -EPIPE);
	ck_assert_int_eq(w[1].res, LEN);
	ck_assert_int_eq(read(b[1], got, sizeof(got)), LEN);
}
END_TEST

/* More connections than the ring has entries: every write still gets a
 * result, the ones past the ring's room -EAGAIN (conn.c's writev then
 * writes them), none lost or doubled. */
START_TEST(test_more_writes_than_the_ring_holds)
{
	enum { N = 100 };
	static int sv[N][2];
	static struct pvmd_write w[N];
	static struct iovec iov[N][2];
	static char buf[LEN], got[LEN];
	int i, done = 0, left = 0;
	ssize_t n;

	if (!have_ring())
		return;
	for (i = 0; i < N; i++) {
		pair(sv[i]);
		aim(&w[i], sv[i][0], iov[i], buf);
	}
	pvmd_ring_writev(w, N);
	for (i = 0; i < N; i++) {
		n = read(sv[i][1], got, sizeof(got));
		if (w[i].res == LEN) {
			ck_assert_int_eq(n, LEN);
			done++;
		} else {
			ck_assert_int_eq(w[i].res, -EAGAIN);
			ck_assert_int_eq(n, -1);	/* nothing written */
			left++;
		}
	}
	ck_assert_int_gt(done, 0);
	ck_assert_int_eq(done + left, N);
}
END_TEST

/* Only "1" gives the daemon a ring: unset, "auto" and "0" do not. */
START_TEST(test_only_env_one_gives_the_daemon_a_ring)
{
	static const char *const env[] = { NULL, "auto", "0" };

	if (env[_i])
		setenv("COPVM_URING", env[_i], 1);
	else
		unsetenv("COPVM_URING");
	ck_assert_int_eq(pvmd_ring_usable(), 0);
}
END_TEST

static Suite *ring_suite(void)
{
	Suite *s = suite_create("pvmd_ring");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_a_batch_writes_each_connection_and_never_waits);
	tcase_add_test(tc, test_a_closed_peer_is_an_error_not_a_signal);
	tcase_add_test(tc, test_more_writes_than_the_ring_holds);
	tcase_add_loop_test(tc, test_only_env_one_gives_the_daemon_a_ring, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ring_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

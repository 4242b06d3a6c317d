/*
 * check_rundir.c - unit tests of common/rundir.c, the checks of $PVM_TMP,
 * of the run directory $PVM_TMP/copvm-<uid> and of a socket's peer.  The
 * cases need no second user (so they run in CI's unprivileged pass too):
 * a PVM_TMP writable by all without the sticky bit, a sticky one, a run
 * directory that is a symbolic link, a plain file, open to others, the
 * creation of a missing one with mode 0700, an unsafe directory above
 * PVM_TMP, and the peer of a socket pair.  The other-owner cases are in
 * tests/integ/rundir-hijack.sh (as root).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"

static char base[64];
static char why[COPVM_WHY_LEN];

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/check_rundir.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	setenv("PVM_TMP", base, 1);
	why[0] = '\0';
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", base);
}

/* Opens the run directory of PVM_TMP; the fd or -errno. */
static int open_rundir(char *dir, size_t len)
{
	return copvm_rundir_open(getuid(), dir, len, why, sizeof(why));
}

START_TEST(creates_private_dir)
{
	char dir[PATH_MAX];
	struct stat st;
	int fd = open_rundir(dir, sizeof(dir));

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_uint_eq(st.st_uid, getuid());
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
	/* a second call finds it and accepts it */
	fd = open_rundir(dir, sizeof(dir));
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

START_TEST(refuses_world_writable_tmp)
{
	char dir[PATH_MAX];

	ck_assert_int_eq(chmod(base, 0777), 0);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "not sticky"));
	ck_assert_int_eq(access(dir, F_OK), -1);	/* nothing made */
	ck_assert_int_eq(chmod(base, 0770), 0);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
	/* sticky, as /tmp: accepted */
	ck_assert_int_eq(chmod(base, 01777), 0);
	ck_assert_int_ge(open_rundir(dir, sizeof(dir)), 0);
}
END_TEST

START_TEST(refuses_unsafe_parent)
{
	char tmp[PATH_MAX], dir[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s/a", base);
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	snprintf(tmp, sizeof(tmp), "%s/a/b", base);
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	setenv("PVM_TMP", tmp, 1);
	ck_assert_int_ge(open_rundir(dir, sizeof(dir)), 0);
	/* a directory above PVM_TMP that anyone may rename entries in */
	snprintf(tmp, sizeof(tmp), "%s/a", base);
	ck_assert_int_eq(chmod(tmp, 0777), 0);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "/a is writable"));
}
END_TEST

START_TEST(refuses_symlink)
{
	char dir[PATH_MAX], target[PATH_MAX];

	snprintf(target, sizeof(target), "%s/elsewhere", base);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/copvm-%u", base, (unsigned)getuid());
	ck_assert_int_eq(symlink("elsewhere", dir), 0);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "symbolic link"));
}
END_TEST

START_TEST(refuses_file_and_open_modes)
{
	char dir[PATH_MAX];
	int fd;

	snprintf(dir, sizeof(dir), "%s/copvm-%u", base, (unsigned)getuid());
	fd = open(dir, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
	ck_assert_int_eq(unlink(dir), 0);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(chmod(dir, 0750), 0);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "0750"));
	ck_assert_int_eq(chmod(dir, 0701), 0);
	ck_assert_int_eq(open_rundir(dir, sizeof(dir)), -EPERM);
}
END_TEST

START_TEST(refuses_too_long_and_missing)
{
	char dir[PATH_MAX], tmp[PATH_MAX];

	ck_assert_int_eq(copvm_rundir_open(getuid(), dir, 8, why,
					   sizeof(why)), -ENAMETOOLONG);
	snprintf(tmp, sizeof(tmp), "%s/missing", base);
	setenv("PVM_TMP", tmp, 1);
	ck_assert_int_lt(open_rundir(dir, sizeof(dir)), 0);
	ck_assert_str_ne(why, "");
}
END_TEST

START_TEST(peer_of_socketpair)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(copvm_peer_check(sv[0], geteuid(), "pair", why,
					  sizeof(why)), 0);
	ck_assert_int_eq(copvm_peer_check(sv[0], geteuid() + 1, "pair", why,
					  sizeof(why)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "pair is served by uid"));
	close(sv[0]);
	close(sv[1]);
	/* not a socket */
	ck_assert_int_lt(copvm_peer_check(0, geteuid(), "stdin", why,
					  sizeof(why)), 0);
}
END_TEST

static Suite *rundir_suite(void)
{
	Suite *s = suite_create("rundir");
	TCase *tc = tcase_create("checks");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, creates_private_dir);
	tcase_add_test(tc, refuses_world_writable_tmp);
	tcase_add_test(tc, refuses_unsafe_parent);
	tcase_add_test(tc, refuses_symlink);
	tcase_add_test(tc, refuses_file_and_open_modes);
	tcase_add_test(tc, refuses_too_long_and_missing);
	tcase_add_test(tc, peer_of_socketpair);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rundir_suite());
	int nf;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}

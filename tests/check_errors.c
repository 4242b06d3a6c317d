/*
 * check_errors.c - unit tests of lib/errors.c: the error table and its
 * ABI (pvm_errlist, pvm_nerr), the text and name lookups, and what a
 * failing call prints and does under each PvmAutoErr setting.
 *
 * Linked with -export-dynamic so that the size of pvm_errlist can be read
 * from the symbol table, as a stock executable's copy relocation sees it.
 */
#include <check.h>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvmi.h"
#include "msg.h"

extern char *errnamecode(int code);
extern int lpvmerr(char *fn, int code);

/* Runs with stderr going to a temporary file; see stderr_text(). */
static FILE *cap;
static int saved_fd = -1;

static void capture_start(void)
{
	fflush(stderr);
	cap = tmpfile();
	ck_assert_ptr_nonnull(cap);
	saved_fd = dup(2);
	dup2(fileno(cap), 2);
}

/* Stops capturing and returns what was written (static buffer). */
static const char *capture_end(void)
{
	static char buf[1024];
	size_t n;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	rewind(cap);
	n = fread(buf, 1, sizeof(buf) - 1, cap);
	buf[n] = '\0';
	fclose(cap);
	return buf;
}

static void setup(void)
{
	pvmi.autoerr = 1;
	pvmi.mytid = 0;
}

START_TEST(test_errlist_has_37_entries)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	ck_assert_int_eq(pvm_nerr, 37);
	ck_assert(dladdr1(pvm_errlist, &info, (void **)&sym, RTLD_DL_SYMENT));
	ck_assert_ptr_nonnull(sym);
	ck_assert_str_eq(info.dli_sname, "pvm_errlist");
	ck_assert_uint_eq(sym->st_size, 37 * sizeof(char *));
	for (int i = 0; i < pvm_nerr; i++) {
		ck_assert_ptr_nonnull(pvm_errlist[i]);
		ck_assert_int_gt(strlen(pvm_errlist[i]), 0);
	}
}
END_TEST

START_TEST(test_errlist_indexed_by_minus_code)
{
	ck_assert_str_eq(pvm_errlist[0], "Error 0");
	ck_assert_str_eq(pvm_errlist[-PvmBadParam], "Bad parameter");
	ck_assert_str_eq(pvm_errlist[-PvmNoData], "End of buffer");
	ck_assert_str_eq(pvm_errlist[-PvmNoMem], "Malloc failed");
	ck_assert_str_eq(pvm_errlist[-PvmBadMsg], "Can't decode message");
	ck_assert_str_eq(pvm_errlist[-PvmNoBuf], "No current buffer");
	ck_assert_str_eq(pvm_errlist[-PvmNoSuchBuf], "No such buffer");
	ck_assert_str_eq(pvm_errlist[-PvmNoTask], "No such task");
	ck_assert_str_eq(pvm_errlist[-PvmNotImpl], "Not implemented");
	ck_assert_str_eq(pvm_errlist[-PvmHostrNMstr],
			 "Hoster must run on master host");
	/* the codes stock leaves unnamed */
	ck_assert_str_eq(pvm_errlist[1], "Error 1");
	ck_assert_str_eq(pvm_errlist[9], "Error 9");
	ck_assert_str_eq(pvm_errlist[11], "Error 11");
	ck_assert_str_eq(pvm_errlist[13], "Error 13");
}
END_TEST

START_TEST(test_strerror_texts)
{
	ck_assert_str_eq(pvm_strerror(PvmNoSuchBuf), "No such buffer");
	ck_assert_str_eq(pvm_strerror(PvmIPLoopback), pvm_errlist[36]);
	ck_assert_str_eq(pvm_strerror(0), "Error 0");
	ck_assert_str_eq(pvm_strerror(-37), "Unknown Error");
	ck_assert_str_eq(pvm_strerror(-1000), "Unknown Error");
	ck_assert_str_eq(pvm_strerror(4), "Unknown Error");
	ck_assert_str_eq(pvmi_errtext(PvmDupHost), "Duplicate host");
}
END_TEST

/* Stock's calling convention: no argument, the text of pvm_errno. */
START_TEST(test_strerror_without_argument_reads_errno)
{
	char *(*stock_fn)(void) = pvm_strerror;

	pvm_errno = PvmNoSuchBuf;
	ck_assert_str_eq(pvm_strerror(), "No such buffer");
	ck_assert_str_eq(stock_fn(), "No such buffer");
	/* an argument wins over pvm_errno */
	ck_assert_str_eq(pvm_strerror(PvmBadParam), "Bad parameter");
	pvm_errno = -37;
	ck_assert_str_eq(pvm_strerror(), "Unknown Error");
	pvm_errno = 0;
	ck_assert_str_eq(pvm_strerror(), "Error 0");
}
END_TEST

START_TEST(test_errnamecode_names)
{
	ck_assert_str_eq(errnamecode(PvmOk), "PvmOk");
	ck_assert_str_eq(errnamecode(PvmBadParam), "PvmBadParam");
	ck_assert_str_eq(errnamecode(PvmNoSuchBuf), "PvmNoSuchBuf");
	ck_assert_str_eq(errnamecode(PvmIPLoopback), "PvmIPLoopback");
	ck_assert_str_eq(errnamecode(-1), "Unknown");
	ck_assert_str_eq(errnamecode(-37), "Unknown");
	ck_assert_str_eq(errnamecode(3), "Unknown");
}
END_TEST

START_TEST(test_error_sets_errno_and_prints_with_pid)
{
	char want[128];
	const char *out;

	pvm_errno = 0;
	capture_start();
	ck_assert_int_eq(pvmi_error("pvm_foo", PvmBadParam), PvmBadParam);
	out = capture_end();
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	snprintf(want, sizeof(want), "libpvm [pid%d]: pvm_foo(): Bad parameter\n",
		 (int)getpid());
	ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_error_prints_tid_once_attached)
{
	const char *out;

	pvmi.mytid = 0x40001;
	capture_start();
	pvmi_error("pvm_send", PvmNoTask);
	out = capture_end();
	ck_assert_str_eq(out, "libpvm [t40001]: pvm_send(): No such task\n");
}
END_TEST

START_TEST(test_error_silent_when_autoerr_off_or_not_an_error)
{
	const char *out;

	capture_start();
	ck_assert_int_eq(pvmi_error("pvm_x", PvmOk), PvmOk);
	ck_assert_int_eq(pvm_errno, PvmOk);
	ck_assert_int_eq(pvmi_error("pvm_x", 5), 5);
	pvmi.autoerr = 0;
	ck_assert_int_eq(pvmi_error("pvm_x", PvmNoMem), PvmNoMem);
	ck_assert_int_eq(pvm_errno, PvmNoMem);
	out = capture_end();
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_autoerr_2_exits)
{
	pvmi.autoerr = 2;
	fclose(stderr);		/* keep the test log clean */
	pvmi_error("pvm_x", PvmSysErr);
}
END_TEST

/* pvmi_leave, as task.c sets it to pvm_exit: it must run before the
 * exit (exit status 7 tells it did). */
static int leave_and_tell(void)
{
	_exit(7);
}

START_TEST(test_autoerr_2_leaves_the_machine_first)
{
	pvmi.autoerr = 2;
	pvmi_leave = leave_and_tell;
	fclose(stderr);
	pvmi_error("pvm_x", PvmSysErr);
}
END_TEST

START_TEST(test_autoerr_3_aborts)
{
	pvmi.autoerr = 3;
	fclose(stderr);
	pvmi_error("pvm_x", PvmSysErr);
}
END_TEST

START_TEST(test_lpvmerr_is_pvmi_error)
{
	const char *out;

	pvmi.mytid = 0x80002;
	capture_start();
	ck_assert_int_eq(lpvmerr("pvm_old", PvmNoParent), PvmNoParent);
	out = capture_end();
	ck_assert_int_eq(pvm_errno, PvmNoParent);
	ck_assert_str_eq(out, "libpvm [t80002]: pvm_old(): No parent task\n");
}
END_TEST

START_TEST(test_perror_prints_latest_error)
{
	const char *out;

	pvmi.mytid = 0x40001;
	pvmi.autoerr = 0;	/* pvm_perror prints regardless */
	pvm_errno = PvmNoSuchBuf;
	capture_start();
	ck_assert_int_eq(pvm_perror("step 6"), 0);
	pvm_perror(NULL);
	pvm_errno = 0;
	pvm_perror("ok");
	out = capture_end();
	ck_assert_str_eq(out, "libpvm [t40001]: step 6: No such buffer\n"
			 "libpvm [t40001]: (null): No such buffer\n"
			 "libpvm [t40001]: ok: Error 0\n");
}
END_TEST

START_TEST(test_failing_public_call_sets_errno)
{
	const char *out;

	pvm_errno = 0;
	capture_start();
	ck_assert_int_eq(pvm_freebuf(-1), PvmBadParam);
	ck_assert_int_eq(pvm_errno, PvmBadParam);
	ck_assert_int_eq(pvm_setsbuf(12345), PvmNoSuchBuf);
	ck_assert_int_eq(pvm_errno, PvmNoSuchBuf);
	out = capture_end();
	ck_assert_ptr_nonnull(strstr(out, "pvm_freebuf(): Bad parameter\n"));
	ck_assert_ptr_nonnull(strstr(out, "pvm_setsbuf(): No such buffer\n"));
}
END_TEST

START_TEST(test_default_state)
{
	ck_assert_int_eq(pvmi.ptid, PvmNoParent);
	ck_assert_int_eq(pvmi.route, PvmAllowDirect);
	ck_assert_int_gt(pvmi.fragsize, 0);
	ck_assert_int_eq(pvmi.ctx, PvmBaseContext);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc;

	tc = tcase_create("table");
	tcase_add_test(tc, test_errlist_has_37_entries);
	tcase_add_test(tc, test_errlist_indexed_by_minus_code);
	tcase_add_test(tc, test_strerror_texts);
	tcase_add_test(tc, test_strerror_without_argument_reads_errno);
	tcase_add_test(tc, test_errnamecode_names);
	tcase_add_test(tc, test_default_state);
	suite_add_tcase(s, tc);

	tc = tcase_create("report");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_error_sets_errno_and_prints_with_pid);
	tcase_add_test(tc, test_error_prints_tid_once_attached);
	tcase_add_test(tc, test_error_silent_when_autoerr_off_or_not_an_error);
	tcase_add_exit_test(tc, test_autoerr_2_exits, 1);
	tcase_add_exit_test(tc, test_autoerr_2_leaves_the_machine_first, 7);
	tcase_add_test_raise_signal(tc, test_autoerr_3_aborts, SIGABRT);
	tcase_add_test(tc, test_lpvmerr_is_pvmi_error);
	tcase_add_test(tc, test_perror_prints_latest_error);
	tcase_add_test(tc, test_failing_public_call_sets_errno);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(errors_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_fortran.c - unit tests of the Fortran binding (fortran/): string
 * conversion in both directions, the pvmfpack / pvmfunpack type codes,
 * and the string arguments of a few entry points, all called from C the
 * way gfortran calls them (arguments by reference, string lengths as
 * trailing size_t arguments).
 *
 * Built from the binding's sources and linked with libgpvm3 and libpvm3;
 * nothing here talks to a daemon or a group server.  The type codes
 * are checked against libpvm3's typed items: a message packed through
 * pvmfpack must unpack with the C routine of the expected type.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpvm.h"

/* The fpvm3.h type codes. */
enum { STRING, BYTE1, INTEGER2, INTEGER4, REAL4, COMPLEX8, REAL8,
       COMPLEX16, INTEGER8 };

static void setup(void)
{
	pvm_setopt(PvmAutoErr, 0);
}

/* A Fortran CHARACTER*n value: `s' padded with blanks to n bytes (one
 * static buffer). */
static char *fstr(const char *s, size_t n)
{
	static char buf[512];

	ck_assert_uint_le(n, sizeof(buf));
	memset(buf, ' ', n);
	memcpy(buf, s, strlen(s) < n ? strlen(s) : n);
	return buf;
}

START_TEST(test_in_drops_trailing_blanks_only)
{
	char buf[16];

	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "  ab c   ", 9), 0);
	ck_assert_str_eq(buf, "  ab c");
	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "fslave1", 7), 0);
	ck_assert_str_eq(buf, "fslave1");
	/* the length, not a NUL, ends a Fortran string */
	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "abcdef", 3), 0);
	ck_assert_str_eq(buf, "abc");
}
END_TEST

START_TEST(test_in_blank_or_empty_is_empty)
{
	char buf[4] = "xyz";

	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "      ", 6), 0);
	ck_assert_str_eq(buf, "");
	strcpy(buf, "xyz");
	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "", 0), 0);
	ck_assert_str_eq(buf, "");
	strcpy(buf, "xyz");
	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), NULL, 5), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_in_too_long_is_refused_not_cut)
{
	char buf[4];

	/* 3 characters and the NUL fit; blanks after them do not count */
	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "abc     ", 8), 0);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(fpvmi_fstr_in(buf, sizeof(buf), "abcd", 4), -1);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(fpvmi_fstr_in(buf, 0, "a", 1), -1);
}
END_TEST

START_TEST(test_out_pads_and_cuts)
{
	char f[8];

	fpvmi_fstr_out(f, sizeof(f), "LINUX");
	ck_assert_int_eq(memcmp(f, "LINUX   ", 8), 0);
	fpvmi_fstr_out(f, sizeof(f), "LINUX64-too-long");
	ck_assert_int_eq(memcmp(f, "LINUX64-", 8), 0);
	fpvmi_fstr_out(f, sizeof(f), NULL);
	ck_assert_int_eq(memcmp(f, "        ", 8), 0);
	memcpy(f, "unchanged", 8);
	fpvmi_fstr_out(f, 0, "x");
	ck_assert_int_eq(memcmp(f, "unchange", 8), 0);
}
END_TEST

START_TEST(test_stock_named_helpers)
{
	char c[8], f[6];

	ck_assert_int_eq(ftocstr(c, sizeof(c), "host1   ", 8), 0);
	ck_assert_str_eq(c, "host1");
	ck_assert_int_ne(ftocstr(c, sizeof(c), "longername", 10), 0);
	ck_assert_str_eq(c, "");
	ck_assert_int_ne(ftocstr(c, 0, "a", 1), 0);
	ck_assert_int_eq(ctofstr(f, sizeof(f), "ab"), 0);
	ck_assert_int_eq(memcmp(f, "ab    ", 6), 0);
	ck_assert_int_eq(ctofstr(f, sizeof(f), "abcdefgh"), 0);
	ck_assert_int_eq(memcmp(f, "abcdef", 6), 0);
}
END_TEST

/* One type code: what pvmfpack must hand to libpvm3. */
struct tcase {
	int code;
	size_t size;		/* bytes per item */
	int (*c_unpack)(void *, int, int);	/* C routine of that type */
	int (*c_other)(void *, int, int);	/* one of another type */
};

#define UPK(name, ctype)						\
	static int c_upk_##name(void *p, int n, int s)			\
	{								\
		return pvm_upk##name((ctype *)p, n, s);			\
	}
UPK(byte, char)
UPK(short, short)
UPK(int, int)
UPK(float, float)
UPK(cplx, float)
UPK(double, double)
UPK(dcplx, double)
UPK(long, long)

static const struct tcase tcases[] = {
	{ STRING, 1, c_upk_byte, c_upk_int },
	{ BYTE1, 1, c_upk_byte, c_upk_short },
	{ INTEGER2, sizeof(short), c_upk_short, c_upk_int },
	{ INTEGER4, sizeof(int), c_upk_int, c_upk_float },
	{ REAL4, sizeof(float), c_upk_float, c_upk_int },
	{ COMPLEX8, 2 * sizeof(float), c_upk_cplx, c_upk_float },
	{ REAL8, sizeof(double), c_upk_double, c_upk_long },
	{ COMPLEX16, 2 * sizeof(double), c_upk_dcplx, c_upk_double },
	{ INTEGER8, sizeof(long), c_upk_long, c_upk_double },
};

/* Distinct bytes that are valid values of every type (no NaN). */
static void fill(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(0x11 + 3 * i);
}

/* Packs 3 items of tcases[_i] with pvmfpack, then reads them back with
 * the C routine of the expected type, then with pvmfunpack. */
START_TEST(test_pack_code_selects_c_type)
{
	const struct tcase *t = &tcases[_i];
	unsigned char in[48], out[48];
	int code = t->code, n = 3, one = 1, info = -99, bufid;
	size_t len = n * t->size;

	/* type-checked unpacking shows which C type was packed */
	setenv("COPVM_STRICT_UNPACK", "1", 1);
	fill(in, len);
	pvmfinitsend_(&(int){ PvmDataDefault }, &bufid);
	ck_assert_int_gt(bufid, 0);
	pvmfpack_(&code, in, &n, &one, &info);
	ck_assert_int_eq(info, PvmOk);
	pvmfpack_(&code, in, &n, &one, &info);
	ck_assert_int_eq(info, PvmOk);
	ck_assert_int_ge(pvm_setrbuf(bufid), 0);

	/* a routine of another type is refused, the right one works */
	ck_assert_int_lt(t->c_other(out, 1, 1), 0);
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(t->c_unpack(out, n, 1), PvmOk);
	ck_assert_int_eq(memcmp(in, out, len), 0);

	memset(out, 0, sizeof(out));
	info = -99;
	pvmfunpack_(&code, out, &n, &one, &info);
	ck_assert_int_eq(info, PvmOk);
	ck_assert_int_eq(memcmp(in, out, len), 0);
}
END_TEST

START_TEST(test_unknown_codes_are_badparam)
{
	static const int bad[] = { -1, 9, 10, 11, 100 };
	int i, x = 5, n = 1, one = 1, info, bufid;

	pvmfinitsend_(&(int){ PvmDataRaw }, &bufid);
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		info = 0;
		pvmfpack_((int *)&bad[i], &x, &n, &one, &info);
		ck_assert_int_eq(info, PvmBadParam);
		info = 0;
		pvmfunpack_((int *)&bad[i], &x, &n, &one, &info);
		ck_assert_int_eq(info, PvmBadParam);
	}
}
END_TEST

START_TEST(test_string_packs_nitem_characters)
{
	char got[16] = "";
	int code = STRING, n = 5, one = 1, info, bufid;

	/* gfortran would pass the length (11) after info: it is not used */
	setenv("COPVM_STRICT_UNPACK", "1", 1);	/* bytes, not a string */
	pvmfinitsend_(&(int){ PvmDataDefault }, &bufid);
	pvmfpack_(&code, "hello world", &n, &one, &info);
	ck_assert_int_eq(info, PvmOk);
	pvm_setrbuf(bufid);
	ck_assert_int_lt(pvm_upkstr(got), 0);
	ck_assert_int_eq(pvm_upkbyte(got, 5, 1), PvmOk);
	ck_assert_str_eq(got, "hello");
}
END_TEST

START_TEST(test_stride_is_passed_on)
{
	int in[6] = { 1, 2, 3, 4, 5, 6 }, out[6] = { 0 };
	int code = INTEGER4, n = 3, two = 2, one = 1, info, bufid;

	pvmfinitsend_(&(int){ PvmDataDefault }, &bufid);
	pvmfpack_(&code, in, &n, &two, &info);
	ck_assert_int_eq(info, PvmOk);
	pvm_setrbuf(bufid);
	pvmfunpack_(&code, out, &n, &one, &info);
	ck_assert_int_eq(info, PvmOk);
	ck_assert_int_eq(out[0], 1);
	ck_assert_int_eq(out[1], 3);
	ck_assert_int_eq(out[2], 5);
	ck_assert_int_eq(out[3], 0);
}
END_TEST

START_TEST(test_buffer_routines)
{
	int bufid, other, old, bytes = -1, tag = -1, tid = -1, info;

	pvmfmkbuf_(&(int){ PvmDataDefault }, &bufid);
	ck_assert_int_gt(bufid, 0);
	pvmfsetsbuf_(&bufid, &old);
	ck_assert_int_ge(old, 0);
	pvmfgetsbuf_(&other);
	ck_assert_int_eq(other, bufid);
	pvmfsetrbuf_(&bufid, &old);
	pvmfgetrbuf_(&other);
	ck_assert_int_eq(other, bufid);
	pvmfbufinfo_(&bufid, &bytes, &tag, &tid, &info);
	ck_assert_int_eq(info, PvmOk);
	ck_assert_int_eq(bytes, 0);
	pvmffreebuf_(&bufid, &info);
	ck_assert_int_eq(info, PvmOk);
	pvmffreebuf_(&bufid, &info);
	ck_assert_int_lt(info, 0);
	pvmfinitsend_(&(int){ 77 }, &bufid);
	ck_assert_int_eq(bufid, PvmBadParam);
}
END_TEST

/* Names that do not fit are refused before anything is sent. */
START_TEST(test_long_names_are_badparam)
{
	char *name = fstr("x", 300);
	int zero = 0, one = 1, out = 0, tids[1];

	memset(name, 'x', 257);		/* 257 characters, then blanks */
	pvmfspawn_(name, &zero, "*", &one, tids, &out, 300, 1);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfspawn_("a.out", &zero, name, &one, tids, &out, 5, 300);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfmstat_(name, &out, 300);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfarchcode_(name, &out, 300);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfaddhost_(name, &out, 300);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfputinfo_(name, &one, &zero, &out, 300);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfrecvinfo_(name, &zero, &zero, &out, 300);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfdelinfo_(name, &zero, &zero, &out, 300);
	ck_assert_int_eq(out, PvmBadParam);
}
END_TEST

START_TEST(test_archcode_trims_the_name)
{
	int a = 0, b = 0;

	pvmfarchcode_(fstr("LINUX64", 20), &a, 20);
	b = pvm_archcode("LINUX64");
	ck_assert_int_eq(a, b);
}
END_TEST

/* pvmfperror keeps the blanks of its message (PVM 3.4.6 does). */
START_TEST(test_perror_keeps_blanks)
{
	char out[256] = "";
	int fds[2], saved, info = -1;
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(2);
	dup2(fds[1], 2);
	pvmfperror_("step 6   ", &info, 9);
	fflush(stderr);
	dup2(saved, 2);
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	ck_assert_int_eq(info, 0);
	ck_assert_ptr_nonnull(strstr(out, "]: step 6   : "));
}
END_TEST

/* The Fortran names of the predefined reductions compute like the C
 * ones (every argument by reference). */
START_TEST(test_reductions_compute)
{
	int x[3] = { 1, 20, 3 }, y[3] = { 10, 2, 30 };
	double dx[2] = { 1.5, -2.0 }, dy[2] = { 4.0, 3.0 };
	int t = INTEGER4, td = REAL8, n = 3, nd = 2, info = -1;

	pvmsum_(&t, x, y, &n, &info);
	ck_assert_int_eq(info, PvmOk);
	ck_assert(x[0] == 11 && x[1] == 22 && x[2] == 33);
	pvmmax_(&t, x, y, &n, &info);
	ck_assert(x[0] == 11 && x[1] == 22 && x[2] == 33);
	pvmmin_(&t, x, y, &n, &info);
	ck_assert(x[0] == 10 && x[1] == 2 && x[2] == 30);
	pvmproduct_(&td, dx, dy, &nd, &info);
	ck_assert_int_eq(info, PvmOk);
	ck_assert(dx[0] == 6.0 && dx[1] == -6.0);
}
END_TEST

/* pvmfreduce hands libgpvm3 the C PvmSum and PvmProduct for the Fortran
 * ones: libgpvm3 then refuses them for bytes before asking any server. */
START_TEST(test_reduce_passes_the_c_reductions)
{
	char data[4] = "abc";
	int t = BYTE1, n = 3, tag = 1, root = 0, info = 0;

	pvmfreduce_(pvmsum_, data, &n, &t, &tag, "g", &root, &info, 1);
	ck_assert_int_eq(info, PvmBadParam);
	info = 0;
	pvmfreduce_(pvmproduct_, data, &n, &t, &tag, "g", &root, &info, 1);
	ck_assert_int_eq(info, PvmBadParam);
}
END_TEST

/* Group names are at most 31 characters, trailing blanks not counted. */
START_TEST(test_long_group_names_are_badparam)
{
	char *g = fstr("", 40);
	int zero = 0, one = 1, out = 0;
	double d[2];

	memset(g, 'g', 32);
	pvmfjoingroup_(g, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmflvgroup_(g, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfgetinst_(g, &one, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfgettid_(g, &zero, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfgsize_(g, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfbarrier_(g, &one, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfbcast_(g, &one, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmffreezegroup_(g, &one, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfreduce_(pvmsum_, d, &one, &(int){ REAL8 }, &one, g, &zero, &out,
		    40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfgather_(d, d, &one, &(int){ REAL8 }, &one, g, &zero, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
	pvmfscatter_(d, d, &one, &(int){ REAL8 }, &one, g, &zero, &out, 40);
	ck_assert_int_eq(out, PvmBadParam);
}
END_TEST

static Suite *fortran_suite(void)
{
	Suite *s = suite_create("fortran");
	TCase *str = tcase_create("strings");
	TCase *pack = tcase_create("pack");
	TCase *args = tcase_create("arguments");
	TCase *group = tcase_create("group");

	tcase_add_test(str, test_in_drops_trailing_blanks_only);
	tcase_add_test(str, test_in_blank_or_empty_is_empty);
	tcase_add_test(str, test_in_too_long_is_refused_not_cut);
	tcase_add_test(str, test_out_pads_and_cuts);
	tcase_add_test(str, test_stock_named_helpers);
	suite_add_tcase(s, str);

	tcase_add_checked_fixture(pack, setup, NULL);
	tcase_add_loop_test(pack, test_pack_code_selects_c_type, 0,
			    sizeof(tcases) / sizeof(tcases[0]));
	tcase_add_test(pack, test_unknown_codes_are_badparam);
	tcase_add_test(pack, test_string_packs_nitem_characters);
	tcase_add_test(pack, test_stride_is_passed_on);
	tcase_add_test(pack, test_buffer_routines);
	suite_add_tcase(s, pack);

	tcase_add_checked_fixture(args, setup, NULL);
	tcase_add_test(args, test_long_names_are_badparam);
	tcase_add_test(args, test_archcode_trims_the_name);
	tcase_add_test(args, test_perror_keeps_blanks);
	suite_add_tcase(s, args);

	tcase_add_checked_fixture(group, setup, NULL);
	tcase_add_test(group, test_reductions_compute);
	tcase_add_test(group, test_reduce_passes_the_c_reductions);
	tcase_add_test(group, test_long_group_names_are_badparam);
	suite_add_tcase(s, group);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fortran_suite());
	int failed;

	/* some tests set COPVM_STRICT_UNPACK, read once per process */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

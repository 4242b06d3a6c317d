# Unit tests of the stock-compatibility exports (lib/compat/).  The
# "task" cases run against a private pvmd (tests/vm_fixture.c); -ldl for
# dladdr1(), which reads the data symbols' sizes.
if HAVE_CHECK
check_PROGRAMS += tests/check_compat
TESTS += tests/check_compat
tests_check_compat_SOURCES = tests/check_compat.c tests/vm_fixture.c \
	tests/vm_fixture.h
tests_check_compat_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_compat_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_compat_LDADD = lib/libpvm3.la $(CHECK_LIBS) -ldl
endif

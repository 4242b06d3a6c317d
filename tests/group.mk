# Tests of dynamic groups (group/, docs/groups.md): Check suites against a
# private pvmd (tests/vm_fixture.c) with COPVM_PVMGS naming the built
# group server, and integration tests running Debian's group examples on
# stock PVM and on copvm.  bench/bench-barrier.sh is run by hand.
if HAVE_CHECK
GROUP_TEST_CPPFLAGS = $(VM_TEST_CPPFLAGS) -I$(top_srcdir)/group \
	-DPVMGS_PATH='"$(abs_top_builddir)/group/pvmgs"'
GROUP_TEST_LDADD = group/libgpvm3.la lib/libpvm3.la $(CHECK_LIBS)
check_PROGRAMS += tests/check_group tests/check_group_reduce
TESTS += tests/check_group tests/check_group_reduce
tests_check_group_SOURCES = tests/check_group.c tests/vm_fixture.c \
	tests/vm_fixture.h
tests_check_group_CPPFLAGS = $(GROUP_TEST_CPPFLAGS)
tests_check_group_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_group_LDADD = $(GROUP_TEST_LDADD)
tests_check_group_reduce_SOURCES = tests/check_group_reduce.c \
	tests/vm_fixture.c tests/vm_fixture.h
tests_check_group_reduce_CPPFLAGS = $(GROUP_TEST_CPPFLAGS)
tests_check_group_reduce_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_group_reduce_LDADD = $(GROUP_TEST_LDADD)
endif

GROUP_INTEG_TESTS = \
	tests/integ/group-join.sh \
	tests/integ/group-barrier.sh \
	tests/integ/group-rsg.sh \
	tests/integ/group-bwtest.sh
# INTEG_TESTS (tests/integration.mk) is what TESTS, EXTRA_DIST and
# `make check-integ' take the integration tests from.
INTEG_TESTS += $(GROUP_INTEG_TESTS)
EXTRA_DIST += tests/integ/group-lib.sh \
	docs/groups.md

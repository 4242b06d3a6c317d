# Tests of the Fortran binding (libfpvm3); docs/fortran.md describes them.
#
# check_fortran: unit test (Check) of the string conversions, the pack
# type codes and the string arguments, built from the binding's sources
# like the message-layer tests; it needs no daemon and no gfortran.
if HAVE_CHECK
check_PROGRAMS += tests/check_fortran
TESTS += tests/check_fortran
tests_check_fortran_SOURCES = tests/check_fortran.c \
	fortran/fpvm.h fortran/f_string.c fortran/f_tasks.c fortran/f_vm.c \
	fortran/f_pack.c fortran/f_msg.c fortran/f_mbox.c fortran/f_group.c
tests_check_fortran_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fortran
tests_check_fortran_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_fortran_LDADD = group/libgpvm3.la lib/libpvm3.la $(CHECK_LIBS)
endif

# Integration tests (tests/integ/fortran-*.sh): the exported routines
# against Debian's libfpvm3.a, Debian's Fortran example binaries on copvm
# and on stock, and the same examples rebuilt from source with gfortran
# against our fpvm3.h and libfpvm3.  Listed in INTEG_TESTS, so `make
# check-integ' runs them too.  fortran-gexample.sh uses group-lib.sh (the
# group library and server); fortran-src.sh needs gfortran and skips
# without it.
INTEG_TESTS += \
	tests/integ/fortran-symbols.sh \
	tests/integ/fortran-master1.sh \
	tests/integ/fortran-spmd.sh \
	tests/integ/fortran-hitc.sh \
	tests/integ/fortran-gexample.sh \
	tests/integ/fortran-src.sh
EXTRA_DIST += docs/fortran.md

# Integration tests: Debian's PVM example programs (pvm-examples), and the
# same sources rebuilt, run on copvm and on stock PVM 3.4.6; the outputs
# must match once run-dependent values are normalised.  Also the exported
# symbols of libpvm3.so.3.  See docs/testing.md.
#
# The scripts run from the top build directory with srcdir in their
# environment (as automake's test driver runs them); they are executable
# bash scripts, so no log compiler is needed.  Each exits 0 (pass),
# 1 (fail) or 77 (skip: stock PVM is not installed).

# pvmhalt stops copvm's virtual machine (used by the tests and README).
# pvmrun spawns copies of a program with their output caught, as the
# console's "spawn -N ->" does.  -no-install: real executables with a run
# path to our library, not libtool wrappers.
noinst_PROGRAMS += tests/tools/pvmhalt
tests_tools_pvmhalt_SOURCES = tests/tools/pvmhalt.c
tests_tools_pvmhalt_LDADD = lib/libpvm3.la
tests_tools_pvmhalt_LDFLAGS = -no-install

check_PROGRAMS += tests/tools/pvmrun
tests_tools_pvmrun_SOURCES = tests/tools/pvmrun.c
tests_tools_pvmrun_LDADD = lib/libpvm3.la
tests_tools_pvmrun_LDFLAGS = -no-install

INTEG_TESTS = \
	tests/integ/symbols.sh \
	tests/integ/errlist.sh \
	tests/integ/ex-hello.sh \
	tests/integ/ex-master1.sh \
	tests/integ/spawn-debian-path.sh \
	tests/integ/ex-spmd.sh \
	tests/integ/ex-timing.sh \
	tests/integ/ex-inherit1.sh \
	tests/integ/ex-inherit2.sh \
	tests/integ/ex-inherit3.sh \
	tests/integ/ex-inherita.sh \
	tests/integ/ex-inheritb.sh \
	tests/integ/ex-task0.sh \
	tests/integ/ex-mhf.sh \
	tests/integ/ex-gmbi.sh \
	tests/integ/ex-lmbi.sh \
	tests/integ/ex-rme.sh \
	tests/integ/src-examples.sh
TESTS += $(INTEG_TESTS)

# Built by the tests themselves (errlist.c against stock PVM, -no-pie),
# but shipped.
EXTRA_DIST += $(INTEG_TESTS) \
	tests/integ/lib.sh \
	tests/integ/normalize.pl \
	tests/tools/errlist.c \
	docs/testing.md \
	docs/stock-behaviour.md \
	.ci/run

# `make check-integ' runs only these tests.
check-integ:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(INTEG_TESTS)'
.PHONY: check-integ

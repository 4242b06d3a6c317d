# Tests of the observability of coscheduling: the page reader shared by
# copvm-cosched and the console (common/cosched_read.c, cosched_cmd.c) and
# the tool itself, on hand-made pages; and the lint of the manual pages
# with the check that every exported copvm_* function has one; and
# `copvm-cosched plot' on a trace recorded by a PRE ping-pong; and
# `copvm-cosched top', the live view, of a running ping-pong.
if HAVE_CHECK
check_PROGRAMS += tests/check_cosched_read
TESTS += tests/check_cosched_read
tests_check_cosched_read_SOURCES = tests/check_cosched_read.c
tests_check_cosched_read_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DCOSCHED_TOOL='"$(abs_top_builddir)/tools/copvm-cosched"'
tests_check_cosched_read_LDADD = common/libcosched_read.la $(CHECK_LIBS)
# The tool's tests run the installed-to-be binary.
EXTRA_tests_check_cosched_read_DEPENDENCIES = tools/copvm-cosched
endif

OBS_TESTS = tests/integ/man-lint.sh tests/integ/cosched-plot.sh \
	tests/integ/cosched-top.sh
TESTS += $(OBS_TESTS)
EXTRA_DIST += $(OBS_TESTS)

# `make check-obs' runs only these tests.
check-obs:
	$(MAKE) $(AM_MAKEFLAGS) check \
		TESTS='$(OBS_TESTS) tests/check_cosched_read'
.PHONY: check-obs

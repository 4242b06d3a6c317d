# Tests of explicit coscheduling (EXP) and the daemon's watch over the
# coscheduling pages: the model's maths alone, then private daemons run
# with COPVM_MODEL=exp or given hand-made pages (tests/pvmd_fixture.c).
if HAVE_CHECK
check_PROGRAMS += tests/check_exp_model tests/check_gang \
	tests/check_cosched_watch
TESTS += tests/check_exp_model tests/check_gang tests/check_cosched_watch

tests_check_exp_model_SOURCES = tests/check_exp_model.c
tests_check_exp_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_exp_model_LDADD = common/libcommon.la $(CHECK_LIBS)

tests_check_gang_SOURCES = tests/check_gang.c $(PVMD_TEST_SOURCES)
tests_check_gang_CPPFLAGS = $(PVMD_TEST_CPPFLAGS)
tests_check_gang_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_gang_LDADD = common/libcommon.la $(CHECK_LIBS)
EXTRA_tests_check_gang_DEPENDENCIES = daemon/pvmd

tests_check_cosched_watch_SOURCES = tests/check_cosched_watch.c \
	$(PVMD_TEST_SOURCES)
tests_check_cosched_watch_CPPFLAGS = $(PVMD_TEST_CPPFLAGS)
tests_check_cosched_watch_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cosched_watch_LDADD = common/libcommon.la $(CHECK_LIBS)
EXTRA_tests_check_cosched_watch_DEPENDENCIES = daemon/pvmd
endif

EXTRA_DIST += docs/cosched.md

# Coscheduling: the model maths (pure) and the engine inside libpvm3.
if HAVE_CHECK
check_PROGRAMS += tests/check_cosched_model
TESTS += tests/check_cosched_model
tests_check_cosched_model_SOURCES = tests/check_cosched_model.c
tests_check_cosched_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cosched_model_LDADD = common/libcommon.la $(CHECK_LIBS) -lm
check_PROGRAMS += tests/check_cosched_bucket
TESTS += tests/check_cosched_bucket
tests_check_cosched_bucket_SOURCES = tests/check_cosched_bucket.c
tests_check_cosched_bucket_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cosched_bucket_LDADD = common/libcommon.la $(CHECK_LIBS)
# The module's argument checks (kmod/pvm_cosched_checks.h), in user space.
check_PROGRAMS += tests/check_cosched_checks
TESTS += tests/check_cosched_checks
tests_check_cosched_checks_SOURCES = tests/check_cosched_checks.c
tests_check_cosched_checks_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kmod
tests_check_cosched_checks_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cosched_checks_LDADD = $(CHECK_LIBS)
endif
if HAVE_CHECK
check_PROGRAMS += tests/check_cosched
TESTS += tests/check_cosched
tests_check_cosched_SOURCES = tests/check_cosched.c tests/vm_fixture.c tests/vm_fixture.h
tests_check_cosched_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_cosched_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cosched_LDADD = $(VM_TEST_LDADD)
endif
# The watched input files (lib/cosched/arrival.c), compiled in from its
# source against a stand-in backend.
if HAVE_CHECK
check_PROGRAMS += tests/check_cosched_arrival
TESTS += tests/check_cosched_arrival
tests_check_cosched_arrival_SOURCES = tests/check_cosched_arrival.c \
	lib/cosched/arrival.c
tests_check_cosched_arrival_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cosched_arrival_LDADD = $(CHECK_LIBS)
endif
# The probe (lib/cosched/freq.c), compiled in from its source against
# stand-ins for the engine and the task state.
if HAVE_CHECK
check_PROGRAMS += tests/check_freq
TESTS += tests/check_freq
tests_check_freq_SOURCES = tests/check_freq.c lib/cosched/freq.c \
	lib/cosched/state.c
tests_check_freq_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_freq_LDADD = $(CHECK_LIBS)
endif

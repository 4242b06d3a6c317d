# Hardening tests (issue 15): a run directory or PVM_TMP another user
# controls, a foreign daemon, the auto-started daemon's descriptors, stale
# task identities after a daemon's death, a stopped daemon, a task at
# its descriptor limit flooded with connections; and a few seconds of
# the soak benchmark's load (bench/soak, bench/soak-faults.sh).  They drive
# tests/tools/hprobe against private daemons (PVM_TMP of their own); the
# cases needing a second user skip (77) unless run as root.
if HAVE_CHECK
check_PROGRAMS += tests/check_rundir
TESTS += tests/check_rundir
tests_check_rundir_SOURCES = tests/check_rundir.c
tests_check_rundir_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_rundir_LDADD = common/libcommon.la $(CHECK_LIBS)
endif

check_PROGRAMS += tests/tools/hprobe
tests_tools_hprobe_SOURCES = tests/tools/hprobe.c
tests_tools_hprobe_LDADD = lib/libpvm3.la
tests_tools_hprobe_LDFLAGS = -no-install

HARDEN_TESTS = \
	tests/integ/rundir-hijack.sh \
	tests/integ/foreign-pvmd.sh \
	tests/integ/pvmd-detach.sh \
	tests/integ/stopped-pvmd.sh \
	tests/integ/stale-session.sh \
	tests/integ/fd-flood.sh \
	tests/integ/big-frame.sh \
	tests/integ/log-cap.sh \
	tests/integ/soak-smoke.sh
TESTS += $(HARDEN_TESTS)
EXTRA_DIST += $(HARDEN_TESTS) \
	tests/integ/harden-lib.sh \
	tests/integ/fake-pvmd.pl \
	docs/security.md

# `make check-harden' runs only these tests.
check-harden:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(HARDEN_TESTS)'
.PHONY: check-harden

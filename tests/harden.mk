# Hardening tests (issue 15): a run directory or PVM_TMP another user
# controls, a foreign daemon, the auto-started daemon's descriptors, stale
# task identities after a daemon's death, a stopped daemon.  They drive
# tests/tools/hprobe against private daemons (PVM_TMP of their own); the
# cases needing a second user skip (77) unless run as root.
check_PROGRAMS += tests/tools/hprobe
tests_tools_hprobe_SOURCES = tests/tools/hprobe.c
tests_tools_hprobe_LDADD = lib/libpvm3.la
tests_tools_hprobe_LDFLAGS = -no-install

HARDEN_TESTS = \
	tests/integ/rundir-hijack.sh \
	tests/integ/foreign-pvmd.sh \
	tests/integ/pvmd-detach.sh \
	tests/integ/stopped-pvmd.sh
TESTS += $(HARDEN_TESTS)
EXTRA_DIST += $(HARDEN_TESTS) \
	tests/integ/harden-lib.sh \
	tests/integ/fake-pvmd.pl

# `make check-harden' runs only these tests.
check-harden:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(HARDEN_TESTS)'
.PHONY: check-harden

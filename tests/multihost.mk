# Multi-host virtual machines: unit tests of the handshake and of pvmd's
# TCP side, and the integration tests on emulated hosts (network
# namespaces, tests/integ/netns/).  See docs/multihost.md.
if HAVE_CHECK
check_PROGRAMS += tests/check_auth tests/check_pvmd_net
TESTS += tests/check_auth tests/check_pvmd_net

tests_check_auth_SOURCES = tests/check_auth.c
tests_check_auth_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_auth_LDADD = common/libcommon.la $(CHECK_LIBS)

# pvmd's TCP side on loopback: the test plays master and slave itself.
tests_check_pvmd_net_SOURCES = tests/check_pvmd_net.c $(PVMD_TEST_SOURCES)
tests_check_pvmd_net_CPPFLAGS = $(PVMD_TEST_CPPFLAGS)
tests_check_pvmd_net_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pvmd_net_LDADD = common/libcommon.la $(CHECK_LIBS)
EXTRA_tests_check_pvmd_net_DEPENDENCIES = daemon/pvmd
endif

# The PVM program the multi-host tests run on each side (the stock one is
# built by the tests, like pvmrun).  -no-install: a real executable with a
# run path to our library, which remote daemons can spawn.
check_PROGRAMS += tests/integ/netns/mhcheck
tests_integ_netns_mhcheck_SOURCES = tests/integ/netns/mhcheck.c \
	tests/integ/netns/mhutil.h
tests_integ_netns_mhcheck_LDADD = lib/libpvm3.la
tests_integ_netns_mhcheck_LDFLAGS = -no-install
# The same for the group test (mh-group.sh) and bench-mh-barrier.sh.
check_PROGRAMS += tests/integ/netns/mhgroup
tests_integ_netns_mhgroup_SOURCES = tests/integ/netns/mhgroup.c
tests_integ_netns_mhgroup_LDADD = group/libgpvm3.la lib/libpvm3.la
tests_integ_netns_mhgroup_LDFLAGS = -no-install

# pvm_mcast to tasks of other hosts: mh-uring.sh and bench-mh-mcast.sh.
check_PROGRAMS += tests/integ/netns/mhmcast
tests_integ_netns_mhmcast_SOURCES = tests/integ/netns/mhmcast.c \
	tests/integ/netns/mhutil.h
tests_integ_netns_mhmcast_LDADD = lib/libpvm3.la
tests_integ_netns_mhmcast_LDFLAGS = -no-install

# A host cut off without a word (mh-partition.sh).
check_PROGRAMS += tests/integ/netns/mhpart
tests_integ_netns_mhpart_SOURCES = tests/integ/netns/mhpart.c \
	tests/integ/netns/mhutil.h
tests_integ_netns_mhpart_LDADD = lib/libpvm3.la
tests_integ_netns_mhpart_LDFLAGS = -no-install

# A slow, lossy cable where the kernel has no netem (netns.sh's netns_slow).
check_PROGRAMS += tests/integ/netns/delayline
tests_integ_netns_delayline_SOURCES = tests/integ/netns/delayline.c

# io_uring refused (seccomp) for mh-uring.sh's fallback runs.
check_PROGRAMS += tests/integ/netns/noring
tests_integ_netns_noring_SOURCES = tests/integ/netns/noring.c

MH_TESTS = \
	tests/integ/mh-basic.sh \
	tests/integ/mh-routes.sh \
	tests/integ/mh-fault.sh \
	tests/integ/mh-ssh.sh \
	tests/integ/mh-group.sh \
	tests/integ/mh-listen.sh \
	tests/integ/mh-uring.sh \
	tests/integ/mh-partition.sh \
	tests/integ/mh-group-loss.sh \
	tests/integ/mh-exp-skew.sh \
	tests/integ/mh-cosched-top.sh
TESTS += $(MH_TESTS)
EXTRA_DIST += $(MH_TESTS) \
	tests/integ/netns/netns.sh \
	tests/integ/netns/mh.sh \
	tests/integ/netns/rsh \
	docs/multihost.md docs/results/partition.md

# `make check-mh' runs only these tests, with the default backend of
# direct routes (io_uring where it works); `make check-mh-sockets' runs
# them with plain sockets forced (COPVM_URING=0), and `make
# check-mh-uring' with the ring asked for (COPVM_URING=1).
check-mh:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(MH_TESTS)'
check-mh-sockets:
	COPVM_URING=0 $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(MH_TESTS)'
check-mh-uring:
	COPVM_URING=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(MH_TESTS)'
.PHONY: check-mh check-mh-sockets check-mh-uring

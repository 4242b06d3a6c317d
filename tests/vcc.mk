# Virtual circuit caching and precommunication (issue 11, items 3 and 4).
#
# alloc_count.so: a preloadable malloc counter (tests/tools/alloc_count.c;
# it also fails a chosen realloc on demand, for check_getfds_nomem),
# a shared object built for checks only.  vcc-allocs.sh runs
# bench/vcc_pingpong under it: zero allocations per message in steady
# state with VCC on, some with COPVM_VCC=0.  check_precomm: pvm_indication
# against a private daemon (order, misuse, identity with a plain send),
# and its frames seen on the circuit's socket (staged ahead, released or
# cancelled by a small frame).
check_LTLIBRARIES = tests/tools/alloc_count.la
tests_tools_alloc_count_la_SOURCES = tests/tools/alloc_count.c
tests_tools_alloc_count_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)/tests/tools

TESTS += tests/integ/vcc-allocs.sh
EXTRA_DIST += tests/integ/vcc-allocs.sh docs/results/vcc_precomm.txt \
	tests/integ/private-vm-lib.sh

# spin-syscalls.sh: the same ping-pong, its tasks with their CPUs to
# themselves, makes no system call per message in steady state (perf
# stat; skips without perf or SCHED_FIFO).
TESTS += tests/integ/spin-syscalls.sh
EXTRA_DIST += tests/integ/spin-syscalls.sh

if HAVE_CHECK
check_PROGRAMS += tests/check_precomm
TESTS += tests/check_precomm
tests_check_precomm_SOURCES = tests/check_precomm.c tests/vm_fixture.c \
	tests/vm_fixture.h
tests_check_precomm_CPPFLAGS = $(VM_TEST_CPPFLAGS)
tests_check_precomm_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_precomm_LDADD = $(VM_TEST_LDADD)
# precomm.c's calls to route.c (stage, release, cancel), compiled in
# from its source against recording stand-ins.
check_PROGRAMS += tests/check_precomm_stage
TESTS += tests/check_precomm_stage
tests_check_precomm_stage_SOURCES = tests/check_precomm_stage.c \
	lib/precomm.c lib/precomm.h lib/task_hooks.c lib/task_hooks.h \
	$(MSG_UNIT_SOURCES)
tests_check_precomm_stage_CFLAGS = $(TEST_CFLAGS)
tests_check_precomm_stage_LDADD = common/libcommon.la $(CHECK_LIBS) -lm
endif

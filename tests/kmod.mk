# The pvm_cosched module's tests: the ioctl suite, a static program with
# its own kselftest-style harness (tests/kmod/), and the test that boots
# it with the module in Debian 12's two kernels under qemu
# (tests/integ/kmod-qemu.sh; exit 77 without qemu, busybox-static or the
# kernel packages).  `make check-kmod' runs the latter; under `make check'
# it skips (77), since its emulated kernels' timing cases (a spinner held
# to its share, undone within a tick) fail when other tests load the host
# meanwhile: it runs alone (COPVM_CHECK_KMOD=1; .ci/run has a step of its
# own).  Neither is
# built under ./configure --enable-sanitizers: ASan cannot link the static
# program the test's initramfs needs.
KMOD_TESTS = tests/integ/kmod-qemu.sh
EXTRA_DIST += $(KMOD_TESTS) tests/kmod/mkinitramfs.sh tests/kmod/pvm-test.sh
if !SANITIZERS
check_PROGRAMS += tests/kmod/kmod-suite
tests_kmod_kmod_suite_SOURCES = tests/kmod/kmod_suite.c tests/kmod/ktest.c \
	tests/kmod/ktest.h tests/kmod/kmod_agent.c tests/kmod/kmod_agent.h \
	tests/kmod/kmod_safety.c tests/kmod/kmod_safety.h \
	tests/kmod/kmod_split.c tests/kmod/kmod_split.h \
	tests/kmod/kmod_watch.c tests/kmod/kmod_watch.h
tests_kmod_kmod_suite_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kmod/uapi
tests_kmod_kmod_suite_LDFLAGS = -all-static
TESTS += $(KMOD_TESTS)
endif

clean-local: clean-kmod-qemu
clean-kmod-qemu:
	-rm -rf tests/kmod/qemu
.PHONY: clean-kmod-qemu

check-kmod:
	COPVM_CHECK_KMOD=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(KMOD_TESTS)'
.PHONY: check-kmod

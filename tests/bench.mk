# Tests of the benchmark suite (bench/local.mk, docs/benchmarks.md).
#
# bench-programs.sh: every benchmark program, built once, runs on stock
# PVM and on copvm (switched by LD_LIBRARY_PATH) with tiny parameters and
# prints its RESULT lines.  bench-smoke.sh: the emulated-cluster harness's
# quick mode, checked for well-formed outputs (CSV, Markdown, PNG) and for
# leaving the machine as it found it; it needs root (namespaces, sysctl)
# and skips otherwise.  frontier-smoke.sh: bench/frontier.sh's quick mode
# (root only).  bench-two-users.sh: the harness's two-users mode (-U 2,
# one benchmark, k = 1, lin and dcs): both users' jobs ran, each in its
# own virtual machine, and are reported (root only).
# installed-harness.sh: a build of its own, `make install DESTDIR=...',
# then copvm-bench and copvm-cluster-bench (quick mode, one system) run
# from the installed tree (root only).  None looks at the figures.
BENCH_TESTS = \
	tests/integ/bench-programs.sh \
	tests/integ/bench-smoke.sh \
	tests/integ/installed-harness.sh \
	tests/integ/frontier-smoke.sh \
	tests/integ/bench-two-users.sh
TESTS += $(BENCH_TESTS)
# Two harness runs at once would serialise on the harness's lock, but
# bench-smoke.sh reads the sysctl before its harness starts: it must not
# see installed-harness.sh's run holding it at 0.
# (Through a variable: automake would take the plain target for its own.)
bench_smoke_log = tests/integ/bench-smoke.sh.log
$(bench_smoke_log): tests/integ/installed-harness.sh.log
# frontier.sh sets the same sysctl: after both.
frontier_smoke_log = tests/integ/frontier-smoke.sh.log
$(frontier_smoke_log): $(bench_smoke_log)
# The two-users run after them all: one harness at a time.
bench_two_users_log = tests/integ/bench-two-users.sh.log
$(bench_two_users_log): $(frontier_smoke_log)

EXTRA_DIST += $(BENCH_TESTS) \
	docs/benchmarks.md

# `make check-bench' runs only these tests.
check-bench:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(BENCH_TESTS)'
.PHONY: check-bench

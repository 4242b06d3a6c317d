# The benchmark suite (docs/benchmarks.md): the PARKBENCH low-level
# benchmarks COMMS1, COMMS2 and SYNCH1, the synthetic sinring, sintree and
# master-slave, the local workload calcula and calcula2, and what the
# emulated-cluster harness (bench/bench-cluster.sh) needs besides.
#
# The programs live in examples/ but are built here.  The PVM ones are
# linked against copvm's libpvm3 (and libgpvm3 for SYNCH1) and run on
# stock PVM unchanged when Debian's libraries come first on
# LD_LIBRARY_PATH.  -no-install makes them real executables with a run
# path to our libraries (RUNPATH, which LD_LIBRARY_PATH overrides), not
# libtool wrapper scripts: the daemons spawn them directly.

# util.c: clocks, the floating-point kernel, statistics, the fit (no PVM).
# pvmbench.c: placement, spawning, waiting (PVM 3.4 API only);
# synthetic.c, comms_driver.c: the drivers of sinring/sintree and of
# COMMS1/COMMS2.
noinst_LTLIBRARIES += bench/libbenchutil.la bench/libbenchpvm.la
bench_libbenchutil_la_SOURCES = bench/bench.h bench/util.c
bench_libbenchutil_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
bench_libbenchpvm_la_SOURCES = bench/bench.h bench/pvmbench.c bench/synthetic.c \
	bench/comms_driver.c
bench_libbenchpvm_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench

BENCH_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
BENCH_PVM_LDADD = bench/libbenchpvm.la bench/libbenchutil.la lib/libpvm3.la

noinst_PROGRAMS += examples/comms1 examples/comms2 examples/synch1 \
	examples/sinring examples/sintree examples/mslave \
	examples/calcula examples/calcula2 bench/pvmhosts

examples_comms1_SOURCES = examples/comms1.c
examples_comms1_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_comms1_LDADD = $(BENCH_PVM_LDADD)
examples_comms1_LDFLAGS = -no-install

examples_comms2_SOURCES = examples/comms2.c
examples_comms2_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_comms2_LDADD = $(BENCH_PVM_LDADD)
examples_comms2_LDFLAGS = -no-install

# pvm_barrier is in libgpvm3 (group/local.mk).
examples_synch1_SOURCES = examples/synch1.c
examples_synch1_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_synch1_LDADD = bench/libbenchpvm.la bench/libbenchutil.la \
	group/libgpvm3.la lib/libpvm3.la
examples_synch1_LDFLAGS = -no-install

examples_sinring_SOURCES = examples/sinring.c
examples_sinring_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_sinring_LDADD = $(BENCH_PVM_LDADD)
examples_sinring_LDFLAGS = -no-install

examples_sintree_SOURCES = examples/sintree.c
examples_sintree_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_sintree_LDADD = $(BENCH_PVM_LDADD)
examples_sintree_LDFLAGS = -no-install

examples_mslave_SOURCES = examples/mslave.c
examples_mslave_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_mslave_LDADD = $(BENCH_PVM_LDADD)
examples_mslave_LDFLAGS = -no-install

# The local workload: plain programs, no PVM.
examples_calcula_SOURCES = examples/calcula.c
examples_calcula_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_calcula_LDADD = bench/libbenchutil.la

examples_calcula2_SOURCES = examples/calcula2.c
examples_calcula2_CPPFLAGS = $(BENCH_CPPFLAGS)
examples_calcula2_LDADD = bench/libbenchutil.la

# pvmhosts: the harness's hands on a virtual machine (add hosts, count
# them, halt), through the API so that it works with either PVM.
bench_pvmhosts_SOURCES = bench/pvmhosts.c
bench_pvmhosts_LDADD = lib/libpvm3.la
bench_pvmhosts_LDFLAGS = -no-install

# The installed copies: the same sources linked again as ordinary
# libtool programs (relinked against $(libdir) by `make install'; the
# -no-install ones above keep a run path into this build tree), into
# $(pkglibexecdir) under their short names (comms1, mslave...), where
# they cannot clash with Debian's pvm-examples (which puts master1,
# spmd... into /usr/bin): the front commands copvm-bench and
# copvm-cluster-bench are the only names in $(bindir).
pkglibexec_PROGRAMS = bench/installed/comms1 bench/installed/comms2 \
	bench/installed/synch1 bench/installed/sinring bench/installed/sintree \
	bench/installed/mslave bench/installed/calcula bench/installed/calcula2 \
	bench/installed/pvmhosts
bench_installed_comms1_SOURCES = $(examples_comms1_SOURCES)
bench_installed_comms1_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_comms1_LDADD = $(examples_comms1_LDADD)
bench_installed_comms2_SOURCES = $(examples_comms2_SOURCES)
bench_installed_comms2_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_comms2_LDADD = $(examples_comms2_LDADD)
bench_installed_synch1_SOURCES = $(examples_synch1_SOURCES)
bench_installed_synch1_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_synch1_LDADD = $(examples_synch1_LDADD)
bench_installed_sinring_SOURCES = $(examples_sinring_SOURCES)
bench_installed_sinring_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_sinring_LDADD = $(examples_sinring_LDADD)
bench_installed_sintree_SOURCES = $(examples_sintree_SOURCES)
bench_installed_sintree_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_sintree_LDADD = $(examples_sintree_LDADD)
bench_installed_mslave_SOURCES = $(examples_mslave_SOURCES)
bench_installed_mslave_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_mslave_LDADD = $(examples_mslave_LDADD)
bench_installed_calcula_SOURCES = $(examples_calcula_SOURCES)
bench_installed_calcula_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_calcula_LDADD = $(examples_calcula_LDADD)
bench_installed_calcula2_SOURCES = $(examples_calcula2_SOURCES)
bench_installed_calcula2_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_installed_calcula2_LDADD = $(examples_calcula2_LDADD)
bench_installed_pvmhosts_SOURCES = $(bench_pvmhosts_SOURCES)
bench_installed_pvmhosts_LDADD = $(bench_pvmhosts_LDADD)

# The harness's scripts, run from the source tree or installed beside the
# programs: bench-cluster.sh finds either layout (see its head).  netns.sh
# and the namespaces' rsh come from tests/integ/netns/ (netns-rsh once
# installed: bench/rsh has the name); paths.sh tells the installed
# harness where configure put the daemon and the libraries.
dist_pkglibexec_SCRIPTS = bench/rsh bench/cluster-lib.sh bench/report.pl \
	bench/bench-cluster.sh
bin_SCRIPTS += bench/copvm-bench bench/copvm-cluster-bench
benchdatadir = $(pkglibexecdir)
benchdata_DATA = bench/paths.sh
EXTRA_DIST += bench/copvm-bench.in bench/copvm-cluster-bench.in
CLEANFILES += bench/copvm-bench bench/copvm-cluster-bench bench/paths.sh

bench_edit = sed -e 's|@pkglibexecdir[@]|$(pkglibexecdir)|g' \
	-e 's|@bindir[@]|$(bindir)|g' -e 's|@sbindir[@]|$(sbindir)|g' \
	-e 's|@libdir[@]|$(libdir)|g' -e 's|@VERSION[@]|$(VERSION)|g'

bench/copvm-bench: $(srcdir)/bench/copvm-bench.in Makefile
	$(AM_V_GEN)$(MKDIR_P) bench && $(bench_edit) $(srcdir)/bench/copvm-bench.in >$@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@
bench/copvm-cluster-bench: $(srcdir)/bench/copvm-cluster-bench.in Makefile
	$(AM_V_GEN)$(MKDIR_P) bench && $(bench_edit) $(srcdir)/bench/copvm-cluster-bench.in >$@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@
bench/paths.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) bench && { \
		echo '# paths.sh - where configure put copvm (generated by make).'; \
		echo 'COPVM_PKGLIBEXECDIR=$(pkglibexecdir)'; \
		echo 'COPVM_BINDIR=$(bindir)'; \
		echo 'COPVM_SBINDIR=$(sbindir)'; \
		echo 'COPVM_LIBDIR=$(libdir)'; \
	} >$@

install-exec-hook: install-bench-netns
install-bench-netns:
	$(MKDIR_P) '$(DESTDIR)$(pkglibexecdir)'
	$(INSTALL_DATA) $(srcdir)/tests/integ/netns/netns.sh '$(DESTDIR)$(pkglibexecdir)/netns.sh'
	$(INSTALL_SCRIPT) $(srcdir)/tests/integ/netns/rsh '$(DESTDIR)$(pkglibexecdir)/netns-rsh'
uninstall-hook: uninstall-bench-netns
uninstall-bench-netns:
	rm -f '$(DESTDIR)$(pkglibexecdir)/netns.sh' '$(DESTDIR)$(pkglibexecdir)/netns-rsh'
.PHONY: install-bench-netns uninstall-bench-netns

# ctx_cost: pvm_newcontext's cost as contexts pile up
# (docs/results/ctx_cost.txt).  probe_cost: the coscheduling probe's cost
# per message (docs/results/models/probe_cost.txt).
noinst_PROGRAMS += bench/ctx_cost
bench_ctx_cost_SOURCES = bench/ctx_cost.c
bench_ctx_cost_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_ctx_cost_LDADD = bench/libbenchutil.la lib/libpvm3.la
noinst_PROGRAMS += bench/probe_cost
bench_probe_cost_SOURCES = bench/probe_cost.c
bench_probe_cost_LDADD = lib/libpvm3.la
bench_probe_cost_LDFLAGS = -static

# vcc_pingpong: the ping-pong of the VCC/precommunication paper (median
# round trip per size, heap allocations per message under
# tests/tools/alloc_count.so, -I for precommunication); see
# docs/results/vcc_precomm.txt.
noinst_PROGRAMS += bench/vcc_pingpong
bench_vcc_pingpong_SOURCES = bench/vcc_pingpong.c
bench_vcc_pingpong_LDADD = lib/libpvm3.la -ldl
bench_vcc_pingpong_LDFLAGS = -no-install
EXTRA_DIST += bench/vcc_precomm.sh bench/models-report.sh
EXTRA_DIST += bench/kmod-vm-bench.sh bench/kmod/vm-comms1.sh
EXTRA_DIST += bench/pingpong-vs-mpi.sh bench/mpi_pingpong.c
EXTRA_DIST += bench/pingpong-syscalls.sh bench/breakdown.sh
EXTRA_DIST += bench/stage-probes.sh bench/stage-probes.patch
# The fair-share frontier (docs/results/efficacy/).
EXTRA_DIST += bench/frontier.sh bench/frontier-report.pl
# What a Gain costs the local jobs in a bench-cluster.sh run.
EXTRA_DIST += bench/work-cost.pl

# One boost's cost through the agent or the module (docs/results/kmod/).
noinst_PROGRAMS += bench/boost_cost
bench_boost_cost_SOURCES = bench/boost_cost.c
bench_boost_cost_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib/cosched
bench_boost_cost_LDADD = lib/libpvm3.la
bench_boost_cost_LDFLAGS = -static

# copy_floor: the copies of a large-message ping-pong alone, two
# processes and no library (docs/results/msg_breakdown.md, "Lent bodies").
noinst_PROGRAMS += bench/copy_floor
bench_copy_floor_SOURCES = bench/copy_floor.c
bench_copy_floor_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_copy_floor_LDADD = bench/libbenchutil.la -lm

# write_after_read: a copy into a shared block that another CPU has just
# read, against one read longer ago (msg_breakdown.md, "Where a lent
# block goes").
noinst_PROGRAMS += bench/write_after_read
bench_write_after_read_SOURCES = bench/write_after_read.c
bench_write_after_read_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_write_after_read_LDADD = bench/libbenchutil.la -lm

# soak: mixed messages for a long time, with or without faults (the
# load of bench/soak-faults.sh; docs/results/soak.md).
noinst_PROGRAMS += bench/soak
bench_soak_SOURCES = bench/soak.c bench/soak_worker.c bench/soak_msg.c \
	bench/soak.h
bench_soak_LDADD = lib/libpvm3.la
bench_soak_LDFLAGS = -no-install
EXTRA_DIST += bench/soak-faults.sh

# The benchmark scripts run by hand, never by `make check' (their
# timings are for reading, not asserting; docs/benchmarks.md): stock PVM
# against copvm on one host (bench-pingpong.sh, bench-barrier.sh, their
# table pingpong-report.pl) and across emulated hosts (bench-mh-*.sh,
# which use tests/integ/netns/), and the raw TCP and io_uring ping-pongs
# with no PVM that the scripts compile on the fly.
EXTRA_DIST += bench/bench-pingpong.sh bench/bench-barrier.sh \
	bench/pingpong-report.pl \
	bench/bench-mh-pingpong.sh bench/bench-mh-barrier.sh \
	bench/bench-mh-syscalls.sh bench/bench-mh-mcast.sh \
	bench/bench-mh-ringvariants.sh \
	bench/rawpingpong.c bench/ringpingpong.c

# The benchmark suite (docs/benchmarks.md): the PARKBENCH low-level
# benchmarks COMMS1, COMMS2 and SYNCH1, the synthetic sinring, sintree and
# master-slave, the local workload calcula and calcula2, and what the
# emulated-cluster harness (tests/integ/bench-cluster.sh) needs besides.
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

# The harness's scripts (run from the source tree, not installed).
EXTRA_DIST += bench/rsh bench/cluster-lib.sh bench/report.pl

# The coscheduling probe's cost per message (docs/results/cosched/).
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
EXTRA_DIST += bench/vcc_precomm.sh

#!/bin/bash
# pingpong-vs-mpi.sh - same-host ping-pong side by side in one run: stock
# PVM against copvm with its shared-memory rings (the default), stock
# against copvm on unix sockets (COPVM_SHM=0), each through
# bench/bench-pingpong.sh, then Open MPI over its shared memory
# (bench/mpi_pingpong.c, MPI_Send/MPI_Recv, the same sizes and round
# trips).  Medians of RUNS runs per side.  A benchmark, not a test: for a
# quiet machine; its output goes into docs/results.
#
# usage: bench/pingpong-vs-mpi.sh [-n runs] [-r reps] [-s sizes] [-b n | -f]
#   -s sizes  message sizes in bytes, comma-separated, for every side
#             (default pingpong's: 0,8,1024,65536,1048576); a bandwidth
#             sweep: -s 65536,262144,1048576,4194304,16777216
#   -b n      streams instead of round trips: each message answered by
#             n, every figure per message of the stream (the tables'
#             "round trip" columns then read "per message", and MB/s is
#             bytes / median)
#   -f        the PVM tasks forward each message as received (pingpong
#             -f: no pack or unpack), the pattern of Open MPI's
#             MPI_Send/MPI_Recv of the same buffer, which is unchanged
#   (from the top build directory, after `make'; Open MPI from Debian's
#   openmpi-bin and libopenmpi-dev, skipped with a word when missing)
set -u
runs=5
reps=4000
sizes=()
stream=()
fwd=()
while getopts n:r:s:b:f opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	s) sizes=(-s "$OPTARG") ;;
	b) stream=(-b "$OPTARG") ;;
	f) fwd=(-f) ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-s sizes] [-b n | -f]" >&2; exit 2 ;;
	esac
done
top=$PWD
src=$(cd "$(dirname "$0")/.." && pwd)
pp=$src/bench/bench-pingpong.sh
[ -x "$top/examples/pingpong" ] || { echo "run it from the build directory after make" >&2; exit 1; }

echo "== $(date -u '+%F %T') UTC, $(uname -r), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ ${#stream[@]} = 0 ] || echo "== streams of ${stream[1]} messages: every figure is per message; MB/s = bytes / median"
[ ${#fwd[@]} = 0 ] || echo "== PVM tasks forward each message as received (no pack or unpack)"
echo "== stock against copvm, shared-memory rings (default)"
srcdir=$src INTEG_BUILDDIR=$top bash "$pp" -n "$runs" -r "$reps" "${sizes[@]}" "${stream[@]}" "${fwd[@]}" 2>/dev/null | grep -v '^PASS\|^#'
echo "== stock against copvm, unix sockets (COPVM_SHM=0)"
COPVM_SHM=0 srcdir=$src INTEG_BUILDDIR=$top bash "$pp" -n "$runs" -r "$reps" "${sizes[@]}" "${stream[@]}" "${fwd[@]}" 2>/dev/null | grep -v '^PASS\|^#'

echo "== Open MPI (mpirun -np 2, shared memory), $runs runs"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
	echo "skipped: no mpicc/mpirun (apt-get install openmpi-bin libopenmpi-dev)"
	exit 0
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/mpi_pingpong" "$src/bench/mpi_pingpong.c" || exit 1
asroot=
[ "$(id -u)" = 0 ] && asroot=--allow-run-as-root
mpirun --version | head -n 1
for i in $(seq "$runs"); do
	mpirun $asroot -np 2 --bind-to none --mca btl self,vader \
		"$work/mpi_pingpong" -r "$reps" "${sizes[@]}" "${stream[@]}" >"$work/run$i" 2>"$work/err$i" ||
		{ cat "$work/err$i" >&2; exit 1; }
done
cat "$work"/run* | awk '!/^#/ && $1 ~ /^[0-9]+$/' | perl -e '
	my (%med, %bw);
	while (<STDIN>) {
		my ($b, $r, $m, $a, $p, $mbs) = split;
		push @{$med{$b}}, $m;
		push @{$bw{$b}}, $mbs;
	}
	sub median { my @v = sort { $a <=> $b } @_;
		return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2; }
	printf "%10s %12s %12s\n", "bytes", "mpi_us", "mpi_MB/s";
	for my $b (sort { $a <=> $b } keys %med) {
		printf "%10d %12.2f %12.2f\n", $b, median(@{$med{$b}}),
			median(@{$bw{$b}});
	}'

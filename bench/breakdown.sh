#!/bin/bash
# breakdown.sh - the per-call breakdown of a same-host 8 B round trip
# (bench/vcc_pingpong -T, XDR packing as a stock program does) and Open
# MPI's round trip (bench/mpi_pingpong over vader), alternated in one
# run; prints the median over the runs of each figure and the ratio
# copvm/MPI of the round trip.  A benchmark, not a test: for a quiet
# machine (docs/results/msg_breakdown.md).
#
# usage: bench/breakdown.sh [-n runs] [-r reps] [-s size] [-f]
#   (from the top build directory, after `make'; Open MPI from Debian's
#   openmpi-bin and libopenmpi-dev)
#   -f  run both sides as SCHED_FIFO 1 with copvm's boosts off and its
#       run-queue reading pinned at idle: no other task can take their
#       CPUs, which stands in for an idle machine on a shared one
set -u
runs=5
reps=100000
size=8
fifo=
while getopts n:r:s:f opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	s) size=$OPTARG ;;
	f) fifo=1 ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-s size] [-f]" >&2; exit 2 ;;
	esac
done
top=$PWD
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$top/bench/vcc_pingpong" ] || { echo "run it from the build directory after make" >&2; exit 1; }
command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
	{ echo "no mpicc/mpirun (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
work=$(mktemp -d) || exit 1
export PVM_TMP=$work/tmp HOME=$work/home
mkdir -p "$PVM_TMP" "$HOME"
export COPVM_PVMD=$top/daemon/pvmd PVM_ALLOW_ROOT=1
unset PVM_ROOT PVM_EXPORT
trap '"$top/tests/tools/pvmhalt" >/dev/null 2>&1; rm -rf "$work"' EXIT
pre=()
if [ -n "$fifo" ]; then
	echo "0.00 0.00 0.00 1/100 1" >"$work/idle_loadavg"
	export COPVM_BACKEND=none COPVM_LOADAVG_FILE=$work/idle_loadavg
	pre=(chrt -f 1)
fi
mpicc -O2 -o "$work/mpi_pingpong" "$src/bench/mpi_pingpong.c" || exit 1
asroot=
[ "$(id -u)" = 0 ] && asroot=--allow-run-as-root
"${pre[@]}" "$COPVM_PVMD" </dev/null >/dev/null 2>&1 || { echo "pvmd did not start" >&2; exit 1; }
echo "== $(date -u '+%F %T') UTC, $(uname -r), $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)${fifo:+, SCHED_FIFO (-f)}"
for i in $(seq "$runs"); do
	"${pre[@]}" "$top/bench/vcc_pingpong" -r "$reps" -w 1000 -s "$size" \
		-e default -T >>"$work/copvm" || exit 1
	"${pre[@]}" mpirun $asroot -np 2 --bind-to none --mca btl self,vader \
		"$work/mpi_pingpong" -r "$reps" -s "$size" >>"$work/mpi" 2>/dev/null || exit 1
done
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
perl -e '
	my (%v);
	sub median { my @v = sort { $a <=> $b } @_;
		return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2; }
	open(my $c, "<", $ARGV[0]) or die;
	while (<$c>) {
		next unless /^(RESULT|STAGES) /;
		push @{$v{$1}}, $2 while /(\w+)=([\d.]+)/g;
	}
	open(my $m, "<", $ARGV[1]) or die;
	while (<$m>) {
		my @f = split;
		next unless @f >= 6 && $f[0] =~ /^\d+$/;
		push @{$v{mpi_median_us}}, $f[2];
		push @{$v{mpi_mean_us}}, $f[3];
	}
	printf "%-22s %10s\n", "figure", "median";
	for my $k (qw(median_us mean_us cpu_us initsend pkbyte send recv upkbyte)) {
		printf "%-22s %10.2f %s\n", "copvm_$k", median(@{$v{$k}}),
			$k =~ /_us$/ ? "us (round trip)" : "ns";
	}
	for my $k (qw(mpi_median_us mpi_mean_us)) {
		printf "%-22s %10.2f us (round trip)\n", $k, median(@{$v{$k}});
	}
	printf "%-22s %10.2f\n", "ratio copvm/MPI", median(@{$v{median_us}}) /
		median(@{$v{mpi_median_us}});
	printf "%-22s %10.2f\n", "ratio of means", median(@{$v{mean_us}}) /
		median(@{$v{mpi_mean_us}});
' "$work/copvm" "$work/mpi"

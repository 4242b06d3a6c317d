#!/bin/bash
# bench-barrier.sh - group/barrier_bench on stock PVM and on copvm, side
# by side in one run, several times; prints, per group size, the median
# over the runs of each side's mean pvm_barrier time and the ratio
# stock/copvm (above 1: copvm is faster).  Not part of `make check':
# timings on shared machines are for reading, not asserting.
#
# usage: bench/bench-barrier.sh [-n runs] [-i iters] [-t "2 4 8"]
#   (from the top build directory, after `make')
#   -n runs   alternate stock and copvm runs this many times (default 5)
#   -i iters  barriers timed per run (default 2000)
#   -t sizes  group sizes, tasks on this one host (default "2 4 8")
# The stock binary is the same source built against /usr/include/pvm3.h
# and Debian's -lgpvm3 -lpvm3, with Debian's pvmgs; copvm's uses ours.
# Each side has its own daemon and group server, started once.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/integ/lib.sh"
. "$srcdir/tests/integ/group-lib.sh"

runs=5
iters=2000
sizes="2 4 8"
while getopts n:i:t: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	i) iters=$OPTARG ;;
	t) sizes=$OPTARG ;;
	*) echo "usage: $0 [-n runs] [-i iters] [-t sizes]" >&2; exit 2 ;;
	esac
done

group_init bench-barrier
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
copvm_bb=$top_builddir/group/barrier_bench
[ -x "$copvm_bb" ] || die "$copvm_bb is missing (run make first)"
stock_bb=$W/barrier_bench-stock
${CC:-cc} -O2 -o "$stock_bb" "$top_srcdir/group/barrier_bench.c" \
	-I/usr/include -lgpvm3 -lpvm3 ||
	die "cannot build barrier_bench against stock PVM"

# INTEG_SELFTEST runs both sides on stock: then both use the stock build.
[ "${IMPL[copvm]}" = stock ] && copvm_bb=$stock_bb
# The first copy spawns the others by name.
ln -sf "$stock_bb" "$W/stock/home/pvm3/bin/LINUX64/barrier_bench"
ln -sf "$copvm_bb" "$W/copvm/home/pvm3/bin/LINUX64/barrier_bench"

side_begin stock
side_begin copvm
for i in $(seq "$runs"); do
	for n in $sizes; do
		for side in stock copvm; do
			bb=$stock_bb
			[ "$side" = copvm ] && bb=$copvm_bb
			run_prog "$side" "run$i-$n" -- "$bb" -n "$n" -i "$iters"
			if [ "$(cat "$W/$side/out/run$i-$n.rc")" != 0 ]; then
				cat "$W/$side/out/run$i-$n.err" >&2
				fail "$side: barrier_bench -n $n run $i failed"
			fi
		done
	done
	log "run $i of $runs done"
done
group_stop_server stock
group_stop_server copvm
side_end stock
side_end copvm

# Lines of barrier_bench: "barrier tasks N iters I usec T".
for side in stock copvm; do
	cat "$W/$side"/out/run*.out | awk -v s="$side" '$1 == "barrier" { print s, $3, $7 }'
done >"$W/all"
echo "medians of $runs runs of $iters barriers (microseconds per pvm_barrier)"
printf '%6s %12s %12s %12s\n' tasks stock_us copvm_us stock/copvm
perl -e '
	my (%t, %sizes);
	while (<STDIN>) {
		my ($side, $n, $us) = split;
		push @{$t{$side}{$n}}, $us;
		$sizes{$n} = 1;
	}
	sub median { my @v = sort { $a <=> $b } @_; return 0 unless @v;
		return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2; }
	for my $n (sort { $a <=> $b } keys %sizes) {
		my $s = median(@{$t{stock}{$n} // []});
		my $c = median(@{$t{copvm}{$n} // []});
		printf "%6d %12.2f %12.2f %12s\n", $n, $s, $c,
			$c > 0 ? sprintf("%.2f", $s / $c) : "-";
	}' <"$W/all"
integ_finish

#!/bin/bash
# bench-pingpong.sh - examples/pingpong on stock PVM and on copvm, side by
# side in one run, several times; prints, per message size, the median
# over the runs of each side's median round trip, each side's bandwidth
# and the ratio stock/copvm (above 1: copvm is faster).  Not part of
# `make check': timings on shared machines are for reading, not asserting.
#
# usage: bench/bench-pingpong.sh [-n runs] [-r reps] [-s sizes] [-b n | -f] [-i]
#   (from the top build directory, after `make')
#   -n runs   alternate stock and copvm runs this many times (default 5)
#   -r reps   passed to pingpong (round trips for small sizes)
#   -s sizes  passed to pingpong (message sizes in bytes, comma-separated)
#   -b n      streams of n messages (pingpong -b): figures per message
#   -f        each message forwarded as received, not packed (pingpong -f)
#   -i        route through the daemons (pingpong -i)
# The stock binary is the same source built against /usr/include/pvm3.h
# and Debian's -lpvm3; each side has its own daemon, started once.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/integ/lib.sh"

runs=5
ppargs=()
while getopts n:r:s:b:fi opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) ppargs+=(-r "$OPTARG") ;;
	s) ppargs+=(-s "$OPTARG") ;;
	b) ppargs+=(-b "$OPTARG") ;;
	f) ppargs+=(-f) ;;
	i) ppargs+=(-i) ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-s sizes] [-b n | -f] [-i]" >&2; exit 2 ;;
	esac
done

integ_init bench-pingpong
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
copvm_pp=$top_builddir/examples/pingpong
[ -x "$copvm_pp" ] || die "$copvm_pp is missing (run make first)"
stock_pp=$W/pingpong-stock
${CC:-cc} -O2 -o "$stock_pp" "$top_srcdir/examples/pingpong.c" -I/usr/include -lpvm3 ||
	die "cannot build pingpong against stock PVM"

# INTEG_SELFTEST runs both sides on stock: then both use the stock build.
[ "${IMPL[copvm]}" = stock ] && copvm_pp=$stock_pp

side_begin stock
side_begin copvm
for i in $(seq "$runs"); do
	run_prog stock "run$i" -- "$stock_pp" "${ppargs[@]}"
	run_prog copvm "run$i" -- "$copvm_pp" "${ppargs[@]}"
	for side in stock copvm; do
		if [ "$(cat "$W/$side/out/run$i.rc")" != 0 ]; then
			cat "$W/$side/out/run$i.err" >&2
			fail "$side: pingpong run $i failed"
		fi
	done
	log "run $i of $runs done"
done
side_end stock
side_end copvm

echo "stock: $(head -n 1 "$W/stock/out/run1.out")"
echo "copvm: $(head -n 1 "$W/copvm/out/run1.out")"
# Columns of pingpong: bytes reps median_us mean_us p90_us MB/s.
cat "$W"/stock/out/run*.out | awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "stock", $0 }' >"$W/all"
cat "$W"/copvm/out/run*.out | awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "copvm", $0 }' >>"$W/all"
perl "$top_srcdir/bench/pingpong-report.pl" "$runs" <"$W/all"
integ_finish

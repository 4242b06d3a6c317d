#!/bin/bash
# bench-mh-pingpong.sh - examples/pingpong between two emulated hosts
# (network namespaces, tests/integ/netns/), stock PVM and copvm side by
# side in one run, several times; prints per message size the median over
# the runs of each side's median round trip, each side's bandwidth and
# the ratio stock/copvm (above 1: copvm is faster).  Not part of `make
# check': timings on shared machines are for reading, not asserting.
#
# usage: tests/integ/bench-mh-pingpong.sh [-n runs] [-r reps] [-i]
#   (from the top build directory, after `make'; needs root)
#   -n runs   alternate stock and copvm runs this many times (default 5)
#   -r reps   passed to pingpong (round trips for small sizes)
#   -i        route through the daemons (pingpong -i), else direct routes
# Each run starts a fresh two-host machine (node1, node2) and halts it:
# pingpong's plain spawn then puts the echoing child on node2 on both
# systems (the round robin starts at the host after the spawner's).  The
# stock binary is the same source built against Debian's pvm3.h and -lpvm3.
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/integ/netns/mh.sh"

runs=5
ppargs=()
while getopts n:r:i opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) ppargs+=(-r "$OPTARG") ;;
	i) ppargs+=(-i) ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-i]" >&2; exit 2 ;;
	esac
done

mh_init bench-mh-pingpong 2
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
copvm_pp=$top_builddir/examples/pingpong
[ -x "$copvm_pp" ] || die "$copvm_pp is missing (run make first)"
stock_pp=$W/pingpong-stock
${CC:-cc} -O2 -o "$stock_pp" "$top_srcdir/examples/pingpong.c" -I/usr/include -lpvm3 ||
	die "cannot build pingpong against stock PVM"
[ "${IMPL[copvm]}" = stock ] && copvm_pp=$stock_pp

for i in $(seq "$runs"); do
	for side in stock copvm; do
		if [ "$side" = stock ]; then pp=$stock_pp; else pp=$copvm_pp; fi
		mh_begin "$side"
		mh_run "$side" node1 "run$i" -- "$pp" "${ppargs[@]}"
		mh_end "$side"
		if [ "$(cat "$W/$side/out/run$i.rc")" != 0 ]; then
			cat "$W/$side/out/run$i.err" >&2
			fail "$side: pingpong run $i failed"
		fi
	done
	log "run $i of $runs done"
done

echo "stock: $(head -n 1 "$W/stock/out/run1.out") (node1 <-> node2)"
echo "copvm: $(head -n 1 "$W/copvm/out/run1.out") (node1 <-> node2)"
# Columns of pingpong: bytes reps median_us mean_us p90_us MB/s.
cat "$W"/stock/out/run*.out | awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "stock", $0 }' >"$W/all"
cat "$W"/copvm/out/run*.out | awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "copvm", $0 }' >>"$W/all"
perl "$top_srcdir/tests/integ/pingpong-report.pl" "$runs" <"$W/all"
integ_finish

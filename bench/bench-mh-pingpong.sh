#!/bin/bash
# bench-mh-pingpong.sh - examples/pingpong between two emulated hosts
# (network namespaces, tests/integ/netns/), stock PVM and copvm side by
# side in one run, several times; prints per message size the median over
# the runs of each side's median round trip, each side's bandwidth and
# the ratio stock/copvm (above 1: copvm is faster).  Not part of `make
# check': timings on shared machines are for reading, not asserting.
#
# usage: bench/bench-mh-pingpong.sh [-n runs] [-r reps] [-i] [-u] [-t]
#   (from the top build directory, after `make'; needs root)
#   -n runs   alternate stock and copvm runs this many times (default 5)
#   -r reps   passed to pingpong (round trips for small sizes)
#   -i        route through the daemons (pingpong -i), else direct routes
#   -u        also copvm with its direct routes over io_uring
#             (COPVM_URING=1; side "uring"; copvm is then COPVM_URING=0)
#   -t        also a raw TCP ping-pong over the same veth pair, both ends
#             spinning (bench/rawpingpong.c; side "raw")
# The extra sides run in the same rounds, after stock and copvm, and get
# a second table.
# Each run starts a fresh two-host machine (node1, node2) and halts it:
# pingpong's plain spawn then puts the echoing child on node2 on both
# systems (the round robin starts at the host after the spawner's).  The
# stock binary is the same source built against Debian's pvm3.h and -lpvm3.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/integ/netns/mh.sh"

runs=5
ppargs=()
rawargs=()
sides=(stock copvm)
while getopts n:r:iut opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) ppargs+=(-r "$OPTARG"); rawargs+=(-r "$OPTARG") ;;
	i) ppargs+=(-i) ;;
	u) sides+=(uring) ;;
	t) sides+=(raw) ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-i] [-u] [-t]" >&2; exit 2 ;;
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

raw=$W/rawpingpong
if [[ " ${sides[*]} " = *" raw "* ]]; then
	${CC:-cc} -O2 -o "$raw" -I"$top_srcdir/examples" \
		"$top_srcdir/bench/rawpingpong.c" ||
		die "cannot build rawpingpong"
fi
[[ " ${sides[*]} " = *" uring "* ]] && export COPVM_URING=0

# A raw TCP ping-pong, node1 -> node2 (its address in netns.sh's net).
raw_run() {
	local o=$W/copvm/out/raw$1 spid
	timeout -k 5 "$INTEG_TIMEOUT" env $(mh_env copvm) "$MH_RSH" node2 \
		"$raw" serve 7777 </dev/null >"$o.srv" 2>&1 &
	spid=$!
	mh_run copvm node1 "raw$1" -- "$raw" "$NETNS_NET.2" 7777 "${rawargs[@]}"
	wait "$spid" || cat "$o.srv" >&2
}

for i in $(seq "$runs"); do
	for side in "${sides[@]}"; do
		if [ "$side" = raw ]; then
			raw_run "$i"
			[ "$(cat "$W/copvm/out/raw$i.rc")" = 0 ] ||
				fail "raw: run $i failed: $(cat "$W/copvm/out/raw$i.err")"
			continue
		fi
		s=$side out=run$i
		if [ "$side" = stock ]; then pp=$stock_pp; else pp=$copvm_pp; fi
		if [ "$side" = uring ]; then
			s=copvm out=urun$i
			export COPVM_URING=1
		fi
		mh_begin "$s"
		mh_run "$s" node1 "$out" -- "$pp" "${ppargs[@]}"
		mh_end "$s"
		[ "$side" = uring ] && export COPVM_URING=0
		if [ "$(cat "$W/$s/out/$out.rc")" != 0 ]; then
			cat "$W/$s/out/$out.err" >&2
			fail "$side: pingpong run $i failed"
		fi
	done
	log "run $i of $runs done ($(uptime | sed 's/.*load/load/'))"
done

echo "stock: $(head -n 1 "$W/stock/out/run1.out") (node1 <-> node2)"
echo "copvm: $(head -n 1 "$W/copvm/out/run1.out") (node1 <-> node2)"
# Columns of pingpong: bytes reps median_us mean_us p90_us MB/s.
cat "$W"/stock/out/run*.out | awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "stock", $0 }' >"$W/all"
cat "$W"/copvm/out/run*.out | awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "copvm", $0 }' >>"$W/all"
cat "$W"/copvm/out/urun*.out 2>/dev/null |
	awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "uring", $0 }' >>"$W/all"
cat "$W"/copvm/out/raw*.out 2>/dev/null |
	awk '!/^#/ && $1 ~ /^[0-9]+$/ { print "raw", $0 }' >>"$W/all"
perl "$top_srcdir/bench/pingpong-report.pl" "$runs" <"$W/all"
integ_finish

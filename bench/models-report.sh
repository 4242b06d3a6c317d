#!/bin/bash
# models-report.sh - the full coscheduling-models report of issue 9
# (docs/results/models/): every model and stock on 2 emulated nodes,
# k = 0..5 local jobs per node, the five benchmarks, then the extra runs
# (the agent's cool-down at 50 ms, two parallel jobs, duty cycles, never-yielding local jobs, the `self'
# backend, a boost trace).  A benchmark, not a test: it takes about two
# hours and needs a quiet machine (nothing else running: every other
# process is load on the emulated nodes).
#
# Each phase is one bench/bench-cluster.sh run in its own
# directory under OUT; the model phases (k0135, k24) are then put together
# into OUT/all, whose results.md bench/report.pl writes.
#
# usage: bench/models-report.sh OUT [phase...]
#   (as root, from the top build directory after `make')
#   phases: k0135 k24 cool50 twojobs duty busy self trace (default: all)
# Environment: REPS (default 3), WORK (calcula2's seconds, default 1),
# SYSTEMS (the model phases' systems).
set -u
out=${1:?usage: bench/models-report.sh OUT [phase...]}
shift
phases=${*:-k0135 k24 cool50 twojobs duty busy self trace}
reps=${REPS:-3}
work=${WORK:-1}
systems=${SYSTEMS:-stock,lin,imp,hpdt,dyn0.5,dyn1,pre0,pre0.5,pre1,pre0.5r50,dcs,exp}
benches=comms1,comms2,synch1,sintree,mslave
B=bench/bench-cluster.sh
[ -x "$B" ] || { echo "models-report: run it from the top build directory" >&2; exit 1; }
mkdir -p "$out" || exit 1

# run NAME ARGS...: one harness run into OUT/NAME, its log beside it
# (ARGS may give -r again: the last one counts).
run() {
	local name=$1
	shift
	echo "models-report: $name: $B $*" >&2
	"$B" -n 2 -r "$reps" -w "$work" "$@" -o "$out/$name" >"$out/$name.log" 2>&1 ||
		echo "models-report: $name failed (see $out/$name.log)" >&2
}

for p in $phases; do
	case $p in
	k0135) run k0135 -b "$benches" -k 0,1,3,5 -s "$systems" ;;
	k24) run k24 -b "$benches" -k 2,4 -s "$systems" ;;
	cool50)	# the agent's cool-down after a budget demotion at 50 ms
		BENCH_AGENT_ARGS="-c 50" run cool50 -b "$benches" -k 0,5 -s lin,pre0.5,pre0.5r50,hpdt ;;
	twojobs) run twojobs -J 2 -b comms1,synch1,sintree -k 0,5 -s stock,lin,pre0.5,pre0.5r50 ;;
	duty)
		for d in 10 50 90; do
			run duty$d -d "$d" -b comms1,synch1,sintree -k 5 -s stock,lin,pre0.5,pre0.5r50
		done ;;
	busy) run busy -L busy -b comms1,synch1,sintree -k 5 -s stock,lin,pre0.5,pre0.5r50 ;;
	self) run self -B self -b comms1,synch1,sintree,mslave -k 0,5 -s stock,lin,pre0.5,pre0.5r50,hpdt ;;
	trace) run trace -T -r 1 -b mslave -k 5 -s pre0.5 ;;
	*) echo "models-report: unknown phase $p" >&2; exit 1 ;;
	esac
done

# The model phases together: one runs.csv, metrics.csv and settings.txt.
if [ -f "$out/k0135/runs.csv" ] && [ -f "$out/k24/runs.csv" ]; then
	mkdir -p "$out/all"
	for f in runs.csv metrics.csv; do
		{ cat "$out/k0135/$f"; tail -n +2 "$out/k24/$f"; } >"$out/all/$f"
	done
	cat "$out/k0135/settings.txt" "$out/k24/settings.txt" >"$out/all/settings.txt"
	cp "$out/k0135/dedicated.csv" "$out/all/" 2>/dev/null
	perl "$(dirname "$0")/report.pl" "$out/all" >/dev/null ||
		echo "models-report: the combined report failed" >&2
fi

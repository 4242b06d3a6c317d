#!/bin/bash
# vcc_precomm.sh - the measurements of docs/results/vcc_precomm.txt:
# bench/vcc_pingpong on this host, VCC on vs off (COPVM_VCC) and
# precommunication on vs off (-I), alternating the variants run by run;
# prints per variant and size the median over the runs of each run's
# median round trip and of its CPU time per round trip, and the change.  Not a test: read the figures.
#
# -P pins the two tasks to CPUs 0 and 1 (vcc_pingpong -P): unpinned,
# small round trips are bimodal from run to run (one CPU or two).
#
# usage: bench/vcc_precomm.sh [-n runs] [-r reps] [-P]   (from the build dir)
set -u
runs=5
reps=2000
pin=
while getopts n:r:P opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	P) pin=-P ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-P]" >&2; exit 2 ;;
	esac
done
top_builddir=$(pwd)
pp=$top_builddir/bench/vcc_pingpong
[ -x "$pp" ] || { echo "$pp is missing (make first)" >&2; exit 1; }
export PVM_TMP=$(mktemp -d) HOME=$(mktemp -d)
export COPVM_PVMD=$top_builddir/daemon/pvmd PVM_ALLOW_ROOT=1
export PVM_EXPORT=COPVM_VCC
unset PVM_ROOT
out=$PVM_TMP/out
mkdir -p "$out"
trap '"$top_builddir/tests/tools/pvmhalt" >/dev/null 2>&1; grep -H . "$out"/* > "${KEEP_RAW:-/dev/null}"; rm -rf "$PVM_TMP" "$HOME"' EXIT

vsizes=8,1024,16384,65536,1048576
psizes=4096,16384,65536,1048576
for i in $(seq "$runs"); do
	COPVM_VCC=1 "$pp" $pin -r "$reps" -s $vsizes > "$out/vcc_on.$i" || exit 1
	COPVM_VCC=0 "$pp" $pin -r "$reps" -s $vsizes > "$out/vcc_off.$i" || exit 1
	COPVM_VCC=1 "$pp" $pin -r "$reps" -s $psizes > "$out/pre_off.$i" || exit 1
	COPVM_VCC=1 "$pp" $pin -r "$reps" -s $psizes -I > "$out/pre_on.$i" || exit 1
done

# median LABEL SIZE [FIELD]: median over the runs of FIELD (3: the
# median round trip, 4: CPU time per round trip)
median() {
	cat "$out/$1".* | awk -v s="$2" -v f="${3:-3}" '$1 == "RESULT" {
			split($2, a, "="); split($f, b, "=")
			if (a[2] == s) print b[2]
		}' | sort -g | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m }'
}

compare() {
	local a=$1 b=$2 sizes=$3 title=$4 field=$5
	echo "$title"
	printf "%10s %14s %14s %10s\n" size "$a us" "$b us" change
	for s in ${sizes//,/ }; do
		x=$(median "$a" "$s" "$field")
		y=$(median "$b" "$s" "$field")
		printf "%10s %14s %14s %9.1f%%\n" "$s" "$x" "$y" \
			"$(echo "($x - $y) / $y * 100" | bc -l)"
	done
	echo
}
echo "vcc_pingpong${pin:+ $pin}, $runs runs x $reps round trips (1 MiB: reps/10),"
echo "median over runs of the median round trip (us); change = (a-b)/b"
echo
compare vcc_on vcc_off $vsizes "VCC on (a) vs off (b): round trip" 3
compare vcc_on vcc_off $vsizes "VCC on (a) vs off (b): parent CPU per round trip" 4
compare pre_on pre_off $psizes "precommunication on (a) vs off (b), VCC on: round trip" 3
compare pre_on pre_off $psizes "precommunication on (a) vs off (b), VCC on: parent CPU per round trip" 4

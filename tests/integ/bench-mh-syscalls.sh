#!/bin/bash
# bench-mh-syscalls.sh - system calls per round trip of examples/pingpong
# between two emulated hosts (node1 -> node2, direct route), with each
# backend of copvm's direct routes: sockets (COPVM_URING=0) and io_uring
# (COPVM_URING=1).  `perf stat -e raw_syscalls:sys_enter' counts the
# pingpong master's system calls at two repetition counts; the difference
# over the difference in round trips is the cost of one round trip (one
# send and one receive), setup excluded.  Then one `strace -c -f' run per
# backend at 8 B gives the breakdown by call.  Not part of `make check'.
#
# usage: tests/integ/bench-mh-syscalls.sh
#   (from the top build directory, after `make'; needs root, perf, strace)
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/integ/netns/mh.sh"

mh_init bench-mh-syscalls 2
[ "${IMPL[copvm]}" = copvm ] || die "copvm only"
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
pp=$top_builddir/examples/pingpong
PERF=$(command -v perf) || die "perf is not installed"
STRACE=$(command -v strace) || die "strace is not installed"
[ -x "$pp" ] || die "$pp is missing (run make first)"
R1=1000
R2=3000

# Round trips pingpong makes for size $1 at -r $2 (warm-up included).
trips() {
	local n=$2
	if [ "$1" -ge 1048576 ]; then n=$(($2 / 20)); fi
	echo $((n + n / 10 + 2))
}

for backend in sockets uring; do
	if [ $backend = sockets ]; then export COPVM_URING=0; else export COPVM_URING=1; fi
	mh_begin copvm
	for size in 8 1048576; do
		for r in $R1 $R2; do
			name=perf-$backend-$size-$r
			mh_run copvm node1 "$name" -- "$PERF" stat -x, \
				-e raw_syscalls:sys_enter -o "$W/$name.txt" \
				"$pp" -s "$size" -r "$r"
			[ "$(cat "$W/copvm/out/$name.rc")" = 0 ] ||
				fail "$name: $(cat "$W/copvm/out/$name.err")"
		done
	done
	mh_run copvm node1 "strace-$backend" -- "$STRACE" -f -c \
		-o "$W/strace-$backend.txt" "$pp" -s 8 -r $R2
	mh_end copvm
done

echo "system calls per round trip of the pingpong master (node1)"
printf "%-8s %10s %12s\n" backend bytes syscalls/rt
for backend in sockets uring; do
	for size in 8 1048576; do
		a=$(awk -F, '/raw_syscalls/ { print $1 }' "$W/perf-$backend-$size-$R1.txt")
		b=$(awk -F, '/raw_syscalls/ { print $1 }' "$W/perf-$backend-$size-$R2.txt")
		t=$(( $(trips "$size" $R2) - $(trips "$size" $R1) ))
		printf "%-8s %10s %12s\n" $backend $size \
			"$(echo "scale=1; ($b - $a) / $t" | bc)"
	done
done
for backend in sockets uring; do
	echo "strace -c -f, 8 B, -r $R2 ($(trips 8 $R2) round trips), $backend:"
	head -n 14 "$W/strace-$backend.txt"
done
echo "round trips (median us) under perf, for reference:"
for backend in sockets uring; do
	for size in 8 1048576; do
		awk -v b=$backend '$1 ~ /^[0-9]+$/ { print b, $1, $3 }' \
			"$W/copvm/out/perf-$backend-$size-$R2.out"
	done
done
integ_finish

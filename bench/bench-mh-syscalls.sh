#!/bin/bash
# bench-mh-syscalls.sh - system calls per round trip of examples/pingpong
# between two emulated hosts (node1 -> node2, direct route), with each
# backend of copvm's direct routes: sockets (COPVM_URING=0) and io_uring
# (COPVM_URING=1).  `perf stat -e raw_syscalls:sys_enter' counts the
# pingpong master's system calls over many round trips (one send and one
# receive each; the start, a few hundred calls, is spread over them),
# three runs per backend and size, median printed.  Then one
# `strace -c -f' run per backend at 8 B gives the breakdown by call.
# Not part of `make check'.
#
# usage: bench/bench-mh-syscalls.sh
#   (from the top build directory, after `make'; needs root, perf, strace)
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/integ/netns/mh.sh"

mh_init bench-mh-syscalls 2
[ "${IMPL[copvm]}" = copvm ] || die "copvm only"
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
pp=$top_builddir/examples/pingpong
PERF=$(command -v perf) || die "perf is not installed"
STRACE=$(command -v strace) || die "strace is not installed"
[ -x "$pp" ] || die "$pp is missing (run make first)"
R=20000		# pingpong -r: 22002 round trips at 8 B, 1102 at 1 MiB
RUNS=3

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
		for run in $(seq $RUNS); do
			name=perf-$backend-$size-$run
			mh_run copvm node1 "$name" -- "$PERF" stat -x, \
				-e raw_syscalls:sys_enter -o "$W/$name.txt" \
				"$pp" -s "$size" -r "$R"
			[ "$(cat "$W/copvm/out/$name.rc")" = 0 ] ||
				fail "$name: $(cat "$W/copvm/out/$name.err")"
		done
	done
	mh_run copvm node1 "strace-$backend" -- "$STRACE" -f -c \
		-o "$W/strace-$backend.txt" "$pp" -s 8 -r 3000
	mh_end copvm
done

echo "system calls per round trip of the pingpong master (node1),"
echo "median of $RUNS runs (each run's count / its round trips)"
printf "%-8s %10s %12s %12s\n" backend bytes syscalls/rt "rt median us"
for backend in sockets uring; do
	for size in 8 1048576; do
		t=$(trips "$size" $R)
		per=$(for run in $(seq $RUNS); do
			awk -F, -v t=$t '/raw_syscalls/ { printf "%.2f\n", $1 / t }' \
				"$W/perf-$backend-$size-$run.txt"
		done | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
		us=$(for run in $(seq $RUNS); do
			awk '$1 ~ /^[0-9]+$/ { print $3 }' \
				"$W/copvm/out/perf-$backend-$size-$run.out"
		done | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
		printf "%-8s %10s %12s %12s\n" $backend $size "$per" "$us"
	done
done
for backend in sockets uring; do
	echo "strace -c -f, 8 B, -r 3000 ($(trips 8 3000) round trips), $backend:"
	head -n 14 "$W/strace-$backend.txt"
done
integ_finish

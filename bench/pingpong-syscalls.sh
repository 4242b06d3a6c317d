#!/bin/bash
# pingpong-syscalls.sh - system calls and context switches per message of
# a same-host ping-pong (bench/vcc_pingpong, 8 B by default), counted by
# perf stat on both tasks: the parent from its start, the child from the
# moment it appears.  Two runs of different lengths are subtracted, so
# what is left is the steady state, per round trip (each task sends one
# message and receives one per round trip).  A benchmark, not a test.
#
# usage: bench/pingpong-syscalls.sh [-s size] [-e enc] [-n short,long]
#                                   [-- vcc_pingpong args...]
#   (from the top build directory, after `make'; needs perf)
set -u
size=8
enc=default
lens=20000,220000
while getopts s:e:n: opt; do
	case $opt in
	s) size=$OPTARG ;;
	e) enc=$OPTARG ;;
	n) lens=$OPTARG ;;
	*) echo "usage: $0 [-s size] [-e enc] [-n short,long] [-- args]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
top=$PWD
pp=$top/bench/vcc_pingpong
[ -x "$pp" ] || { echo "run it from the build directory after make" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing (linux-perf)" >&2; exit 1; }
. "$(dirname "$0")/../tests/integ/private-vm-lib.sh"
private_vm "$top"
"$COPVM_PVMD" </dev/null >/dev/null 2>&1 || { echo "pvmd did not start" >&2; exit 1; }
ev=raw_syscalls:sys_enter,context-switches,cpu-migrations

# count REPS: prints "parent_sys parent_cs child_sys child_cs" of one run
count() {
	local reps=$1 ppid cpid i
	perf stat -x, -e $ev -o "$PVM_TMP/p.stat" -- \
		"$pp" -r "$reps" -w 0 -s "$size" -e "$enc" "$@" >"$PVM_TMP/p.out" 2>&1 &
	ppid=$!
	cpid=
	for i in $(seq 500); do
		cpid=$(pgrep -f -n -- '--vcc-pingpong-child') && break
		sleep 0.01
	done
	[ -n "$cpid" ] || { echo "no child appeared" >&2; exit 1; }
	perf stat -x, -e $ev -o "$PVM_TMP/c.stat" -p "$cpid" 2>/dev/null
	wait $ppid
	grep RESULT "$PVM_TMP/p.out" >&2
	for f in p c; do
		awk -F, '/raw_syscalls/ { s = $1 } /context-switches/ { c = $1 }
			END { printf "%s %s ", s, c }' "$PVM_TMP/$f.stat"
	done
	echo
}
short=${lens%,*}
long=${lens#*,}
read -r ps1 pc1 cs1 cc1 < <(count "$short" "$@")
read -r ps2 pc2 cs2 cc2 < <(count "$long" "$@")
echo "== $(date -u '+%F %T') UTC, $(uname -r), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== size $size B, encoding $enc, runs of $short and $long round trips, args: $*"
awk -v d=$((long - short)) -v ps1="$ps1" -v ps2="$ps2" -v pc1="$pc1" \
	-v pc2="$pc2" -v cs1="$cs1" -v cs2="$cs2" -v cc1="$cc1" -v cc2="$cc2" 'BEGIN {
	printf "%-8s %14s %14s %14s %14s\n", "task", "syscalls/rt", "ctxsw/rt",
		"syscalls/msg", "ctxsw/msg"
	printf "%-8s %14.3f %14.3f %14.3f %14.3f\n", "parent", (ps2 - ps1) / d,
		(pc2 - pc1) / d, (ps2 - ps1) / d / 2, (pc2 - pc1) / d / 2
	printf "%-8s %14.3f %14.3f %14.3f %14.3f\n", "child", (cs2 - cs1) / d,
		(cc2 - cc1) / d, (cs2 - cs1) / d / 2, (cc2 - cc1) / d / 2
}'

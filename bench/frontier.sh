#!/bin/bash
# frontier.sh - where a coscheduling setting sits between the machine's
# two limits, under local jobs that never yield (issue 22, docs/cosched.md
# "The share").
#
# Two emulated nodes (network namespaces, tests/integ/netns/netns.sh),
# node i's processes all pinned to CPU i-1 (bench/rsh), autogroup off.
# On each node k local jobs `while :; do :; done`, pinned beside the node.
# For every configuration of -c, a fresh copvm virtual machine runs
# examples/pingpong (its echoing child on node2) once per size, and the
# script reads around each size run:
#   - the round trip: mean, median, p99 (pingpong's own columns);
#   - the local jobs' share: their CPU time (schedstat) over the wall
#     time, per node (1.0 = the whole CPU), and its ratio to LIN's share
#     in the same repetition ("keep");
#   - the job's share: the node CPU's busy time (/proc/stat: user, nice,
#     system, irq, softirq) less the local jobs', over the wall time: the
#     task, its daemon and the network's work.
# The references, measured in the same repetition:
#   raw-sleep  a raw TCP ping-pong, both ends SCHED_FIFO 1, sleeping in
#              recv: the sleeping limit (every message pays a wake-up);
#   raw-spin   the same, spinning on MSG_DONTWAIT: the spinning limit (the
#              local jobs get nothing while it runs);
#   unbounded  copvm's LIN with every PVM process at SCHED_FIFO 1 (the
#              daemons under chrt; their tasks inherit it), no budget.
# A configuration is MODEL[+agent][+sSHARE][+user]: MODEL is a copvm model
# (lin, imp, hpdt, dyn, pre, dcs; COPVM_MODEL), +agent runs copvm-agent
# and asks for it (COPVM_BACKEND=agent; else the library's auto choice
# without agent or module: self), +sSHARE sets COPVM_SHARE and lifts the
# agent's site caps (-p 100 -U 100) so that the share alone bounds the
# boost (a plain +agent runs the agent's defaults), +user drops
# CAP_SYS_NICE (setpriv), so `self' gives what an ordinary user gets with
# RLIMIT_NICE 0: slice requests only.
#
# usage: bench/frontier.sh [-q] [-n runs] [-k jobs] [-r reps] [-s sizes]
#            [-c configs] [-T] [-o dir]
#   (as root, from the top build directory after `make')
#   -q        quick mode: one repetition, k = 1, 2000 round trips, 8 B,
#             configs raw-sleep,lin,pre+agent: a smoke test of the script
#   -n runs   repetitions of the whole list (default 3); medians are over
#             these
#   -k jobs   local jobs per node (default 5)
#   -r reps   round trips per size (default 2000)
#   -s sizes  message sizes (default 8,1024)
#   -c list   configurations (default: raw-sleep,raw-spin,unbounded,lin,
#             pre,pre+user,pre+agent,pre+agent+s0.02,pre+agent+s0.3,
#             pre+agent+s1)
#   -T        diagnosis: each copvm run is traced (perf sched record, and
#             the library's COPVM_WAIT_STATS), and the report gets,
#             per configuration and size, the tasks' wake-to-run delay
#             (perf sched latency: mean and max), the share of the wall
#             time they spent
#             spinning, how often a spin found its message, the blocks
#             per round trip and the agent's holds
#   -o dir    where results.txt, runs.tsv (and diagnosis.txt) go (default:
#             a temporary directory, printed)
# Prints the table of medians; exit status 0 when every run succeeded,
# 1 when one failed (its line says why), 77 when not root or without
# namespaces.
set -u
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top=$(pwd)
[ -x "$top/examples/pingpong" ] || top=$srcdir
. "$srcdir/tests/integ/netns/netns.sh"

runs=3 k=5 reps=2000 sizes=8,1024 out= trace=
configs=raw-sleep,raw-spin,unbounded,lin,pre,pre+user,pre+agent,pre+agent+s0.02,pre+agent+s0.3,pre+agent+s1
while getopts qn:k:r:s:c:To: opt; do
	case $opt in
	q) runs=1 k=1 reps=2000 sizes=8 configs=raw-sleep,lin,pre+agent ;;
	n) runs=$OPTARG ;;
	k) k=$OPTARG ;;
	r) reps=$OPTARG ;;
	s) sizes=$OPTARG ;;
	c) configs=$OPTARG ;;
	o) out=$OPTARG ;;
	T) trace=1 ;;
	*) sed -n '/^# usage/,/^# namespaces/p' "$0" >&2; exit 2 ;;
	esac
done
netns_check
if [ -n "$trace" ]; then
	command -v perf >/dev/null || { echo "frontier: -T needs perf (linux-perf)" >&2; exit 1; }
fi
for t in pingpong; do
	[ -x "$top/examples/$t" ] || { echo "frontier: build first ($t)" >&2; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "SKIP: two CPUs needed" >&2; exit 77; }

W=$(mktemp -d /tmp/frontier.XXXXXX)
[ -n "$out" ] || out=$W/report
mkdir -p "$out"
AUTOGROUP=/proc/sys/kernel/sched_autogroup_enabled
autogroup_orig=$(cat "$AUTOGROUP" 2>/dev/null || echo)
LOOPS=()
AGENT_PID=

cleanup() {
	local p
	for p in "${LOOPS[@]}" $AGENT_PID; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	netns_teardown
	[ -n "$autogroup_orig" ] && echo "$autogroup_orig" >"$AUTOGROUP"
	rm -rf "$W/hosts" "$W/raw"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
[ -n "$autogroup_orig" ] && echo 0 >"$AUTOGROUP"

NETNS_ID=cpvfr$$
netns_up 2 "$W" || { echo "frontier: cannot create the nodes" >&2; exit 1; }
export BENCH_CPUMAP=$W/cpumap NETNS_RSH=$srcdir/tests/integ/netns/rsh
awk '{ print $1, NR - 1, $3 }' "$NETNS_MAP" >"$BENCH_CPUMAP"
RSH=$srcdir/bench/rsh
echo "node1 node2" | tr ' ' '\n' >"$W/hostfile"

raw=$W/rawpingpong
${CC:-cc} -O2 -o "$raw" -I"$srcdir/examples" "$srcdir/bench/rawpingpong.c" ||
	{ echo "frontier: cannot build rawpingpong" >&2; exit 1; }

# ---- measuring ----

# The mark pingpong and rawpingpong run before and after each size's
# round trips (PINGPONG_MARK, examples/pingpong_reps.h): one line of
# "begin|end SIZE wall_ns busy0 busy1 loops1 loops2" in $W/marks, busy
# being CPU i's busy time (/proc/stat: user, nice, system, irq, softirq;
# 10 ms ticks) and loops the node's local jobs' CPU time (schedstat), ns.
cat >"$W/mark" <<EOF
#!/bin/sh
l1=0; for p in \$(cat "$W/loops1"); do l1=\$((l1 + \$(cut -d' ' -f1 /proc/\$p/schedstat))); done
l2=0; for p in \$(cat "$W/loops2"); do l2=\$((l2 + \$(cut -d' ' -f1 /proc/\$p/schedstat))); done
busy=\$(awk '\$1 == "cpu0" || \$1 == "cpu1" { printf "%.0f ", (\$2 + \$3 + \$4 + \$7 + \$8) * 1e7 }' /proc/stat)
echo "\$1 \$2 \$(date +%s%N) \$busy\$l1 \$l2" >>"$W/marks"
EOF
chmod +x "$W/mark"
export PINGPONG_MARK=$W/mark

# shares SIZE: "loops1 loops2 job1 job2" shares of a CPU between the last
# begin and end marks of SIZE.
shares() {
	awk -v s="$1" '$2 == s && $1 == "begin" { split($0, a) }
		$2 == s && $1 == "end" { split($0, b) }
		END {
			w = b[3] - a[3];
			if (w <= 0) { print "0 0 0 0"; exit }
			l1 = (b[6] - a[6]) / w; l2 = (b[7] - a[7]) / w;
			j1 = (b[4] - a[4]) / w - l1; j2 = (b[5] - a[5]) / w - l2;
			if (j1 < 0) j1 = 0; if (j2 < 0) j2 = 0;
			printf "%.4f %.4f %.4f %.4f\n", l1, l2, j1, j2 }' "$W/marks"
}

start_loops() {
	local node i
	LOOPS=()
	for node in 1 2; do
		: >"$W/loops$node"
		for ((i = 0; i < k; i++)); do
			# named (sh's $0), so that a check finds these and
			# not another test's loops
			taskset -c $((node - 1)) sh -c 'while :; do :; done' frontier-loop &
			LOOPS+=($!)
			echo $! >>"$W/loops$node"
		done
	done
}

# ---- one configuration ----

# Environment of a copvm machine for configuration $1 (env(1) words).
cfg_env() {
	local c=$1 model=${1%%+*} e
	e="COPVM_MODEL=$model COPVM_BACKEND=auto"
	[[ $c = *+agent* ]] && e="COPVM_MODEL=$model COPVM_BACKEND=agent COPVM_AGENT_SOCK=$W/agent.sock"
	[[ $c =~ \+s([0-9.]+) ]] && e="$e COPVM_SHARE=${BASH_REMATCH[1]}"
	[ "$c" = unbounded ] && e="COPVM_MODEL=lin COPVM_BACKEND=none"
	echo "$e"
}
# The command prefix for configuration $1's PVM processes.
cfg_wrap() {
	case $1 in
	unbounded) echo "chrt -f 1" ;;
	*+user*) echo "setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice" ;;
	esac
}

env_common() {
	echo "-u PVM_ROOT -u PVM_ARCH -u PVM_EXPORT -u LD_PRELOAD PVM_RSH=$RSH
		NETNS_MAP=$NETNS_MAP NETNS_SIDE=$W/hosts PVM_ALLOW_ROOT=1 LC_ALL=C
		BENCH_CPUMAP=$BENCH_CPUMAP NETNS_RSH=$NETNS_RSH
		LD_LIBRARY_PATH=$top/lib/.libs COPVM_PVMD=$top/daemon/pvmd
		${trace:+COPVM_WAIT_STATS=$W/trace}"
}

# agent_start CONFIG
agent_start() {
	local caps=
	[[ $1 =~ \+s[0-9.]+ ]] && caps="-p 100 -U 100"
	rm -f "$W/agent.sock"
	"$top/agent/copvm-agent" -f -v $caps -s "$W/agent.sock" 2>>"$W/agent.log" &
	AGENT_PID=$!
	for _ in $(seq 100); do [ -S "$W/agent.sock" ] && return 0; sleep 0.05; done
	echo "frontier: copvm-agent did not start" >&2
	return 1
}
agent_stop() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	AGENT_PID=
}

# run_raw MODE SIZE REPS: one raw ping-pong, node1 -> node2, both ends
# SCHED_FIFO 1; prints pingpong's line for the size.
run_raw() {
	local blk=0 spid
	[ "$1" = raw-sleep ] && blk=1
	env $(env_common) RAWPINGPONG_BLOCK=$blk "$RSH" node2 chrt -f 1 "$raw" serve 7777 \
		</dev/null >"$W/raw.srv" 2>&1 &
	spid=$!
	env $(env_common) RAWPINGPONG_BLOCK=$blk "$RSH" node1 chrt -f 1 "$raw" \
		"$NETNS_NET.2" 7777 -r "$3" -s "$2" </dev/null 2>"$W/raw.err" |
		awk '!/^#/ && $1 ~ /^[0-9]+$/'
	wait "$spid"
}

# run_pvm CONFIG SIZE REPS: pingpong on a machine already up.
run_pvm() {
	env $(env_common) $(cfg_env "$1") "$RSH" node1 $(cfg_wrap "$1") \
		"$top/examples/pingpong" -H node2 -r "$3" -s "$2" </dev/null 2>>"$W/pp.err" |
		awk '!/^#/ && $1 ~ /^[0-9]+$/'
}

# diagnose RUN CONFIG SIZE REPS: one line of diagnosis.txt from the
# perf sched recording, the library's trace and the agent's log.
diagnose() {
	local lat waits holds wall
	wall=$(awk -v s="$3" '$2 == s && $1 == "begin" { b = $3 }
		$2 == s && $1 == "end" { e = $3 } END { print (e - b) / 1000 }' "$W/marks")
	# perf sched latency: "pingpong:(N) | runtime | switches | avg: X ms |
	# max: Y ms" (the tasks of one name on one line).
	lat=$(perf sched latency -i "$W/perf.data" 2>/dev/null | awk -F'|' '
		$1 ~ /pingpong/ { n++; split($4, a, " "); split($5, m, " ");
			avg += a[2]; if (m[2] > max) max = m[2] }
		END { if (n) printf "%.1f %.1f 0", avg / n * 1000, max * 1000; else print "- - 0" }')
	# waits lines: waits spins hits spin_us blocks block_us, per task.
	waits=$(awk '$4 == "waits" { w += $5; sp += $6; h += $7; su += $8; b += $9; bu += $10 }
		END { printf "%d %d %d %d %d %d", w, sp, h, su, b, bu }' "$W/trace" 2>/dev/null)
	holds=$(grep -c 'held for' "$W/agent.run.log" 2>/dev/null)
	echo "$1 $2 $3 $4 $wall $lat $waits ${holds:-0}" | awk '{
		rt = $4; wall = $5; sp = $10; hits = $11; su = $12; bl = $13;
		printf "%d\t%s\t%s\t%s\t%s\t%.3f\t%.2f\t%.2f\t%d\n", $1, $2, $3, $6, $7,
			su / wall / 2, sp ? hits / sp : 0, bl / rt, $15 }' >>"$out/diagnosis.tsv"
}

machine_up() {
	rm -rf "$W/hosts"
	env $(env_common) $(cfg_env "$1") "$RSH" node1 $(cfg_wrap "$1") \
		"$top/daemon/pvmd" "$W/hostfile" </dev/null >"$W/pvmd.out" 2>&1 ||
		{ cat "$W/pvmd.out" >&2; return 1; }
}
machine_down() {
	env $(env_common) "$RSH" node1 "$top/tests/tools/pvmhalt" >/dev/null 2>&1
	sleep 0.2
	local p
	for p in $(netns_all_pids); do kill -9 "$p" 2>/dev/null; done
}

# ---- the matrix ----

IFS=, read -r -a CFGS <<<"$configs"
IFS=, read -r -a SIZES <<<"$sizes"
printf 'run\tconfig\tbytes\tmean_us\tmedian_us\tp99_us\tloops1\tloops2\tjob1\tjob2\n' >"$out/runs.tsv"
[ -n "$trace" ] &&
	printf 'run\tconfig\tbytes\twake_avg_us\twake_max_us\tspin_share\thit_rate\tblocks_rt\tholds\n' >"$out/diagnosis.tsv"
status=0
for ((run = 1; run <= runs; run++)); do
	start_loops
	for cfg in "${CFGS[@]}"; do
		case $cfg in
		raw-*) ;;
		*)
			[[ $cfg = *+agent* ]] && { agent_start "$cfg" || { status=1; continue; }; }
			machine_up "$cfg" || { echo "frontier: $cfg: no machine" >&2; status=1; agent_stop; continue; }
			;;
		esac
		for size in "${SIZES[@]}"; do
			: >"$W/marks"
			tracing=
			if [ -n "$trace" ] && [[ $cfg != raw-* ]]; then
				tracing=1
				: >"$W/trace"
				alog=$(wc -c <"$W/agent.log" 2>/dev/null || echo 0)
				perf sched record -a -o "$W/perf.data" >/dev/null 2>&1 &
				perf_pid=$!
				sleep 0.5
			fi
			case $cfg in
			raw-*) line=$(run_raw "$cfg" "$size" "$reps") ;;
			*) line=$(run_pvm "$cfg" "$size" "$reps") ;;
			esac
			if [ -n "$tracing" ]; then
				kill -INT "$perf_pid"
				wait "$perf_pid" 2>/dev/null
				tail -c +"$((alog + 1))" "$W/agent.log" >"$W/agent.run.log" 2>/dev/null ||
					: >"$W/agent.run.log"
				[ -n "$line" ] && diagnose "$run" "$cfg" "$size" "$(echo "$line" | awk '{ print $2 }')"
			fi
			if [ -z "$line" ]; then
				echo "frontier: run $run $cfg $size B failed" >&2
				status=1
				continue
			fi
			# pingpong: bytes reps median mean p90 MB/s p99
			set -- $line
			printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$cfg" "$1" "$4" "$3" "$7" \
				"$(shares "$size" | tr ' ' '\t')" >>"$out/runs.tsv"
		done
		case $cfg in
		raw-*) ;;
		*) machine_down; agent_stop ;;
		esac
		echo "frontier: run $run $cfg done" >&2
	done
	for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null; done
	wait "${LOOPS[@]}" 2>/dev/null
	LOOPS=()
done

{
	echo "# bench/frontier.sh -n $runs -k $k -r $reps -s $sizes -c $configs"
	echo "# commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
		"$(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo "# medians over $runs runs; loops = the local jobs' share of their node's CPU"
	echo "# (mean of the two nodes), keep = loops / LIN's loops, job = the job's share"
	perl "$srcdir/bench/frontier-report.pl" "$out" <"$out/runs.tsv"
	if [ -n "$trace" ]; then
		echo
		echo "# diagnosis (-T), one line per run: wake = perf sched's wake-to-run delay"
		echo "# of the two pingpong tasks (mean and max), blocks per round trip (both"
		echo "# tasks), spin = the share of the wall time each task spent spinning, hits ="
		echo "# the spins that found their message, holds = the agent's holds for the"
		echo "# share during the run"
		column -t "$out/diagnosis.tsv"
	fi
} | tee "$out/results.txt"
[ -d "$out" ] && echo "frontier: report in $out" >&2
exit $status

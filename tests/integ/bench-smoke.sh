#!/bin/bash
# bench-smoke.sh - the emulated-cluster harness (bench-cluster.sh) works
# and leaves the machine as it found it.  Not a measurement: the figures
# are not looked at, only the shape of what is written.
#
# 1. The quick mode (bench-cluster.sh -q) runs to the end, and while it
#    runs kernel.sched_autogroup_enabled is 0.  Afterwards: runs.csv has
#    the documented columns, a line per run of the matrix, known status
#    words, numbers where numbers belong, and every stock run succeeded
#    (stock PVM is the reference: if it fails, the harness is broken);
#    metrics.csv has RESULT figures of the successful runs; settings.txt
#    names the kernel; dedicated.csv has the times of calcula2 alone; results.md has the summary table and a section per
#    benchmark; the PNG plots exist and are PNG files.
# 2. The harness is interrupted (SIGTERM) in the middle of a run, once its
#    namespaces, daemons and local jobs exist.
# After each: no namespace of the harness is left (ip netns, /etc/netns),
# the sysctl has its old value, no process carries the harness's marker
# (BENCH_CLUSTER_ID, given to everything it starts), and its work
# directory is gone.
#
# Needs root (namespaces, the sysctl): exit 77 otherwise, and only then.
# Exit status 0 (pass), 1 (fail).  Takes well under 3 minutes.
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
HARNESS=$top_srcdir/tests/integ/bench-cluster.sh
SYSCTL=/proc/sys/kernel/sched_autogroup_enabled
failed=0

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }

[ "$(id -u)" = 0 ] || { log "SKIP: bench-smoke.sh needs root"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-bench-smoke.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
sysctl_before=$(cat "$SYSCTL" 2>/dev/null || echo absent)

# check_restored PID LOG: nothing of harness PID is left.
check_restored() {
	local pid=$1 logf=$2 w left
	if ip netns list 2>/dev/null | grep -q "^cpv${pid}"; then
		fail "namespaces left: $(ip netns list | grep "^cpv${pid}" | tr '\n' ' ')"
	fi
	ls -d /etc/netns/cpv"${pid}"* >/dev/null 2>&1 &&
		fail "/etc/netns entries left: $(ls -d /etc/netns/cpv"${pid}"*)"
	[ "$(cat "$SYSCTL" 2>/dev/null || echo absent)" = "$sysctl_before" ] ||
		fail "$SYSCTL is $(cat "$SYSCTL"), was $sysctl_before"
	left=$(grep -lz "^BENCH_CLUSTER_ID=bench-cluster-${pid}-" /proc/[0-9]*/environ 2>/dev/null)
	if [ -n "$left" ]; then
		for f in $left; do
			p=${f#/proc/}
			p=${p%/environ}
			fail "process left: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
			kill -KILL "$p" 2>/dev/null
		done
	fi
	w=$(sed -n 's/^bench-cluster: work directory \([^ ,]*\),.*/\1/p' "$logf" | head -n 1)
	if [ -z "$w" ]; then
		fail "the harness did not say where its work directory is"
	elif [ -e "$w" ]; then
		fail "work directory left: $w"
	fi
}

# watchdog PID SECS: SIGTERM to PID (the harness itself, whose $$ names
# its namespaces and marker) if it runs too long; $dog is the watchdog.
watchdog() {
	(sleep "$2" && log "bench-smoke: harness still running after $2 s" &&
		kill -TERM "$1") 2>/dev/null &
	dog=$!
}

# wait_sysctl_zero PID: while PID runs, the sysctl becomes 0.
wait_sysctl_zero() {
	local i
	[ -e "$SYSCTL" ] || return 0
	for i in $(seq 600); do
		[ "$(cat "$SYSCTL")" = 0 ] && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	fail "$SYSCTL never became 0 during the run"
}

# ---- 1. the quick mode ----
out=$T/quick
start=$(date +%s)
"$HARNESS" -q -o "$out" >"$T/quick.stdout" 2>"$T/quick.log" &
pid=$!
watchdog "$pid" 170
wait_sysctl_zero "$pid"
wait "$pid"
rc=$?
kill "$dog" 2>/dev/null
log "quick mode: exit $rc after $(($(date +%s) - start)) s"
if [ $rc != 0 ]; then
	fail "bench-cluster.sh -q exited with $rc"
	cat "$T/quick.log" >&2
fi
check_restored "$pid" "$T/quick.log"

header="bench,system,nodes,k,rep,status,time_s,wall_s,calcula2_s,calcula2_ded_s,lo,note"
if [ ! -s "$out/runs.csv" ]; then
	fail "no runs.csv"
else
	[ "$(head -n 1 "$out/runs.csv")" = "$header" ] ||
		fail "runs.csv header: $(head -n 1 "$out/runs.csv")"
	# comms1, synch1 x k = 0, 1 x stock, copvm x 1 repetition.
	[ "$(($(wc -l <"$out/runs.csv") - 1))" = 8 ] ||
		fail "runs.csv has $(($(wc -l <"$out/runs.csv") - 1)) runs, not 8"
	awk -F, 'NR > 1 {
		num = "^[0-9]+(\\.[0-9]+)?$"
		if (NF != 12) { print "line " NR ": " NF " fields"; next }
		if ($1 !~ /^(comms1|synch1)$/) print "line " NR ": benchmark " $1
		if ($2 !~ /^(stock|copvm)$/) print "line " NR ": system " $2
		if ($3 !~ /^[12]$/ || $4 !~ /^[01]$/ || $5 != 1) print "line " NR ": nodes/k/rep"
		if ($6 !~ /^(ok|fail|timeout|novm|nohosts|noresult)$/) print "line " NR ": status " $6
		if ($6 == "ok" && $7 !~ num) print "line " NR ": time_s " $7
		if ($6 == "ok" && $4 == 1 && $11 !~ num) print "line " NR ": lo " $11
		if ($10 !~ num) print "line " NR ": calcula2_ded_s " $10
		if ($2 == "stock" && $6 != "ok") print "line " NR ": a stock run failed: " $12
	}' "$out/runs.csv" >"$T/csv.errors"
	[ -s "$T/csv.errors" ] && fail "runs.csv: $(tr '\n' ';' <"$T/csv.errors")"
fi
if [ ! -s "$out/metrics.csv" ]; then
	fail "no metrics.csv"
else
	[ "$(head -n 1 "$out/metrics.csv")" = "bench,system,nodes,k,rep,metric,value" ] ||
		fail "metrics.csv header: $(head -n 1 "$out/metrics.csv")"
	awk -F, 'NR > 1 && (NF != 7 || $7 !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) { print NR }' \
		"$out/metrics.csv" | grep -q . && fail "metrics.csv has malformed lines"
	for m in comms1,stock,.*,t_us.8, synch1,stock,.*,barrier_us.2, comms1,stock,.*,time_s,; do
		grep -q "^$m" "$out/metrics.csv" || fail "metrics.csv has no $m line"
	done
fi
grep -q '^kernel: ' "$out/settings.txt" 2>/dev/null || fail "settings.txt names no kernel"
[ "$(head -n 1 "$out/dedicated.csv" 2>/dev/null)" = "measurement,node,elapsed_s" ] &&
	grep -Eq '^start1,node1,[0-9.]+$' "$out/dedicated.csv" ||
	fail "dedicated.csv is missing or malformed"
md=$out/results.md
if [ ! -s "$md" ]; then
	fail "no results.md"
else
	grep -q '^## Summary' "$md" || fail "results.md: no summary"
	grep -q '^| benchmark | nodes | k=0 | k=1 |$' "$md" || fail "results.md: no table header"
	grep -q '^|---|---:|---:|---:|$' "$md" || fail "results.md: no table separator"
	grep -Eq '^\| COMMS1 \(ping-pong\) \| [12] \| [0-9.]+ / ' "$md" || fail "results.md: no COMMS1 row"
	grep -Eq '^\| SYNCH1 \(barrier\) \| [12] \| [0-9.]+ / ' "$md" || fail "results.md: no SYNCH1 row"
	grep -Eq '^## COMMS1 \(ping-pong\), [12] nodes?$' "$md" || fail "results.md: no COMMS1 section"
	grep -Eq '^\| Gain \|' "$md" || fail "results.md: no Gain row"
	grep -Eq '^\| LO stock \| – \| [0-9.]+ \|$' "$md" || fail "results.md: no LO row"
fi
pngs=$(ls "$out"/*.png 2>/dev/null)
for p in time_comms1 time_synch1 length_comms1 barrier_synch1 lo; do
	ls "$out/${p}"_n*.png >/dev/null 2>&1 || fail "no ${p}_n*.png"
done
for p in $pngs; do
	[ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$p is not a PNG file"
	grep -qF "($(basename "$p"))" "$md" || fail "results.md does not show $(basename "$p")"
done

# ---- 2. interrupted in the middle of a run ----
# A SYNCH1 run long enough to be caught: wait until its master runs
# (the namespace, the daemon and a local job exist by then).
out=$T/interrupted
BENCH_ARGS_synch1="-n 2 -r 1000000" "$HARNESS" -q -n 1 -b synch1 -k 1 -s stock \
	-o "$out" >/dev/null 2>"$T/int.log" &
pid=$!
watchdog "$pid" 120
found=
for i in $(seq 600); do
	for f in $(grep -l 'examples/synch1' /proc/[0-9]*/cmdline 2>/dev/null); do
		grep -qz "^BENCH_CLUSTER_ID=bench-cluster-${pid}-" "${f%cmdline}environ" \
			2>/dev/null && found=1
	done
	[ -n "$found" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$found" ] || fail "the harness to interrupt never ran synch1: $(tail -n 3 "$T/int.log")"
sleep 0.5
ip netns list 2>/dev/null | grep -q "^cpv${pid}" || fail "the interrupted harness had no namespaces"
kill -TERM "$pid"
wait "$pid"
rc=$?
kill "$dog" 2>/dev/null
[ $rc = 130 ] || fail "interrupted harness exited with $rc, not 130"
check_restored "$pid" "$T/int.log"

if [ $failed != 0 ]; then
	log "--- quick mode log:"
	cat "$T/quick.log" >&2
	log "bench-smoke: FAIL"
	exit 1
fi
log "bench-smoke: PASS"
exit 0

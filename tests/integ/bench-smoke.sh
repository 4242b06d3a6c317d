#!/bin/bash
# bench-smoke.sh - the emulated-cluster harness (bench-cluster.sh) works
# and leaves the machine as it found it.  Not a measurement: the figures
# are not looked at, only the shape of what is written.
#
# 1. The quick mode (bench-cluster.sh -q -T) runs to the end, and while
#    it runs kernel.sched_autogroup_enabled is 0.  Afterwards: runs.csv
#    has the documented columns, a line per run of the matrix (stock and
#    every coscheduling model: lin, imp, hpdt, dyn, pre, dcs, exp), known
#    status words, numbers where numbers belong, and every run of every
#    system succeeded; metrics.csv has RESULT figures of the successful
#    runs; settings.txt names the command, the kernel and each model's
#    COPVM_MODEL; dedicated.csv has the times of calcula2 alone; every
#    copvm run left its trace file; results.md has the summaries
#    (execution time, Gain over LIN with a row per system, Gain over
#    stock, best model), a section per benchmark and the trace section
#    (a timeline or "no trace lines"); the PNG plots exist and are PNG
#    files.  The same results with lin renamed copvm give the classic
#    stock/copvm report.
# 2. Two parallel jobs (-J 2) with busy local jobs at a 50% duty cycle
#    (-L busy -d 50): each run has both jobs' times and their mean, the
#    report has a row per job, the local jobs ran as calcula -d 50 -n.
# 3. The harness is interrupted (SIGTERM) in the middle of a run, once its
#    namespaces, daemons and local jobs exist.
# After each: no namespace of the harness is left (ip netns, /etc/netns),
# the sysctl has its old value, no process carries the harness's marker
# (BENCH_CLUSTER_ID, given to everything it starts), and its work
# directory is gone.
#
# Needs root (namespaces, the sysctl): exit 77 otherwise, and only then.
# Exit status 0 (pass), 1 (fail).  About a minute here (the quick mode
# must stay under 6).
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
HARNESS=$top_srcdir/bench/bench-cluster.sh
SYSCTL=/proc/sys/kernel/sched_autogroup_enabled
failed=0

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }

[ "$(id -u)" = 0 ] || { log "SKIP: bench-smoke.sh needs root"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-bench-smoke.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
# The sysctl as no harness has it: read under the harnesses' lock, so a
# run of another tree's harness (holding it at 0) is waited for.
lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
sysctl_idle() {
	( flock -w 900 8 && { cat "$SYSCTL" 2>/dev/null || echo absent; } ) \
		8>>"$lockdir/copvm-bench-cluster.lock"
}
sysctl_before=$(sysctl_idle)

# check_restored PID LOG: nothing of harness PID is left.
check_restored() {
	local pid=$1 logf=$2 w left
	if ip netns list 2>/dev/null | grep -q "^cpv${pid}"; then
		fail "namespaces left: $(ip netns list | grep "^cpv${pid}" | tr '\n' ' ')"
	fi
	ls -d /etc/netns/cpv"${pid}"* >/dev/null 2>&1 &&
		fail "/etc/netns entries left: $(ls -d /etc/netns/cpv"${pid}"*)"
	[ "$(sysctl_idle)" = "$sysctl_before" ] ||
		fail "$SYSCTL is $(sysctl_idle), was $sysctl_before"
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
"$HARNESS" -q -T -o "$out" >"$T/quick.stdout" 2>"$T/quick.log" &
pid=$!
watchdog "$pid" 420
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

header="bench,system,nodes,k,rep,status,time_s,wall_s,calcula2_s,calcula2_ded_s,lo,note,jobs,job_times_s"
SYSTEMS="stock lin imp hpdt dyn pre dcs exp"
if [ ! -s "$out/runs.csv" ]; then
	fail "no runs.csv"
else
	[ "$(head -n 1 "$out/runs.csv")" = "$header" ] ||
		fail "runs.csv header: $(head -n 1 "$out/runs.csv")"
	# comms1, synch1 x k = 0, 1 x 8 systems x 1 repetition.
	[ "$(($(wc -l <"$out/runs.csv") - 1))" = 32 ] ||
		fail "runs.csv has $(($(wc -l <"$out/runs.csv") - 1)) runs, not 32"
	awk -F, 'NR > 1 {
		num = "^[0-9]+(\\.[0-9]+)?$"
		if (NF != 14) { print "line " NR ": " NF " fields"; next }
		if ($1 !~ /^(comms1|synch1)$/) print "line " NR ": benchmark " $1
		if ($2 !~ /^(stock|lin|imp|hpdt|dyn|pre|dcs|exp)$/) print "line " NR ": system " $2
		if ($3 !~ /^[12]$/ || $4 !~ /^[01]$/ || $5 != 1) print "line " NR ": nodes/k/rep"
		if ($6 !~ /^(ok|fail|timeout|novm|nohosts|noresult|noagent)$/) print "line " NR ": status " $6
		if ($6 == "ok" && $7 !~ num) print "line " NR ": time_s " $7
		if ($6 == "ok" && $4 == 1 && $11 !~ num) print "line " NR ": lo " $11
		if ($10 !~ num) print "line " NR ": calcula2_ded_s " $10
		if ($13 != 1 || ($6 == "ok" && $14 != $7)) print "line " NR ": jobs " $13 ", " $14
		if ($6 != "ok") print "line " NR ": a " $2 " run failed: " $6 " " $12
	}' "$out/runs.csv" >"$T/csv.errors"
	[ -s "$T/csv.errors" ] && fail "runs.csv: $(tr '\n' ';' <"$T/csv.errors")"
	# every system, every benchmark and k: a result
	for sys in $SYSTEMS; do
		for b in comms1 synch1; do
			for k in 0 1; do
				grep -Eq "^$b,$sys,[12],$k,1,ok,[0-9]" "$out/runs.csv" ||
					fail "no result of $b on $sys with k=$k"
			done
		done
	done
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
grep -q '^command: .*bench-cluster\.sh .*-q' "$out/settings.txt" 2>/dev/null ||
	fail "settings.txt names no command"
for sys in lin imp hpdt dyn pre dcs exp; do
	grep -q "^system $sys: COPVM_MODEL=$sys COPVM_BACKEND=auto" "$out/settings.txt" 2>/dev/null ||
		fail "settings.txt gives no COPVM_MODEL=$sys for $sys"
	for c in comms1.$sys.k0 comms1.$sys.k1 synch1.$sys.k0 synch1.$sys.k1; do
		[ -e "$out/logs/$c.r1.trace" ] || fail "no trace file logs/$c.r1.trace"
	done
done
ls "$out"/logs/*.stock.*.trace >/dev/null 2>&1 && fail "stock runs got trace files"
[ "$(head -n 1 "$out/dedicated.csv" 2>/dev/null)" = "measurement,node,elapsed_s" ] &&
	grep -Eq '^start1,node1,[0-9.]+$' "$out/dedicated.csv" ||
	fail "dedicated.csv is missing or malformed"
md=$out/results.md
if [ ! -s "$md" ]; then
	fail "no results.md"
else
	for h in 'execution time in seconds' 'Gain over LIN (T_lin / T_model)' \
		'Gain over stock (T_stock / T_model)' 'best model at k=1'; do
		grep -qF "## Summary: $h" "$md" || fail "results.md: no summary '$h'"
	done
	grep -q '^| benchmark | nodes | system | k=0 | k=1 |$' "$md" || fail "results.md: no table header"
	grep -q '^|---|---:|---|---:|---:|$' "$md" || fail "results.md: no table separator"
	# the Gain-over-LIN summary: a row per system but lin, per benchmark
	sed -n '/^## Summary: Gain over LIN/,/^## [^S]/p' "$md" | sed -n '3,/^$/p' >"$T/gainlin.md"
	for sys in stock imp hpdt dyn pre dcs exp; do
		for b in 'COMMS1 \(ping-pong\)' 'SYNCH1 \(barrier\)'; do
			grep -Eq "^\| $b \| [12] \| $sys \| [0-9.]+ \| [0-9.]+ \|$" "$T/gainlin.md" ||
				fail "results.md: no Gain-over-LIN row for $sys"
		done
	done
	grep -q '| lin |' "$T/gainlin.md" && fail "results.md: lin has a Gain over itself"
	grep -Eq '^\| COMMS1 \(ping-pong\) \| [12] \| \*\*(lin|imp|hpdt|dyn|pre|dcs|exp)\*\* \| [0-9.]+ \|' "$md" ||
		fail "results.md: no best model for COMMS1"
	grep -Eq '^## COMMS1 \(ping-pong\), [12] nodes?$' "$md" || fail "results.md: no COMMS1 section"
	grep -Eq '^\| Gain/LIN pre \| [0-9.]+ \| [0-9.]+ \|$' "$md" || fail "results.md: no Gain/LIN row"
	grep -Eq '^\| Gain/stock lin \| [0-9.]+ \| [0-9.]+ \|$' "$md" || fail "results.md: no Gain/stock row"
	grep -Eq '^\| LO stock \| – \| [0-9.]+ \|$' "$md" || fail "results.md: no LO row"
	grep -Eq '^\| round trip, 8 B, mean \(µs\) exp \| [0-9.]+ \| [0-9.]+ \|$' "$md" ||
		fail "results.md: no COMMS1 8-byte round trip"
	grep -q '^## Coscheduling trace: comms1\.k1\.r1$' "$md" || fail "results.md: no trace section"
	grep -Eq '^(No trace lines, so no timeline, for: |### [a-z]+: [0-9]+ events of )' "$md" ||
		fail "results.md: the trace section says nothing"
fi
pngs=$(ls "$out"/*.png 2>/dev/null)
for p in time_comms1 time_synch1 length_comms1 barrier_synch1 gainlin_comms1 \
	gainstock_synch1 lo_comms1; do
	ls "$out/${p}"_n*.png >/dev/null 2>&1 || fail "no ${p}_n*.png"
done
for p in $pngs; do
	[ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$p is not a PNG file"
	grep -qF "($(basename "$p"))" "$md" || fail "results.md does not show $(basename "$p")"
done

# The classic report: only stock and copvm (here lin renamed).
mkdir -p "$T/classic"
for f in runs.csv metrics.csv dedicated.csv settings.txt; do
	awk -F, 'NR == 1 || $2 == "stock" || $2 == "lin"' "$out/$f" 2>/dev/null |
		sed 's/^\([a-z0-9]*\),lin,/\1,copvm,/' >"$T/classic/$f"
done
if perl "$top_srcdir/bench/report.pl" --no-plots "$T/classic" >/dev/null; then
	md=$T/classic/results.md
	grep -q '^## Summary: execution time in seconds, stock / copvm (Gain)$' "$md" ||
		fail "classic report: no summary"
	grep -q '^| benchmark | nodes | k=0 | k=1 |$' "$md" || fail "classic report: no table header"
	grep -Eq '^\| COMMS1 \(ping-pong\) \| [12] \| [0-9.]+ / [0-9.]+ \([0-9.]+\) \|' "$md" ||
		fail "classic report: no COMMS1 row"
	grep -Eq '^\| Gain \| [0-9.]+ \| [0-9.]+ \|$' "$md" || fail "classic report: no Gain row"
	grep -q 'Gain/LIN' "$md" && fail "classic report: Gain over LIN without lin"
else
	fail "report.pl failed on stock and copvm alone"
fi

# ---- 2. two parallel jobs, busy local jobs at 50% ----
out=$T/jobs
"$HARNESS" -q -n 1 -b synch1 -k 1 -s stock,pre0.5 -J 2 -L busy -d 50 \
	-o "$out" >/dev/null 2>"$T/jobs.log" &
pid=$!
watchdog "$pid" 120
wait "$pid"
rc=$?
kill "$dog" 2>/dev/null
[ $rc = 0 ] || fail "bench-cluster.sh -J 2 exited with $rc: $(tail -n 3 "$T/jobs.log")"
check_restored "$pid" "$T/jobs.log"
awk -F, 'NR > 1 {
	if ($6 != "ok") { print $2 ": " $6 " " $12; next }
	if ($13 != 2) print $2 ": jobs " $13
	split($14, t, " ")
	if (!(t[1] > 0 && t[2] > 0)) print $2 ": job times " $14
	else if ((t[1] + t[2]) / 2 - $7 > 1e-6 || $7 - (t[1] + t[2]) / 2 > 1e-6)
		print $2 ": time_s " $7 " is not the mean of " $14
	n++
} END { if (n != 2) print n " runs, not 2" }' "$out/runs.csv" >"$T/jobs.errors" 2>&1
[ -s "$T/jobs.errors" ] && fail "-J 2 runs.csv: $(tr '\n' ';' <"$T/jobs.errors")"
for j in 1 2; do
	grep -Eq "^synch1,pre0.5,1,1,1,time_s.job$j,[0-9.]+$" "$out/metrics.csv" 2>/dev/null ||
		fail "-J 2: metrics.csv has no time_s.job$j"
	grep -Eq "^\| T stock job $j \(s\) \| [0-9.]+ \|$" "$out/results.md" 2>/dev/null ||
		fail "-J 2: results.md has no row for job $j"
done
grep -q '^local jobs: .*calcula2 -u 100 -d 50 -n, the others calcula -d 50 -n (busy' \
	"$out/settings.txt" 2>/dev/null || fail "-L busy -d 50: settings.txt: $(grep '^local' "$out/settings.txt")"
grep -q '^system pre0.5: COPVM_MODEL=pre COPVM_P=0.5 ' "$out/settings.txt" 2>/dev/null ||
	fail "pre0.5: no COPVM_P=0.5 in settings.txt"

# ---- 3. interrupted in the middle of a run ----
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

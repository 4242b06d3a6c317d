#!/bin/bash
# bench-two-users.sh - the emulated-cluster harness's two-users mode
# (bench-cluster.sh -U 2) runs: two jobs of two users at once, each a
# virtual machine of its own on the same two nodes.  Not a measurement:
# the figures are not looked at, only that both users' runs completed
# and were reported.
#
# One benchmark (COMMS1, quick mode's short lengths), k = 1, the systems
# lin and dcs, 0.5 s of calcula2 work.  Checks: every run succeeded with
# two job times; the second job ran as the second user in its own
# virtual machine (its run directory on both nodes belongs to that uid,
# the first job's to ours); results.md's per-run table has a row per run
# with both jobs' times, their ratio and LO, and dcs's Gain over LIN for
# both jobs; settings.txt names both users; afterwards no namespace, no
# process of the second user and, if the harness made that user, no
# user are left.
#
# Needs root and network namespaces: exit 77 otherwise.  Exit status 0
# (pass), 1 (fail).  About 20 s here.
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
HARNESS=$top_srcdir/bench/bench-cluster.sh
USER2=${BENCH_USER2:-copvmb}
failed=0

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }

[ "$(id -u)" = 0 ] || { log "SKIP: bench-two-users.sh needs root"; exit 77; }
command -v setpriv >/dev/null || { log "SKIP: no setpriv"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-two-users.XXXXXX") || exit 1
W=
trap 'rm -rf "$T"; [ -z "$W" ] || rm -rf "$W"' EXIT
had_user=
uid2=
id -u "$USER2" >/dev/null 2>&1 && had_user=1

BENCH_USER2=$USER2 "$HARNESS" -q -U 2 -b comms1 -k 1 -s lin,dcs -w 0.5 -K \
	-o "$T/out" >"$T/harness.log" 2>&1
rc=$?
[ $rc = 77 ] && { log "SKIP: $(grep SKIP "$T/harness.log" | head -n 1)"; exit 77; }
W=$(sed -n 's/^bench-cluster: work directory kept: //p' "$T/harness.log")
if [ $rc != 0 ]; then
	log "FAIL: the harness exited $rc:"
	tail -n 20 "$T/harness.log" >&2
	exit 1
fi

# Every run of both systems succeeded, with both jobs' times.
runs=$T/out/runs.csv
[ -r "$runs" ] || { log "FAIL: no runs.csv"; exit 1; }
n=$(awk -F, 'NR > 1' "$runs" | wc -l)
[ "$n" = 2 ] || fail "runs.csv has $n runs, not 2 (lin, dcs)"
awk -F, 'NR > 1 && !($6 == "ok" && $13 == 2 && split($14, t, " ") == 2 &&
	t[1] > 0 && t[2] > 0 && $11 > 0) { print; bad = 1 } END { exit bad }' "$runs" ||
	fail "a run without status ok, two job times and LO: $(awk -F, 'NR > 1 && $6 != "ok"' "$runs")"

# Each job in its own virtual machine, the second as the second user.
if [ -z "$W" ] || [ ! -d "$W" ]; then
	fail "the harness did not keep its work directory"
else
	for i in 1 2; do
		d=$W/side/copvm/node$i/tmp/copvm-0
		[ -d "$d" ] || fail "no run directory of job 1's user on node$i ($d)"
		d=$(ls -d "$W/side/copvm.$USER2/node$i/tmp/copvm-"* 2>/dev/null | head -n 1)
		if [ -z "$d" ]; then
			fail "no run directory of $USER2 on node$i"
		elif [ "$(stat -c %u "$d")" = 0 ] || [ "${d##*copvm-}" != "$(stat -c %u "$d")" ]; then
			fail "$d does not belong to the second user (owner $(stat -c %u "$d"))"
		else
			uid2=${d##*copvm-}
		fi
	done
fi

# The report: a row per run with both jobs' times, their ratio, LO.
md=$T/out/results.md
grep -q '^## Summary: two jobs at once, per run' "$md" || fail "results.md has no per-run table of the two jobs"
grep -q "^- users: job 1 root (uid 0), job 2 $USER2 " "$md" || fail "results.md does not name both users"
for s in lin dcs; do
	row=$(grep "^| COMMS1 (ping-pong) | 2 | $s | 1 | 1 | " "$md")
	[ -n "$row" ] || { fail "no per-run row for $s"; continue; }
	# | bench | nodes | sys | k | rep | T1 | T2 | ratio | G1 | G2 | LO |
	echo "$row" | awk -F' \\| ' -v s="$s" '{
		ok = $6 ~ /^[0-9.]+$/ && $7 ~ /^[0-9.]+$/ && $8 ~ /^[0-9.]+$/ && $8 >= 1 &&
			$11 ~ /^[0-9.]+ \|$/
		if (s == "dcs") ok = ok && $9 ~ /^[0-9.]+$/ && $10 ~ /^[0-9.]+$/
		exit !ok }' || fail "the $s row lacks a figure: $row"
	grep -q "^| ratio $s (slower / faster job) | [0-9.]* |" "$md" ||
		fail "no ratio row for $s in the benchmark's table"
done

# Nothing left behind: the harness's namespaces (named in its map), the
# second user's processes, the user if the harness made it.
if [ -n "$W" ] && [ -r "$W/netns/map" ]; then
	for ns in $(awk '{ print $2 }' "$W/netns/map"); do
		ip netns list 2>/dev/null | grep -q "^$ns\b" && fail "namespace $ns left"
	done
fi
# (a process killed by the harness's cleanup may take a moment to go)
if [ -n "$uid2" ]; then
	for i in $(seq 50); do
		left=$(pgrep -U "$uid2" 2>/dev/null | tr '\n' ' ')
		[ -z "$left" ] && break
		[ "$i" = 1 ] && lps=$(ps -o pid,stat,args -U "$uid2" 2>/dev/null | tail -n +2 | tr '\n' ';')
		sleep 0.1
	done
	[ -z "$left" ] || fail "processes of uid $uid2 left: $(ps -o pid,stat,args -U "$uid2" | tail -n +2 | tr '\n' ';')"
	[ -z "${lps:-}" ] || log "note: processes of uid $uid2 were still going after the harness: $lps"
fi
if [ -z "$had_user" ] && id -u "$USER2" >/dev/null 2>&1; then
	fail "the harness made user $USER2 and left it"
fi

[ $failed = 0 ] && log "bench-two-users: ok" && sed -n '/^## Summary: two jobs at once/,/runs have a ratio/p' "$md" >&2
exit $failed

#!/bin/bash
# frontier-smoke.sh - bench/frontier.sh's quick mode (-q) runs to the end
# and leaves the machine as it found it.  Not a measurement: the figures
# are only checked to be figures.
#
# Checked: exit status 0; runs.tsv has one line per configuration of the
# quick mode (raw-sleep, lin, pre+agent) with positive round trips and
# shares between 0 and 1; results.txt has the table with each of them and
# names the command and the kernel; the plot is a PNG; with perf present
# (-T), the diagnosis has a line per copvm configuration.  Afterwards no
# namespace of the script is left, kernel.sched_autogroup_enabled has its
# old value and no local job of the script (`while :; do :; done', named
# frontier-loop) is still running; another test's loops may be.
#
# Needs root (namespaces, the sysctl, the agent): exit 77 otherwise.
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
SYSCTL=/proc/sys/kernel/sched_autogroup_enabled
failed=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failed=1; }

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root" >&2
	exit 77
fi
command -v ip >/dev/null || { echo "SKIP: no iproute2" >&2; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs two CPUs" >&2; exit 77; }
[ -x agent/copvm-agent ] || { echo "SKIP: copvm-agent is not built" >&2; exit 77; }

out=$(mktemp -d /tmp/frontier-smoke.XXXXXX)
trap 'rm -rf "$out"' EXIT
before=$(cat "$SYSCTL" 2>/dev/null)
opts=(-q -o "$out")
command -v perf >/dev/null && opts+=(-T)
srcdir=$top_srcdir timeout 300 bash "$top_srcdir/bench/frontier.sh" "${opts[@]}" \
	>"$out/stdout" 2>"$out/stderr"
rc=$?
[ "$rc" = 0 ] || { cat "$out/stderr" >&2; fail "frontier.sh -q exited $rc"; }

for cfg in raw-sleep lin pre+agent; do
	line=$(awk -F'\t' -v c="$cfg" '$2 == c' "$out/runs.tsv")
	[ -n "$line" ] || { fail "runs.tsv has no $cfg line"; continue; }
	echo "$line" | awk -F'\t' '{
		ok = $4 > 0 && $5 > 0 && $6 >= $5
		# 10 ms ticks over a short run: shares are rough.
		for (i = 7; i <= 10; i++) ok = ok && $i >= 0 && $i <= 2
		exit !ok }' || fail "runs.tsv: $cfg: not figures: $line"
	grep -q "^$cfg " "$out/results.txt" || fail "results.txt has no $cfg row"
done
[ "$(awk 'NR > 1' "$out/runs.tsv" | wc -l)" = 3 ] || fail "runs.tsv: not 3 runs"
grep -q "^# bench/frontier.sh" "$out/results.txt" || fail "results.txt does not name its command"
grep -q "$(uname -r)" "$out/results.txt" || fail "results.txt does not name the kernel"
[ "$(head -c 4 "$out/frontier-8.png" 2>/dev/null | tail -c 3)" = PNG ] ||
	fail "frontier-8.png is not a PNG"
if [[ " ${opts[*]} " = *" -T "* ]]; then
	for cfg in lin pre+agent; do
		awk -F'\t' -v c="$cfg" '$2 == c && $6 >= 0' "$out/diagnosis.tsv" | grep -q . ||
			fail "diagnosis.tsv has no $cfg line"
	done
fi

ip netns list 2>/dev/null | grep -q '^cpvfr' && fail "a namespace of frontier.sh is left"
[ "$(cat "$SYSCTL" 2>/dev/null)" = "$before" ] || fail "the autogroup sysctl was not put back"
pgrep -f 'while :; do :; done frontier-loop' >/dev/null && fail "a local job is still running"
[ "$failed" = 0 ] && echo "frontier-smoke: ok"
exit "$failed"

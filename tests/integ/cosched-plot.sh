#!/bin/bash
# cosched-plot.sh - `copvm-cosched plot TRACE' draws a boost trace.
# A PRE ping-pong (examples/pingpong, 8 B) runs with the self backend, a
# fixed load that makes every CPU contended (COPVM_LOADAVG_FILE) and
# COPVM_COSCHED_TRACE; then copvm-cosched plot (COPVM_PKGLIBEXECDIR points
# at tools/, where copvm-trace-plot is) must write a PNG, print one table
# row per task (the parent and its child) with events counted, and say
# how many events it drew; with -n the same table and no picture.  A file of garbage, a missing file and a
# missing argument give an error and no picture.
# Needs gnuplot (exit 77 without it).
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
top=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
log() { printf '%s\n' "$*" >&2; }
failed=0
fail() { log "FAIL: $*"; failed=1; }
command -v gnuplot >/dev/null || { log "SKIP: no gnuplot"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-plot.XXXXXX") || exit 1
trap 'PVM_TMP=$T/tmp "$top/tests/tools/pvmhalt" >/dev/null 2>&1; [ -n "${KEEP_PLOT:-}" ] && cp "$T/t.png" "$KEEP_PLOT"; rm -rf "$T"' EXIT
mkdir -p "$T/tmp"
echo "9.00 9.00 9.00 9/100 1" >"$T/loadavg"

export PVM_TMP=$T/tmp COPVM_PVMD=$top/daemon/pvmd PVM_ALLOW_ROOT=1 \
	LD_LIBRARY_PATH=$top/lib/.libs COPVM_PKGLIBEXECDIR=$top_srcdir/tools
COPVM_MODEL=pre COPVM_BACKEND=self COPVM_INTERVAL_MS=5 \
	COPVM_LOADAVG_FILE=$T/loadavg COPVM_COSCHED_TRACE=$T/trace \
	timeout 60 "$top/examples/pingpong" -r 3000 -s 8 >"$T/pp.out" 2>&1 ||
	fail "pingpong: $(tail -n 5 "$T/pp.out")"
[ -s "$T/trace" ] || { log "FAIL: no trace written"; exit 1; }
log "trace: $(wc -l <"$T/trace") lines"

"$top/tools/copvm-cosched" plot -o "$T/t.png" -t "PRE ping-pong" "$T/trace" \
	>"$T/table" 2>"$T/err" || fail "plot: $(cat "$T/err")"
head -c 8 "$T/t.png" 2>/dev/null | od -An -tx1 | tr -d ' \n' |
	grep -qx '89504e470d0a1a0a' || fail "no PNG written"
[ "$(stat -c %s "$T/t.png" 2>/dev/null || echo 0)" -gt 5000 ] ||
	fail "the PNG is suspiciously small"
rows=$(grep -c '^| t[0-9a-f]* ([0-9]*) |' "$T/table")
[ "$rows" = 2 ] || fail "$rows task rows, not 2: $(cat "$T/table")"
grep -q 'wrote .*t.png: [1-9][0-9]* events of 2 tasks' "$T/err" ||
	fail "no event count: $(cat "$T/err")"
cat "$T/table" >&2

# -n (bench/report.pl --no-plots): the same table and count, no picture.
"$top/tools/copvm-cosched" plot -n -o "$T/n.png" "$T/trace" >"$T/ntable" \
	2>"$T/err" || fail "plot -n: $(cat "$T/err")"
cmp -s "$T/table" "$T/ntable" || fail "plot -n: another table: $(cat "$T/ntable")"
grep -q '[1-9][0-9]* events of 2 tasks' "$T/err" || fail "plot -n: no count: $(cat "$T/err")"
[ -e "$T/n.png" ] && fail "plot -n drew a picture"

# Bad input: an error, no picture.
printf 'not a trace\n1 2 3\n' >"$T/garbage"
"$top/tools/copvm-cosched" plot -o "$T/g.png" "$T/garbage" >/dev/null 2>"$T/err" &&
	fail "garbage was plotted"
grep -q 'no trace event' "$T/err" || fail "garbage: $(cat "$T/err")"
[ -e "$T/g.png" ] && fail "garbage left a picture"
"$top/tools/copvm-cosched" plot -o "$T/m.png" "$T/missing" >/dev/null 2>"$T/err" &&
	fail "a missing file was plotted"
"$top/tools/copvm-cosched" plot >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "no argument: not a usage error"
exit $failed

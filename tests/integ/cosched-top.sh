#!/bin/bash
# cosched-top.sh - `copvm-cosched top', the live view, on one host.
# A PRE ping-pong (examples/pingpong, 8 B) runs on a private daemon with
# the self backend and a fixed load that makes every CPU contended
# (COPVM_LOADAVG_FILE), so that its two tasks boost; meanwhile
# `copvm-cosched top -n 2 -d 0.5' (stdout not a terminal: plain text)
# must print two tables with the live view's columns, a row for each
# ping-pong task (host name, the tid copvm-cosched -r shows, model pre,
# F > 0), no rates in the first table (no earlier snapshot) and numbers
# in the second.  On a terminal (script(1)) each table clears the screen
# first; on TERM=dumb it is plain text.  Bad arguments are usage errors
# (status 2), and the daemon and the ping-pong carry on after the view.
set -u
top=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
log() { printf '%s\n' "$*" >&2; }
failed=0
fail() { log "FAIL: $*"; failed=1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-top.XXXXXX") || exit 1
trap 'kill $pp 2>/dev/null; PVM_TMP=$T/tmp "$top/tests/tools/pvmhalt" >/dev/null 2>&1; rm -rf "$T"' EXIT
mkdir -p "$T/tmp"
echo "9.00 9.00 9.00 9/100 1" >"$T/loadavg"
export PVM_TMP=$T/tmp COPVM_PVMD=$top/daemon/pvmd PVM_ALLOW_ROOT=1 \
	LD_LIBRARY_PATH=$top/lib/.libs
tool=$top/tools/copvm-cosched

COPVM_MODEL=pre COPVM_BACKEND=self COPVM_INTERVAL_MS=5 \
	COPVM_LOADAVG_FILE=$T/loadavg \
	timeout 120 "$top/examples/pingpong" -r 100000000 -s 8 >"$T/pp.out" 2>&1 &
pp=$!
# Wait for both tasks' pages.
for _ in $(seq 100); do
	[ "$("$tool" -r 2>/dev/null | grep -c '^tid=')" -ge 2 ] && break
	sleep 0.1
done
"$tool" -r >"$T/raw" 2>&1 || { log "FAIL: no pages: $(cat "$T/raw")"; exit 1; }
host=$(sed -n 's/^node=\([^ ]*\) .*/\1/p' "$T/raw")
tids=$(sed -n 's/^tid=\(t[0-9a-f]*\) .*/\1/p' "$T/raw")

"$tool" top -n 2 -d 0.5 >"$T/top" 2>"$T/err" || fail "top: status $?: $(cat "$T/err")"
cat "$T/top" >&2
[ "$(grep -c '^copvm-cosched top - ' "$T/top")" = 2 ] || fail "not two tables"
[ "$(grep -c '^HOST  *TID  *MODEL  *P  *F(msg/s)  *BOOST  *SHARE/BUDGET  *BOOST/s  *DEMOT/s  *REFUS/s  *TRANSPORT$' "$T/top")" = 2 ] ||
	fail "not the live view's columns"
grep -q $'\033' "$T/top" && fail "screen control codes in plain output"
# The tables: the first (no rates) and the second.
export T
awk '/^copvm-cosched top - /{n++} {f = ENVIRON["T"] "/table" n; print > f}' "$T/top"
for tid in $tids; do
	for n in 1 2; do
		row=$(awk -v h="$host" -v t="$tid" '$1 == h && $2 == t' "$T/table$n")
		[ -n "$row" ] || { fail "table $n: no row for $host $tid"; continue; }
		set -- $row
		[ "$3" = pre ] || fail "table $n, $tid: model $3, not pre"
		awk -v f="$5" 'BEGIN { exit !(f > 0) }' || fail "table $n, $tid: F $5"
		# BOOST may be two words (nice -5): the rates are the 4th to
		# 2nd fields from the end, then the transport.
		r=$(echo "$row" | awk '{print $(NF-3), $(NF-2), $(NF-1)}')
		case $n in
		1) [ "$r" = "- - -" ] || fail "table 1, $tid: rates \"$r\" before a second snapshot" ;;
		2) echo "$r" | grep -Eq '^[0-9]+\.[0-9] [0-9]+\.[0-9] [0-9]+\.[0-9]$' ||
			fail "table 2, $tid: rates \"$r\"" ;;
		esac
		echo "$row" | grep -Eq ' (shm|unix)/-$' || fail "table $n, $tid: transport: $row"
	done
done

# Bad arguments: usage errors, nothing printed on stdout.
for args in "-n 0" "-n x" "-d 0" "-d abc" "-x" "extra"; do
	"$tool" top $args >"$T/bad" 2>"$T/err"
	st=$?
	[ $st = 2 ] || fail "top $args: status $st, not 2"
	[ -s "$T/bad" ] && fail "top $args printed a table"
	grep -q '^copvm-cosched: top: ' "$T/err" || fail "top $args: no message: $(cat "$T/err")"
done

# On a terminal (script(1) gives it one): each table redraws the screen
# (xterm's clear), and a terminal that cannot clear (dumb) gets plain text.
if command -v script >/dev/null; then
	TERM=xterm script -qec "$tool top -n 2 -d 0.2" /dev/null >"$T/tty" 2>&1 ||
		fail "top on a terminal: $(cat "$T/tty")"
	[ "$(grep -c $'\033\\[H\033\\[2Jcopvm-cosched top - ' "$T/tty")" = 2 ] ||
		fail "top on an xterm: not two redrawn tables: $(od -c "$T/tty" | head -3)"
	TERM=dumb script -qec "$tool top -n 2 -d 0.2" /dev/null >"$T/dumb" 2>&1 ||
		fail "top on a dumb terminal: $(cat "$T/dumb")"
	grep -q $'\033' "$T/dumb" && fail "top on a dumb terminal: control codes"
	[ "$(grep -c '^copvm-cosched top - ' "$T/dumb")" = 2 ] ||
		fail "top on a dumb terminal: not two tables"
else
	log "no script(1): the terminal mode is not checked"
fi

# The daemon still serves, and the ping-pong still runs.
kill -0 $pp 2>/dev/null || fail "the ping-pong died: $(tail -n 3 "$T/pp.out")"
"$tool" top -b -n 1 >"$T/again" 2>"$T/err" || fail "top again: $(cat "$T/err")"
grep -q "^$host " "$T/again" || fail "top again: no row of $host"
exit $failed

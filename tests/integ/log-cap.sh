#!/bin/bash
# log-cap.sh - the daemon's log stays under its cap (issue 15: every
# refused connection writes a line, and the log grew without bound): with
# COPVM_LOG_MAX=16384, 1,500 connections sending garbage (one "bad frame
# header" line each, ~150 kB in all) leave pvmd.log and pvmd.log.old at
# most 16384 bytes each, the newest refusals in pvmd.log, and a line
# saying the log was rotated.
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init log-cap
h_tmpdir T
u=$(id -u)
export PVM_TMP=$T COPVM_PVMD=$PVMD COPVM_LOG_MAX=16384
cap=16384

h_probe "$T" "$T/first.out" mytid || h_die "first task: $(cat "$T/first.out.err")"
log=$T/copvm-$u/pvmd.log
timeout -k 5 "$H_TIMEOUT" "$PROBE" junk "$T/copvm-$u/pvmd.sock" 1500 \
	>"$T/junk.out" 2>&1 || h_die "junk: $(cat "$T/junk.out")"
h_log "$(cat "$T/junk.out")"
grep -q '^junk 1500$' "$T/junk.out" || h_fail "not every connection was refused"
# the daemon still serves
h_probe "$T" "$T/last.out" mytid || h_fail "the daemon stopped serving"

size=$(stat -c %s "$log")
old=$(stat -c %s "$log.old" 2>/dev/null || echo missing)
h_log "pvmd.log: $size bytes, pvmd.log.old: $old bytes"
[ "$size" -le $cap ] || h_fail "pvmd.log holds $size bytes (cap $cap)"
[ "$old" != missing ] || h_fail "no pvmd.log.old"
[ "$old" = missing ] || [ "$old" -le $cap ] ||
	h_fail "pvmd.log.old holds $old bytes (cap $cap)"
grep -q 'bad frame header' "$log" || h_fail "no refusal in the new log"
grep -q 'COPVM_LOG_MAX' "$log" || h_fail "the rotation is not said in the log"
h_finish

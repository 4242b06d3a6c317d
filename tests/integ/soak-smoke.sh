#!/bin/bash
# soak-smoke.sh - a few seconds of bench/soak (the load of the soak
# benchmark, bench/soak-faults.sh): 4 workers on one private daemon send
# 20,000 mixed messages (0 B .. 256 KiB, three encodings, four types) all
# to all; every one must arrive once, in order and intact (sequence
# numbers and checksums checked at the receiver, sent counts compared at
# the end), and soak must exit 0.  Memory is not judged here: that is
# the benchmark's report (docs/results/soak.md).
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init soak-smoke
h_tmpdir T
SOAK=$top_builddir/bench/soak
[ -x "$SOAK" ] || h_die "$SOAK is missing (make builds it)"

(cd "$T" && exec env HOME="$T" PVM_TMP="$T" COPVM_PVMD="$PVMD" \
	timeout -k 5 "$H_TIMEOUT" "$SOAK" count -n 20000 -w 4 -m 262144 \
	-i 60) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] || h_fail "soak exited with $rc: $(grep -v 'BEGIN\|EOF' "$T/err")"
grep -q '^RESULT workers=4 reported=4 messages=20000 bytes=[0-9]* corrupt=0 lost=0 dup=0 badfinal=0$' "$T/out" ||
	h_fail "soak's result: $(grep '^RESULT' "$T/out")"
[ "$(grep -c '^WORKER .* sent=5000 ' "$T/out")" = 4 ] ||
	h_fail "not every worker sent its 5000: $(grep '^WORKER' "$T/out")"
h_finish

#!/bin/bash
# fd-flood.sh - a task at its descriptor limit (ulimit -n 64) flooded with
# 100 idle connections to its socket neither spins nor shuts out new
# senders (issue 15 item 6): its CPU time over two seconds stays under a
# fifth of them, and a message from a task that starts afterwards still
# arrives (through the daemon, as the receiver cannot take a circuit).
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init fd-flood
h_tmpdir T
u=$(id -u)
export PVM_TMP=$T COPVM_PVMD=$PVMD

# the daemon first, under the normal limit
h_probe "$T" "$T/first.out" mytid || h_die "first task: $(cat "$T/first.out.err")"

# the receiver, at 64 descriptors
(ulimit -n 64 && exec timeout -k 5 "$H_TIMEOUT" "$PROBE" recv 30) \
	>"$T/recv.out" 2>"$T/recv.out.err" &
rcv=$!
h_bg $rcv
for _ in $(seq 200); do
	grep -q '^tid' "$T/recv.out" && break
	sleep 0.1
done
rtid=$(sed -n 's/^tid t//p' "$T/recv.out")
[ -n "$rtid" ] || h_die "the receiver did not enrol: $(cat "$T/recv.out.err")"
rpid=$(pgrep -P $rcv -x hprobe)
[ -n "$rpid" ] || h_die "no receiver process"
sock=$(find "$T/copvm-$u" -type s -name "t$rtid" | head -n1)
[ -n "$sock" ] || h_die "no socket t$rtid"

# 100 idle connections, kept open
mkfifo "$T/hold"
"$PROBE" flood "$sock" 100 <"$T/hold" >"$T/flood.out" 2>&1 &
h_bg $!
exec 7>"$T/hold"
for _ in $(seq 200); do
	grep -q '^flooded' "$T/flood.out" && break
	sleep 0.1
done
h_log "$(cat "$T/flood.out")"
grep -q '^flooded 100$' "$T/flood.out" || h_die "the flood did not connect"

# the receiver's CPU time over two seconds (utime + stime, in ticks)
ticks() { awk '{ print $14 + $15 }' "/proc/$rpid/stat"; }
hz=$(getconf CLK_TCK)
sleep 0.5		# let it meet the flood
t0=$(ticks); s0=$(date +%s%N)
sleep 2
t1=$(ticks); s1=$(date +%s%N)
pct=$(( (t1 - t0) * 100 * 1000000000 / hz / (s1 - s0) ))
h_log "receiver t$rtid (pid $rpid): ${pct}% CPU while flooded"
[ "$pct" -lt 20 ] || h_fail "the flooded receiver used ${pct}% CPU"

# a new sender's message gets through
echo "send $rtid" | h_probe "$T" "$T/send.out" sender ||
	h_fail "sender: $(cat "$T/send.out.err")"
h_log "$(cat "$T/send.out")"
wait $rcv
grep -q '^got from' "$T/recv.out" ||
	h_fail "the flooded receiver got nothing: $(cat "$T/recv.out")"
exec 7>&-
h_finish

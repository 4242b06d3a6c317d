#!/bin/bash
# big-frame.sh - a frame header declaring a 1 GiB body, with nothing
# after it, costs the receiving task little memory (issue 15): the body
# buffer grows as bytes arrive (lib/bufcache.h, PVMI_BODY_EAGER) instead
# of taking the declared length at once.  Four such headers on four
# circuits; once the receiver has read them all (the sender's SIOCOUTQ is
# 0), a real message; the receiver's VmData and VmRSS after it, against
# before, must have grown by less than 128 MiB (4 GiB without the fix).
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init big-frame
h_tmpdir T
u=$(id -u)
export PVM_TMP=$T COPVM_PVMD=$PVMD

timeout -k 5 "$H_TIMEOUT" "$PROBE" recvmem 30 >"$T/recv.out" \
	2>"$T/recv.out.err" &
rcv=$!
h_bg $rcv
for _ in $(seq 200); do
	grep -q '^vmdata0' "$T/recv.out" && break
	sleep 0.1
done
rtid=$(sed -n 's/^tid t//p' "$T/recv.out")
[ -n "$rtid" ] || h_die "the receiver did not enrol: $(cat "$T/recv.out.err")"
sock=$(find "$T/copvm-$u" -type s -name "t$rtid" | head -n1)
[ -n "$sock" ] || h_die "no socket t$rtid"

mkfifo "$T/hold"
timeout -k 5 "$H_TIMEOUT" "$PROBE" bighdr "$sock" 4 <"$T/hold" \
	>"$T/big.out" 2>&1 &
h_bg $!
exec 7>"$T/hold"
for _ in $(seq 300); do
	grep -q '^read' "$T/big.out" && break
	sleep 0.1
done
grep -q '^read' "$T/big.out" ||
	h_die "the receiver did not read the headers: $(cat "$T/big.out")"

echo "send $rtid" | h_probe "$T" "$T/send.out" sender ||
	h_fail "sender: $(cat "$T/send.out.err")"
wait $rcv
exec 7>&-
grep -q '^got from' "$T/recv.out" ||
	h_fail "the receiver got nothing: $(cat "$T/recv.out")"
v() { sed -n "s/^$1 //p" "$T/recv.out"; }
data=$(( $(v vmdata1) - $(v vmdata0) ))
rss=$(( $(v vmrss1) - $(v vmrss0) ))
h_log "receiver grew by ${data} kB VmData, ${rss} kB VmRSS"
[ "$data" -lt 131072 ] || h_fail "VmData grew by ${data} kB"
[ "$rss" -lt 131072 ] || h_fail "VmRSS grew by ${rss} kB"
h_finish

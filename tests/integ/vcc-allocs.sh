#!/bin/bash
# vcc-allocs.sh - virtual circuit caching removes heap allocation from the
# steady-state message path: bench/vcc_pingpong under the preloaded
# counter tests/tools/alloc_count.so makes 10,000 timed round trips per
# size (8 B .. 64 KiB, same host, after a warm-up); the parent's pack,
# send, receive and unpack must make no malloc/calloc/realloc at all.
# With COPVM_VCC=0 the same run must allocate (so the count can fail),
# and with precommunication (-I) it must stay at zero too, also at 1 MiB.
# The `full' mode is a stock program's whole cycle: pvm_initsend with
# PvmDataDefault (XDR), an int and the bytes packed, pvm_send, pvm_recv,
# both unpacked, and the receive buffer freed with pvm_freebuf (-e
# default -F); it must not allocate either, and with COPVM_VCC=0 it
# must (its negative control).
# The `stream' mode is that cycle as a stream (-B 20000): the child sends
# 20,000 messages per round and the parent, counted, receives them.  A
# receiver that moved a ringful of records into its queue at once
# outgrew the buffer pools and allocated about three times per message.
# The `sockstream' mode is the same stream over unix sockets (COPVM_SHM=0
# in both tasks): a receiver that parsed its whole 64 KiB staging buffer
# at once (up to about 1,500 small frames) allocated 0.01-3 times per
# message.  Its negative control `sockstreamoff' runs it with
# COPVM_VCC=0.
# The warm-up (2,000 round trips) covers a lap of the 1 MiB ring at every
# size: a record that wraps past the ring's end cannot be read in place
# (transport/shm_keep.c) and is copied into a body from the pools, which
# the first such record of a size class fills once.
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=$(pwd)
pp=$top_builddir/bench/vcc_pingpong
so=$top_builddir/tests/tools/.libs/alloc_count.so
[ -x "$pp" ] || { echo "FAIL: $pp is missing" >&2; exit 1; }
[ -e "$so" ] || { echo "FAIL: $so is missing" >&2; exit 1; }
# Under ./configure --enable-sanitizers ASan owns malloc: the preloaded
# counter cannot interpose on it (the daemon aborts in free), and what it
# would count is ASan's allocator, not ours.
if ldd "$pp" 2>/dev/null | grep -q libasan; then
	echo "SKIP: copvm is built with sanitizers (--enable-sanitizers)"
	exit 77
fi

. "$srcdir/tests/integ/private-vm-lib.sh"
private_vm "$top_builddir"
failed=0

# run LABEL ARGS...: prints the RESULT lines of one run
run() {
	local label=$1
	shift
	LD_PRELOAD=$so timeout 300 "$pp" "$@" > "$PVM_TMP/$label.out" 2>&1 ||
		{ cat "$PVM_TMP/$label.out" >&2; echo "FAIL: $label: run failed" >&2; exit 1; }
	cat "$PVM_TMP/$label.out"
}

sizes=8,1024,16384,65536
for mode in on precomm full stream sockstream; do
	args=(-r 10000 -w 2000 -s $sizes)
	[ $mode = precomm ] && args+=(-I)
	[ $mode = full ] && args+=(-e default -F)
	[ $mode = stream ] && args=(-r 10 -w 2 -s $sizes -e default -F -B 20000)
	if [ $mode = sockstream ]; then
		args=(-r 10 -w 2 -s $sizes -e default -F -B 20000)
		COPVM_SHM=0 PVM_EXPORT=COPVM_SHM run $mode "${args[@]}" >/dev/null
	else
		run $mode "${args[@]}" >/dev/null
	fi
	while read -r line; do
		case $line in
		RESULT*allocs=0\ *) ;;
		RESULT*) echo "FAIL: VCC $mode allocates in steady state: $line" >&2
			failed=1 ;;
		esac
	done < "$PVM_TMP/$mode.out"
	[ "$(grep -c '^RESULT' "$PVM_TMP/$mode.out")" = 4 ] ||
		{ echo "FAIL: $mode: expected 4 RESULT lines" >&2; failed=1; }
done

# 1 MiB with precommunication: the staged write and the echo cross (this
# once hung: a pong read while staging was not looked for before waiting)
run big -r 100 -w 10 -s 1048576 -I >/dev/null
grep -q '^RESULT size=1048576 .*allocs=0 ' "$PVM_TMP/big.out" ||
	{ echo "FAIL: 1 MiB with precommunication: $(cat "$PVM_TMP/big.out")" >&2; failed=1; }

COPVM_VCC=0 run off -r 2000 -w 100 -s 1024,65536 >/dev/null
COPVM_VCC=0 run fulloff -r 2000 -w 100 -s 8,1024 -e default -F >/dev/null
COPVM_VCC=0 run streamoff -r 4 -w 1 -s 8,1024 -e default -F -B 2000 >/dev/null
COPVM_VCC=0 COPVM_SHM=0 PVM_EXPORT=COPVM_SHM run sockstreamoff -r 4 -w 1 \
	-s 8,1024 -e default -F -B 2000 >/dev/null
for mode in off fulloff streamoff sockstreamoff; do
	while read -r line; do
		case $line in
		RESULT*allocs=0\ *|RESULT*allocs=-*)
			echo "FAIL: $mode: with COPVM_VCC=0 no allocation was counted: $line" >&2
			failed=1 ;;
		esac
	done < "$PVM_TMP/$mode.out"
	[ "$(grep -c '^RESULT' "$PVM_TMP/$mode.out")" = 2 ] ||
		{ echo "FAIL: $mode: expected 2 RESULT lines" >&2; failed=1; }
done
cat "$PVM_TMP"/{on,precomm,full,stream,sockstream,big,off,fulloff,streamoff,sockstreamoff}.out
exit $failed

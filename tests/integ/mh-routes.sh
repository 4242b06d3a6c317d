#!/bin/bash
# Messages between tasks of different emulated hosts, on stock PVM and on
# copvm: 0 B to 4 MiB, each echoed back whole with a checksum, then 500
# small ones whose order the receiver checks; over direct routes
# (PvmRouteDirect on both tasks) and over the default route through the
# daemons (PvmDontRoute), from the master's host and from a slave's host
# (so that two slaves' daemons must connect to each other).  On copvm the
# direct runs must have opened a TCP circuit (pvm_getfds: 1 descriptor
# before, 2 after, as stock; and an io_uring ring that drives it, unless
# COPVM_URING=0 forces plain sockets) and the runs on the daemons' route
# none (1 and 1, and no ring).
# mh-uring.sh runs this test with each backend.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init routes 3

scenario() {
	local side=$1 tool
	tool=$(mh_offer_tool "$side")
	mh_begin "$side"
	mh_run "$side" node1 direct1 -- "$tool" routes direct
	mh_run "$side" node1 default1 -- "$tool" routes default
	mh_run "$side" node3 direct3 -- "$tool" routes direct
	mh_run "$side" node3 default3 -- "$tool" routes default
	mh_end "$side"
}
mh_sides scenario

for t in direct1 default1 direct3 default3; do
	expect_status "$t" 0
	compare_out "$t"
	compare_rc "$t"
	grep -q CORRUPT "$W/copvm/out/$t.out" && fail "$t: corrupt messages"
done
if [ "${IMPL[copvm]}" = copvm ]; then
	# the ring by default; sockets when forced, or when this kernel
	# refuses io_uring to everyone (the fallback)
	case ${COPVM_URING:-auto}:$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0) in
	0:* | auto:2) rings=0 ;;
	*) rings=1 ;;
	esac
	for t in direct1 direct3; do
		grep -q "descriptors 1 before, 2 after" "$W/copvm/out/$t.err" ||
			fail "$t: no direct circuit on copvm: $(cat "$W/copvm/out/$t.err")"
		grep -q "io_uring rings $rings\$" "$W/copvm/out/$t.err" ||
			fail "$t: not $rings io_uring ring(s) (COPVM_URING=${COPVM_URING:-}): $(cat "$W/copvm/out/$t.err")"
	done
	for t in default1 default3; do
		grep -q "descriptors 1 before, 1 after" "$W/copvm/out/$t.err" ||
			fail "$t: a circuit on the default route: $(cat "$W/copvm/out/$t.err")"
		grep -q "io_uring rings 0\$" "$W/copvm/out/$t.err" ||
			fail "$t: a ring on the default route: $(cat "$W/copvm/out/$t.err")"
	done
	[ -s "$W/copvm/out/direct1.err" ] && grep -v '^mhcheck: ' \
		"$W/copvm/out/direct1.err" "$W/copvm/out/direct3.err" &&
		fail "unexpected messages on stderr"
fi
integ_finish

#!/bin/bash
# diff-pack.sh - packing and buffer behaviours of issue 13 (items 1-9),
# each a small program of diffprog/pack/ run on stock PVM 3.4.6 and on
# copvm with the outputs compared (diff-pack-lib.sh):
#   bufstate		the active buffers and their headers across send,
#			receive and forwarding (items 4, 5)
#   reinterpret-ENC	unpacking as other types and past the end, per
#			encoding (items 1, 2, 3; 6 for in place)
#   mesg		error reports, in-place encoding, embedded
#			messages (items 6-9)
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/diff-pack-lib.sh"
integ_init diff-pack
diff_build bufstate reinterpret mesg
RUNS="bufstate reinterpret-0 reinterpret-1 reinterpret-2 mesg"

scenario() {
	local r
	for r in $RUNS; do
		case $r in
		*-*) diff_run "$1" "$r" "${r%-*}" "${r##*-}" ;;
		*) diff_run "$1" "$r" "$r" ;;
		esac
	done
}
run_sides scenario

for r in $RUNS; do
	expect_status "$r" 0
	compare "$r"
done
integ_finish

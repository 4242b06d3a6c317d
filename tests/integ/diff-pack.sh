#!/bin/bash
# diff-pack.sh - packing and buffer behaviours of issue 13 (items 1-9),
# each a small program of diffprog/pack/ run on stock PVM 3.4.6 and on
# copvm with the outputs compared (diff-pack-lib.sh):
#   bufstate	the active buffers and their headers across send,
#		receive and forwarding (items 4, 5)
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/diff-pack-lib.sh"
integ_init diff-pack
PROGS="bufstate"
diff_build $PROGS

scenario() {
	local p
	for p in $PROGS; do
		diff_run "$1" "$p"
	done
}
run_sides scenario

for p in $PROGS; do
	expect_status "$p" 0
	compare "$p"
done
integ_finish

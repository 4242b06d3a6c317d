#!/bin/bash
# diff-precv.sh - pvm_psend/pvm_precv of issue 13 (items 10-12): the
# program diffprog/pack/precv.c, which spawns a copy of itself to send,
# run on stock PVM 3.4.6 and on copvm with the outputs compared
# (diff-pack-lib.sh).
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/diff-pack-lib.sh"
integ_init diff-precv
diff_build precv

scenario() {
	diff_run "$1" precv precv
}
run_sides scenario

expect_status precv 0
compare precv
integ_finish

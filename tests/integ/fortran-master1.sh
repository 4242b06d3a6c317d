#!/bin/bash
# fmaster1 (master1.f) spawns 3 fslave1 per host, sends them the data with
# pvmfmcast, the slaves pass partial sums around a ring and send their
# results back; the results arrive in any order, even on stock, so those
# lines are sorted.  Run twice: the second run finds the daemon running.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init fortran-master1
integ_programs fslave1
# The example is started from the shell: check it loads our libpvm3 too.
[ "${IMPL[copvm]}" = copvm ] && check_copvm_lib "$(prog_path fmaster1 copvm)"

scenario() {
	run_prog "$1" fmaster1 -- fmaster1
	run_prog "$1" fmaster1b -- fmaster1
}
run_sides scenario

expect_status fmaster1 0
compare fmaster1 --sort-runs '^ I got '
compare fmaster1b --sort-runs '^ I got '
integ_finish

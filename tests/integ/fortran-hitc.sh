#!/bin/bash
# hitc (hitc.f) starts one hitc_slave per host and hands out matrix
# inversions of pseudo-random sizes from a pool, one at a time, until the
# pool is empty; it prints the slave's tid (decimal) with every result.
# With one host the order is fixed.  The second run spawns hitc from
# pvmrun with its output caught; hitc_slave inherits that output sink, so
# its last line is caught as well.  Whether hitc_slave has ended by then
# is a race, so stock's pvm_exit may or may not report "child task(s)
# still running": that line is dropped.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init fortran-hitc
integ_programs hitc hitc_slave
# The example is started from the shell: check it loads our libpvm3 too.
[ "${IMPL[copvm]}" = copvm ] && check_copvm_lib "$(prog_path hitc copvm)"

scenario() {
	run_prog "$1" hitc -- hitc
	run_prog "$1" caught -- "$(pvmrun_for "$1")" -n 1 hitc
}
run_sides scenario

expect_status hitc 0
compare hitc --dec-tids
compare caught --catchout --dec-tids --drop 'child task\(s\) still running'
integ_finish

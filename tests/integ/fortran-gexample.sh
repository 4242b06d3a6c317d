#!/bin/bash
# fgexample (gexample.f) joins group "matrix", spawns one more copy of
# itself per host (2 members on one host), freezes the group, broadcasts
# the problem size and reduces column sums with PvmSum and column products
# with its own Fortran routine; instance 0 prints the matrix 1-norm and a
# product.  group-lib.sh provides the group library and server on each
# side (and stops the server before the check for tasks left over).
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/group-lib.sh"
group_init fortran-gexample
integ_programs fgexample
[ "${IMPL[copvm]}" = copvm ] && check_copvm_lib "$(prog_path fgexample copvm)"
group_check_lib fgexample

scenario() {
	run_prog "$1" fgexample -- fgexample
}
group_run_sides scenario

expect_status fgexample 0
compare fgexample
integ_finish

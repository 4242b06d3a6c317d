#!/bin/bash
# fspmd (spmd.f): copies spawned together find each other with
# pvmfsiblings and pass a token around a ring; the first prints the ring
# (tids in decimal, Fortran list-directed).  pvmrun spawns 4 and 1 copies
# with their output caught; run from the shell, fspmd is a ring of one.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init fortran-spmd
integ_programs fspmd
# The example is started from the shell: check it loads our libpvm3 too.
[ "${IMPL[copvm]}" = copvm ] && check_copvm_lib "$(prog_path fspmd copvm)"

scenario() {
	run_prog "$1" fspmd4 -- "$(pvmrun_for "$1")" -n 4 fspmd
	run_prog "$1" fspmd1 -- "$(pvmrun_for "$1")" -n 1 fspmd
	run_prog "$1" shell -- fspmd
}
run_sides scenario

expect_status fspmd4 0
compare fspmd4 --catchout --dec-tids
compare fspmd1 --catchout --dec-tids
compare shell --dec-tids
integ_finish

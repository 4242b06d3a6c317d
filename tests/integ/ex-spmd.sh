#!/bin/bash
# spmd is meant to be spawned several at once ("spawn -4 -> spmd" in the
# console): the copies find each other with pvm_siblings and pass a token
# around a ring; the first prints the ring (tids in decimal).  pvmrun
# spawns them with their output caught (pvm_catchout), so this also checks
# the "[tid] BEGIN / text / EOF" lines; which task ends first is not fixed.
# Run alone from the shell, spmd is a ring of one.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init spmd
integ_programs spmd

scenario() {
	run_prog "$1" spmd4 -- "$(pvmrun_for "$1")" -n 4 spmd
	run_prog "$1" spmd1 -- "$(pvmrun_for "$1")" -n 1 spmd
	run_prog "$1" shell -- spmd
}
run_sides scenario

expect_status spmd4 0
compare spmd4 --catchout --dec-tids
compare spmd1 --catchout --dec-tids
compare shell --dec-tids
integ_finish

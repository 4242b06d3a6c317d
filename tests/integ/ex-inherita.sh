#!/bin/bash
# inherita moves to a new context, spawns the program named by its argument
# and prints every message from it until one starts with "END", then goes
# back to its original context.  Also its usage message (no argument) and
# its message when the program cannot be spawned.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init inherita
integ_programs inherit1 inherit2 inherit3

scenario() {
	run_prog "$1" usage -- inherita
	run_prog "$1" inherit1 -- inherita inherit1
	run_prog "$1" inherit3 -- inherita inherit3
	run_prog "$1" nosuch -- inherita no_such_program
	run_prog "$1" again -- inherita inherit1
}
run_sides scenario

expect_status inherit1 0
for run in usage inherit1 inherit3 nosuch again; do
	compare "$run"
done
integ_finish

#!/bin/bash
# inherit1 reports its tid and context to its parent, spawns inherit2 (which
# must inherit that context), relays inherit2's report and ends with an
# "END" message.  Run as the examples intend, under inherita (which first
# moves to a new context), and under pvmrun in the base context and in a
# new one (pvmrun -m prints what inherit1 sends its parent).
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init inherit1
integ_programs inherit1 inherit2

scenario() {
	run_prog "$1" inherita -- inherita inherit1
	run_prog "$1" base -- "$(pvmrun_for "$1")" -m inherit1
	run_prog "$1" newctx -- "$(pvmrun_for "$1")" -c -m inherit1
}
run_sides scenario

# pvmrun's pvm_exit may come before the output of the grandchild
# (inherit2) has ended; stock then says so on stderr, or not.
STILL_RUNNING='child task\(s\) still running'

expect_status inherita 0
compare inherita
compare base --catchout --drop "$STILL_RUNNING"
compare newctx --catchout --drop "$STILL_RUNNING"
integ_finish

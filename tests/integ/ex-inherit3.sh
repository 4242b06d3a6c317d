#!/bin/bash
# inherit3 creates a new context of its own, spawns inherit2 in it (the
# child inherits it), talks to its parent in the parent's context and
# relays the child's report.  Run under inherita (as intended) and under
# pvmrun in the base context.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init inherit3
integ_programs inherit3 inherit2

scenario() {
	run_prog "$1" inherita -- inherita inherit3
	run_prog "$1" base -- "$(pvmrun_for "$1")" -m inherit3
}
run_sides scenario

# pvmrun's pvm_exit may come before the output of the grandchild
# (inherit2) has ended; stock then says so on stderr, or not.
STILL_RUNNING='child task\(s\) still running'

expect_status inherita 0
compare inherita
compare base --catchout --drop "$STILL_RUNNING"
integ_finish

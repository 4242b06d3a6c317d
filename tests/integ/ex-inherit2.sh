#!/bin/bash
# inherit2 sends its parent one line with its tid and context.  Its parent
# here is pvmrun, once in the base context and once after moving to a new
# context (the child must report, and send in, the parent's context); run
# from the shell it has no parent and prints nothing.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init inherit2
integ_programs inherit2

scenario() {
	run_prog "$1" base -- "$(pvmrun_for "$1")" -m inherit2
	run_prog "$1" newctx -- "$(pvmrun_for "$1")" -c -m inherit2
	run_prog "$1" twice -- "$(pvmrun_for "$1")" -c -m -n 2 inherit2
	run_prog "$1" shell -- inherit2
}
run_sides scenario

expect_status base 0
compare base --catchout
compare newctx --catchout
compare twice --catchout --sort-runs '^pvmrun: message from '
compare shell
integ_finish

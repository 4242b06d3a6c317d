#!/bin/bash
# inheritb creates two contexts, spawns inherit2 in each, then receives the
# second child's report first and the first child's second: a receive
# only matches messages of the current context.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init inheritb
integ_programs inherit2

scenario() {
	run_prog "$1" inheritb -- inheritb
	run_prog "$1" again -- inheritb
}
run_sides scenario

expect_status inheritb 0
compare inheritb
compare again
integ_finish

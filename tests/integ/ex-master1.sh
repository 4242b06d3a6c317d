#!/bin/bash
# master1 spawns 3 slave1 per host (3 here), multicasts them the data, the
# slaves pass partial sums around a ring and send their results back.
# The results arrive in any order, even on stock: those lines are sorted.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init master1
integ_programs slave1

scenario() {
	run_prog "$1" master1 -- master1
	run_prog "$1" master1b -- master1
}
run_sides scenario

expect_status master1 0
compare master1 --sort-runs '^I got '
compare master1b --sort-runs '^I got '
integ_finish

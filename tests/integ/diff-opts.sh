#!/bin/bash
# Message handlers, contexts, options, the database and PVM_EXPORT in a
# program built against stock PVM (tests/integ/diffprog/tasks/opts.c), run
# on both libraries; every return value, the environment it leaves and
# the library's error lines must match stock's (issue 13, items 20-29);
# trace.c: trace masks, trace options and PvmResvTids, also as a child
# inherits them.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init diff-opts
. "$top_srcdir/tests/integ/diffprog/tasks/build.sh"
diffprog_build opts trace

scenario() {
	run_prog "$1" opts -- "$(diffprog opts)"
	run_prog "$1" trace -- "$(diffprog trace)"
}
run_sides scenario

expect_status opts 0
compare opts
expect_status trace 0
compare trace
integ_finish

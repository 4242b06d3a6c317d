#!/bin/bash
# Message handlers, contexts, options, the database and PVM_EXPORT in a
# program built against stock PVM (tests/integ/diffprog/tasks/opts.c), run
# on both libraries; every return value, the environment it leaves and
# the library's error lines must match stock's (issue 13, items 20-29).
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init diff-opts
. "$top_srcdir/tests/integ/diffprog/tasks/build.sh"
diffprog_build opts

scenario() {
	run_prog "$1" opts -- "$(diffprog opts)"
}
run_sides scenario

expect_status opts 0
compare opts
integ_finish

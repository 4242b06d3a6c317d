#!/bin/bash
# pvm_strerror and pvm_perror in a program built against stock PVM's
# header (tests/integ/diffprog/tasks/strerror.c), run on both libraries:
# stock's pvm_strerror takes no argument and returns the text of
# pvm_errno (issue 13, item 30), pvm_perror(NULL) prints "(null): "
# (item 31), and codes outside the table read "Unknown Error".
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init diff-errors
. "$top_srcdir/tests/integ/diffprog/tasks/build.sh"
diffprog_build strerror

scenario() {
	run_prog "$1" strerror -- "$(diffprog strerror)"
}
run_sides scenario

expect_status strerror 0
compare strerror
integ_finish

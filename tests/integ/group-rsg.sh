#!/bin/bash
# Reduce, scatter and gather.  trsg (C) and frsg (Fortran, Debian's static
# libfpvm3 calling our C functions) ask for the number of tasks and of
# elements per row, spawn the rest, scatter a matrix, square it with
# PvmProduct, gather partial sums, reduce with PvmSum and with a user
# function (maximum with location).  gexample asks for a dimension and a
# number of tasks, freezes the group, reduces with PvmSum and a user
# product, and passes a barrier of -1; started as 3 siblings (pvmrun) it
# uses the defaults instead of asking, and only instance 0 prints.
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/group-lib.sh"
group_init group-rsg
integ_programs trsg frsg gexample
group_check_lib trsg frsg gexample

scenario() {
	printf '4\n5\n' >"$W/$1/in45"
	printf '1\n3\n' >"$W/$1/in13"
	printf '16\n20\n' >"$W/$1/in1620"
	printf '100\n4\n' >"$W/$1/in1004"
	printf '7\n1\n' >"$W/$1/in71"
	run_prog "$1" trsg4 -i "$W/$1/in45" -- trsg
	run_prog "$1" trsg1 -i "$W/$1/in13" -- trsg
	run_prog "$1" trsg16 -i "$W/$1/in1620" -- trsg
	run_prog "$1" frsg4 -i "$W/$1/in45" -- frsg
	run_prog "$1" gexample4 -i "$W/$1/in1004" -- gexample
	run_prog "$1" gexample1 -i "$W/$1/in71" -- gexample
	run_prog "$1" gexample3s -- "$(pvmrun_for "$1")" -n 3 gexample
}
group_run_sides scenario

expect_status trsg4 1
expect_status frsg4 0
expect_status gexample4 0
expect_status gexample3s 0
for t in trsg4 trsg1 trsg16 gexample4 gexample1; do
	compare $t
done
# frsg.f adds its row to PSum, which it never sets: Sum1 (the gathered
# partial sums) holds whatever the loader left on the stack and differs
# between runs and environments, on stock too.  Sum2 (the PvmSum reduce)
# is well defined: both lines are reduced to it.
compare frsg4 \
	--subst 's{^ / Test OK: Sum of Squares of first +(\d+) +integers is +(-?\d+)$}{ / Sum of squares of the first $1 integers, by reduce: $2}' \
	--subst 's{^ / ERROR: The Sum of Squares of the first +(\d+) +integers / was calculated by Sum1 as +-?\d+ +and by Sum2 as +(-?\d+) +for both.*$}{ / Sum of squares of the first $1 integers, by reduce: $2}'
# Which sibling joins first and talks is not fixed: keep its lines only.
compare gexample3s --drop '\] (BEGIN|EOF)$' --subst 's/^\[t[0-9a-f]+\] //'
integ_finish

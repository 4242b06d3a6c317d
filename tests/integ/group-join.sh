#!/bin/bash
# Joining and leaving groups, one task at a time: tst joins two groups and
# leaves them; tjl joins 32 groups, checks its instance and tid in each
# (pvm_getinst, pvm_gettid) and leaves them; tjf does the same with a 33rd
# join (its array of 32 overflows the same way on both sides); joinleave
# joins and leaves one group 300 times.  The first call of each starts or
# finds the group server.  joinleave prints its tid as 0x%x.
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/group-lib.sh"
group_init group-join
group_check_lib tst tjl tjf joinleave

scenario() {
	run_prog "$1" tst -- tst
	run_prog "$1" tst2 -- tst
	run_prog "$1" tjl -- tjl
	run_prog "$1" tjf -- tjf
	run_prog "$1" joinleave -- joinleave 300
}
group_run_sides scenario

expect_status tst 0
expect_status joinleave 0
compare tst
compare tst2
compare tjl
compare tjf
compare joinleave --subst 's/ 0x([0-9a-f]+) / t$1 /'
integ_finish

#!/bin/bash
# gmbi [PATTERN] lists the mailbox classes matching PATTERN (default "*"):
# name, then each entry's index, owner and flags; the classes come in the
# order they were created.  Entries come from lmbi (persistent ones, with
# no owner once lmbi has exited) and from task0 servers still running.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init gmbi

scenario() {
	local s=$1
	run_prog "$s" empty -- gmbi
	run_prog "$s" usage -- gmbi a b
	run_prog "$s" lmbi -- lmbi 2 p e
	bg_prog "$s" zzz0 -- task0 zzz pm
	wait_output "$s" zzz0 "waiting for service request"
	bg_prog "$s" aaa -- task0 aaa
	wait_output "$s" aaa "waiting for service request"
	bg_prog "$s" zzz1 -- task0 zzz pm
	wait_output "$s" zzz1 "waiting for service request"
	run_prog "$s" all -- gmbi
	run_prog "$s" star -- gmbi '*'
	run_prog "$s" prefix -- gmbi 't*'
	run_prog "$s" suffix -- gmbi '*lmbi1'
	run_prog "$s" exact -- gmbi zzz
	run_prog "$s" none -- gmbi nothing_matches
	run_prog "$s" end_aaa -- task_end aaa 0
	wait_prog "$s" aaa
	run_prog "$s" end_zzz0 -- task_end zzz 0
	wait_prog "$s" zzz0
	run_prog "$s" end_zzz1 -- task_end zzz 1
	wait_prog "$s" zzz1
	run_prog "$s" after -- gmbi
}
run_sides scenario

expect_status all 0
for run in empty usage lmbi all star prefix suffix exact none after; do
	compare "$run"
done
integ_finish

#!/bin/bash
# lmbi N FLAGS e|w puts N mailbox entries named t<tid>lmbi<i> with the given
# flags, then exits (e) or waits for an "END" message (w: task_end sends
# it).  Entries that are not persistent go away with their owner; gmbi
# shows what is left.  Also lmbi's two usage messages.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init lmbi

scenario() {
	local s=$1 name
	run_prog "$s" usage -- lmbi
	run_prog "$s" badexit -- lmbi 2 d x
	run_prog "$s" persistent -- lmbi 3 p e
	run_prog "$s" multi -- lmbi 2 m e
	run_prog "$s" all -- lmbi 1 pmo e
	run_prog "$s" list1 -- gmbi
	bg_prog "$s" waiting -- lmbi 2 d w
	wait_output "$s" waiting "waiting for exit request"
	run_prog "$s" list2 -- gmbi
	name=$(out_value "$s" waiting 's/.*just inserted entry <\(.*\)> at index 0\..*/\1/p')
	run_prog "$s" end -- task_end "$name" 0
	wait_prog "$s" waiting
	run_prog "$s" list3 -- gmbi
}
run_sides scenario

expect_status persistent 0
expect_status waiting 0
for run in usage badexit persistent multi all list1 waiting list2 end list3; do
	compare "$run" --hex-tid-after 'id: '
done
integ_finish

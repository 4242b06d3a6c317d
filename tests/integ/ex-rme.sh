#!/bin/bash
# rme NAME INDEX deletes a mailbox entry (pvm_delinfo).  Another task may
# delete an entry only if it is overwritable, whether its owner is still
# running or not; a missing entry gives "no service running".  gmbi shows the mailbox after each step.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init rme

scenario() {
	local s=$1 open locked other
	run_prog "$s" usage -- rme
	run_prog "$s" missing -- rme no_such_entry 0
	run_prog "$s" lmbi_open -- lmbi 1 po e
	run_prog "$s" lmbi_locked -- lmbi 1 p e
	open=$(out_value "$s" lmbi_open 's/.*just inserted entry <\(.*\)> at index 0\..*/\1/p')
	locked=$(out_value "$s" lmbi_locked 's/.*just inserted entry <\(.*\)> at index 0\..*/\1/p')
	run_prog "$s" list1 -- gmbi
	run_prog "$s" del_index -- rme "$open" 3
	run_prog "$s" del_open -- rme "$open" 0
	run_prog "$s" del_open_again -- rme "$open" 0
	run_prog "$s" del_locked -- rme "$locked" 0
	run_prog "$s" list2 -- gmbi
	bg_prog "$s" server -- task0 live
	wait_output "$s" server "waiting for service request"
	run_prog "$s" del_live -- rme live 0
	bg_prog "$s" lmbi_live -- lmbi 2 o w
	wait_output "$s" lmbi_live "waiting for exit request"
	open=$(out_value "$s" lmbi_live 's/.*just inserted entry <\(.*0\)> at index 0\..*/\1/p')
	other=$(out_value "$s" lmbi_live 's/.*just inserted entry <\(.*1\)> at index 0\..*/\1/p')
	run_prog "$s" del_live_open -- rme "$open" 0
	run_prog "$s" list3 -- gmbi
	run_prog "$s" end_live -- task_end live 0
	wait_prog "$s" server
	run_prog "$s" end_lmbi_live -- task_end "$other" 0
	wait_prog "$s" lmbi_live
	run_prog "$s" list4 -- gmbi
}
run_sides scenario

expect_status del_open 0
for run in usage missing lmbi_open lmbi_locked list1 del_index del_open \
	del_open_again del_locked list2 server del_live lmbi_live \
	del_live_open list3 end_live end_lmbi_live list4; do
	compare "$run" --hex-tid-after 'id: '
done
integ_finish

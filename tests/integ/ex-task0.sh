#!/bin/bash
# task0 NAME [FLAGS] offers a service: it moves to a new context, puts its
# tid and context in mailbox entry NAME and answers requests until one says
# "END".  task1 NAME [INDEX FLAGS] looks the entry up (pvm_recvinfo),
# switches to the server's context and sends it a request; task_end NAME
# INDEX sends the "END".  The servers run in the background; each step
# waits for the previous one's output so that the order is fixed.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init task0

scenario() {
	local s=$1
	run_prog "$s" usage -- task0
	bg_prog "$s" server -- task0 svc
	wait_output "$s" server "waiting for service request"
	run_prog "$s" req1 -- task1 svc
	run_prog "$s" req2 -- task1 svc 0 f
	run_prog "$s" req_missing -- task1 no_such_service
	run_prog "$s" req_take -- task1 svc 0 r
	run_prog "$s" dup -- task0 svc

	# Two servers under one name (persistent, multiple instances).
	bg_prog "$s" multi0 -- task0 multi pm
	wait_output "$s" multi0 "waiting for service request"
	bg_prog "$s" multi1 -- task0 multi pm
	wait_output "$s" multi1 "waiting for service request"
	run_prog "$s" req_multi1 -- task1 multi 1 d
	run_prog "$s" req_first -- task1 multi 0 f
	run_prog "$s" end_multi0 -- task_end multi 0
	wait_prog "$s" multi0
	run_prog "$s" end_multi1 -- task_end multi 1
	wait_prog "$s" multi1

	run_prog "$s" end_svc -- task_end svc 0
	wait_prog "$s" server
	run_prog "$s" end_again -- task_end svc 0
	run_prog "$s" end_usage -- task_end svc
	run_prog "$s" list -- gmbi
}
run_sides scenario

expect_status server 0
expect_status req1 0
for run in usage server req1 req2 req_missing req_take dup multi0 multi1 \
	req_multi1 req_first end_multi0 end_multi1 end_svc end_again \
	end_usage list; do
	compare "$run" --hex-tid-after 'tid: ' --hex-tid-after 'id: '
done
integ_finish

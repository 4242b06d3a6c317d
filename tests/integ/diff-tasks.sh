#!/bin/bash
# Signals, notifies and raw output collection in a program built against
# stock PVM (tests/integ/diffprog/tasks/tasks.c), run on both libraries
# and daemons: pvm_kill and pvm_sendsig of a tid that has gone, was never
# used or names no host, the notifies stock refuses, the source of notify
# and output messages and the records of the raw output stream must all
# match stock's (issue 13, items 13, 15-17).  hosts.c: pvm_hostsync with a
# task's tid, pvm_getfds at the start, with a direct route and once
# its peer has gone, 1 / 2 / 1 as stock (items 18, 19).
# kill.c: pvm_kill of a task that catches SIGTERM (item 14).
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init diff-tasks
. "$top_srcdir/tests/integ/diffprog/tasks/build.sh"
diffprog_build tasks hosts kill

scenario() {
	run_prog "$1" tasks -- "$(diffprog tasks)"
	run_prog "$1" hosts -- "$(diffprog hosts)"
	run_prog "$1" kill -- "$(diffprog kill)"
}
run_sides scenario

expect_status tasks 0
compare tasks
expect_status hosts 0
compare hosts
expect_status kill 0
compare kill
integ_finish

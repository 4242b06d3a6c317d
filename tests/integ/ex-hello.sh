#!/bin/bash
# hello (Debian: hello.pvm) spawns hello_other, which sends back
# "hello, world from HOST"; hello prints its own tid and the greeting.
# Run from the shell as the example's Readme says.  On copvm the first
# run also starts the daemon (the library does it); the second finds it.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init hello
integ_programs hello_other

scenario() {
	run_prog "$1" hello1 -- hello
	run_prog "$1" hello2 -- hello
}
run_sides scenario autostart

expect_status hello1 0
compare hello1
compare hello2
integ_finish

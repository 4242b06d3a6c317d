#!/bin/bash
# timing spawns timing_slave, measures round trips and bandwidth for 100 B
# to 1 MB messages (PvmDataRaw, direct route), then pvm_kill()s the slave
# and exits 1 (as its source does).  The times are run-dependent: every
# measured number is replaced; the rest of the output must match.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init timing
integ_programs timing_slave

scenario() {
	run_prog "$1" timing -- timing
}
run_sides scenario

expect_status timing 1
compare timing \
	--subst 's/^ {5}\s*[\d.]+\s+[\d.]+$/<avg> <avg>/' \
	--subst 's/^(\s?\d+)\s+\d+\s+\d+$/$1 <usec> <usec>/' \
	--subst 's/^(\s?\d+)\s+\d+$/$1 <usec>/' \
	--subst 's/^(RTT Avg uSec) -?\d+$/$1 <usec>/'
integ_finish

#!/bin/bash
# The bandwidth testers ibwtest (PvmDataInPlace), dbwtest (PvmDataDefault),
# rbwtest (PvmDataRaw) and pbwtest (pvm_psend/pvm_precv) are started
# twice from the shell: each copy joins group "bwtest", instance 0 waits
# (pvm_gettid in a loop) for instance 1 and ping-pongs with it, checking
# 100000 doubles first.  The second copy starts once the first has
# joined, so which is instance 0 is fixed.  Times and rates differ from
# run to run; tids are printed as bare hex.
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/group-lib.sh"
group_init group-bwtest
group_check_lib ibwtest dbwtest rbwtest pbwtest

scenario() {
	local p
	for p in ibwtest dbwtest rbwtest pbwtest; do
		bg_prog "$1" "$p-0" -- "$p"
		wait_output "$1" "$p-0" "myinst is 0" || return
		run_prog "$1" "$p-1" -- "$p"
		wait_prog "$1" "$p-0"
	done
}
group_run_sides scenario

TIMES='s/^Roundtrip T = \d+ \(us\)  \(\S+ MB\/s\)/Roundtrip T = <us> (us)  (<rate> MB\/s)/'
HEXTID='s/^( ?)([0-9a-f]{5,8}) (myinst|--)/$1t$2 $3/'
for p in ibwtest dbwtest rbwtest pbwtest; do
	expect_status "$p-0" 0
	compare "$p-0" --subst "$HEXTID" --subst "$TIMES"
	compare "$p-1" --subst "$HEXTID" --subst "$TIMES"
done
integ_finish

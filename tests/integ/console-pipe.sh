#!/bin/bash
# The console reading a script from a pipe (no terminal): every line is
# echoed after the prompt and the commands' output follows, so the whole
# transcript can be compared with stock's.  tests/integ/console/script.in
# holds commands whose output does not depend on timing: conf, ps, mstat,
# echo and quoting, aliases, setenv/export, wrong commands and argument
# counts, spawn failures and a spawn, options; then the end of input,
# which quits and leaves the daemon running.
#   ours:   stock's console on stock  vs  copvm's console on copvm
#   debian: stock's console on stock  vs  Debian's console on copvm
# Stock's console also prints "Console: exit handler called" when it
# quits; that line is not compared.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init console-pipe
integ_programs hello hello_other

OUR_CONSOLE=$top_builddir/console/pvm
check_copvm_lib /usr/bin/pvm
sed "s/@HOST@/$(hostname)/" "$top_srcdir/tests/integ/console/script.in" \
	>"$W/script"

scenario() {
	run_prog "$1" debian -i "$W/script" -- /usr/bin/pvm
	if [ -x "$OUR_CONSOLE" ]; then
		if [ "$1" = stock ]; then
			run_prog "$1" ours -i "$W/script" -- /usr/bin/pvm
		else
			run_prog "$1" ours -i "$W/script" -- "$OUR_CONSOLE"
		fi
	fi
}
run_sides scenario

expect_status debian 0
compare debian --drop '^Console: exit handler called$'
if [ -x "$OUR_CONSOLE" ]; then
	compare ours --drop '^Console: exit handler called$'
else
	log "note: $OUR_CONSOLE is not built (no libedit?): only Debian's console compared"
fi
integ_finish

#!/bin/bash
# An interactive console session, typed into a pseudo-terminal (tmux) as
# a person would, on three sides:
#   stock   Debian's console (/usr/bin/pvm) on stock PVM 3.4.6: checks
#           that the assertions describe what stock really does;
#   debian  Debian's console on copvm's library and daemon: copvm must be
#           a drop-in for an existing console binary;
#   copvm   copvm's console (console/pvm) on copvm.
# The same steps and assertions run on each side: start a new virtual
# machine, conf, a second console that attaches and quits, ps -a,
# spawn -> of a program that prints (hello, which spawns hello_other),
# a program that waits (napper): pstat, jobs, kill, its EOF and the end
# of its job; a mistyped command; a command corrected with Backspace;
# halt, after which no process may be left.  On copvm's console, which
# edits lines, the Up arrow also recalls a command.
. "${srcdir:-.}/tests/integ/lib.sh"
. "${srcdir:-.}/tests/integ/console/tmux.sh"
integ_init console-session
con_init

IMPL[debian]=copvm
con_side_init debian
SIDES="stock debian copvm"
OUR_CONSOLE=$top_builddir/console/pvm
if [ ! -x "$OUR_CONSOLE" ]; then
	log "note: $OUR_CONSOLE is not built (no libedit?): its side is skipped"
	SIDES="stock debian"
fi

# A program that is not a PVM task: says it is up, then waits.
cat >"$W/napper" <<'EOF'
#!/bin/sh
echo napping
exec sleep 60
EOF
chmod 755 "$W/napper"
for side in $SIDES; do
	con_program "$side" /usr/bin/hello.pvm hello
	con_program "$side" /usr/bin/hello_other hello_other
	con_program "$side" "$W/napper" napper
done
check_copvm_lib /usr/bin/pvm

# Stock's pvmd needs its host name to resolve; -n names another (the
# console hands its arguments to the daemon it starts; copvm's takes -n).
PVMD_ARGS=()
getent hosts "$(hostname)" >/dev/null 2>&1 || PVMD_ARGS=(-nlocalhost)

console_of() {
	case $1 in
	copvm) echo "$OUR_CONSOLE" ;;
	*) echo /usr/bin/pvm ;;
	esac
}

T='t[0-9a-f]{5,8}'

session() {
	local side=$1 c=$side-1 c2=$side-2 con tid n
	con=$(console_of "$side")
	[ -z "$(side_procs "$side")" ] || fail "$side: a daemon runs already"

	# A new virtual machine: the console starts pvmd and says nothing.
	con_start "$side" "$c" "$con" "${PVMD_ARGS[@]}"
	con_wait_prompt "$c" || return
	con_absent "$c" 'already running'

	con_type "$c" conf
	con_wait "$c" '^1 host, 1 data format$'
	con_wait "$c" '^ +HOST +DTID +ARCH +SPEED +DSIG$'
	con_wait "$c" '^ +[^ ]+ +40000 +LINUX64 +[0-9]+ 0x00408c41$'

	# A second console finds the machine running; quit leaves it so.
	con_start "$side" "$c2" "$con" "${PVMD_ARGS[@]}"
	con_wait "$c2" '^pvmd already running\.$'
	con_wait_prompt "$c2"
	con_type "$c2" id
	con_wait "$c2" "^$T\$"
	con_type "$c2" quit
	con_wait_dead "$c2"
	# Stock's console sometimes ends before its last line reaches the
	# terminal; copvm's must always say it.
	[ "$side" = copvm ] && con_wait "$c2" '^pvmd still running\.$'

	con_type "$c" 'ps -a'
	con_wait "$c" '^ +HOST +TID +FLAG 0x COMMAND$'

	# hello prints its tid and what hello_other sent it.
	con_type "$c" 'spawn -> hello'
	con_wait "$c" '^\[1\]$'
	con_wait "$c" '^1 successful$'
	con_wait "$c" "^\\[1:$T\\] i'm $T\$"
	con_wait "$c" "^\\[1:$T\\] from $T: hello, world from "
	con_wait "$c" '^\[1\] finished$'

	con_type "$c" 'spawn -> napper'
	con_wait "$c" "^\\[2:$T\\] napping\$" || return
	tid=$(con_value "$c" 's/^\[2:t([0-9a-f]+)\] napping$/\1/p')
	con_type "$c" 'ps -a'
	con_wait "$c" "^ +[^ ]+ +$tid +[0-9a-f]+/[a-zA-Z]* +napper\$"
	con_type "$c" "pstat t$tid"
	con_wait "$c" "^t +$tid +run\$"
	con_type "$c" jobs
	con_wait "$c" "^ 2: t$tid\$"
	con_type "$c" "kill t$tid"
	con_wait "$c" "^\\[2:t$tid\\] EOF\$"
	con_wait "$c" '^\[2\] finished$'

	con_type "$c" cnof
	con_wait "$c" '^cnof: not found$'

	# Backspace works with or without an editor (the terminal's erase).
	con_keys "$c" -l 'echo edti'
	con_keys "$c" BSpace BSpace
	con_keys "$c" -l 'it'
	con_keys "$c" Enter
	con_wait "$c" '^edit$'

	if [ "$side" = copvm ]; then
		con_type "$c" 'echo one two'
		con_wait "$c" '^one two$'
		con_keys "$c" Up
		con_wait "$c" '^echo one two$' 2
		con_keys "$c" Enter
		con_wait "$c" '^one two$' 2
	fi

	con_type "$c" halt
	con_wait_dead "$c"
	con_wait_gone "$side"
	n=$(con_count "$c" '^(libpvm|pvm:)')
	[ "$n" -eq 0 ] || con_fail "$c" "error messages on the screen"
	[ -n "${CON_SHOW:-}" ] && con_show "$c" "$c2"
}

for side in $SIDES; do
	session "$side"
	# Whatever a failed step left running goes before the next side.
	for pid in $(side_procs "$side"); do
		kill -KILL "$pid" 2>/dev/null
	done
done
integ_finish

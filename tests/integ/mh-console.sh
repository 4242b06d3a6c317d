#!/bin/bash
# The console across hosts, typed into a pseudo-terminal (tmux): a virtual
# machine of one emulated host grows with `add', then conf and ps -a show
# both hosts and a task spawned on the new one, and halt leaves nothing on
# either host.  Run with Debian's console on stock PVM (checks the
# assertions), with copvm's own console, and with Debian's console on
# copvm's library (after a successful `add' it waits for the PvmHostAdd
# notify it asked for with tag 0, beside the one its handler asked for).
. "${srcdir:-.}/tests/integ/netns/mh.sh"
. "${srcdir:-.}/tests/integ/console/tmux.sh"
mh_init console 2
con_init
# One trap for both: the tmux server, then the namespaces and work dir.
trap 'rc=$?; [ -n "$CON_TMUX" ] && $CON_TMUX kill-server >/dev/null 2>&1; (exit $rc); mh_cleanup' EXIT

IMPL[debian]=copvm
mkdir -p "$W/debian/hosts" "$W/debian/out"
SIDES=${MHCON_SIDES:-"stock copvm debian"}
OUR_CONSOLE=$top_builddir/console/pvm
[ -x "$OUR_CONSOLE" ] || SIDES="stock debian"
echo node1 >"$W/hf1"

console_of() {
	case $1 in
	copvm) echo "$OUR_CONSOLE" ;;
	*) echo /usr/bin/pvm ;;
	esac
}

session() {
	local side=$1 s=$1-con cmd
	mh_begin "$side" "$W/hf1"
	cmd="exec env $(echo $(mh_env "$side")) $MH_RSH node1 $(console_of "$side")"
	$CON_TMUX new-session -d -s "$s" -x 100 -y 50 "$cmd" ||
		die "tmux cannot start a session"
	CON_SIDE[$s]=$side
	con_wait_prompt "$s" || return
	con_type "$s" "add node2"
	con_wait "$s" '^1 successful' || return
	con_wait "$s" '^ *node2 +[0-9a-f]+' || return
	con_type "$s" "conf"
	con_wait "$s" '^conf|2 hosts' || return
	con_wait "$s" '^ *node2 +[0-9a-f]+ +LINUX64' || return
	con_type "$s" "spawn -node2 -> /bin/sleep 30"
	con_wait "$s" '^1 successful' 2 || return
	con_type "$s" "ps -a"
	con_wait "$s" 'node2 .*sleep' || return
	con_type "$s" "halt"
	con_wait_dead "$s" || true
	mh_end "$side"
}

for side in $SIDES; do
	session "$side"
done
integ_finish

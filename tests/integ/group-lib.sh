# group-lib.sh - what the group tests (group-*.sh) add to lib.sh.
#
# Debian's group examples link libgpvm3.so.3 as well as libpvm3.so.3, and
# need a group server: on stock, Debian's pvmgs; on copvm, ours.  So:
#   - the copvm side's LD_LIBRARY_PATH also names group/.libs (side_env is
#     wrapped), and the test checks with ldd that the examples load our
#     libgpvm3;
#   - both sides find "pvmgs" through the spawn path, as a user's would:
#     $HOME/pvm3/bin/LINUX64/pvmgs links to Debian's server on stock (its
#     library spawns it by that name) and to ours on copvm (our library
#     tries that name before the installed one; COPVM_PVMGS is cleared);
#   - the group server keeps running after the examples end, which lib.sh's
#     side_end would count as a task left over: group_run_sides stops it
#     first (SIGTERM, as pvm_kill does), once the scenario is over.
# A test does:
#	. "${srcdir:-.}/tests/integ/lib.sh"
#	. "${srcdir:-.}/tests/integ/group-lib.sh"
#	group_init NAME
#	integ_programs ...
#	scenario() { ... }
#	group_run_sides scenario
#	compare ...
#	integ_finish

STOCK_PVMGS=$STOCK_ROOT/lib/pvmgs

# side_env as lib.sh has it, plus group/.libs and no COPVM_PVMGS.
eval "group_plain_side_env() $(declare -f side_env | sed 1d)"
side_env() {
	local e
	e=$(group_plain_side_env "$1")
	if [ "${IMPL[$1]}" = copvm ]; then
		e=${e/LD_LIBRARY_PATH=$COPVM_LIBDIR/LD_LIBRARY_PATH=$COPVM_LIBDIR:$GROUP_LIBDIR}
	fi
	echo "-u COPVM_PVMGS $e"
}

group_init() {
	integ_init "$1"
	GROUP_LIBDIR=$top_builddir/group/.libs
	[ -x "$STOCK_PVMGS" ] || { log "SKIP: $STOCK_PVMGS is missing"; exit 77; }
	[ -e "$GROUP_LIBDIR/libgpvm3.so.3" ] ||
		die "$GROUP_LIBDIR/libgpvm3.so.3 is missing (build copvm first)"
	[ -x "$top_builddir/group/pvmgs" ] ||
		die "$top_builddir/group/pvmgs is missing (build copvm first)"
	ln -sf "$STOCK_PVMGS" "$W/stock/home/pvm3/bin/LINUX64/pvmgs"
	if [ "${IMPL[copvm]}" = copvm ]; then
		ln -sf "$top_builddir/group/pvmgs" "$W/copvm/home/pvm3/bin/LINUX64/pvmgs"
	else
		ln -sf "$STOCK_PVMGS" "$W/copvm/home/pvm3/bin/LINUX64/pvmgs"
	fi
}

# group_check_lib PROGRAM...: on copvm, each loads our libgpvm3.
group_check_lib() {
	[ "${IMPL[copvm]}" = copvm ] || return 0
	local p got
	for p in "$@"; do
		got=$(env $(side_env copvm) ldd "$(prog_path "$p" copvm)" 2>/dev/null |
			awk '$1 == "libgpvm3.so.3" { print $3 }')
		[ "$got" -ef "$GROUP_LIBDIR/libgpvm3.so.3" ] ||
			die "$p would load libgpvm3 from '$got', not from $GROUP_LIBDIR"
	done
}

# group_stop_server SIDE: end SIDE's group server, if one runs.
group_stop_server() {
	local pid i left
	for i in $(seq 50); do
		left=
		for pid in $(side_procs "$1"); do
			case $(proc_cmdline "$pid") in
			*/pvmgs\ *|pvmgs\ *)
				kill -TERM "$pid" 2>/dev/null
				left=1 ;;
			esac
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "$1: the group server did not stop"
}

# group_run_sides FUNCTION: run_sides FUNCTION, then stop the server
# before lib.sh looks for tasks left over.
group_run_sides() {
	GROUP_SCENARIO=$1
	run_sides group_scenario
}

group_scenario() {
	"$GROUP_SCENARIO" "$1"
	group_stop_server "$1"
}

# mh.sh - shared code of the multi-host tests, tests/integ/mh-*.sh
# (sourced by bash scripts, after lib.sh and netns.sh's directory is known).
#
# A test runs the same programs on stock PVM 3.4.6 and on copvm, each time
# on a virtual machine of emulated hosts (netns.sh): node1..nodeN, with the
# master daemon on node1 started from a hostfile naming every node, slaves
# started by that daemon through PVM_RSH = tests/integ/netns/rsh.  Each
# side has its own HOME and PVM_TMP per host ($W/SIDE/hosts/nodeI/...).
# After a side's scenario the machine is halted the way a user would, and
# nothing may be left running in any of the hosts.
#
#	. "${srcdir:-.}/tests/integ/netns/mh.sh"
#	mh_init NAME NHOSTS
#	mh_programs spmd ...			# programs spawn may start
#	scenario() { mh_begin "$1"; mh_run "$1" node1 out -- prog; mh_end "$1"; }
#	mh_sides scenario			# stock, then copvm
#	compare out ...				# lib.sh
#	integ_finish
#
# Skips (77) when stock PVM is missing, or when network namespaces cannot
# be made (not root): lib.sh and netns.sh say which.

. "${srcdir:-.}/tests/integ/lib.sh"
NETNS_ID=cpvmh$$	# not cpv<pid>: the benchmark harness's prefix
. "${srcdir:-.}/tests/integ/netns/netns.sh"

declare -A MH_PVMD

mh_cleanup() {
	local rc=$?
	netns_teardown
	(exit $rc)
	integ_cleanup
}

# mh_init NAME NHOSTS
mh_init() {
	integ_init "$1"
	netns_check
	trap mh_cleanup EXIT
	netns_up "$2" "$W" || die "cannot create the emulated hosts"
	MH_HOSTS=$2
	MH_RSH=$top_srcdir/tests/integ/netns/rsh
	MH_TOOL_COPVM=$top_builddir/tests/integ/netns/mhcheck
	: >"$W/hostfile"
	local i
	for i in $(seq "$2"); do echo "node$i" >>"$W/hostfile"; done
	for i in stock copvm; do mkdir -p "$W/$i/hosts"; done
}

# The environment of side $1 on the emulated hosts, for env(1).
mh_env() {
	local common="-u PVM_ARCH -u PVM_EXPORT -u PVM_DPATH -u PVM_DEBUGGER
		-u PVM_VMID -u LD_PRELOAD PVM_RSH=$MH_RSH NETNS_MAP=$NETNS_MAP
		NETNS_SIDE=$W/$1/hosts PVM_ALLOW_ROOT=1 LC_ALL=C"
	if [ "${IMPL[$1]}" = stock ]; then
		echo "-u LD_LIBRARY_PATH -u COPVM_PVMD $common PVM_ROOT=$STOCK_ROOT"
	else
		echo "-u PVM_ROOT $common LD_LIBRARY_PATH=$COPVM_LIBDIR COPVM_PVMD=$COPVM_PVMD"
	fi
}

# The helper program (tests/integ/netns/mhcheck.c) for side $1.
mh_tool() {
	if [ "${IMPL[$1]}" = copvm ]; then
		echo "$MH_TOOL_COPVM"
		return
	fi
	local exe=$W/stock/mhcheck
	if [ ! -x "$exe" ]; then
		${CC:-cc} -O2 -o "$exe" "$top_srcdir/tests/integ/netns/mhcheck.c" \
			-I/usr/include -I"$top_srcdir/common" -lpvm3 >&2 || die "cannot build mhcheck for stock"
	fi
	echo "$exe"
}

# mh_offer_tool SIDE: offer the side's mhcheck to spawn, on every host;
# prints its path.
mh_offer_tool() {
	local tool i
	tool=$(mh_tool "$1")
	for i in $(seq "$MH_HOSTS"); do
		mkdir -p "$W/$1/hosts/node$i/home/pvm3/bin/LINUX64"
		ln -sf "$tool" "$W/$1/hosts/node$i/home/pvm3/bin/LINUX64/mhcheck"
	done
	echo "$tool"
}

# Offer programs (example names or absolute paths) to spawn, on every host.
mh_programs() {
	local p side i path
	for side in stock copvm; do
		for i in $(seq "$MH_HOSTS"); do
			mkdir -p "$W/$side/hosts/node$i/home/pvm3/bin/LINUX64"
			for p in "$@"; do
				path=$(resolve_prog "$side" "$p")
				[ -x "$path" ] || die "$path: no such program"
				ln -sf "$path" \
					"$W/$side/hosts/node$i/home/pvm3/bin/LINUX64/$(basename "$p")"
			done
		done
	done
}

# mh_sh SIDE HOST COMMAND...: runs a command on an emulated host with the
# side's environment (through the same rsh the daemons use).
mh_sh() {
	local side=$1 host=$2
	shift 2
	env $(mh_env "$side") "$MH_RSH" "$host" "$@"
}

# mh_begin SIDE [HOSTFILE]: the master on node1, every host of the
# hostfile (default: all) in the machine before anything else runs.
mh_begin() {
	local side=$1 hf=${2:-$W/hostfile} n
	n=$(grep -cv '^[&*#]' "$hf")
	if [ "${IMPL[$side]}" = copvm ]; then
		check_copvm_lib "$(prog_path hello copvm)"
		timeout 60 env $(mh_env "$side") "$MH_RSH" node1 "$COPVM_PVMD" "$hf" \
			</dev/null >"$W/$side/pvmd.out" 2>&1 ||
			{ cat "$W/$side/pvmd.out" >&2; die "copvm's master did not start"; }
	else
		env $(mh_env "$side") "$MH_RSH" node1 "$STOCK_ROOT/lib/pvmd" "$hf" \
			</dev/null >"$W/$side/pvmd.out" 2>&1 &
		MH_PVMD[$side]=$!
		# a task started before the daemon is up would start another
		for n in $(seq 200); do
			ls "$W/$side/hosts/node1/tmp/pvmd."* >/dev/null 2>&1 && break
			kill -0 "${MH_PVMD[$side]}" 2>/dev/null ||
				{ cat "$W/$side/pvmd.out" >&2; die "stock pvmd exited"; }
			sleep 0.1
		done
		n=$(grep -cv '^[&*#]' "$hf")
	fi
	timeout 60 env $(mh_env "$side") "$MH_RSH" node1 "$(mh_tool "$side")" hosts "$n" \
		>"$W/$side/hosts.out" 2>&1 ||
		{ cat "$W/$side/pvmd.out" "$W/$side/hosts.out" >&2; die "$side: the hosts did not come up"; }
}

# mh_run SIDE HOST NAME [-i INPUT] -- PROGRAM [ARGS...]: run on HOST with a
# time limit; output to out/NAME.{out,err,rc} (as lib.sh's run_prog).
mh_run() {
	local side=$1 host=$2 name=$3 input=/dev/null prog
	shift 3
	if [ "$1" = -i ]; then input=$2; shift 2; fi
	[ "$1" = -- ] && shift
	prog=$(resolve_prog "$side" "$1")
	shift
	local o=$W/$side/out/$name
	timeout -k 5 "$INTEG_TIMEOUT" env $(mh_env "$side") "$MH_RSH" "$host" \
		"$prog" "$@" <"$input" >"$o.out" 2>"$o.err"
	echo $? >"$o.rc"
}

# The processes left in the emulated hosts, one "host pid command" line
# each.
mh_left() {
	local i pid
	for i in $(seq "$MH_HOSTS"); do
		for pid in $(netns_pids "$i"); do
			echo "node$i $pid $(proc_cmdline "$pid")"
		done
	done
}

# mh_halt SIDE: halt the machine as a user would (no check).
mh_halt() {
	local side=$1
	if [ "${IMPL[$side]}" = copvm ]; then
		timeout 20 env $(mh_env "$side") "$MH_RSH" node1 "$PVMHALT" >/dev/null 2>&1
	else
		(echo halt | timeout 20 env $(mh_env "$side") "$MH_RSH" node1 \
			"$STOCK_ROOT/lib/pvm") >/dev/null 2>&1
		[ -n "${MH_PVMD[$side]:-}" ] && wait "${MH_PVMD[$side]}" 2>/dev/null
		MH_PVMD[$side]=
	fi
}

# mh_end SIDE: halt, then nothing may be left running on any host.
mh_end() {
	local side=$1 left i
	mh_halt "$side"
	for i in $(seq 50); do
		left=$(mh_left)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "$side: processes left on the hosts after the halt:"
	log "$left"
	for i in $(seq "$MH_HOSTS"); do
		netns_pids "$i" | xargs -r kill -KILL 2>/dev/null
	done
	sleep 0.2
}

# mh_sides FUNCTION: FUNCTION stock, then FUNCTION copvm.
mh_sides() {
	local side
	for side in stock copvm; do
		"$1" "$side"
	done
}

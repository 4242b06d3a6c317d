# lib.sh - shared code of the integration tests (sourced by bash scripts).
#
# Every test runs the same PVM programs twice: once on stock PVM 3.4.6
# (Debian's libpvm3 and pvmd) and once on copvm (our libpvm3.so.3 first on
# LD_LIBRARY_PATH, our pvmd), then compares the two outputs after
# normalize.pl has replaced what legitimately differs between runs (task
# ids, contexts, host name, timings).  The two sides never share anything:
# each has its own HOME (holding pvm3/bin/LINUX64, where spawn looks for
# programs) and its own PVM_TMP (daemon socket, pid and log files).
#
# A test script does:
#	. "${srcdir:-.}/tests/integ/lib.sh"
#	integ_init NAME
#	integ_programs hello_other ...		# programs spawn may start
#	scenario() { run_prog "$1" hello1 -- hello; }
#	run_sides scenario			# on stock, then on copvm
#	compare hello1				# stdout, stderr, exit status
#	integ_finish
# and exits 0 (pass), 1 (fail) or 77 (skip: stock PVM is not installed).
# Programs are named by their source names (hello, not hello.pvm).
#
# Environment read:
#	srcdir		top source directory (set by `make check')
#	INTEG_BUILDDIR	top build directory (default: the current directory,
#			which is where `make check' runs the tests)
#	INTEG_BINDIR_STOCK, INTEG_BINDIR_COPVM
#			directories holding the example programs under their
#			source names for each side; unset: Debian's binaries
#			in /usr/bin for both sides
#	INTEG_TIMEOUT	seconds any one program may run (default 30)
#	INTEG_KEEP	non-empty: keep the work directory for inspection
#	INTEG_SELFTEST	non-empty: run the "copvm" side on stock PVM too, to
#			check that a test is deterministic on stock

set -u

STOCK_ROOT=/usr/lib/pvm3
STOCK_LIB=/usr/lib/x86_64-linux-gnu/libpvm3.so.3
INTEG_TIMEOUT=${INTEG_TIMEOUT:-30}
INTEG_FAILED=0
W=
declare -A IMPL PVMD_PID BG_PIDS
IMPL[stock]=stock
IMPL[copvm]=copvm
[ -n "${INTEG_SELFTEST:-}" ] && IMPL[copvm]=stock

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; INTEG_FAILED=1; }
die() { log "FAIL: $*"; exit 1; }

# Debian installs some examples under other names than their sources.
deb_name() {
	case $1 in
	hello) echo hello.pvm ;;
	*) echo "$1" ;;
	esac
}

# The file of example program $1 (source name) for side $2.
prog_path() {
	local dir
	if [ "$2" = stock ]; then dir=${INTEG_BINDIR_STOCK:-}; else dir=${INTEG_BINDIR_COPVM:-}; fi
	if [ -n "$dir" ]; then
		echo "$dir/$1"
	else
		echo "/usr/bin/$(deb_name "$1")"
	fi
}

integ_init() {
	INTEG_NAME=$1
	top_srcdir=$(cd "${srcdir:-.}" && pwd)
	top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
	uid=$(id -u)

	if [ ! -x "$STOCK_ROOT/lib/pvmd" ] || [ ! -e "$STOCK_LIB" ] ||
	   [ ! -x /usr/bin/hello.pvm ] || [ ! -e /usr/include/pvm3.h ]; then
		log "SKIP: stock PVM (pvm, pvm-dev, pvm-examples) is not installed"
		exit 77
	fi
	command -v perl >/dev/null || { log "SKIP: perl is missing"; exit 77; }

	COPVM_LIBDIR=$top_builddir/lib/.libs
	COPVM_PVMD=$top_builddir/daemon/pvmd
	PVMHALT=$top_builddir/tests/tools/pvmhalt
	PVMRUN_COPVM=$top_builddir/tests/tools/pvmrun

	W=$(mktemp -d "${TMPDIR:-/tmp}/copvm-integ-$INTEG_NAME.XXXXXX") ||
		die "mktemp"
	chmod 755 "$W"
	trap integ_cleanup EXIT
	# On a signal, clean up (the EXIT trap) without being interrupted again.
	trap 'trap "" INT TERM HUP PIPE; log "interrupted"; exit 1' INT TERM HUP PIPE
	local side
	for side in stock copvm; do
		mkdir -p "$W/$side/home/pvm3/bin/LINUX64" "$W/$side/tmp" "$W/$side/out"
	done
}

# The environment of side $1, as arguments for env(1).  Everything PVM
# reads is set or cleared here so that the caller's environment cannot
# leak in (word-split by the callers: no blanks in these paths).
side_env() {
	local s=$W/$1
	local common="-u PVM_ARCH -u PVM_EXPORT -u PVM_DPATH -u PVM_DEBUGGER
		-u PVM_RSH -u PVM_VMID -u LD_PRELOAD
		HOME=$s/home PVM_TMP=$s/tmp PVM_ALLOW_ROOT=1 LC_ALL=C"
	if [ "${IMPL[$1]}" = stock ]; then
		echo "-u LD_LIBRARY_PATH -u COPVM_PVMD $common PVM_ROOT=$STOCK_ROOT"
	else
		echo "-u PVM_ROOT $common LD_LIBRARY_PATH=$COPVM_LIBDIR COPVM_PVMD=$COPVM_PVMD"
	fi
}

# Offer programs to spawn on both sides: $HOME/pvm3/bin/LINUX64/NAME.
integ_programs() {
	local p side path
	for side in stock copvm; do
		for p in "$@"; do
			path=$(prog_path "$p" "$side")
			[ -x "$path" ] || die "$path: no such program"
			ln -sf "$path" "$W/$side/home/pvm3/bin/LINUX64/$p"
		done
	done
}

# Check that programs run on copvm load our libpvm3, not Debian's:
# otherwise every comparison would pass without testing anything.
check_copvm_lib() {
	[ -e "$COPVM_LIBDIR/libpvm3.so.3" ] ||
		die "$COPVM_LIBDIR/libpvm3.so.3 is missing (build copvm first)"
	[ -x "$COPVM_PVMD" ] || die "$COPVM_PVMD is missing (build copvm first)"
	local p got
	for p in "$@"; do
		got=$(env $(side_env copvm) ldd "$p" 2>/dev/null |
			awk '$1 == "libpvm3.so.3" { print $3 }')
		[ "$got" -ef "$COPVM_LIBDIR/libpvm3.so.3" ] ||
			die "$p would load libpvm3 from '$got', not from $COPVM_LIBDIR"
	done
}

# side_begin SIDE [autostart]: start SIDE's virtual machine.
# Stock: run its pvmd in the background (it stays in the foreground and
# writes PVM_TMP/pvmd.<uid> once ready).  copvm: run `pvmd', which forks
# and returns once ready; with `autostart', start nothing and let the
# library start pvmd when the first task needs it (as a user would).
side_begin() {
	local side=$1 i
	if [ "${IMPL[$side]}" = copvm ]; then
		check_copvm_lib "$(prog_path hello copvm)"
		[ "${2:-}" = autostart ] && return 0
		(cd "$W/copvm/home" && exec timeout 30 env $(side_env copvm) \
			"$COPVM_PVMD" </dev/null >"$W/copvm/pvmd.out" 2>&1) ||
			{ cat "$W/copvm/pvmd.out" >&2; die "copvm's pvmd did not start"; }
		[ -S "$W/copvm/tmp/copvm-$uid/pvmd.sock" ] ||
			die "copvm's pvmd returned but $W/copvm/tmp/copvm-$uid/pvmd.sock is missing"
		return 0
	fi
	# Stock pvmd needs its host name to resolve; -n names another.
	local nameopt=
	getent hosts "$(hostname)" >/dev/null 2>&1 || nameopt=-nlocalhost
	(cd "$W/$side/home" && exec env $(side_env "$side") \
		"$STOCK_ROOT/lib/pvmd" $nameopt </dev/null \
		>"$W/$side/pvmd.out" 2>&1) &
	PVMD_PID[$side]=$!
	for i in $(seq 100); do
		[ -e "$W/$side/tmp/pvmd.$uid" ] && return 0
		kill -0 "${PVMD_PID[$side]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$W/$side/pvmd.out" >&2
	die "stock pvmd did not start"
}

# Processes of side $1 still alive: those whose environment names the
# side's PVM_TMP (every daemon and task started for it inherits that).
side_procs() {
	local f pid state
	for f in $(grep -lzxF "PVM_TMP=$W/$1/tmp" /proc/[0-9]*/environ 2>/dev/null); do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" = $$ ] && continue
		state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
		[ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
	done
	return 0
}

# The pid of side $1's daemon, if it is running.
side_daemon_pid() {
	if [ "${IMPL[$1]}" = stock ]; then
		echo "${PVMD_PID[$1]:-}"
	elif [ -s "$W/$1/tmp/copvm-$uid/pvmd.pid" ]; then
		cat "$W/$1/tmp/copvm-$uid/pvmd.pid"
	fi
}

proc_cmdline() {
	{ tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null
}

# Halt side $1's virtual machine the way a user would, then check that
# nothing of it is left; whatever is left is killed and fails the test.
# Before that, every example has ended, so only the daemon may be left:
# a task still alive then (not killed by pvm_kill, stuck in pvm_exit)
# fails the test too.
side_end() {
	local side=$1 pid left i daemon
	daemon=$(side_daemon_pid "$side")
	for i in $(seq 30); do
		left=$(side_procs "$side" | grep -vx "${daemon:-none}")
		[ -z "$left" ] && break
		sleep 0.1
	done
	for pid in $left; do
		fail "$side: task still running after the examples ended: $(proc_cmdline "$pid")(pid $pid)"
	done

	if [ "${IMPL[$side]}" = stock ]; then
		if [ -n "${PVMD_PID[$side]:-}" ]; then
			# The console is a task too: halt kills it with SIGTERM.
			(echo halt | timeout 20 env $(side_env "$side") \
				"$STOCK_ROOT/lib/pvm") >/dev/null 2>&1
			for i in $(seq 50); do
				kill -0 "${PVMD_PID[$side]}" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "${PVMD_PID[$side]}" 2>/dev/null
			wait "${PVMD_PID[$side]}" 2>/dev/null
			PVMD_PID[$side]=
		fi
	else
		local dir=$W/$side/tmp/copvm-$uid
		if [ -S "$dir/pvmd.sock" ]; then
			timeout 20 env $(side_env "$side") "$PVMHALT" ||
				fail "pvmhalt could not halt copvm's daemon"
		fi
		if [ -n "$daemon" ]; then
			for i in $(seq 50); do
				kill -0 "$daemon" 2>/dev/null || break
				sleep 0.1
			done
		fi
	fi
	for i in $(seq 30); do
		left=$(side_procs "$side")
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	for pid in $left; do
		log "left behind on $side: $(proc_cmdline "$pid")(pid $pid)"
		kill -KILL "$pid" 2>/dev/null
	done
	fail "$side: processes left after halting the virtual machine"
}

integ_cleanup() {
	local rc=$? side pid
	trap - EXIT
	if [ -n "$W" ] && [ -d "$W" ]; then
		for side in stock copvm; do
			for pid in $(side_procs "$side"); do
				kill -KILL "$pid" 2>/dev/null
			done
			[ -n "${PVMD_PID[$side]:-}" ] && wait "${PVMD_PID[$side]}" 2>/dev/null
		done
		if [ -n "${INTEG_KEEP:-}" ]; then
			log "work directory kept: $W"
		else
			rm -rf "$W"
		fi
	fi
	exit $rc
}

# run_sides FUNCTION [autostart]: side_begin, FUNCTION SIDE, side_end,
# for stock and then for copvm.
run_sides() {
	local side
	for side in stock copvm; do
		side_begin "$side" "${2:-}"
		"$1" "$side"
		side_end "$side"
	done
}

# Resolve PROGRAM for side $1: a path is used as is, a name is an example.
resolve_prog() {
	case $2 in
	/*) echo "$2" ;;
	*) prog_path "$2" "$1" ;;
	esac
}

# run_prog SIDE NAME [-i INPUT] -- PROGRAM [ARGS...]
# Run an example (by source name; a path is used as is) on SIDE in the
# foreground with a time limit.  Output goes to out/NAME.{out,err,rc}.
run_prog() {
	local side=$1 name=$2 input=/dev/null
	shift 2
	if [ "$1" = -i ]; then input=$2; shift 2; fi
	[ "$1" = -- ] && shift
	local prog
	prog=$(resolve_prog "$side" "$1")
	shift
	local o=$W/$side/out/$name
	(cd "$W/$side/home" && exec timeout -k 5 "$INTEG_TIMEOUT" \
		env $(side_env "$side") "$prog" "$@") <"$input" >"$o.out" 2>"$o.err"
	echo $? >"$o.rc"
}

# bg_prog SIDE NAME [-i INPUT] -- PROGRAM [ARGS...]: as run_prog, but in
# the background and with stdout line-buffered (stdbuf) so that
# wait_output can follow it; wait_prog SIDE NAME waits for it and records
# its status.  Start the daemon first (side_begin without autostart): a
# daemon started by this program would pass stdbuf's LD_PRELOAD on.
bg_prog() {
	local side=$1 name=$2 input=/dev/null
	shift 2
	if [ "$1" = -i ]; then input=$2; shift 2; fi
	[ "$1" = -- ] && shift
	local prog
	prog=$(resolve_prog "$side" "$1")
	shift
	local o=$W/$side/out/$name
	(cd "$W/$side/home" && exec timeout -k 5 "$INTEG_TIMEOUT" \
		env $(side_env "$side") stdbuf -oL "$prog" "$@") \
		<"$input" >"$o.out" 2>"$o.err" &
	BG_PIDS[$side.$name]=$!
}

# kill_prog SIDE NAME: stop a background program now (a test that already
# failed need not wait for its time limit).
kill_prog() {
	local pid=${BG_PIDS[$1.$2]:-}
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	return 0
}

wait_prog() {
	local rc
	wait "${BG_PIDS[$1.$2]}"
	rc=$?
	echo $rc >"$W/$1/out/$2.rc"
	unset "BG_PIDS[$1.$2]"
	return 0
}

# wait_output SIDE NAME TEXT [COUNT]: wait until the output of NAME holds
# TEXT (a fixed string) on at least COUNT lines (default 1).  Used to step
# programs that talk to each other in a fixed order.  Gives up (and fails
# the test) after INTEG_TIMEOUT seconds.
wait_output() {
	local f=$W/$1/out/$2.out want=${4:-1} pid=${BG_PIDS[$1.$2]:-} i n alive=1
	for i in $(seq $((INTEG_TIMEOUT * 20))); do
		n=$(grep -cF -- "$3" "$f" 2>/dev/null)
		[ "${n:-0}" -ge "$want" ] && return 0
		[ "$alive" = 0 ] && break
		# Once the program has ended, look one last time.
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && alive=0
		sleep 0.05
	done
	fail "$1: $2 did not print '$3' (${4:-1} times)"
	return 1
}

# out_value SIDE NAME SED-SCRIPT: the first line sed -n prints from the
# output of NAME (to pick a tid, a name or a context out of it).
out_value() {
	sed -n "$3" "$W/$1/out/$2.out" | head -n 1
}

# The pvmrun tool for side $1: ours for copvm; for stock, the same source
# built against Debian's header and library.
pvmrun_for() {
	if [ "${IMPL[$1]}" = copvm ]; then
		echo "$PVMRUN_COPVM"
		return
	fi
	local exe=$W/stock/pvmrun
	if [ ! -x "$exe" ]; then
		${CC:-cc} -O2 -o "$exe" "$top_srcdir/tests/tools/pvmrun.c" \
			-I/usr/include -lpvm3 >&2 || die "cannot build pvmrun for stock"
	fi
	echo "$exe"
}

# compare_out NAME [normalize.pl OPTIONS]: the normalised stdout of NAME
# must be the same on both sides.
compare_out() {
	compare_stream out "$@"
}

# compare_err NAME [normalize.pl OPTIONS]: the same for stderr (where
# stock's library writes its error messages).
compare_err() {
	compare_stream err "$@"
}

compare_stream() {
	local stream=$1 name=$2
	shift 2
	local s=$W/stock/out/$name c=$W/copvm/out/$name host
	host=$(hostname)
	perl "$top_srcdir/tests/integ/normalize.pl" --host "$host" "$@" \
		<"$s.$stream" >"$s.$stream.norm" || die "normalize.pl failed"
	perl "$top_srcdir/tests/integ/normalize.pl" --host "$host" "$@" \
		<"$c.$stream" >"$c.$stream.norm" || die "normalize.pl failed"
	if ! diff -u --label "stock/$name.$stream" --label "copvm/$name.$stream" \
		"$s.$stream.norm" "$c.$stream.norm" >"$c.$stream.diff"; then
		fail "$name: $stream differs from stock (- stock, + copvm):"
		cat "$c.$stream.diff" >&2
		log "--- raw copvm $stream of $name:"
		cat "$c.$stream" >&2
		log "---"
	fi
}

# compare_rc NAME: the exit status of NAME must be the same on both sides.
compare_rc() {
	local s c
	s=$(cat "$W/stock/out/$1.rc" 2>/dev/null)
	c=$(cat "$W/copvm/out/$1.rc" 2>/dev/null)
	[ "$s" = "$c" ] || fail "$1: exit status ${c:-none} on copvm, ${s:-none} on stock"
}

# compare NAME [normalize.pl OPTIONS]: stdout, stderr and exit status.
compare() {
	compare_out "$@"
	compare_err "$@"
	compare_rc "$1"
}

# expect_status NAME STATUS: the stock run itself must behave as the
# example's source says; this guards the test, not copvm.
expect_status() {
	local got
	got=$(cat "$W/stock/out/$1.rc" 2>/dev/null)
	if [ "$got" != "$2" ]; then
		fail "stock: $1 exited with ${got:-nothing}, expected $2 (the test is wrong)"
		cat "$W/stock/out/$1.err" >&2
	fi
}

integ_finish() {
	if [ "$INTEG_FAILED" -ne 0 ]; then
		if [ -n "${INTEG_KEEP:-}" ]; then
			log "$INTEG_NAME: FAIL"
		else
			log "$INTEG_NAME: FAIL (rerun with INTEG_KEEP=1 to keep $W)"
		fi
		exit 1
	fi
	log "$INTEG_NAME: PASS"
	exit 0
}

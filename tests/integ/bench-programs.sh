#!/bin/bash
# bench-programs.sh - the benchmark programs are plain PVM programs: the
# same binaries, built once against copvm, run on stock PVM 3.4.6 and on
# copvm, switched only by LD_LIBRARY_PATH.
#
# For each side (lib.sh: its own daemon, HOME and PVM_TMP) the test first
# checks with ldd which libpvm3.so.3 (and, for synch1, libgpvm3.so.3) each
# program would load: Debian's on stock (LD_LIBRARY_PATH names Debian's
# library directory, which beats the programs' RUNPATH), ours on copvm.
# Then it runs COMMS1, COMMS2, SYNCH1, sinring, sintree and master-slave
# with tiny parameters on a one-host virtual machine, and requires exit
# status 0, the setup line naming the library the run really used (from
# the process's own maps), the table and the RESULT lines each program
# documents.  calcula2 must finish a tiny amount of work and report it;
# calcula must keep a CPU busy until killed.  Nothing about speed is
# checked.  The group server each side's SYNCH1 started is stopped before
# lib.sh checks that nothing of the side is left running.
#
# Exit status 0 (pass), 1 (fail), 77 (stock PVM is not installed).
. "${srcdir:-.}/tests/integ/lib.sh"

integ_init bench-programs
E=$top_builddir/examples
GROUP_LIBDIR=$top_builddir/group/.libs
STOCK_PVMGS=$STOCK_ROOT/lib/pvmgs
STOCK_LIBDIR=$(dirname "$STOCK_LIB")
[ -e "$STOCK_LIBDIR/libgpvm3.so.3" ] || { log "SKIP: Debian's libgpvm3.so.3 is missing"; exit 77; }
[ -x "$STOCK_PVMGS" ] || { log "SKIP: $STOCK_PVMGS is missing"; exit 77; }
for p in comms1 comms2 synch1 sinring sintree mslave calcula calcula2; do
	[ -x "$E/$p" ] || die "$E/$p is missing (run make)"
done
[ -e "$GROUP_LIBDIR/libgpvm3.so.3" ] || die "$GROUP_LIBDIR/libgpvm3.so.3 is missing"

# lib.sh's environments, plus: stock gets Debian's library directory on
# LD_LIBRARY_PATH (our programs carry a RUNPATH to copvm's libraries,
# which LD_LIBRARY_PATH overrides); copvm gets our group library too.
# Both find "pvmgs" through the spawn path (no COPVM_PVMGS).
eval "bench_plain_side_env() $(declare -f side_env | sed 1d)"
side_env() {
	local e
	e=$(bench_plain_side_env "$1")
	if [ "${IMPL[$1]}" = stock ]; then
		e="$e LD_LIBRARY_PATH=$STOCK_LIBDIR"
	else
		e=${e/LD_LIBRARY_PATH=$COPVM_LIBDIR/LD_LIBRARY_PATH=$COPVM_LIBDIR:$GROUP_LIBDIR}
	fi
	echo "-u COPVM_PVMGS $e"
}
ln -sf "$STOCK_PVMGS" "$W/stock/home/pvm3/bin/LINUX64/pvmgs"
if [ "${IMPL[copvm]}" = copvm ]; then
	ln -sf "$top_builddir/group/pvmgs" "$W/copvm/home/pvm3/bin/LINUX64/pvmgs"
else
	ln -sf "$STOCK_PVMGS" "$W/copvm/home/pvm3/bin/LINUX64/pvmgs"
fi

# want_lib SIDE PROGRAM SONAME DIR: ldd resolves SONAME into DIR.
want_lib() {
	local got
	got=$(env $(side_env "$1") ldd "$2" 2>/dev/null | awk -v s="$3" '$1 == s { print $3 }')
	[ -n "$got" ] && [ "$(dirname "$(readlink -f "$got")")" -ef "$4" ] ||
		fail "$1: $(basename "$2") would load $3 from '${got:-nowhere}', not from $4"
}

for side in stock copvm; do
	if [ "${IMPL[$side]}" = stock ]; then
		libdir=$STOCK_LIBDIR
		gdir=$STOCK_LIBDIR
	else
		libdir=$COPVM_LIBDIR
		gdir=$GROUP_LIBDIR
	fi
	for p in comms1 comms2 synch1 sinring sintree mslave; do
		want_lib "$side" "$E/$p" libpvm3.so.3 "$libdir"
	done
	want_lib "$side" "$E/synch1" libgpvm3.so.3 "$gdir"
done

# check_run SIDE NAME RESULT...: exit 0, the library line, the RESULTs.
check_run() {
	local side=$1 name=$2 o=$W/$1/out/$2 r lib
	shift 2
	if [ "$(cat "$o.rc")" != 0 ]; then
		fail "$side: $name exited with $(cat "$o.rc")"
		tail -n 20 "$o.out" >&2
		cat "$o.err" >&2
		return
	fi
	if [ "${IMPL[$side]}" = stock ]; then lib=$STOCK_LIBDIR; else lib=$COPVM_LIBDIR; fi
	grep -q "^# .*library $lib/libpvm3\.so" "$o.out" ||
		fail "$side: $name did not run with the libpvm3 of $lib: $(head -n 1 "$o.out")"
	for r in "$@"; do
		# the fit's lines: a stall on a loaded machine can make a
		# short message's mean outgrow a long one's, and the
		# program then says there is no fit instead
		case $r in
		*_rel_*)
			grep -q "^relative errors, all lengths: the times do not grow" "$o.out" &&
				continue ;;
		rinf*|nhalf*|t0*)
			grep -q "^all lengths: the times do not grow" "$o.out" &&
				continue ;;
		esac
		grep -Eq "^RESULT $r [0-9.e+-]+\$" "$o.out" ||
			fail "$side: $name printed no 'RESULT $r <number>'"
	done
}

# The group server keeps running after SYNCH1: stop it (as pvm_kill
# would) so that side_end finds nothing of the side left.
stop_group_server() {
	local pid i
	for i in $(seq 50); do
		pid=$(for p in $(side_procs "$1"); do
			case $(proc_cmdline "$p") in *pvmgs*) echo "$p" ;; esac
		done)
		[ -z "$pid" ] && return 0
		kill -TERM $pid 2>/dev/null
		sleep 0.1
	done
}

scenario() {
	local s=$1
	run_prog "$s" comms1 -- "$E/comms1" -s 0,8,64k,1M -r 20
	check_run "$s" comms1 rinf_MBps nhalf_B t0_us rinf_rel_MBps nhalf_rel_B t0_rel_us \
		t_us.8 tmed_us.8 tp90_us.1048576 time_s
	grep -q 'LENGTH(B) *NREPT *TIME(us)' "$W/$s/out/comms1.out" ||
		fail "$s: comms1 printed no table header"
	run_prog "$s" comms2 -- "$E/comms2" -s 0,1k,64k,1M -r 20
	check_run "$s" comms2 rinf_MBps nhalf_B t0_us t_us.1024 time_s
	run_prog "$s" synch1 -- "$E/synch1" -n 2,3 -r 5
	check_run "$s" synch1 barrier_us.2 barr_s.2 barrier_us.3 barr_s.3 time_s
	run_prog "$s" sinring -- "$E/sinring" -n 3 -s 0,1k -c 0.1 5
	check_run "$s" sinring iter_ms.0 iter_ms.1024 time_s
	run_prog "$s" sintree -- "$E/sintree" -n 3 -s 0,8k -c 0.1 5
	check_run "$s" sintree iter_ms.0 iter_ms.8192 time_s
	run_prog "$s" mslave -- "$E/mslave" -p 1 -c 0.1 10
	check_run "$s" mslave iter_ms loop_s time_s
	run_prog "$s" pvmhosts -- "$top_builddir/bench/pvmhosts" list
	[ "$(wc -l <"$W/$s/out/pvmhosts.out")" = 1 ] ||
		fail "$s: pvmhosts list did not show one host"
	stop_group_server "$s"
}

for side in stock copvm; do
	side_begin "$side"
	scenario "$side"
	side_end "$side"
done

# The local workload: no PVM, same on both sides.
out=$("$E/calcula2" -u 3) || fail "calcula2 failed"
echo "$out" | grep -Eq '^RESULT elapsed_s [0-9.e+-]+$' || fail "calcula2: no elapsed time: $out"
echo "$out" | grep -q '^RESULT units 3$' || fail "calcula2: not 3 units of work: $out"
out=$("$E/calcula2" -u 2 -d 50) || fail "calcula2 -d 50 failed"
echo "$out" | grep -q '^calcula2: 2 units at 50% duty' || fail "calcula2 -d 50: $out"
"$E/calcula" &
pid=$!
sleep 0.5
if kill -0 "$pid" 2>/dev/null; then
	ticks=$(awk '{ print $14 }' "/proc/$pid/stat")
	[ "${ticks:-0}" -gt 0 ] || fail "calcula used no CPU time in 0.5 s"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
else
	fail "calcula exited"
fi
# The harness's -L busy and -d: calcula2 -n never yields, calcula -d 50
# sleeps between its bursts (voluntary context switches), calcula -n
# makes no system call once calibrated (strace, when installed).
out=$("$E/calcula2" -u 3 -n) || fail "calcula2 -n failed"
echo "$out" | grep -q '^calcula2: 3 units at 100% duty, never yielding,' ||
	fail "calcula2 -n: $out"
echo "$out" | grep -q '^RESULT units 3$' || fail "calcula2 -n: not 3 units of work: $out"
"$E/calcula" -d 50 &
pid=$!
sleep 0.2
v0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
sleep 0.5
v1=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -n "$v0" ] && [ -n "$v1" ] && [ $((v1 - v0)) -ge 5 ] ||
	fail "calcula -d 50 did not sleep between bursts (voluntary switches ${v0:-?} -> ${v1:-?})"
if command -v strace >/dev/null 2>&1; then
	(timeout -s KILL 1 strace -f -qq -o "$W/calcula-n.strace" "$E/calcula" -n) 2>/dev/null
	# after the calibration's clock reads (vDSO, not traced): nothing
	n=$(grep -Ec 'sched_yield|nanosleep' "$W/calcula-n.strace")
	[ "$n" = 0 ] || fail "calcula -n made $n sched_yield/nanosleep calls"
	(timeout -s KILL 1 strace -f -qq -o "$W/calcula.strace" "$E/calcula") 2>/dev/null
	grep -q sched_yield "$W/calcula.strace" || fail "plain calcula never called sched_yield"
fi
integ_finish

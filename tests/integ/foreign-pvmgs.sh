#!/bin/bash
# foreign-pvmgs.sh - the group library meets a group server that is not
# copvm's (issue 13's second start-up trap): stock PVM's pvmgs is found
# first on the spawn path (~/pvm3/bin/LINUX64/pvmgs, as a user's stock
# set-up has it), COPVM_PVMGS is unset.  The library must not wait for
# it: it stops it and says clearly what happened, then starts copvm's
# installed server if there is one, or fails.  The program must end by
# itself (not hang), and nothing of stock's server may be left running
# (side_end checks that).  Twice: with LD_LIBRARY_PATH naming copvm's
# libraries (stock's server then runs on them and registers as stock's
# does), and with the program's run path only (stock's server then runs
# on stock's library and exits).  copvm only: stock's library and
# server are the trap, not the reference.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init foreign-pvmgs
STOCK_PVMGS=$STOCK_ROOT/lib/pvmgs
GROUP_LIBDIR=$top_builddir/group/.libs
[ -x "$STOCK_PVMGS" ] || { log "SKIP: $STOCK_PVMGS is missing"; exit 77; }
[ -e "$GROUP_LIBDIR/libgpvm3.so" ] ||
	die "$GROUP_LIBDIR/libgpvm3.so is missing (build copvm first)"

# copvm's side, its daemon and tasks with copvm's group library too
eval "fg_plain_side_env() $(declare -f side_env | sed 1d)"
side_env() {
	local e
	e=$(fg_plain_side_env "$1")
	e=${e/LD_LIBRARY_PATH=$COPVM_LIBDIR/LD_LIBRARY_PATH=$COPVM_LIBDIR:$GROUP_LIBDIR}
	echo "-u COPVM_PVMGS $e"
}
ln -sf "$STOCK_PVMGS" "$W/copvm/home/pvm3/bin/LINUX64/pvmgs"

san=
ldd "$COPVM_LIBDIR/libpvm3.so" 2>/dev/null | grep -q libasan &&
	san="-fsanitize=address,undefined"
prog=$W/copvm/joingroup
${CC:-cc} -Wall -g $san -I"$top_srcdir/include" -o "$prog" \
	"$top_srcdir/tests/integ/diffprog/pack/joingroup.c" \
	-L"$COPVM_LIBDIR" -L"$GROUP_LIBDIR" -lgpvm3 -lpvm3 \
	>"$W/build.log" 2>&1 || { cat "$W/build.log" >&2; die "joingroup.c does not build"; }

side_begin copvm
run_prog copvm join -- "$prog"
o=$W/copvm/out/join
rc=$(cat "$o.rc")
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	fail "the group call hung with stock's pvmgs first on the spawn path"
elif ! grep -q "is stock PVM's, not copvm's" "$o.err"; then
	fail "no clear message about stock's pvmgs: $(cat "$o.err")"
elif [ "$rc" = 0 ] && ! grep -q '^joingroup: joined' "$o.out"; then
	fail "exit 0 without joining: $(cat "$o.out")"
elif [ "$rc" != 0 ] && ! grep -q '^joingroup: failed' "$o.out"; then
	fail "exit $rc: $(cat "$o.out" "$o.err")"
fi
# side_end also fails the test if stock's server is still running
side_end copvm

# Case 2: the program finds copvm's libraries through its run path (no
# LD_LIBRARY_PATH), and so does nothing else: the daemon it starts runs
# stock's pvmgs on stock's libpvm3, which finds no stock daemon and
# exits.  That must be reported as clearly, at once.
t2=$W/rpath
mkdir -p "$t2/home/pvm3/bin/LINUX64" "$t2/tmp"
ln -sf "$STOCK_PVMGS" "$t2/home/pvm3/bin/LINUX64/pvmgs"
${CC:-cc} -Wall -g $san -I"$top_srcdir/include" -o "$t2/joingroup" \
	"$top_srcdir/tests/integ/diffprog/pack/joingroup.c" \
	-L"$COPVM_LIBDIR" -L"$GROUP_LIBDIR" -lgpvm3 -lpvm3 \
	-Wl,-rpath,"$COPVM_LIBDIR:$GROUP_LIBDIR" \
	>"$W/build2.log" 2>&1 || { cat "$W/build2.log" >&2; die "joingroup.c does not build (run path)"; }
env2="-u PVM_ROOT -u LD_LIBRARY_PATH -u COPVM_PVMGS -u PVM_EXPORT
	HOME=$t2/home PVM_TMP=$t2/tmp PVM_ALLOW_ROOT=1 LC_ALL=C
	COPVM_PVMD=$COPVM_PVMD"
(cd "$t2/home" && exec timeout -k 5 "$INTEG_TIMEOUT" env $env2 \
	"$t2/joingroup") </dev/null >"$t2/out" 2>"$t2/err"
rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	fail "run path: the group call hung with stock's pvmgs on the spawn path"
elif ! grep -q 'the group server "pvmgs"' "$t2/err"; then
	fail "run path: no clear message about the server: $(cat "$t2/err")"
elif [ "$rc" != 0 ] && ! grep -q '^joingroup: failed' "$t2/out"; then
	fail "run path: exit $rc: $(cat "$t2/out" "$t2/err")"
fi
if [ -S "$t2/tmp/copvm-$uid/pvmd.sock" ]; then
	timeout 20 env $env2 "$PVMHALT" || fail "run path: pvmhalt failed"
fi
for _ in $(seq 50); do
	left=$(grep -lzxF "PVM_TMP=$t2/tmp" /proc/[0-9]*/environ 2>/dev/null)
	[ -z "$left" ] && break
	sleep 0.1
done
for f in $left; do
	pid=${f#/proc/}
	pid=${pid%/environ}
	fail "run path: left running: $(proc_cmdline "$pid")"
	kill -KILL "$pid" 2>/dev/null
done
integ_finish

#!/bin/bash
# foreign-pvmd.sh - the library never starts another PVM's daemon, and a
# daemon socket that does not speak copvm's protocol gives a clear error,
# not a hang (issue 15 item 3, issue 13's start-up trap; lib/pvmd_start.c):
#   stockroot  PVM_ROOT names a PVM whose lib/pvmd is not copvm's (a
#              stand-in that never answers, as stock's does for us), no
#              COPVM_PVMD: it must not be started
#   stock      the same with Debian's stock PVM, when installed
#   garbage    a socket of ours answers with bytes of another protocol
#   silent     a socket of ours accepts and never answers
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init foreign-pvmd
FAKE=${srcdir:-.}/tests/integ/fake-pvmd.pl
u=$(id -u)
h_tmpdir top

# not_hung CASE RC: the probe ended by itself and did not enrol.
not_hung() {
	if [ "$2" = 124 ]; then
		h_fail "$1: the task hung"
	elif [ "$2" = 0 ]; then
		h_fail "$1: the task enrolled: $(cat "$top/$1.out")"
	fi
}

# stockroot: a PVM_ROOT whose pvmd is someone else's
root=$top/root; mkdir -p "$root/lib" "$top/stockroot"
cat >"$root/lib/pvmd" <<EOS
#!/bin/sh
echo started >"$top/foreign-started"
exec sleep 100
EOS
chmod +x "$root/lib/pvmd"
PVM_ROOT=$root H_PVMD= h_probe "$top/stockroot" "$top/stockroot.out" mytid
rc=$?
[ -e "$top/foreign-started" ] && h_fail "stockroot: the foreign pvmd was started"
if [ $rc = 124 ]; then
	h_fail "stockroot: the task hung"
elif [ $rc != 0 ] && ! grep -q "COPVM_PVMD" "$top/stockroot.out.err"; then
	h_fail "stockroot: no clear message: $(cat "$top/stockroot.out.err")"
fi
[ $rc = 0 ] && h_kill_daemon "$top/stockroot"	# an installed copvm pvmd

# stock: Debian's PVM, if installed
if [ -x /usr/lib/pvm3/lib/pvmd ]; then
	mkdir -m 700 "$top/stock"
	PVM_ROOT=/usr/lib/pvm3 H_PVMD= h_probe "$top/stock" "$top/stock.out" mytid
	rc=$?
	[ $rc = 124 ] && h_fail "stock: the task hung"
	ls "$top/stock" | grep -q "^pvmd\.$u" &&
		h_fail "stock: stock's pvmd was started"
	[ $rc = 0 ] && h_kill_daemon "$top/stock"
else
	h_log "note: stock PVM is not installed; its case is not run"
fi

# garbage and silent: a same-user socket that is no copvm daemon
for mode in garbage silent; do
	t=$top/$mode; mkdir -m 700 "$t" "$t/copvm-$u"
	perl "$FAKE" "$t/copvm-$u/pvmd.sock" "$top/$mode.log" "$mode" &
	h_bg $!
	for _ in $(seq 100); do
		grep -q listening "$top/$mode.log" 2>/dev/null && break
		sleep 0.1
	done
	h_probe "$t" "$top/$mode.out" mytid
	rc=$?
	not_hung $mode $rc
	if [ $rc != 0 ] && [ $rc != 124 ] &&
	   ! grep -q "copvm" "$top/$mode.out.err"; then
		h_fail "$mode: no clear message: $(cat "$top/$mode.out.err")"
	fi
done

h_finish

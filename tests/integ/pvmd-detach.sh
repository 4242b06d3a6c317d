#!/bin/bash
# pvmd-detach.sh - a daemon started by a task keeps none of the task's
# descriptors and leaves its session (issue 15 item 5; lib/pvmd_start.c,
# daemon/main.c): `x=$(bash -c "exec 3>&1 1>/dev/null; prog")' returns
# when prog ends, though the daemon runs on.
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init pvmd-detach
h_tmpdir T
u=$(id -u)
export PVM_TMP=$T COPVM_PVMD=$PVMD PROBE

# The shell idiom of the issue, in the background: it must finish.
(
	x=$(bash -c 'exec 3>&1 1>/dev/null; "$PROBE" mytid')
	echo "returned" >"$T/returned"
) &
sub=$!
h_bg $sub
for _ in $(seq 300); do
	[ -e "$T/returned" ] && break
	sleep 0.2
done
[ -e "$T/returned" ] ||
	h_fail "\$(...) did not return while the daemon ran"

pid=$(head -n1 "$T/copvm-$u/pvmd.pid" 2>/dev/null)
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || h_die "no daemon was started"

# A second task, with a file open on fd 5: the daemon already runs, so
# start it anew with the file open and look at its descriptors.
h_kill_daemon "$T"
sleep 0.2
bash -c 'exec 5>"$PVM_TMP/marker"; "$PROBE" mytid' >/dev/null 2>&1 ||
	h_fail "the probe failed"
pid=$(head -n1 "$T/copvm-$u/pvmd.pid" 2>/dev/null)
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || h_die "no daemon was started"
if ls -l "/proc/$pid/fd" | grep -q marker; then
	h_fail "the daemon kept the task's fd 5: $(ls -l /proc/$pid/fd)"
fi
for fd in 0 1 2; do
	tgt=$(readlink "/proc/$pid/fd/$fd")
	case $tgt in
	/dev/null|*/pvmd.log) ;;
	*) h_fail "the daemon's fd $fd is $tgt" ;;
	esac
done
sid=$(ps -o sid= -p "$pid" | tr -d ' ')
[ "$sid" = "$pid" ] || h_fail "the daemon is not a session leader (sid $sid)"
h_finish

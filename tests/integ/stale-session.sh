#!/bin/bash
# stale-session.sh - a task that outlived its daemon cannot reach the
# tasks of the next virtual machine, whose task ids start over at t40001
# (issue 15 item 7): each daemon run has its own session (a random id;
# the tasks' sockets live under copvm-<uid>/s<id>/), and a new daemon
# removes the sockets of the sessions before it.
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init stale-session
h_tmpdir T
u=$(id -u)
export PVM_TMP=$T COPVM_PVMD=$PVMD

# the old machine: a first task (t40001, gone), then the sender
h_probe "$T" "$T/first.out" mytid || h_die "first task: $(cat "$T/first.out.err")"
mkfifo "$T/cmd"
timeout -k 5 "$H_TIMEOUT" "$PROBE" sender <"$T/cmd" >"$T/old.out" \
	2>"$T/old.out.err" &
old=$!
h_bg $old
exec 7>"$T/cmd"
for _ in $(seq 200); do
	grep -q '^tid' "$T/old.out" && break
	sleep 0.1
done
oldtid=$(sed -n 's/^tid t//p' "$T/old.out")
[ -n "$oldtid" ] || h_die "the old task did not enrol"

# the daemon dies; the old task lives on
pid=$(head -n1 "$T/copvm-$u/pvmd.pid")
kill -KILL "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done

# the new machine: a receiver, probably t40001 again
timeout -k 5 "$H_TIMEOUT" "$PROBE" recv 4 >"$T/new.out" 2>"$T/new.out.err" &
new=$!
h_bg $new
for _ in $(seq 200); do
	grep -q '^tid' "$T/new.out" && break
	sleep 0.1
done
newtid=$(sed -n 's/^tid t//p' "$T/new.out")
[ -n "$newtid" ] || h_die "the new task did not enrol: $(cat "$T/new.out.err")"
h_log "old task t$oldtid, new task t$newtid"

echo "send $newtid" >&7
exec 7>&-
wait $new
wait $old
grep -q '^got from' "$T/new.out" &&
	h_fail "the old task reached the new machine's t$newtid"
grep -q '^send rc -' "$T/old.out" ||
	h_fail "the old task's send did not fail: $(cat "$T/old.out")"
find "$T/copvm-$u" -type s -name "t$oldtid" | grep -q . &&
	h_fail "the old session's socket t$oldtid is still there"
h_finish

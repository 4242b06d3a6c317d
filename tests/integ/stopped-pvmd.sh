#!/bin/bash
# stopped-pvmd.sh - a daemon stopped with SIGSTOP makes requests fail with
# a message instead of hanging (issue 15 item 4; lib/daemon_watch.c):
#   enrolled  a task enrolled before the stop asks the daemon something
#   new       a new task tries to enrol with the stopped daemon
# and once the daemon continues, a new task enrols again.
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init stopped-pvmd
h_tmpdir T
u=$(id -u)

h_probe "$T" "$T/first.out" mytid || h_die "the first task failed: $(cat "$T/first.out.err")"
pid=$(head -n1 "$T/copvm-$u/pvmd.pid")

# enrolled: the task waits on a fifo for the go, after the stop
mkfifo "$T/go"
PVM_TMP=$T COPVM_PVMD=$PVMD timeout -k 5 "$H_TIMEOUT" "$PROBE" config \
	<"$T/go" >"$T/enrolled.out" 2>"$T/enrolled.out.err" &
task=$!
h_bg $task
exec 7>"$T/go"
for _ in $(seq 200); do
	grep -q '^tid' "$T/enrolled.out" && break
	sleep 0.1
done
grep -q '^tid' "$T/enrolled.out" || h_die "the waiting task did not enrol"
kill -STOP "$pid"
echo go >&7
exec 7>&-
wait $task
rc=$?
if [ $rc = 124 ]; then
	h_fail "enrolled: the request hung"
elif ! grep -q 'config rc -' "$T/enrolled.out"; then
	h_fail "enrolled: no error: $(cat "$T/enrolled.out")"
elif ! grep -q stopped "$T/enrolled.out.err"; then
	h_fail "enrolled: no clear message: $(cat "$T/enrolled.out.err")"
fi

# new: enrolment with the stopped daemon
h_probe "$T" "$T/new.out" mytid
rc=$?
if [ $rc = 124 ]; then
	h_fail "new: the task hung"
elif [ $rc = 0 ]; then
	h_fail "new: the task enrolled with a stopped daemon"
elif ! grep -q stopped "$T/new.out.err"; then
	h_fail "new: no clear message: $(cat "$T/new.out.err")"
fi

kill -CONT "$pid"
h_probe "$T" "$T/after.out" mytid ||
	h_fail "after SIGCONT: $(cat "$T/after.out.err")"
h_finish

#!/bin/bash
# `copvm-cosched top' over two emulated hosts (copvm only): a PRE
# ping-pong started on node1 with its child on node2 (pingpong -H node2);
# the live view, run on node1 and on node2, must list the tasks of both
# hosts, each under its host's name (the child's tid is of host 2, t8....),
# and so must the console's `cosched -a' on node2.
# Then node2's daemon is stopped (SIGSTOP): a view from node1 must still
# come within its wait, with node2 shown as not answering and node1's
# tasks listed; once it is continued, node2 is back in the view.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init costop 2
[ "${IMPL[copvm]}" = copvm ] || { log "SKIP: copvm only"; exit 77; }
PP=$top_builddir/examples/pingpong
TOOL=$top_builddir/tools/copvm-cosched
out=$W/copvm/out
export COPVM_MODEL=pre COPVM_INTERVAL_MS=5

mh_begin copvm
timeout -k 5 120 env $(mh_env copvm) "$MH_RSH" node1 "$PP" -H node2 \
	-r 100000000 -s 8 </dev/null >"$out/pp.out" 2>&1 &
pp=$!
for _ in $(seq 100); do
	mh_run copvm node1 wait -- "$TOOL" top -b -n 1
	grep -q '^node2  *t8' "$out/wait.out" && break
	sleep 0.2
done

# rows HOST FILE: the task rows of HOST in the last table of FILE.
rows() {
	awk -v h="$1" '/^copvm-cosched top - /{delete r; n = 0}
		$1 == h && $2 ~ /^t[0-9a-f]+$/ {r[n++] = $0}
		END {for (i = 0; i < n; i++) print r[i]}' "$2"
}
for from in node1 node2; do
	mh_run copvm "$from" "top-$from" -- "$TOOL" top -b -n 2 -d 0.5
	[ "$(cat "$out/top-$from.rc")" = 0 ] ||
		fail "top on $from: status $(cat "$out/top-$from.rc"): $(cat "$out/top-$from.err")"
	cat "$out/top-$from.out" >&2
	grep -q '^copvm-cosched top - .*, 2 hosts, ' "$out/top-$from.out" ||
		fail "top on $from: not 2 hosts"
	rows node1 "$out/top-$from.out" | grep -q '^node1  *t4[0-9a-f]* pre ' ||
		fail "top on $from: no PRE task of node1"
	rows node2 "$out/top-$from.out" | grep -Eq '^node2  *t8[0-9a-f]{4} pre .* [0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9] [a-z-]+/[a-z-]+$' ||
		fail "top on $from: no PRE task of node2 with its rates"
done

# The console's `cosched -a' on node2: the same table, once, with the
# tasks of both hosts (the console is a task of node2 itself).
CONSOLE=$top_builddir/console/pvm
if [ -x "$CONSOLE" ]; then
	printf 'cosched -a\nquit\n' >"$W/console.in"
	mh_run copvm node2 console -i "$W/console.in" -- "$CONSOLE"
	cat "$out/console.out" >&2
	grep -q '^coscheduling of the virtual machine - .*, 2 hosts, ' \
		"$out/console.out" || fail "console cosched -a: not 2 hosts"
	grep -q '^node1  *t4[0-9a-f]* pre ' "$out/console.out" ||
		fail "console cosched -a on node2: no PRE task of node1"
	grep -q '^node2  *t8[0-9a-f]* ' "$out/console.out" ||
		fail "console cosched -a on node2: no task of node2"
fi

# node2's daemon stops answering: the view comes anyway.
d2=
for p in $(netns_pids 2); do
	case $(proc_cmdline "$p") in *pvmd*) d2="$d2 $p" ;; esac
done
if [ -z "$d2" ]; then
	fail "no pvmd on node2"
else
	kill -STOP $d2
	start=$(date +%s%N)
	mh_run copvm node1 top-stopped -- "$TOOL" top -b -n 1
	took=$((($(date +%s%N) - start) / 1000000))
	kill -CONT $d2
	cat "$out/top-stopped.out" >&2
	[ "$(cat "$out/top-stopped.rc")" = 0 ] ||
		fail "top with node2 stopped: status $(cat "$out/top-stopped.rc")"
	grep -Eq '^node2 +- +\(no answer\)$' "$out/top-stopped.out" ||
		fail "node2 stopped: not shown as not answering"
	rows node1 "$out/top-stopped.out" | grep -q . ||
		fail "node2 stopped: node1's tasks missing"
	[ "$took" -lt 10000 ] || fail "node2 stopped: the view took $took ms"
	mh_run copvm node1 top-back -- "$TOOL" top -b -n 1
	rows node2 "$out/top-back.out" | grep -q . ||
		fail "node2 continued: its tasks are not back: $(cat "$out/top-back.out")"
fi

kill "$pp" 2>/dev/null
wait "$pp" 2>/dev/null
mh_end copvm
integ_finish

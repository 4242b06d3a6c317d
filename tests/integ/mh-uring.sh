#!/bin/bash
# The io_uring backend of direct routes and its fallback to plain sockets
# (copvm only; docs/uring.md), on two emulated hosts.  The same three
# programs run on four machines, each started afresh:
#   uring    COPVM_URING=auto: io_uring works here, so it is used;
#   sockets  COPVM_URING=0: plain sockets, forced;
#   eperm    COPVM_URING unset (the default, "auto"), and every process
#            under a seccomp filter that makes io_uring_setup fail with
#            EPERM (tests/integ/netns/noring),
#   enosys   COPVM_URING=auto, with ENOSYS (a kernel without io_uring);
# the last two must fall back to sockets with not a word to the program.
# The programs (tests/integ/netns/mhcheck.c):
#   routes direct  0 B .. 4 MiB echoed with checksums, then 500 in order;
#                  its output must be the same on all four, and the task
#                  must hold one ring (uring) or none (the others);
#   killsender     a task on node2 floods us with 16 MiB messages; this
#                  script kills it (SIGKILL) mid-stream: every message
#                  delivered is whole and in order, its exit notify comes,
#                  its circuit is gone and no ring is left over;
#   killreceiver   we flood a task on node2 that stopped itself, so our
#                  send waits in the kernel; this script kills it: our
#                  sends return, its exit notify comes, same checks.
# and tests/integ/netns/mhmcast.c:
#   mcast          pvm_mcast of 0 B .. 4 MiB and 300 small messages to 3
#                  tasks on node2 over direct routes (with the ring, each
#                  multicast's copies leave in one submission): every copy
#                  intact and in order, the same output on all four, and
#                  one ring or none.
# A fifth machine runs with COPVM_URING=1, which also gives the daemons a
# ring for their links' writes (daemon/ring.c), and multicasts through the
# daemons (mhmcast check -d): the same output, and the receivers' daemon
# must log that it batched writes.
# The rest of the multi-host suite runs with the default (the ring where it
# works); `make check-mh-sockets' runs it all with COPVM_URING=0, and
# `make check-mh-uring' with COPVM_URING=1.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init uring 2
[ "${IMPL[copvm]}" = copvm ] || { log "SKIP: copvm only"; exit 77; }
tool=$(mh_offer_tool copvm)
NORING=$top_builddir/tests/integ/netns/noring
[ -x "$NORING" ] || die "$NORING is not built"
REAL_PVMD=$COPVM_PVMD
MCAST=$top_builddir/tests/integ/netns/mhmcast
[ -x "$MCAST" ] || die "$MCAST is not built"
for i in $(seq "$MH_HOSTS"); do
	ln -sf "$MCAST" "$W/copvm/hosts/node$i/home/pvm3/bin/LINUX64/mhmcast"
done
"$NORING" EPERM true || { log "SKIP: no seccomp filter here"; exit 77; }

# run_killed NAME MARK PATTERN [WRAP...]: runs mhcheck NAME on node1; once
# it printed MARK, kills the task of node2 whose command line has PATTERN.
run_killed() {
	local mode=$1 mark=$2 pat=$3 o pid i p victim=
	shift 3
	o=$W/copvm/out/$mode-$backend
	timeout -k 5 120 env $(mh_env copvm) "$MH_RSH" node1 "$@" "$tool" \
		"$mode" </dev/null >"$o.out" 2>"$o.err" &
	pid=$!
	for i in $(seq 600); do
		grep -q "$mark" "$o.out" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	for p in $(netns_pids 2); do
		case $(proc_cmdline "$p") in *"$pat"*) victim="$victim $p" ;; esac
	done
	if [ -n "$victim" ]; then
		kill -KILL $victim
	else
		fail "$mode-$backend: no $pat task on node2"
	fi
	wait "$pid"
	echo $? >"$o.rc"
}

# backend NAME [WRAP...]: one machine, the three programs.
backend() {
	backend=$1
	shift
	mh_begin copvm
	mh_run copvm node1 "routes-$backend" -- "$@" "$tool" routes direct
	run_killed killsender "kill the sender now" child-flood "$@"
	run_killed killreceiver "kill the receiver now" child-sink "$@"
	mh_run copvm node1 "mcast-$backend" -- "$@" "$MCAST" check
	mh_end copvm
}

COPVM_URING=auto backend uring
COPVM_URING=0 backend sockets
unset COPVM_URING
for e in EPERM ENOSYS; do
	printf '#!/bin/sh\nexec "%s" %s "%s" "$@"\n' "$NORING" "$e" "$REAL_PVMD" \
		>"$W/pvmd-$e"
	chmod +x "$W/pvmd-$e"
	if [ $e = EPERM ]; then uring=; else uring=auto; fi
	COPVM_URING=$uring COPVM_PVMD=$W/pvmd-$e \
		backend "$(echo "$e" | tr A-Z a-z)" "$NORING" "$e"
done

# The daemons' links through their rings (COPVM_URING=1): a multicast
# through the daemons (mhmcast -d).  The receivers' daemon reads the
# copies off its link and writes them to its three tasks in one turn,
# which it hands to the kernel as one batch.
daemons() {
	mh_begin copvm
	mh_run copvm node1 mcast-daemons -- "$MCAST" check -d
	mh_end copvm
}
COPVM_URING=1 daemons

out=$W/copvm/out
[ "$(cat "$out/mcast-daemons.rc" 2>/dev/null)" = 0 ] ||
	fail "mcast-daemons exited with $(cat "$out/mcast-daemons.rc" 2>/dev/null): $(cat "$out/mcast-daemons.err")"
cmp -s "$out/mcast-uring.out" "$out/mcast-daemons.out" ||
	fail "mcast-daemons: not the output of mcast-uring: $(diff "$out/mcast-uring.out" "$out/mcast-daemons.out")"
cat "$W"/copvm/hosts/node2/tmp/copvm-*/pvmd.log 2>/dev/null |
	grep -Eq '^.*[1-9][0-9]* batches of link writes through io_uring' ||
	fail "mcast-daemons: node2's daemon batched no writes through its ring"
for b in uring sockets eperm enosys; do
	# pvm_getfds: 1, 2 with the circuit (the ring is inside fds[0]'s set)
	if [ $b = uring ]; then rings=1; else rings=0; fi
	after=2
	for t in routes killsender killreceiver mcast; do
		[ "$(cat "$out/$t-$b.rc" 2>/dev/null)" = 0 ] ||
			fail "$t-$b exited with $(cat "$out/$t-$b.rc" 2>/dev/null): $(cat "$out/$t-$b.err")"
		grep -q "io_uring rings $rings\$" "$out/$t-$b.err" ||
			fail "$t-$b: not $rings ring(s): $(cat "$out/$t-$b.err")"
		grep -Ev '^mh(check|mcast): ' "$out/$t-$b.err" &&
			fail "$t-$b: unexpected messages on stderr"
	done
	cmp -s "$out/routes-uring.out" "$out/routes-$b.out" ||
		fail "routes-$b: not the output of routes-uring: $(diff "$out/routes-uring.out" "$out/routes-$b.out")"
	grep -q "descriptors 1 before, $after after" "$out/routes-$b.err" ||
		fail "routes-$b: not $after descriptors: $(cat "$out/routes-$b.err")"
	# what copvm-cosched shows: COSCHED_XPORT_URING 4, _TCP 3
	grep -q "page tcp transport $((rings ? 4 : 3))\$" "$out/routes-$b.err" ||
		fail "routes-$b: the page names another transport: $(cat "$out/routes-$b.err")"
	grep -q "sender's exit notify: yes" "$out/killsender-$b.out" &&
		grep -q "whole messages intact and in order: yes" \
			"$out/killsender-$b.out" ||
		fail "killsender-$b: $(cat "$out/killsender-$b.out")"
	cmp -s "$out/mcast-uring.out" "$out/mcast-$b.out" ||
		fail "mcast-$b: not the output of mcast-uring: $(diff "$out/mcast-uring.out" "$out/mcast-$b.out")"
	grep -q "every copy intact and in order: yes" "$out/mcast-$b.out" ||
		fail "mcast-$b: $(cat "$out/mcast-$b.out")"
	grep -q "sends returned: yes" "$out/killreceiver-$b.out" &&
		grep -q "receiver's exit notify: yes" "$out/killreceiver-$b.out" ||
		fail "killreceiver-$b: $(cat "$out/killreceiver-$b.out")"
	# the dead peer's circuit is gone (the ring, if any, stays in the
	# set of pvm_getfds' first descriptor)
	for t in killsender killreceiver; do
		grep -q "descriptors $((after - 1)) after" "$out/$t-$b.err" ||
			fail "$t-$b: not $((after - 1)) descriptors: $(cat "$out/$t-$b.err")"
	done
done
grep -c "bytes: ok" "$out/routes-uring.out" | grep -qx 9 ||
	fail "routes-uring: $(cat "$out/routes-uring.out")"
integ_finish

#!/bin/bash
# Faults in a virtual machine of four emulated hosts (copvm only: stock
# notices a dead host only after minutes of retries, and then prints
# differently).  mhcheck fault starts two tasks on node3 and two on node4,
# asks for their exit notifies and for HostDelete on both hosts, then:
#   - deletes node4 while its tasks run: the notifies come (TaskExit for
#     its tasks, then HostDelete), nosuch is PvmNoHost, the master itself
#     PvmBadParam;
#   - has node3's daemon killed with SIGKILL (by this script): the same
#     notifies come; a send to a task of node3 fails with PvmNoHost (its
#     daemon told the library first: lib/hostwatch.c), pvm_pstat says PvmNoTask,
#     pvm_mstat PvmNoHost, and the host table has two hosts;
#   - the rest keeps working: a spawn on node2, adding node3 and node4
#     again (one HostAdd notify with both, to each of two requests made
#     with different tags), a spawn on the new node3.
# Then a task on node2, a slave, halts the machine, and nothing may be
# left on any host: node3's old tasks went with their daemon, node4's with
# the deletion.  Last, a fresh machine with tasks on every host loses its
# master (SIGKILL): the slaves halt, and again nothing is left.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init fault 4
[ "${IMPL[copvm]}" = copvm ] || { log "SKIP: copvm only"; exit 77; }
tool=$(mh_offer_tool copvm)
mh_begin copvm

o=$W/copvm/out/fault
timeout -k 5 60 env $(mh_env copvm) "$MH_RSH" node1 "$tool" fault \
	</dev/null >"$o.out" 2>"$o.err" &
pid=$!
for i in $(seq 300); do
	grep -q "kill node3 now" "$o.out" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
victim=
for p in $(netns_pids 3); do
	case $(proc_cmdline "$p") in *pvmd\ -s*) victim="$victim $p" ;; esac
done
[ -n "$victim" ] || fail "no daemon found on node3"
kill -KILL $victim
wait "$pid"
echo $? >"$o.rc"

cat >"$W/expected" <<'EOT'
delhosts node4 nosuch node1 = 1: 0 -6 -2
task exit: a task of node4
task exit: a task of node4
host delete: node4
kill node3 now
task exit: a task of node3
task exit: a task of node3
host delete: node3
send to a task of the dead host = -6
pstat of it = -31, mstat node3 = -6, mstat node4 = -6
2 hosts, 1 arch
node1 dtid=40000 arch=LINUX64 speed=1000 dsig=408c41 mstat=0
node2 dtid=80000 arch=LINUX64 speed=1000 dsig=408c41 mstat=0
mstat(nosuchhost)=-6
pstat of a new task on node2 = 0
addhosts node3 node4 again = 2
host add notify: 2 hosts
second host add notify: 2 hosts
pstat of a new task on node3 = 0
4 hosts, 1 arch
node1 dtid=40000 arch=LINUX64 speed=1000 dsig=408c41 mstat=0
node2 dtid=80000 arch=LINUX64 speed=1000 dsig=408c41 mstat=0
node3 dtid=c0000 arch=LINUX64 speed=1000 dsig=408c41 mstat=0
node4 dtid=100000 arch=LINUX64 speed=1000 dsig=408c41 mstat=0
mstat(nosuchhost)=-6
EOT
diff -u "$W/expected" "$o.out" >"$W/fault.diff" ||
	{ fail "mhcheck fault printed something else:"; cat "$W/fault.diff" >&2; cat "$o.err" >&2; }
[ "$(cat "$o.rc")" = 0 ] || { fail "mhcheck fault exited with $(cat "$o.rc")"; cat "$o.err" >&2; }

# Halt from a slave's task: every daemon and task on every host stops.
timeout 20 env $(mh_env copvm) "$MH_RSH" node2 "$PVMHALT" >/dev/null 2>&1 ||
	fail "pvm_halt from node2 failed"
for i in $(seq 50); do
	left=$(mh_left)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || { fail "left after the halt:"; log "$left"; }

# The master dies: every slave halts, every task goes.
mh_begin copvm
timeout -k 5 30 env $(mh_env copvm) "$MH_RSH" node2 "$tool" hold \
	>"$W/copvm/out/hold.out" 2>&1 &
pid=$!
for i in $(seq 100); do
	grep -qs holding "$W/copvm/out/hold.out" && break
	sleep 0.1
done
# A spawned task shows its program's name once its daemon has exec'd it:
# look again for a while.
for i in $(seq 30); do
	n=0
	for h in 1 2 3 4; do
		for p in $(netns_pids "$h"); do
			case $(proc_cmdline "$p") in *child-sleep*) n=$((n + 1)) ;; esac
		done
	done
	[ "$n" = 8 ] && break
	sleep 0.1
done
[ "$n" = 8 ] || fail "$n tasks run before the master is killed, not 8"
victim=
for p in $(netns_pids 1); do
	case $(proc_cmdline "$p") in *pvmd*) victim="$victim $p" ;; esac
done
[ -n "$victim" ] || fail "no master found on node1"
kill -KILL $victim
wait "$pid"
for i in $(seq 100); do
	left=$(mh_left)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || { fail "left after the master died:"; log "$left"; }
integ_finish

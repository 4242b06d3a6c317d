#!/bin/bash
# A virtual machine of four emulated hosts, on stock PVM and on copvm,
# the same programs on both, outputs compared: the host table seen from
# the master and from a slave, pvm_mcast to a task on every host, where
# plain and PvmTaskHost/PvmTaskArch/PvmHostCompl spawns put their tasks
# (stock's round robin, from the master and from a slave), pvm_tasks of
# the machine and of each host, pvm_sendsig, pvm_hostsync and pvm_kill
# across hosts (from the master and from a slave), TaskExit notifies on
# remote tasks after
# their last messages, the mailbox from several hosts, and Debian's spmd
# as a ring of 8 tasks over the 4 hosts.  Then the machine is halted and
# nothing may be left on any host.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init basic 4
mh_programs spmd

scenario() {
	local side=$1 tool
	tool=$(mh_offer_tool "$side")
	mh_begin "$side"
	mh_run "$side" node1 config -- "$tool" config
	mh_run "$side" node2 config2 -- "$tool" config
	mh_run "$side" node1 mcast -- "$tool" mcast
	mh_run "$side" node3 mcast3 -- "$tool" mcast
	mh_run "$side" node1 tasks -- "$tool" tasks
	mh_run "$side" node4 tasks4 -- "$tool" tasks
	mh_run "$side" node1 place -- "$tool" place
	mh_run "$side" node2 place2 -- "$tool" place
	mh_run "$side" node1 notify -- "$tool" notify
	mh_run "$side" node2 mbox -- "$tool" mbox
	mh_run "$side" node1 spmd8 -- "$(pvmrun_for "$side")" -n 8 spmd
	mh_end "$side"
}
mh_sides scenario

for t in config config2 mcast mcast3 tasks tasks4 place place2 notify mbox; do
	expect_status "$t" 0
	compare "$t"
done
# Which host's "BEGIN" comes first is not fixed, even on stock: compare
# the ring (tids in spawn order) and count the BEGIN and EOF lines.
expect_status spmd8 0
compare spmd8 --drop '\] (BEGIN|EOF)$' --catchout --dec-tids
for side in stock copvm; do
	for word in BEGIN EOF; do
		n=$(grep -c "\] $word\$" "$W/$side/out/spmd8.out")
		[ "$n" = 8 ] || fail "$side: spmd8 has $n $word lines, not 8"
	done
done
integ_finish

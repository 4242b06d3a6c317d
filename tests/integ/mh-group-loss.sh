#!/bin/bash
# Dynamic groups when a host vanishes without a word (copvm only; issue
# 25).  Three emulated hosts, the host timeout short (2 s).  mhgroup
# host-cut (tests/integ/netns/mhgroup.c) on node1 starts the group server
# on a given host, has four members join (node1, node2, node3, node1),
# the three not on node2 wait in pvm_barrier for all four, and the
# script takes node2's interface down (a cut cable: no socket closes):
#   - the server on node1: when node2 is declared dead the group drops
#     its member, as stock's server drops a member on its exit notify:
#     the three are released from the barrier with 0, pvm_gsize says 3
#     on node1, node3 and to a non-member, the lost tid is no member
#     (PvmNotInGroup), and the three pass barriers of -1 and of 3;
#   - the server on node2: the groups are lost with it; the three get
#     PvmNoGroup from the barrier, and later calls too;
#   - the server on node1 again, the hosts under EXP (COPVM_MODEL=exp:
#     each daemon stops and continues its tasks on the master's time
#     grid, which a slave only samples now and then): the same as the
#     first, and
#     EXP runs on the hosts left and ends cleanly at the halt.
# Each time the exit and HostDelete notifies come, no call waits for
# ever, node2's daemon and task exit by themselves, and once the link is
# back the machine halts with nothing left on any host.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init group-loss 3
[ "${IMPL[copvm]}" = copvm ] || { log "SKIP: copvm only"; exit 77; }

# The group server is found by name on the spawn path.
eval "mhg_plain_env() $(declare -f mh_env | sed 1d)"
mh_env() { echo "-u COPVM_PVMGS $(mhg_plain_env "$1")"; }

MHG=$top_builddir/tests/integ/netns/mhgroup
[ -x "$MHG" ] || die "$MHG is missing (make check builds it)"
[ -x "$top_builddir/group/pvmgs" ] || die "group/pvmgs is missing"
for i in 1 2 3; do
	d=$W/copvm/hosts/node$i/home/pvm3/bin/LINUX64
	mkdir -p "$d"
	ln -sf "$MHG" "$d/mhgroup"
	ln -sf "$top_builddir/group/pvmgs" "$d/pvmgs"
done
NS2=$(netns_name 2)

# loss_case NAME SERVER-HOST [MODEL]: MODEL, COPVM_MODEL of the daemons
# (the master hands it to its slaves)
loss_case() {
	local name=$1 at=$2 model=${3:-} o=$W/copvm/out/$1 pid i
	export COPVM_HOST_TIMEOUT_MS=2000
	[ -n "$model" ] && export COPVM_MODEL=$model
	mh_begin copvm
	unset COPVM_HOST_TIMEOUT_MS COPVM_MODEL
	timeout -k 5 90 env $(mh_env copvm) "$MH_RSH" node1 "$MHG" host-cut "$at" \
		</dev/null >"$o.out" 2>"$o.err" &
	pid=$!
	for i in $(seq 400); do
		grep -qs "cut node2 now" "$o.out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	grep -q "cut node2 now" "$o.out" ||
		{ fail "$name: mhgroup did not get to the cut"; cat "$o.out" "$o.err" >&2; }
	ip -n "$NS2" link set eth0 down || fail "$name: cannot cut node2"
	wait "$pid"
	echo $? >"$o.rc"
	if [ "$at" = node2 ]; then
		cat >"$W/expected" <<'EOT'
group server on node2
members on node1 node2 node3 node1
join = 0
join = 1
join = 2
join = 3
gsize = 4
cut node2 now
exit notify of the member on node2: yes
the three others' barrier(4) = PvmNoGroup PvmNoGroup PvmNoGroup
host delete: node2
gsize on node1 = PvmNoGroup
gsize on node3 = PvmNoGroup
gsize of a non-member = PvmNoGroup
getinst of the lost member = PvmNoGroup
barrier(-1) of the three = PvmNoGroup PvmNoGroup PvmNoGroup
members left running: 3
EOT
	else
		cat >"$W/expected" <<EOT
group server on $at
members on node1 node2 node3 node1
join = 0
join = 1
join = 2
join = 3
gsize = 4
cut node2 now
exit notify of the member on node2: yes
the three others' barrier(4) = 0 0 0
host delete: node2
gsize on node1 = 3
gsize on node3 = 3
gsize of a non-member = 3
getinst of the lost member = PvmNotInGroup
barrier(-1) of the three = 0 0 0
barrier(3) of the three = 0 0 0
members left running: 3
EOT
	fi
	diff -u "$W/expected" "$o.out" >"$W/$name.diff" ||
		{ fail "$name: mhgroup printed something else:"; cat "$W/$name.diff" "$o.err" >&2; }
	[ "$(cat "$o.rc")" = 0 ] ||
		{ fail "$name: mhgroup exited with $(cat "$o.rc")"; cat "$o.err" >&2; }
	log "$name: $(sed -n 's/^mhgroup: //p' "$o.err" | head -1)"
	# node2's side shut down by itself
	for i in $(seq 100); do
		[ -z "$(netns_pids 2)" ] && break
		sleep 0.1
	done
	if [ -n "$(netns_pids 2)" ]; then
		fail "$name: node2 still runs after the partition:"
		mh_left >&2
		netns_pids 2 | xargs -r kill -KILL 2>/dev/null
	fi
	if [ "$model" = exp ]; then
		# EXP ran on the hosts left, and goes on after the loss: each
		# host switches on its own timer (a slave probes the master's
		# clock only now and then), so a lost host leaves no gap to
		# wait for
		for i in 1 3; do
			grep -q "EXP: mode" "$W/copvm/hosts/node$i/tmp/copvm-0/pvmd.log" ||
				fail "$name: EXP did not run on node$i"
		done
	fi
	ip -n "$NS2" link set eth0 up
	ip -n "$NS2" addr replace 10.213.0.2/24 dev eth0
	mh_end copvm
	if [ "$model" = exp ]; then
		for i in 1 3; do
			grep -q "EXP: released" "$W/copvm/hosts/node$i/tmp/copvm-0/pvmd.log" ||
				fail "$name: EXP on node$i did not end cleanly"
		done
	fi
}

loss_case survivor node1
loss_case lost node2
loss_case exp node1 exp
integ_finish

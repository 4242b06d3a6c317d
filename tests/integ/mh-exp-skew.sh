#!/bin/bash
# EXP's hosts in step by messages (copvm only; issue 27).  Two emulated
# hosts under EXP (static, IP 200 ms, PS 100 ms); node2's daemon reads
# its clock 700 ms ahead (the test hook COPVM_TEST_CLOCK_SKEW_MS, given
# to node2 alone through its env file): 3.5 periods, so on its own clock
# its slots are node1's upside down.  A spinning task on each host
# (mhcheck spin); the script samples both tasks' states at the same
# instants for 3 s:
#   - synced (the default): node2's log gives the master's offset within
#     5 ms of -700 ms, and the two tasks are running or stopped together
#     in at least 80 % of the samples;
#   - COPVM_EXP_SYNC=clocks (the negative control): no offset in the log,
#     and the tasks agree in at most 30 % of the samples.
# Each time the machine halts with nothing left on either host.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init exp-skew 2
[ "${IMPL[copvm]}" = copvm ] || { log "SKIP: copvm only"; exit 77; }
TOOL=$(mh_offer_tool copvm)
LOG2=$W/copvm/hosts/node2/tmp/copvm-0/pvmd.log

# state PID: R, S, T ... of a process ("?" when gone)
state() {
	local line
	read -r line <"/proc/$1/stat" 2>/dev/null || { echo "?"; return; }
	line=${line##*) }
	echo "${line%% *}"
}

# skew_case NAME SYNC (messages or clocks)
skew_case() {
	local name=$1 sync=$2 o=$W/copvm/out/$1 p1 p2 i s1 s2 n=0 same=0 \
		pct off
	echo "COPVM_TEST_CLOCK_SKEW_MS=700" >"$W/copvm/hosts/node2/env"
	rm -f "$LOG2"		# the other case's
	export COPVM_MODEL=exp COPVM_EXP_IP_MS=200 COPVM_EXP_PS_MS=100 \
		COPVM_EXP_SYNC=$sync
	mh_begin copvm
	unset COPVM_MODEL COPVM_EXP_IP_MS COPVM_EXP_PS_MS COPVM_EXP_SYNC
	for i in 1 2; do
		timeout -k 5 60 env $(mh_env copvm) "$MH_RSH" "node$i" "$TOOL" spin \
			</dev/null >"$o.$i.out" 2>"$o.$i.err" &
	done
	for i in $(seq 100); do
		p1=$(sed -n 's/^spinning pid //p' "$o.1.out")
		p2=$(sed -n 's/^spinning pid //p' "$o.2.out")
		[ -n "$p1" ] && [ -n "$p2" ] && break
		sleep 0.1
	done
	if [ -z "$p1" ] || [ -z "$p2" ]; then
		fail "$name: the spinners did not start"
		cat "$o".*.err >&2
	else
		sleep 0.5	# a period or two under EXP
		for i in $(seq 1000); do
			s1=$(state "$p1")
			s2=$(state "$p2")
			[ "$s1" = "?" ] || [ "$s2" = "?" ] && break
			n=$((n + 1))
			if { [ "$s1" = T ] && [ "$s2" = T ]; } ||
			   { [ "$s1" != T ] && [ "$s2" != T ]; }; then
				same=$((same + 1))
			fi
			sleep 0.003
		done
		kill -KILL "$p1" "$p2" 2>/dev/null
	fi
	wait
	pct=$((n ? 100 * same / n : 0))
	off=$(sed -n 's/.*EXP: clock offset to the master \([-+0-9.]*\) ms.*/\1/p' "$LOG2" | head -1)
	log "$name: the tasks in the same slot in $same of $n samples ($pct %); node2's offset ${off:-none} ms"
	[ "$n" -ge 100 ] || fail "$name: only $n samples"
	if [ "$sync" = messages ]; then
		[ -n "$off" ] || { fail "$name: no offset in node2's log"; cat "$LOG2" >&2; }
		[ -n "$off" ] && awk -v o="$off" 'BEGIN { exit !(o > -705 && o < -695) }' ||
			fail "$name: offset ${off:-none} ms, not -700 +- 5"
		[ "$pct" -ge 80 ] || fail "$name: the hosts' slots are not in step ($pct %)"
	else
		[ -z "$off" ] || fail "$name: node2 exchanged clocks with COPVM_EXP_SYNC=clocks"
		[ "$pct" -le 30 ] || fail "$name: the skewed host is in step without the exchange ($pct %): the skew is not applied"
	fi
	mh_end copvm
	rm -f "$W/copvm/hosts/node2/env"
}

skew_case synced messages
skew_case unsynced clocks
integ_finish

#!/bin/bash
# mh-listen.sh - copvm's daemons listen for other daemons where the
# hostfile says, not on every interface (issue 15): on two emulated
# hosts, with a plain hostfile the master listens on its address toward
# the first slave (node1's), the slave on its own; with
# "node1 ip=0.0.0.0" in the hostfile the master listens on every
# address, as asked.  Direct routes between tasks of the two hosts
# (whose listeners the daemons now bind to the same address) still work.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init listen 2
command -v ss >/dev/null || { log "SKIP: ss (iproute2) is missing"; exit 77; }

# listeners HOST-INDEX: "address:port" of every TCP listener of pvmd or
# mhcheck processes in that host
listeners() {
	ip netns exec "$(netns_name "$1")" ss -Hltnp 2>/dev/null |
		awk '/"(pvmd|mhcheck)"/ { print $4 }'
}

# check_host INDEX WANT: every listener in host INDEX is on WANT
check_host() {
	local l n=0
	for l in $(listeners "$1"); do
		n=$((n + 1))
		case $l in
		"$2":*) ;;
		*) fail "node$1: a listener on $l, not on $2" ;;
		esac
	done
	[ "$n" -gt 0 ] || fail "node$1: no TCP listener at all"
	log "node$1: $n listener(s) on $2"
}

tool=$(mh_offer_tool copvm)
mh_begin copvm
check_host 1 "$NETNS_NET.1"
check_host 2 "$NETNS_NET.2"
mkdir -p "$W/copvm/out"
mh_run copvm node1 direct -- "$tool" routes direct
[ "$(cat "$W/copvm/out/direct.rc")" = 0 ] ||
	fail "direct routes failed: $(cat "$W/copvm/out/direct.err")"
mh_end copvm

printf 'node1 ip=0.0.0.0\nnode2\n' >"$W/hostfile-any"
mh_begin copvm "$W/hostfile-any"
check_host 1 "0.0.0.0"
check_host 2 "$NETNS_NET.2"
mh_end copvm
integ_finish

# netns.sh - emulated hosts for the multi-host tests (sourced by bash).
#
# netns_up N creates N "hosts" node1..nodeN, each a network namespace with
# one interface (eth0, 10.213.0.<i>/24) plugged into a bridge that lives in
# a namespace of its own, so nothing is added to the caller's network
# namespace and traffic only ever goes to loopback or to these addresses.
# Each host gets a private hosts file (/etc/netns/<ns>/hosts, which
# `ip netns exec' bind-mounts on /etc/hosts) naming every node.  Whatever
# happens, netns_down (installed as an EXIT trap by netns_up) kills the
# processes left in the namespaces and removes the namespaces and files
# (a caller with its own EXIT trap calls netns_teardown from it instead).
#
# Commands run "on" a host through tests/integ/netns/rsh, which is also
# what PVM_RSH points at: it enters the host's namespace, gives it its own
# host name (a private UTS namespace) and its own HOME and PVM_TMP under
# $NETNS_SIDE (one directory per side and host: $NETNS_SIDE/nodeN/{home,tmp}).
#
# Names and addresses are private to the test: the namespaces are called
# $NETNS_ID h<i> and $NETNS_ID sw, NETNS_ID being cpv<pid> unless the
# caller sets another prefix, so concurrent tests do not collide.
#
# Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2; netns_check
# exits 77 when those are missing.

NETNS_ID=${NETNS_ID:-cpv$$}
NETNS_HOSTS=0
NETNS_NET=10.213.0
NETNS_DIR=
NETNS_UP=0

netns_check() {
	if ! command -v ip >/dev/null 2>&1; then
		echo "SKIP: iproute2 (ip) is not installed" >&2
		exit 77
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: network namespaces need root" >&2
		exit 77
	fi
	if ! ip netns add "${NETNS_ID}probe" 2>/dev/null; then
		echo "SKIP: cannot create network namespaces here" >&2
		exit 77
	fi
	if ! ip -n "${NETNS_ID}probe" link add br0 type bridge 2>/dev/null; then
		ip netns del "${NETNS_ID}probe"
		echo "SKIP: this kernel cannot make bridges" >&2
		exit 77
	fi
	ip netns del "${NETNS_ID}probe"
	command -v unshare >/dev/null 2>&1 || { echo "SKIP: unshare missing" >&2; exit 77; }
}

netns_name() { echo "${NETNS_ID}h$1"; }

# netns_up N WORKDIR: create node1..nodeN (see above); WORKDIR holds the
# map the rsh script reads.
netns_up() {
	local n=$1 i ns
	NETNS_DIR=$2/netns
	mkdir -p "$NETNS_DIR"
	NETNS_HOSTS=$n
	NETNS_UP=1
	[ -n "$(trap -p EXIT)" ] || trap 'netns_down' EXIT
	ip netns add "${NETNS_ID}sw" || return 1
	ip -n "${NETNS_ID}sw" link add br0 type bridge forward_delay 0 \
		stp_state 0 || return 1
	ip -n "${NETNS_ID}sw" link set br0 up
	ip -n "${NETNS_ID}sw" link set lo up
	{
		echo "127.0.0.1 localhost"
		for i in $(seq "$n"); do echo "$NETNS_NET.$i node$i"; done
	} >"$NETNS_DIR/hosts"
	: >"$NETNS_DIR/map"
	for i in $(seq "$n"); do
		ns=$(netns_name "$i")
		ip netns add "$ns" || return 1
		mkdir -p "/etc/netns/$ns"
		cp "$NETNS_DIR/hosts" "/etc/netns/$ns/hosts"
		# no name server: a name not in the hosts file fails at once
		echo "nameserver 127.0.0.1" >"/etc/netns/$ns/resolv.conf"
		ip -n "$ns" link set lo up
		netns_plug "$i" || return 1
		echo "node$i $ns $NETNS_NET.$i" >>"$NETNS_DIR/map"
	done
	# the bridge forwards at once (no STP, no forward delay); a ping, if
	# there is one, makes sure of it
	if command -v ping >/dev/null 2>&1; then
		for i in $(seq 2 "$n"); do
			ip netns exec "$(netns_name "$i")" ping -c1 -W2 \
				"$NETNS_NET.1" >/dev/null 2>&1
		done
	fi
	export NETNS_MAP=$NETNS_DIR/map
	return 0
}

# netns_plug I: node I's cable to the bridge (a veth pair, eth0 in the
# host, v<I> on the bridge).
netns_plug() {
	local ns
	ns=$(netns_name "$1")
	ip -n "$ns" link add eth0 type veth peer name "v$1" netns "${NETNS_ID}sw" ||
		return 1
	ip -n "${NETNS_ID}sw" link set "v$1" master br0
	ip -n "${NETNS_ID}sw" link set "v$1" up
	ip -n "$ns" addr add "$NETNS_NET.$1/24" dev eth0
	ip -n "$ns" link set eth0 up
}

# netns_slow I MS PERCENT [SEED]: replaces node I's cable by a slow and
# lossy one: every frame between node I and the bridge waits MS
# milliseconds each way, and PERCENT % of them are dropped each way.
# With netem (NETNS_NETEM=1, or unset and the kernel has sch_netem):
# netem qdiscs on both ends of the veth pair.  Without: the delay line
# (tests/integ/netns/delayline.c; $NETNS_DELAYLINE, by default the one
# built under $top_builddir) between a TAP
# interface eth0 in the host (with the old cable's MAC address) and
# d<I> on the bridge; netns_fast puts the veth pair back.  The names,
# addresses and routes seen by the host do not change.
netns_slow() {
	local i=$1 ms=$2 pc=$3 seed=${4:-$1} ns sw mac k
	local dl=${NETNS_DELAYLINE:-${top_builddir:-.}/tests/integ/netns/delayline}
	ns=$(netns_name "$i")
	sw=${NETNS_ID}sw
	if [ -z "${NETNS_NETEM:-}" ]; then
		NETNS_NETEM=0
		tc -n "$ns" qdisc add dev eth0 root netem delay 1ms 2>/dev/null &&
			tc -n "$ns" qdisc del dev eth0 root && NETNS_NETEM=1
	fi
	if [ "$NETNS_NETEM" = 1 ]; then
		tc -n "$ns" qdisc add dev eth0 root netem delay "${ms}ms" loss "$pc%" &&
		tc -n "$sw" qdisc add dev "v$i" root netem delay "${ms}ms" loss "$pc%"
		return
	fi
	[ -x "$dl" ] || { echo "netns_slow: $dl is not built" >&2; return 1; }
	mac=$(ip -n "$ns" -o link show eth0 | sed -n 's|.*link/ether \([^ ]*\).*|\1|p')
	echo "$mac" >"$NETNS_DIR/mac$i"
	ip -n "$ns" link del eth0 || return 1
	"$dl" -d "$ms" -l "$pc" -s "$seed" "$ns" eth0 "$sw" "d$i" \
		>"$NETNS_DIR/delayline$i.out" 2>"$NETNS_DIR/delayline$i.err" &
	echo $! >"$NETNS_DIR/delayline$i.pid"
	for k in $(seq 100); do
		grep -qs ready "$NETNS_DIR/delayline$i.out" && break
		kill -0 "$(cat "$NETNS_DIR/delayline$i.pid")" 2>/dev/null || break
		sleep 0.05
	done
	grep -qs ready "$NETNS_DIR/delayline$i.out" ||
		{ cat "$NETNS_DIR/delayline$i.err" >&2; return 1; }
	[ -n "$mac" ] && ip -n "$ns" link set eth0 address "$mac"
	ip -n "$ns" addr add "$NETNS_NET.$i/24" dev eth0 &&
	ip -n "$ns" link set eth0 up &&
	ip -n "$sw" link set "d$i" master br0 &&
	ip -n "$sw" link set "d$i" up
}

# netns_fast I: node I's plain cable again (after netns_slow), with the
# same MAC address; what the delay line says it passed and dropped goes
# to stdout.
netns_fast() {
	local i=$1 ns pidf
	ns=$(netns_name "$i")
	pidf=$NETNS_DIR/delayline$i.pid
	if [ "${NETNS_NETEM:-0}" = 1 ]; then
		tc -n "$ns" qdisc del dev eth0 root
		tc -n "${NETNS_ID}sw" qdisc del dev "v$i" root
		return 0
	fi
	[ -f "$pidf" ] || return 0
	kill -TERM "$(cat "$pidf")" 2>/dev/null
	# not a child when called from another shell: wait by polling
	while kill -0 "$(cat "$pidf")" 2>/dev/null; do sleep 0.05; done
	rm -f "$pidf"
	cat "$NETNS_DIR/delayline$i.err"
	ip -n "$ns" link del eth0 2>/dev/null
	netns_plug "$i" || return 1
	# the old address: the other hosts' neighbour tables stay right
	ip -n "$ns" link set eth0 address "$(cat "$NETNS_DIR/mac$i")"
}

# netns_pids HOST-INDEX: the processes in that host's namespace.
netns_pids() {
	ip netns pids "$(netns_name "$1")" 2>/dev/null
}

# netns_all_pids: the processes in every host's namespace.
netns_all_pids() {
	local i
	for i in $(seq "$NETNS_HOSTS"); do netns_pids "$i"; done
}

# netns_teardown: kill what runs in the hosts, remove them (idempotent).
netns_teardown() {
	local i ns pid
	if [ "$NETNS_UP" = 1 ]; then
		for pid in "$NETNS_DIR"/delayline*.pid; do
			[ -f "$pid" ] && kill -TERM "$(cat "$pid")" 2>/dev/null
		done
		for i in $(seq "$NETNS_HOSTS"); do
			ns=$(netns_name "$i")
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
		done
		for i in $(seq "$NETNS_HOSTS"); do
			ns=$(netns_name "$i")
			ip netns del "$ns" 2>/dev/null
			rm -rf "/etc/netns/$ns"
		done
		ip netns del "${NETNS_ID}sw" 2>/dev/null
		NETNS_UP=0
	fi
	return 0
}

netns_down() {
	local rc=$?
	trap - EXIT
	netns_teardown
	exit $rc
}

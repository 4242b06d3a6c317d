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
		ip -n "$ns" link add eth0 type veth peer name "v$i" netns "${NETNS_ID}sw" ||
			return 1
		ip -n "${NETNS_ID}sw" link set "v$i" master br0
		ip -n "${NETNS_ID}sw" link set "v$i" up
		ip -n "$ns" addr add "$NETNS_NET.$i/24" dev eth0
		ip -n "$ns" link set eth0 up
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

#!/bin/bash
# bench-mh-ringvariants.sh - the ways of receiving and sending a TCP
# message with and without io_uring, with no PVM, between two emulated
# hosts (network namespaces, tests/integ/netns/netns.sh): the measurement
# behind lib/transport/uring.c's split (the ring sends, the socket
# receives) and COPVM_URING_ZC's default (docs/results/uring.md, session
# 9).  bench/ringpingpong.c explains the modes: s (sockets),
# u (copvm's ring before session 9), m (multishot recv), r (ring recv),
# h (ring send), z and Z (zero-copy sends).  The client runs on node1
# pinned to CPU 0, the echo on node2 pinned to CPU 1; the modes take turns
# within each round.  Prints each mode's median over the rounds of the
# mean round trip, and its ratio to the sockets' (s).  Not part of `make
# check': timings are for reading, not asserting.
#
# usage: bench/bench-mh-ringvariants.sh [-n rounds] [-s sizes] [-m modes]
#   (as root, from the top source or build directory; needs liburing-dev)
#   -n rounds  default 7
#   -s sizes   comma list of message sizes in bytes (default 8,65536,1048576)
#   -m modes   letters (default sumrh)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integ/netns/netns.sh"

rounds=7 sizes=8,65536,1048576 modes=sumrh
while getopts n:s:m: o; do
	case $o in
	n) rounds=$OPTARG ;;
	s) sizes=$OPTARG ;;
	m) modes=$OPTARG ;;
	*) echo "usage: $0 [-n rounds] [-s sizes] [-m modes]" >&2; exit 2 ;;
	esac
done
netns_check
W=$(mktemp -d /tmp/ringvariants.XXXXXX)
trap 'netns_teardown; rm -rf "$W"' EXIT
${CC:-cc} -O2 -o "$W/ringpingpong" "$here/ringpingpong.c" -luring ||
	{ echo "cannot build ringpingpong (liburing-dev?)" >&2; exit 1; }
netns_up 2 "$W" || { echo "cannot make the hosts" >&2; exit 1; }
n1=$(netns_name 1) n2=$(netns_name 2)

# Round trips timed per size: enough for a few tenths of a second.
reps_for() {
	if [ "$1" -ge 1048576 ]; then echo 300
	elif [ "$1" -ge 65536 ]; then echo 2000
	else echo 20000; fi
}

port=7100
: >"$W/all"
for r in $(seq "$rounds"); do
	for size in ${sizes//,/ }; do
		reps=$(reps_for "$size")
		for mode in $(echo "$modes" | grep -o .); do
			port=$((port + 1))
			timeout 120 ip netns exec "$n2" taskset -c 1 \
				"$W/ringpingpong" serve $port "$mode" "$size" "$reps" &
			spid=$!
			timeout 120 ip netns exec "$n1" taskset -c 0 \
				"$W/ringpingpong" "$NETNS_NET.2" $port "$mode" "$size" \
				"$reps" >>"$W/all" || echo "mode $mode, $size B: failed" >&2
			wait "$spid"
		done
	done
	echo "round $r of $rounds done ($(uptime | sed 's/.*load/load/'))" >&2
done

echo "median over $rounds rounds of the mean round trip (us); ratio to s"
printf '%-5s %9s %10s %8s\n' mode bytes rt_us ratio
perl -e '
	my (%v, %order, $n);
	while (<STDIN>) {
		my ($m, $s, $t) = split;
		push @{$v{"$s $m"}}, $t;
		$order{"$s $m"} //= $n++;
	}
	sub med { my @a = sort { $a <=> $b } @_; return $a[int($#a / 2)]; }
	for my $k (sort { (split " ", $a)[0] <=> (split " ", $b)[0] ||
			  $order{$a} <=> $order{$b} } keys %v) {
		my ($s, $m) = split " ", $k;
		my $base = $v{"$s s"} ? med(@{$v{"$s s"}}) : 0;
		my $med = med(@{$v{$k}});
		printf "%-5s %9d %10.2f %8s\n", $m, $s, $med,
			$base ? sprintf("%.2f", $med / $base) : "-";
	}' <"$W/all"

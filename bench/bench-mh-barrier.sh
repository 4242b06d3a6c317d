#!/bin/bash
# bench-mh-barrier.sh - pvm_barrier across four emulated hosts (network
# namespaces, tests/integ/netns/), stock PVM and copvm side by side in one
# run, several times; prints per group size the median over the runs of
# each side's mean pvm_barrier time and the ratio stock/copvm (above 1:
# copvm is faster).  Not part of `make check': timings on shared machines
# are for reading, not asserting.
#
# usage: bench/bench-mh-barrier.sh [-n runs] [-i iters] [-t "2 4 8"]
#   (from the top build directory, after `make check' has built
#   tests/integ/netns/mhgroup; needs root)
#   -n runs   alternate stock and copvm runs this many times (default 5)
#   -i iters  barriers timed per group size and run (default 1000)
#   -t sizes  group sizes (default "2 4 8")
# `mhgroup bench' (tests/integ/netns/mhgroup.c) times the barriers on
# node1 with member k on node(k % 4 + 1): 2 tasks on node1 and node2, 4
# one per host, 8 two per host.  The group server is wherever the
# library's spawn puts it (the table says where).  Each run starts a
# fresh machine of four hosts per side and halts it.  The stock binary is
# the same source built against Debian's pvm3.h, -lgpvm3 and -lpvm3, with
# Debian's pvmgs; copvm's uses our libraries and group/pvmgs.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/integ/netns/mh.sh"

runs=5
iters=1000
sizes="2 4 8"
while getopts n:i:t: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	i) iters=$OPTARG ;;
	t) sizes=$OPTARG ;;
	*) echo "usage: $0 [-n runs] [-i iters] [-t sizes]" >&2; exit 2 ;;
	esac
done

mh_init bench-mh-barrier 4
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
# the group server is found by name on the spawn path (below)
eval "bmb_plain_env() $(declare -f mh_env | sed 1d)"
mh_env() { echo "-u COPVM_PVMGS $(bmb_plain_env "$1")"; }

declare -A prog server
prog[copvm]=$top_builddir/tests/integ/netns/mhgroup
server[copvm]=$top_builddir/group/pvmgs
[ -x "${prog[copvm]}" ] || die "${prog[copvm]} is missing (make check builds it)"
[ -x "${server[copvm]}" ] || die "${server[copvm]} is missing (run make first)"
prog[stock]=$W/mhgroup-stock
server[stock]=$STOCK_ROOT/lib/pvmgs
${CC:-cc} -O2 -o "${prog[stock]}" "$top_srcdir/tests/integ/netns/mhgroup.c" \
	-I/usr/include -lgpvm3 -lpvm3 || die "cannot build mhgroup against stock PVM"
# INTEG_SELFTEST runs both sides on stock
if [ "${IMPL[copvm]}" = stock ]; then
	prog[copvm]=${prog[stock]}
	server[copvm]=${server[stock]}
fi
for side in stock copvm; do
	for i in $(seq "$MH_HOSTS"); do
		d=$W/$side/hosts/node$i/home/pvm3/bin/LINUX64
		mkdir -p "$d"
		ln -sf "${prog[$side]}" "$d/mhgroup"
		ln -sf "${server[$side]}" "$d/pvmgs"
	done
done

for i in $(seq "$runs"); do
	for side in stock copvm; do
		mh_begin "$side"
		for n in $sizes; do
			mh_run "$side" node1 "run$i-$n" -- "${prog[$side]}" bench \
				-n "$n" -i "$iters"
			if [ "$(cat "$W/$side/out/run$i-$n.rc")" != 0 ]; then
				cat "$W/$side/out/run$i-$n.err" >&2
				fail "$side: mhgroup bench -n $n run $i failed"
			fi
		done
		mh_end "$side"
	done
	log "run $i of $runs done"
done

# Lines of mhgroup bench:
# "barrier tasks N iters I usec T hosts H server NODE".
for side in stock copvm; do
	cat "$W/$side"/out/run*.out |
		awk -v s="$side" '$1 == "barrier" { print s, $3, $7, $9, $11 }'
done >"$W/all"
echo "medians of $runs runs of $iters barriers over 4 hosts (microseconds per pvm_barrier)"
printf '%6s %6s %12s %12s %12s %14s\n' tasks hosts stock_us copvm_us stock/copvm \
	server_s/c
perl -e '
	my (%t, %hosts, %srv);
	while (<STDIN>) {
		my ($side, $n, $us, $h, $where) = split;
		push @{$t{$side}{$n}}, $us;
		$hosts{$n} = $h;
		$srv{$side}{$n}{$where}++;
	}
	sub median { my @v = sort { $a <=> $b } @_; return 0 unless @v;
		return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2; }
	# where the server ran, most often
	sub where { my $h = shift; return "-" unless $h;
		return (sort { $h->{$b} <=> $h->{$a} } keys %$h)[0]; }
	for my $n (sort { $a <=> $b } keys %hosts) {
		my $s = median(@{$t{stock}{$n} // []});
		my $c = median(@{$t{copvm}{$n} // []});
		printf "%6d %6d %12.2f %12.2f %12s %14s\n", $n, $hosts{$n}, $s, $c,
			$c > 0 ? sprintf("%.2f", $s / $c) : "-",
			where($srv{stock}{$n}) . "/" . where($srv{copvm}{$n});
	}' <"$W/all"
integ_finish

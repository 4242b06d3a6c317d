#!/bin/bash
# bench-mh-mcast.sh - pvm_mcast and SYNCH1 across four emulated hosts
# (network namespaces, tests/integ/netns/), with stock PVM, copvm over
# plain sockets (COPVM_URING=0) and copvm over io_uring (COPVM_URING=1) in
# one run, several times; prints the median over the runs of each
# figure.  Then the system calls of the multicasting task per round,
# for each copvm backend.  Not part of `make check': timings on shared
# machines are for reading, not asserting.
#
# usage: bench/bench-mh-mcast.sh [-n runs] [-r reps] [-b nrept] [-d]
#   (from the top build directory, after `make check' has built
#   tests/integ/netns/mhmcast; needs root; perf for the system calls)
#   -n runs   runs of the three systems (default 5); run i starts with
#             system i mod 3, so that each meets the same load
#   -r reps   acked multicast rounds timed per size (default 2000)
#   -b nrept  SYNCH1's -r (sequences of 10 barriers; default 100)
#   -d        the multicasts go through the daemons (mhmcast -d,
#             PvmDontRoute), not over direct routes: with COPVM_URING=1
#             copvm's daemons then batch their links' writes (daemon/ring.c)
# Each run starts a fresh machine of four hosts per system and halts it:
#   mhmcast bench -s 8 and -s 65536 (tests/integ/netns/mhmcast.c): node1
#     multicasts to one task on each of node2..node4 (direct routes), each
#     answers with a small ack; the time of a round (mcast + 3 acks),
#     median over the reps, and of the pvm_mcast call alone;
#   synch1 -n 4 (examples/synch1.c, PARKBENCH SYNCH1): one task per host,
#     the mean pvm_barrier time; the group server is wherever the group
#     library's spawn puts it.
# The stock binaries are the same sources built against Debian's pvm3.h,
# -lgpvm3 and -lpvm3, with Debian's pvmgs; copvm's use our libraries and
# group/pvmgs.  The system calls: `perf stat' on mhmcast (node1) counts
# raw_syscalls:sys_enter and io_uring_enter over a run of -r rounds (its
# start spread over them), three runs per backend and size, median.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/integ/netns/mh.sh"

runs=5
reps=2000
nrept=100
mcargs=()
while getopts n:r:b:d opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	b) nrept=$OPTARG ;;
	d) mcargs+=(-d) ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-b nrept] [-d]" >&2; exit 2 ;;
	esac
done

mh_init bench-mh-mcast 4
[ "${IMPL[copvm]}" = copvm ] || die "copvm only (three systems)"
INTEG_TIMEOUT=${INTEG_TIMEOUT:-600}
# the group server is found by name on the spawn path (below)
eval "bmm_plain_env() $(declare -f mh_env | sed 1d)"
mh_env() { echo "-u COPVM_PVMGS $(bmm_plain_env "$1")"; }

declare -A mc sy server
mc[copvm]=$top_builddir/tests/integ/netns/mhmcast
sy[copvm]=$top_builddir/examples/synch1
server[copvm]=$top_builddir/group/pvmgs
for f in "${mc[copvm]}" "${sy[copvm]}" "${server[copvm]}"; do
	[ -x "$f" ] || die "$f is missing (make check builds it)"
done
mc[stock]=$W/mhmcast-stock
sy[stock]=$W/synch1-stock
server[stock]=$STOCK_ROOT/lib/pvmgs
${CC:-cc} -O2 -o "${mc[stock]}" "$top_srcdir/tests/integ/netns/mhmcast.c" \
	-I/usr/include -lpvm3 || die "cannot build mhmcast against stock PVM"
${CC:-cc} -O2 -o "${sy[stock]}" "$top_srcdir/examples/synch1.c" \
	"$top_srcdir/bench/pvmbench.c" "$top_srcdir/bench/util.c" \
	-I/usr/include -I"$top_srcdir/bench" -lgpvm3 -lpvm3 -lm ||
	die "cannot build synch1 against stock PVM"
for side in stock copvm; do
	for i in $(seq "$MH_HOSTS"); do
		d=$W/$side/hosts/node$i/home/pvm3/bin/LINUX64
		mkdir -p "$d"
		ln -sf "${mc[$side]}" "$d/mhmcast"
		ln -sf "${server[$side]}" "$d/pvmgs"
	done
done

# one SYSTEM RUN: a fresh machine, the three programs, halted.
one() {
	local sys=$1 i=$2 side=copvm s
	case $sys in
	stock) side=stock; unset COPVM_URING ;;
	sockets) export COPVM_URING=0 ;;
	uring) export COPVM_URING=1 ;;
	esac
	mh_begin "$side"
	for s in 8 65536; do
		mh_run "$side" node1 "$sys-mcast$s-$i" -- "${mc[$side]}" bench \
			-s "$s" -r "$reps" "${mcargs[@]}"
	done
	mh_run "$side" node1 "$sys-synch1-$i" -- "${sy[$side]}" -n 4 -r "$nrept"
	mh_end "$side"
	for s in mcast8 mcast65536 synch1; do
		[ "$(cat "$W/$side/out/$sys-$s-$i.rc")" = 0 ] ||
			fail "$sys: $s run $i failed: $(cat "$W/$side/out/$sys-$s-$i.err")"
	done
	unset COPVM_URING
}

systems=(stock sockets uring)
for i in $(seq "$runs"); do
	for k in 0 1 2; do
		one "${systems[$(( (i - 1 + k) % 3 ))]}" "$i"
	done
	log "run $i of $runs done ($(uptime | sed 's/.*load/load/'))"
done

# system calls of the multicasting task, per round
PERF=$(command -v perf) || PERF=
if [ -n "$PERF" ]; then
	for sys in sockets uring uring sockets sockets uring; do
		if [ $sys = sockets ]; then export COPVM_URING=0; else export COPVM_URING=1; fi
		mh_begin copvm
		for s in 8 65536; do
			n=$(ls "$W"/perf-$sys-$s-*.txt 2>/dev/null | wc -l)
			name=perf-$sys-$s-$((n + 1))
			mh_run copvm node1 "$name" -- "$PERF" stat -x, \
				-e raw_syscalls:sys_enter \
				-e syscalls:sys_enter_io_uring_enter \
				-o "$W/$name.txt" "${mc[copvm]}" bench -s "$s" -r "$reps" \
				"${mcargs[@]}"
			[ "$(cat "$W/copvm/out/$name.rc")" = 0 ] ||
				fail "$name: $(cat "$W/copvm/out/$name.err")"
		done
		mh_end copvm
		unset COPVM_URING
	done
fi

med() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-";
	else if (NR % 2) print v[(NR + 1) / 2];
	else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
side_of() { [ "$1" = stock ] && echo stock || echo copvm; }

echo "4 hosts, medians of $runs runs ($reps acked rounds per mcast size, synch1 -r $nrept)"
printf '%-22s %10s %10s %10s %14s\n' "" stock sockets uring sockets/uring
for s in 8 65536; do
	declare -A v=()
	for sys in stock sockets uring; do
		v[$sys]=$(cat "$W/$(side_of $sys)"/out/$sys-mcast$s-*.out 2>/dev/null |
			awk '$1 == "mcast" { print $9 }' | med)
	done
	printf '%-22s %10s %10s %10s %14s\n' "mcast $s B to 3, us" \
		"${v[stock]}" "${v[sockets]}" "${v[uring]}" \
		"$(awk -v a="${v[sockets]}" -v b="${v[uring]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
	for sys in stock sockets uring; do
		v[$sys]=$(cat "$W/$(side_of $sys)"/out/$sys-mcast$s-*.out 2>/dev/null |
			awk '$1 == "mcast" { print $13 }' | med)
	done
	printf '%-22s %10s %10s %10s %14s\n' "  the pvm_mcast call" \
		"${v[stock]}" "${v[sockets]}" "${v[uring]}" \
		"$(awk -v a="${v[sockets]}" -v b="${v[uring]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
done
declare -A v=()
for sys in stock sockets uring; do
	v[$sys]=$(cat "$W/$(side_of $sys)"/out/$sys-synch1-*.out 2>/dev/null |
		awk '$1 == "RESULT" && $2 == "barrier_us.4" { print $3 }' | med)
done
printf '%-22s %10s %10s %10s %14s\n' "synch1 4 tasks, us" \
	"${v[stock]}" "${v[sockets]}" "${v[uring]}" \
	"$(awk -v a="${v[sockets]}" -v b="${v[uring]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
if [ -n "$PERF" ]; then
	echo "system calls of the multicasting task per round (mcast + 3 acks), median of 3"
	printf '%-8s %8s %12s %16s\n' backend bytes syscalls io_uring_enter
	rounds=$((reps + reps / 10 + 1))
	for sys in sockets uring; do
		for s in 8 65536; do
			a=$(for f in "$W"/perf-$sys-$s-*.txt; do
				awk -F, -v t=$rounds '/raw_syscalls/ { printf "%.2f\n", $1 / t }' "$f"
			done | med)
			b=$(for f in "$W"/perf-$sys-$s-*.txt; do
				awk -F, -v t=$rounds '/io_uring_enter/ { printf "%.2f\n", $1 / t }' "$f"
			done | med)
			printf '%-8s %8s %12s %16s\n' $sys $s "$a" "$b"
		done
	done
fi
integ_finish

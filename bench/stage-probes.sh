#!/bin/bash
# stage-probes.sh - where a same-host 8 B round trip's time goes, point by
# point: builds a scratch copy of this checkout's HEAD with
# bench/stage-probes.patch applied (TSC timestamps at the stages of
# pvm_initsend, pack, pvm_send, the ring, the receive's wait, take and
# unpack), runs bench/vcc_pingpong on it, and prints, per point, the
# median over the runs of the mean time since the point before it, in
# the timing parent and in the echoing child.  The parent packs its next
# message while the child works; the child's figures are the critical
# path: receive, unpack, pack, send.  A probe costs about 10 ns itself (the smallest
# figures).  A benchmark, not a test: docs/results/msg_breakdown.md.
#
# usage: bench/stage-probes.sh [-n runs] [-r reps] [-s size] [-e enc]
#   (from the top build directory of a git checkout, after `make')
set -u
runs=5
reps=200000
size=8
enc=default
while getopts n:r:s:e: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	s) size=$OPTARG ;;
	e) enc=$OPTARG ;;
	*) echo "usage: $0 [-n runs] [-r reps] [-s size] [-e enc]" >&2; exit 2 ;;
	esac
done
top=$PWD
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$top/daemon/pvmd" ] || { echo "run it from the build directory after make" >&2; exit 1; }
work=$(mktemp -d) || exit 1
trap '"$top/tests/tools/pvmhalt" >/dev/null 2>&1; git -C "$src" worktree remove --force "$work/tree" >/dev/null 2>&1; rm -rf "$work"' EXIT
git -C "$src" worktree add -q --detach "$work/tree" HEAD || exit 1
cd "$work/tree" || exit 1
git apply "$src/bench/stage-probes.patch" || { echo "bench/stage-probes.patch no longer applies to HEAD" >&2; exit 1; }
{ autoreconf -fi && ./configure && make -j"$(nproc)" lib/libpvm3.la bench/vcc_pingpong; } >"$work/build.log" 2>&1 ||
	{ echo "the probed build failed: $work/build.log" >&2; tail -20 "$work/build.log" >&2; exit 1; }
export PVM_TMP=$work/tmp HOME=$work/home COPVM_PVMD=$top/daemon/pvmd PVM_ALLOW_ROOT=1
mkdir -p "$PVM_TMP" "$HOME"
unset PVM_ROOT PVM_EXPORT
"$COPVM_PVMD" </dev/null >/dev/null 2>&1 || { echo "pvmd did not start" >&2; exit 1; }
echo "== $(date -u '+%F %T') UTC, $(git -C "$src" rev-parse --short HEAD), $(uname -r), $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
	mkdir "$work/run$i"
	COPVM_PROBE_OUT=$work/run$i/probe PVM_EXPORT=COPVM_PROBE_OUT \
		./bench/vcc_pingpong -r "$reps" -w 1000 -s "$size" -e "$enc" |
		grep RESULT || exit 1
	sleep 0.5	# the echoing child writes its figures as it exits
done
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
perl -e '
	my (%v, %name, %who);
	sub median { my @v = sort { $a <=> $b } @_;
		return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2; }
	for my $dir (@ARGV) {
		# the parent started first: the lower pid (the timed side)
		my @f = sort { ($a =~ /(\d+)$/)[0] <=> ($b =~ /(\d+)$/)[0] }
			glob("$dir/probe.*");
		next unless @f == 2;
		for my $k (0, 1) {
			open(my $h, "<", $f[$k]) or die "$f[$k]: $!";
			while (<$h>) {
				my ($i, $n, $ns, $where) =
					/^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+(.*)$/ or next;
				push @{$v{$k}{$i}}, $ns;
				$name{$i} = $where;
			}
		}
	}
	die "no run left the figures of both tasks\n" unless %v;
	printf "%5s %8s %8s  %s\n", "point", "parent", "child",
		"ns since the point before, up to";
	my %pts = map { $_ => 1 } keys %{$v{0}}, keys %{$v{1}};
	for my $i (sort { $a <=> $b } keys %pts) {
		printf "%5d %8s %8s  %s\n", $i,
			map({ $v{$_}{$i} ? sprintf("%.1f", median(@{$v{$_}{$i}})) : "-" } 0, 1),
			$name{$i};
	}
' "$work"/run*

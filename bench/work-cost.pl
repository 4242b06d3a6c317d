#!/usr/bin/perl
# work-cost.pl - what a coscheduling system's Gain costs the local jobs, in
# a bench-cluster.sh run with never-yielding local jobs: reads its
# runs.csv and prints, per benchmark and system, the medians over the
# repetitions (each paired with the LIN run of the same repetition) of
#   gain     the jobs' mean Gain over LIN (their rate of work over LIN's);
#   keep     the local calcula2's share over its share under LIN;
#   rest     the CPU the local jobs leave (1 - k * share): the parallel
#            jobs, their daemons and the agent, per node;
#   cost     rest over LIN's rest, per unit of Gain: the CPU one unit of
#            the jobs' work takes, LIN's being 1;
#   bound    the highest Gain that leaves the local jobs 0.9 of their LIN
#            share at that cost: (1 - 0.9 k share_LIN) / (rest_LIN cost).
# The k local jobs are busy loops on one CPU and take equal shares, so
# each one's share is calcula2's.  A report's arithmetic, not a test.
#
# usage: bench/work-cost.pl [-x keep] runs.csv
use strict;
use warnings;

my $want = 0.9;
if (@ARGV >= 2 && $ARGV[0] eq '-x') {
	shift;
	$want = shift;
}
die "usage: $0 [-x keep] runs.csv\n" unless @ARGV == 1;

sub median {
	my @v = sort { $a <=> $b } @_;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

open(my $in, '<', $ARGV[0]) or die "$ARGV[0]: $!\n";
my $head = <$in>;
chomp $head;
my @cols = split /,/, $head;
my %at = map { $cols[$_] => $_ } 0 .. $#cols;
for (qw(bench system k rep status lo job_times_s)) {
	die "$ARGV[0]: no column $_\n" unless exists $at{$_};
}
my (%run, @order, %seen);
while (<$in>) {
	chomp;
	my @f = split /,/;
	next unless $f[$at{status}] eq 'ok' && $f[$at{lo}] ne '';
	my ($b, $s, $k, $r) = @f[@at{qw(bench system k rep)}];
	$run{"$b,$k,$r"}{$s} = { lo => $f[$at{lo}],
				   jobs => [split ' ', $f[$at{job_times_s}]] };
	push @order, "$b,$k,$s" unless $seen{"$b,$k,$s"}++;
}

my %acc;
for my $key (keys %run) {
	my ($b, $k, $r) = split /,/, $key;
	my $lin = $run{$key}{lin} or next;
	next unless $k > 0;
	for my $s (keys %{$run{$key}}) {
		next if $s eq 'lin';
		my $x = $run{$key}{$s};
		my @g;
		for my $j (0 .. $#{$x->{jobs}}) {
			next unless $lin->{jobs}[$j] && $x->{jobs}[$j];
			push @g, $lin->{jobs}[$j] / $x->{jobs}[$j];
		}
		next unless @g;
		my $gain = 0;
		$gain += $_ / @g for @g;
		my $rest_lin = 1 - $k * $lin->{lo};
		my $rest = 1 - $k * $x->{lo};
		next unless $rest_lin > 0 && $gain > 0;
		my $cost = $rest / $rest_lin / $gain;
		my $a = $acc{"$b,$k,$s"} //= {};
		push @{$a->{gain}}, $gain;
		push @{$a->{keep}}, $x->{lo} / $lin->{lo};
		push @{$a->{rest_lin}}, $rest_lin;
		push @{$a->{rest}}, $rest;
		push @{$a->{cost}}, $cost;
		push @{$a->{bound}}, (1 - $want * $k * $lin->{lo}) / ($rest_lin * $cost);
	}
}

printf "%-8s %-8s %2s %4s %6s %6s %8s %6s %6s %6s\n", qw(bench system k reps
	gain keep rest_lin rest cost), "bound";
for my $key (@order) {
	my $a = $acc{$key} or next;
	my ($b, $k, $s) = split /,/, $key;
	printf "%-8s %-8s %2d %4d %6.2f %6.2f %8.3f %6.3f %6.2f %6.2f\n",
		$b, $s, $k, scalar @{$a->{gain}},
		map { median(@{$a->{$_}}) } qw(gain keep rest_lin rest cost bound);
}
print "bound: the highest Gain that keeps the local jobs $want of their LIN share at the system's cost per unit of work\n";

#!/usr/bin/perl
# frontier-report.pl - the table of bench/frontier.sh: reads its runs.tsv
# on standard input and prints, per configuration and size (in the order
# first seen), the medians over the runs of the mean, median and p99
# round trips, of the local jobs' share (mean of the two nodes), of that
# share over LIN's in the same run ("keep", when LIN ran), of the job's
# share, and the mean round trip over raw-sleep's and raw-spin's of the
# same run.
use strict;
use warnings;

my (%rows, @order, %seen, %lin, %sleep, %spin);
<STDIN>;	# the header
my @all;
while (<STDIN>) {
	chomp;
	my ($run, $cfg, $bytes, $mean, $median, $p99, $l1, $l2, $j1, $j2) = split /\t/;
	next unless defined $j2;
	my $r = { run => $run, cfg => $cfg, bytes => $bytes, mean => $mean,
		  median => $median, p99 => $p99, loops => ($l1 + $l2) / 2,
		  job => ($j1 + $j2) / 2 };
	push @all, $r;
	$lin{"$run/$bytes"} = $r->{loops} if $cfg eq 'lin';
	$sleep{"$run/$bytes"} = $mean if $cfg eq 'raw-sleep';
	$spin{"$run/$bytes"} = $mean if $cfg eq 'raw-spin';
	my $key = "$cfg\t$bytes";
	push @order, $key unless $seen{$key}++;
}

sub median {
	my @v = sort { $a <=> $b } grep { defined } @_;
	return undef unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub fmt {
	my ($f, $v) = @_;
	return defined $v ? sprintf($f, $v) : '-';
}

printf "%-20s %6s %9s %9s %9s %6s %6s %6s %8s %8s\n", 'config', 'bytes',
	'mean_us', 'median', 'p99', 'loops', 'keep', 'job', '/sleep', '/spin';
for my $key (@order) {
	my ($cfg, $bytes) = split /\t/, $key;
	my @rs = grep { $_->{cfg} eq $cfg && $_->{bytes} eq $bytes } @all;
	my (@keep, @rsl, @rsp);
	for my $r (@rs) {
		my $k = "$r->{run}/$bytes";
		push @keep, $r->{loops} / $lin{$k} if $lin{$k};
		push @rsl, $r->{mean} / $sleep{$k} if $sleep{$k};
		push @rsp, $r->{mean} / $spin{$k} if $spin{$k};
	}
	printf "%-20s %6s %9s %9s %9s %6s %6s %6s %8s %8s\n", $cfg, $bytes,
		fmt('%.1f', median(map { $_->{mean} } @rs)),
		fmt('%.1f', median(map { $_->{median} } @rs)),
		fmt('%.1f', median(map { $_->{p99} } @rs)),
		fmt('%.3f', median(map { $_->{loops} } @rs)),
		fmt('%.3f', median(@keep)),
		fmt('%.3f', median(map { $_->{job} } @rs)),
		fmt('%.2f', median(@rsl)), fmt('%.2f', median(@rsp));
}

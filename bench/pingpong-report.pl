#!/usr/bin/perl
# pingpong-report.pl RUNS: the table of bench-pingpong.sh and
# bench-mh-pingpong.sh.  Reads lines "SIDE bytes reps median_us mean_us
# p90_us MB/s" (SIDE stock or copvm, one line per length and run) and
# prints, per length, the medians over the runs of both sides and their
# ratios.  Lines of other sides (bench-mh-pingpong.sh -u, -t: uring,
# raw) add a second table with every side's median and MB/s.
use strict;
use warnings;

my $runs = shift // '?';
my (%med, %mean, %bw, %sizes);
while (<STDIN>) {
	my ($side, $bytes, $reps, $median, $avg, $p90, $mbs) = split;
	next unless defined $mbs;
	push @{$med{$side}{$bytes}}, $median;
	push @{$mean{$side}{$bytes}}, $avg;
	push @{$bw{$side}{$bytes}}, $mbs;
	$sizes{$bytes} = 1;
}

sub median {
	my @v = sort { $a <=> $b } @_;
	return 0 unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub of { my ($h, $side, $b) = @_; return median(@{$h->{$side}{$b} // []}); }

print "medians of $runs runs (round trip in microseconds; MB/s = 2 * bytes / median)\n";
printf "%10s %12s %12s %10s %10s %12s %12s\n", 'bytes', 'stock_us', 'copvm_us',
	'stock_MB/s', 'copvm_MB/s', 'stock/copvm', 'stock_mean/copvm';
for my $b (sort { $a <=> $b } keys %sizes) {
	my ($s, $c) = (of(\%med, 'stock', $b), of(\%med, 'copvm', $b));
	my ($sm, $cm) = (of(\%mean, 'stock', $b), of(\%mean, 'copvm', $b));
	printf "%10d %12.2f %12.2f %10.2f %10.2f %12s %12s\n", $b, $s, $c,
		of(\%bw, 'stock', $b), of(\%bw, 'copvm', $b),
		$c > 0 ? sprintf('%.2f', $s / $c) : '-',
		$cm > 0 ? sprintf('%.2f', $sm / $cm) : '-';
}

my @extra = grep { $_ ne 'stock' && $_ ne 'copvm' } sort keys %med;
if (@extra) {
	my @sides = ('stock', 'copvm', @extra);
	print "every side: median round trip in microseconds (MB/s)\n";
	printf "%10s", 'bytes';
	printf " %20s", $_ for @sides;
	print "\n";
	for my $b (sort { $a <=> $b } keys %sizes) {
		printf "%10d", $b;
		printf " %20s", sprintf('%.2f (%.1f)', of(\%med, $_, $b),
					of(\%bw, $_, $b)) for @sides;
		print "\n";
	}
}

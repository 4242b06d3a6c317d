#!/usr/bin/perl
# frontier-report.pl - the table of bench/frontier.sh: reads its runs.tsv
# on standard input and prints, per configuration and size (in the order
# first seen), the medians over the runs of the mean, median and p99
# round trips, of the local jobs' share (mean of the two nodes), of that
# share over LIN's in the same run ("keep", when LIN ran), of the job's
# share, and the mean round trip over raw-sleep's and raw-spin's of the
# same run.  With a directory as its argument, it also writes there
# frontier.dat and frontier.gp and runs gnuplot: frontier-SIZE.png, the
# mean round trip against the local jobs' share ("keep"), one point per
# configuration, the two limits as lines.
use strict;
use warnings;

my $plotdir = shift;

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

my @points;
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
	push @points, [$cfg, $bytes, median(map { $_->{mean} } @rs),
		       median(@keep), median(map { $_->{loops} } @rs)];
}

exit 0 unless $plotdir;
my %sizes = map { $_->[1] => 1 } @points;
open my $dat, '>', "$plotdir/frontier.dat" or die "frontier.dat: $!\n";
open my $gp, '>', "$plotdir/frontier.gp" or die "frontier.gp: $!\n";
print $gp "set terminal png size 900,600\n",
	"set logscale y\n",
	qq{set xlabel "local jobs: their CPU share / LIN's (same run)"\n},
	"set ylabel 'mean round trip (us), log scale'\n",
	"set key top right\n", "set grid\n";
my $block = 0;
for my $size (sort { $a <=> $b } keys %sizes) {
	my @p = grep { $_->[1] eq $size && defined $_->[2] } @points;
	my ($sleep) = map { $_->[2] } grep { $_->[0] eq 'raw-sleep' } @p;
	my ($spin) = map { $_->[2] } grep { $_->[0] eq 'raw-spin' } @p;
	for my $q (@p) {
		printf $dat "%s %s %s\n", defined $q->[3] ? $q->[3] : $q->[4],
			$q->[2], $q->[0];
	}
	print $dat "\n\n";
	print $gp "set output '$plotdir/frontier-$size.png'\n",
		qq{set title "Round trip against the local jobs' share, $size B"\n},
		"plot '$plotdir/frontier.dat' index $block using 1:2 with points pt 7 ps 1.5 title 'configurations (raw-*: the limits)', ",
		"'' index $block using 1:2:3 with labels offset 0,1 font ',9' notitle";
	print $gp ", $sleep with lines dt 2 title 'sleeping limit (raw TCP, FIFO, recv)'" if defined $sleep;
	print $gp ", $spin with lines dt 3 title 'spinning limit (raw TCP, FIFO, spin)'" if defined $spin;
	print $gp "\n";
	$block++;
}
close $dat;
close $gp;
system('gnuplot', "$plotdir/frontier.gp") == 0 or warn "frontier-report.pl: gnuplot failed\n";

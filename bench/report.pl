#!/usr/bin/perl
# report.pl - the report of an emulated-cluster run: reads runs.csv,
# metrics.csv and settings.txt from a results directory (written by
# bench/bench-cluster.sh) and writes results.md and the PNG plots
# (through gnuplot) into it.
#
# Per benchmark, number of nodes, system and number of local jobs per
# node k, the figure is the median over the repetitions that succeeded.
# Tables follow the paper's layout: one column per k, rows for each
# system's execution time, then the Gains and LO = ET_dedicated /
# ET_nondedicated of calcula2 for each system (1: the local job did not
# slow down at all).  Runs that failed are counted and their reasons
# listed under the table, never averaged in.
#
# Systems are those of runs.csv, in their order there.  With only stock
# and copvm (the classic report) there is one Gain = T_stock / T_copvm
# (stock plays the paper's reference, plain PVM on plain Linux: above 1,
# copvm is faster).  With coscheduling models (lin, imp, hpdt, dyn, pre,
# dcs, exp, dynP, preP), each model gets Gain over LIN = T_lin / T_model
# (the thesis's Gain: the same message passing without coscheduling) and
# Gain over stock = T_stock / T_model, and a summary names the best model
# per benchmark at k = 5 (or the largest k run).  Runs of two parallel
# jobs (bench-cluster.sh -J 2): T is the mean of the two jobs' times, and
# each job's time has its own row, with the ratio of the slower job's
# time to the faster's (the median over the runs), and a summary lists
# every run's two times, their ratio, each job's Gain over LIN (against
# the same job of the LIN run of the same benchmark, k and repetition)
# and LO; with two users (-U 2) job 1 is the harness's user, job 2 the
# second user.  COMMS1's round trip of 8 bytes is
# 2 t(8 B) (t_us.8 is half a round trip).
#
# Trace files (bench-cluster.sh -T: logs/<bench>.<system>.k<k>.r<rep>.trace,
# lines "<ns> <pid> <tid hex> <event> <level> <target tid hex> <F>"): for
# one cell (--trace-cell BENCH.kK.rR; default: the first benchmark, the
# first repetition, the largest k), a timeline per copvm system drawn by
# tools/copvm-trace-plot (copvm-cosched plot): one row per task, its
# boost level as steps and its events as points, and F over time.
#
# usage: report.pl [--no-plots] [--trace-cell BENCH.kK.rR] DIR
# Only core Perl is used (Debian's perl-base), and gnuplot for the plots.
use strict;
use warnings;
use FindBin;

my $plots = 1;
my $trace_cell;
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $o = shift @ARGV;
	if ($o eq '--no-plots') {
		$plots = 0;
	} elsif ($o eq '--trace-cell' && @ARGV) {
		$trace_cell = shift @ARGV;
	} else {
		die "usage: report.pl [--no-plots] [--trace-cell BENCH.kK.rR] DIR\n";
	}
}
my $dir = shift @ARGV or die "usage: report.pl [--no-plots] [--trace-cell BENCH.kK.rR] DIR\n";

my @order = qw(comms1 comms2 synch1 sinring sintree mslave);
my %title = (comms1 => 'COMMS1 (ping-pong)', comms2 => 'COMMS2 (exchange)',
	synch1 => 'SYNCH1 (barrier)', sinring => 'sinring (logical ring)',
	sintree => 'sintree (one to many to one)',
	mslave => 'master-slave');

sub read_csv {
	my ($file) = @_;
	open(my $f, '<', $file) or die "report.pl: $file: $!\n";
	my $head = <$f>;
	die "report.pl: $file is empty\n" unless defined $head;
	chomp $head;
	my @cols = split /,/, $head;
	my @rows;
	while (my $line = <$f>) {
		chomp $line;
		next if $line eq '';
		my @v = split /,/, $line, -1;
		my %r;
		@r{@cols} = @v;
		push @rows, \%r;
	}
	close $f;
	return @rows;
}

sub median {
	my @v = sort { $a <=> $b } grep { defined && $_ ne '' } @_;
	return undef unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub fmt {
	my ($v) = @_;
	return '–' unless defined $v;
	my $a = abs $v;
	return sprintf('%.0f', $v) if $a >= 1000;
	return sprintf('%.1f', $v) if $a >= 100;
	return sprintf('%.2f', $v) if $a >= 1;
	return sprintf('%.3f', $v);
}

my @runs = read_csv("$dir/runs.csv");
# ET_dedicated: each node's smallest time alone (other work on the machine
# only ever adds to it), averaged over the nodes.  With dedicated.csv,
# every LO is recomputed against the final value; the lo column of
# runs.csv used the smallest value known when the run was made.
my ($ded, %dmin, $dcount);
if (-e "$dir/dedicated.csv") {
	for my $d (read_csv("$dir/dedicated.csv")) {
		$dcount++;
		$dmin{$d->{node}} = $d->{elapsed_s}
			if !defined $dmin{$d->{node}} || $d->{elapsed_s} < $dmin{$d->{node}};
	}
	if (%dmin) {
		$ded = 0;
		$ded += $_ for values %dmin;
		$ded /= scalar keys %dmin;
	}
}
if (defined $ded) {
	for my $r (@runs) {
		$r->{lo} = sprintf('%.4f', $ded / $r->{calcula2_s})
			if $r->{status} eq 'ok' && $r->{calcula2_s} ne '' && $r->{calcula2_s} > 0;
	}
}
my @metrics = read_csv("$dir/metrics.csv");
# COMMS1's round trip: t is half of it.
push @metrics, map { { %$_, metric => 'rtt_us.8', value => 2 * $_->{value} } }
	grep { $_->{bench} eq 'comms1' && $_->{metric} eq 't_us.8' } @metrics;
my @settings;
if (open(my $s, '<', "$dir/settings.txt")) {
	@settings = grep { /\S/ } map { chomp; $_ } <$s>;
	close $s;
}

# time{bench}{nodes}{sys}{k} = [times of ok runs]; also calcula2 LO,
# failures, and the metrics of ok runs.
my (%time, %lo, %fail, %metric, %seen, %ks, @systems, %sysseen);
my $njobs = 1;
for my $r (@runs) {
	my ($bn, $n, $sys, $k) = @$r{qw(bench nodes system k)};
	$seen{$bn}{$n} = 1;
	$ks{$k} = 1;
	push @systems, $sys unless $sysseen{$sys}++;
	$njobs = $r->{jobs} if ($r->{jobs} // '') =~ /^\d+$/ && $r->{jobs} > $njobs;
	$time{$bn}{$n}{$sys}{$k} //= [];
	if ($r->{status} eq 'ok') {
		push @{$time{$bn}{$n}{$sys}{$k}}, $r->{time_s};
		push @{$lo{$bn}{$n}{$sys}{$k}}, $r->{lo} if $r->{lo} ne '';
	} else {
		my $why = "$r->{status}" . ($r->{note} ne '' ? ": $r->{note}" : '');
		$fail{$bn}{$n}{$sys}{$why}++;
	}
}
for my $m (@metrics) {
	push @{$metric{$m->{bench}}{$m->{nodes}}{$m->{system}}{$m->{k}}{$m->{metric}}},
		$m->{value};
}
my @k = sort { $a <=> $b } keys %ks;
# The classic report: stock and copvm only (copvm first if alone).
my $classic = !grep { $_ ne 'stock' && $_ ne 'copvm' } @systems;
@systems = qw(stock copvm) if $classic;
my @models = grep { $_ ne 'stock' } @systems;	# the copvm systems
my $has_lin = grep { $_ eq 'lin' } @systems;
my $has_stock = grep { $_ eq 'stock' } @systems;
my @benches = ((grep { $seen{$_} } @order),
	(sort grep { my $bn = $_; !grep { $_ eq $bn } @order } keys %seen));

sub tmed { my ($bn, $n, $s, $k) = @_; return median(@{$time{$bn}{$n}{$s}{$k} // []}); }
sub lmed { my ($bn, $n, $s, $k) = @_; return median(@{$lo{$bn}{$n}{$s}{$k} // []}); }
sub mmed {
	my ($bn, $n, $s, $k, $name) = @_;
	return median(@{$metric{$bn}{$n}{$s}{$k}{$name} // []});
}
sub gain {
	my ($bn, $n, $k) = @_;
	my ($s, $c) = (tmed($bn, $n, 'stock', $k), tmed($bn, $n, 'copvm', $k));
	return (defined $s && defined $c && $c > 0) ? $s / $c : undef;
}
# gain_of(REF, bench, nodes, SYS, k) = T_REF / T_SYS.
sub gain_of {
	my ($ref, $bn, $n, $sys, $k) = @_;
	my ($r, $c) = (tmed($bn, $n, $ref, $k), tmed($bn, $n, $sys, $k));
	return (defined $r && defined $c && $c > 0) ? $r / $c : undef;
}
sub count_ok {
	my ($bn, $n, $s, $k) = @_;
	return scalar @{$time{$bn}{$n}{$s}{$k} // []};
}

# ---- results.md ----
open(my $md, '>', "$dir/results.md") or die "report.pl: results.md: $!\n";
print $md "# Benchmarks on an emulated non-dedicated cluster: stock PVM and copvm",
	($classic ? '' : "'s coscheduling models"), "\n\n";
print $md "Settings of this run:\n\n";
print $md "- $_\n" for @settings;
print $md "\nFigures are medians over the repetitions that succeeded. ",
	"k = local jobs (calcula; one of them calcula2) per node. ",
	"T = the benchmark's own timed part (`time_s`)",
	($njobs > 1 ? ", the mean of the $njobs parallel jobs' times (each job's time has its own row)" : ''),
	". ",
	($classic ? "Gain = T_stock / T_copvm (above 1: copvm faster). " :
		"Gain/LIN = T_lin / T_model (the thesis's Gain: above 1, the model is faster " .
		"than the same message passing without coscheduling); Gain/stock = " .
		"T_stock / T_model. "),
	"LO = ET_dedicated / ET_nondedicated of calcula2, both averaged over the nodes ",
	"(1: no slowdown)",
	(defined $ded ? sprintf('; ET_dedicated = %.3f s, the mean over the nodes of ' .
		'each node\'s smallest time alone in %d measurements (%s)', $ded, $dcount,
		join(', ', map { sprintf('%s %.3f s', $_, $dmin{$_}) } sort keys %dmin)) : ''),
	".\n\n";

my $head = '| | ' . join(' | ', map { "k=$_" } @k) . " |\n" .
	'|---|' . join('|', map { '---:' } @k) . "|\n";

sub btitle { my ($bn) = @_; return $title{$bn} // $bn; }
# A summary table: one row per benchmark, nodes and system of @$list,
# cells from $cell->(bench, nodes, system, k).
sub sys_table {
	my ($list, $cell) = @_;
	print $md '| benchmark | nodes | system | ' . join(' | ', map { "k=$_" } @k) . " |\n";
	print $md '|---|---:|---|' . join('|', map { '---:' } @k) . "|\n";
	for my $bn (@benches) {
		for my $n (sort { $a <=> $b } keys %{$seen{$bn}}) {
			for my $s (@$list) {
				print $md "| " . btitle($bn) . " | $n | $s | " .
					join(' | ', map { $cell->($bn, $n, $s, $_) } @k) . " |\n";
			}
		}
	}
	print $md "\n";
}
sub f2 { my ($v) = @_; return defined $v ? sprintf('%.2f', $v) : '–'; }

if (!$classic) {
	print $md "## Summary: execution time in seconds\n\n";
	sys_table(\@systems, sub { fmt(tmed(@_)) });
	if ($has_lin) {
		print $md "## Summary: Gain over LIN (T_lin / T_model)\n\n";
		sys_table([grep { $_ ne 'lin' } @systems],
			sub { my ($bn, $n, $s, $k) = @_; f2(gain_of('lin', $bn, $n, $s, $k)) });
	}
	if ($has_stock) {
		print $md "## Summary: Gain over stock (T_stock / T_model)\n\n";
		sys_table(\@models,
			sub { my ($bn, $n, $s, $k) = @_; f2(gain_of('stock', $bn, $n, $s, $k)) });
	}
	print $md "## Summary: Local Overhead LO of calcula2\n\n";
	sys_table(\@systems, sub { f2(lmed(@_)) });
	if ($seen{comms1}) {
		print $md "## Summary: COMMS1 round trip of 8 bytes, mean (µs)\n\n";
		print $md '| nodes | system | ' . join(' | ', map { "k=$_" } @k) . " |\n";
		print $md '|---:|---|' . join('|', map { '---:' } @k) . "|\n";
		for my $n (sort { $a <=> $b } keys %{$seen{comms1}}) {
			for my $s (@systems) {
				print $md "| $n | $s | " . join(' | ',
					map { fmt(mmed('comms1', $n, $s, $_, 'rtt_us.8')) } @k) . " |\n";
			}
		}
		print $md "\n";
	}
	# The best copvm system at k = 5 (else the largest k).
	my ($kb) = grep { $_ == 5 } @k;
	$kb //= $k[-1];
	print $md "## Summary: best model at k=$kb\n\n";
	print $md "The copvm system with the smallest median T at k = $kb",
		($kb == 5 ? '' : ' (this run has no k = 5: its largest k)'),
		"; stock is not a model.\n\n";
	print $md "| benchmark | nodes | best model | T (s) | Gain/LIN | Gain/stock | LO | runner-up |\n";
	print $md "|---|---:|---|---:|---:|---:|---:|---|\n";
	for my $bn (@benches) {
		for my $n (sort { $a <=> $b } keys %{$seen{$bn}}) {
			my @r = sort { $a->[1] <=> $b->[1] }
				grep { defined $_->[1] } map { [$_, tmed($bn, $n, $_, $kb)] } @models;
			if (!@r) {
				print $md "| " . btitle($bn) . " | $n | – | – | – | – | – | – |\n";
				next;
			}
			my $b = $r[0][0];
			print $md "| " . btitle($bn) . " | $n | **$b** | " . fmt($r[0][1]) . ' | ' .
				f2($has_lin ? gain_of('lin', $bn, $n, $b, $kb) : undef) . ' | ' .
				f2($has_stock ? gain_of('stock', $bn, $n, $b, $kb) : undef) . ' | ' .
				f2(lmed($bn, $n, $b, $kb)) . ' | ' .
				(@r > 1 ? "$r[1][0] (" . fmt($r[1][1]) . ' s)' : '–') . " |\n";
		}
	}
	print $md "\n";
}

# Two jobs at once: every run, its jobs' times, their ratio, each job's
# Gain over LIN and LO.
sub job_times { my ($r) = @_; return split ' ', ($r->{job_times_s} // ''); }
my %jt;	# jt{bench}{nodes}{sys}{k}{rep} = [times]
for my $r (grep { $_->{status} eq 'ok' } @runs) {
	my @t = job_times($r);
	$jt{$r->{bench}}{$r->{nodes}}{$r->{system}}{$r->{k}}{$r->{rep}} = \@t
		if @t == 2 && !grep { !/^[0-9.]+$/ || $_ <= 0 } @t;
}
sub ratio_of { my ($t) = @_; my ($a, $b) = sort { $a <=> $b } @$t; return $b / $a; }
if ($njobs == 2) {
	my ($users) = grep { /^users: / } @settings;
	print $md "## Summary: two jobs at once, per run\n\n";
	$users =~ s/^users: // if $users;
	print $md $users ? "Two users' jobs at once: $users. " :
		"Two copies of the benchmark's master in one virtual machine. ";
	print $md "Ratio = the slower job's T / the faster's (fairness: at most 1.3 for the same " .
		"benchmark); Gain/LIN job J = T of job J in the LIN run of the same benchmark, k and " .
		"repetition / T of job J.\n\n";
	print $md "| benchmark | nodes | system | k | rep | T job 1 (s) | T job 2 (s) | ratio | " .
		"Gain/LIN job 1 | Gain/LIN job 2 | LO |\n";
	print $md "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	my ($nr, $fair) = (0, 0);
	for my $r (@runs) {
		my ($bn, $n, $s, $k, $rep) = @$r{qw(bench nodes system k rep)};
		my $t = $jt{$bn}{$n}{$s}{$k}{$rep};
		if (!$t) {
			print $md "| " . btitle($bn) . " | $n | $s | $k | $rep | $r->{status} | | | | | |\n";
			next;
		}
		my $l = $jt{$bn}{$n}{lin}{$k}{$rep};
		my $q = ratio_of($t);
		$nr++;
		$fair++ if $q <= 1.3;
		print $md "| " . btitle($bn) . " | $n | $s | $k | $rep | " . fmt($t->[0]) . ' | ' .
			fmt($t->[1]) . ' | ' . f2($q) . ' | ' .
			join(' | ', map { f2($l && $s ne 'lin' ? $l->[$_] / $t->[$_] : undef) } 0, 1) .
			' | ' . f2($r->{lo} ne '' ? $r->{lo} : undef) . " |\n";
	}
	print $md "\n$fair of $nr runs have a ratio of at most 1.3.\n\n";
}

print $md "## Summary: execution time in seconds, stock / copvm (Gain)\n\n" if $classic;
print $md '| benchmark | nodes | ' . join(' | ', map { "k=$_" } @k) . " |\n" if $classic;
print $md '|---|---:|' . join('|', map { '---:' } @k) . "|\n" if $classic;
for my $bn ($classic ? @benches : ()) {
	for my $n (sort { $a <=> $b } keys %{$seen{$bn}}) {
		my @cells;
		for my $k (@k) {
			my ($s, $c, $g) = (tmed($bn, $n, 'stock', $k),
				tmed($bn, $n, 'copvm', $k), gain($bn, $n, $k));
			push @cells, fmt($s) . ' / ' . fmt($c) .
				(defined $g ? sprintf(' (%.2f)', $g) : '');
		}
		print $md "| $title{$bn} | $n | " . join(' | ', @cells) . " |\n"
			if exists $title{$bn};
		print $md "| $bn | $n | " . join(' | ', @cells) . " |\n"
			unless exists $title{$bn};
	}
}
print $md "\n" if $classic;

# Extra rows per benchmark: [label, metric, unit].
my %extra = (
	comms1 => [['round trip, 8 B, mean (µs)', 'rtt_us.8'], ['r∞ (MB/s)', 'rinf_MBps'], ['n½ (B)', 'nhalf_B'],
		['t0 (µs)', 't0_us'], ['r∞ rel. fit (MB/s)', 'rinf_rel_MBps'],
		['n½ rel. fit (B)', 'nhalf_rel_B'], ['t0 rel. fit (µs)', 't0_rel_us'],
		['t(8 B) mean (µs)', 't_us.8'], ['t(8 B) median (µs)', 'tmed_us.8'],
		['t(8 B) p90 (µs)', 'tp90_us.8'], ['t(1 MiB) mean (µs)', 't_us.1048576']],
	synch1 => [['barrier, 2 tasks (µs)', 'barrier_us.2'],
		['barriers/s, 2 tasks', 'barr_s.2'],
		['barrier, 8 tasks (µs)', 'barrier_us.8']],
	sinring => [['trip, 1024 B (ms)', 'iter_ms.1024']],
	sintree => [['iteration, 1024 B (ms)', 'iter_ms.1024']],
	mslave => [['iteration (ms)', 'iter_ms']],
);
$extra{comms2} = [grep { $_->[1] ne 'rtt_us.8' } @{$extra{comms1}}];

for my $bn (@benches) {
	for my $n (sort { $a <=> $b } keys %{$seen{$bn}}) {
		print $md "## ", ($title{$bn} // $bn), ", $n node", ($n == 1 ? '' : 's'), "\n\n";
		print $md $head;
		for my $s (@systems) {
			print $md "| T $s (s) | " . join(' | ', map {
				my $t = tmed($bn, $n, $s, $_);
				my $ok = count_ok($bn, $n, $s, $_);
				defined $t ? fmt($t) : ($ok ? '–' : 'failed')
			} @k) . " |\n";
		}
		for my $s ($njobs > 1 ? @systems : ()) {
			for my $j (1 .. $njobs) {
				my @v = map { mmed($bn, $n, $s, $_, "time_s.job$j") } @k;
				next unless grep { defined } @v;
				print $md "| T $s job $j (s) | " . join(' | ', map { fmt($_) } @v) . " |\n";
			}
		}
		for my $s ($njobs == 2 ? @systems : ()) {
			my @v = map { my $k = $_; median(map { ratio_of($_) }
				values %{$jt{$bn}{$n}{$s}{$k} // {}}) } @k;
			next unless grep { defined } @v;
			print $md "| ratio $s (slower / faster job) | " . join(' | ', map { f2($_) } @v) . " |\n";
		}
		if ($classic) {
			print $md "| Gain | " . join(' | ', map { my $g = gain($bn, $n, $_);
				defined $g ? sprintf('%.2f', $g) : '–' } @k) . " |\n";
		}
		for my $s ($has_lin && !$classic ? grep { $_ ne 'lin' } @systems : ()) {
			print $md "| Gain/LIN $s | " . join(' | ', map {
				f2(gain_of('lin', $bn, $n, $s, $_)) } @k) . " |\n";
		}
		for my $s ($has_stock && !$classic ? @models : ()) {
			print $md "| Gain/stock $s | " . join(' | ', map {
				f2(gain_of('stock', $bn, $n, $s, $_)) } @k) . " |\n";
		}
		for my $s (@systems) {
			print $md "| LO $s | " . join(' | ', map { my $l = lmed($bn, $n, $s, $_);
				defined $l ? sprintf('%.2f', $l) : '–' } @k) . " |\n";
		}
		for my $e (@{$extra{$bn} // []}) {
			for my $s (@systems) {
				my @v = map { mmed($bn, $n, $s, $_, $e->[1]) } @k;
				next unless grep { defined } @v;
				print $md "| $e->[0] $s | " . join(' | ', map { fmt($_) } @v) . " |\n";
			}
		}
		print $md "\n";
		for my $s (@systems) {
			my $f = $fail{$bn}{$n}{$s} // {};
			for my $why (sort keys %$f) {
				print $md "- $s: $f->{$why} run(s) failed: $why\n";
			}
		}
		print $md "\n" if grep { %{$fail{$bn}{$n}{$_} // {}} } @systems;
	}
}

# ---- plots ----
my @png;
my $gp = "set terminal pngcairo size 800,500 noenhanced font ',10'\n" .
	"set datafile missing '?'\nset grid\nset key outside right top\n";

# Writes a data file of columns; undef becomes '?'.
sub dat {
	my ($name, @rows) = @_;
	open(my $f, '>', "$dir/$name") or die "report.pl: $name: $!\n";
	print $f join(' ', map { defined $_ ? $_ : '?' } @$_), "\n" for @rows;
	close $f;
}

for my $bn (@benches) {
	for my $n (sort { $a <=> $b } keys %{$seen{$bn}}) {
		my $tag = "${bn}_n$n";
		my @rows = map { my $k = $_; [$k, map {
			my @t = @{$time{$bn}{$n}{$_}{$k} // []};
			(tmed($bn, $n, $_, $k),
			 @t ? (sort { $a <=> $b } @t)[0] : undef,
			 @t ? (sort { $a <=> $b } @t)[-1] : undef)
		} @systems] } @k;
		next unless grep { my $r = $_; grep { defined } @$r[1 .. 6] } @rows;
		dat("time_$tag.dat", @rows);
		my @series;
		for my $i (0 .. $#systems) {
			my $c = 2 + 3 * $i;
			next unless grep { defined $_->[$c - 1] } @rows;
			push @series, "'$dir/time_$tag.dat' using 1:$c:" . ($c + 1) . ':' .
				($c + 2) . " with yerrorlines title '$systems[$i]'";
		}
		$gp .= "set output '$dir/time_$tag.png'\nset title '" . ($title{$bn} // $bn) .
			", $n node(s): execution time (median, min-max)'\n" .
			"set xlabel 'local jobs per node (k)'\nset ylabel 'seconds'\n" .
			"unset logscale\nset xrange [-0.5:" . ($k[-1] + 0.5) . "]\nset yrange [0:*]\n" .
			'plot ' . join(', ', @series) . "\n";
		push @png, "time_$tag.png";

		next unless $bn eq 'comms1' || $bn eq 'comms2' || $bn eq 'synch1';
		# Per length (COMMS) or per task count (SYNCH1), lowest and
		# highest k, both systems.
		my $pre = $bn eq 'synch1' ? 'barrier_us.' : 't_us.';
		my %xs;
		for my $s (@systems) {
			for my $k (@k) {
				for my $m (keys %{$metric{$bn}{$n}{$s}{$k} // {}}) {
					$xs{$1} = 1 if $m =~ /^\Q$pre\E(\d+)$/ && $1 > 0;
				}
			}
		}
		my @x = sort { $a <=> $b } keys %xs;
		next unless @x;
		# Lowest and highest k; with the models, the highest only.
		my @ends = $classic ? ($k[0]) : ();
		push @ends, $k[-1] if !@ends || $k[-1] != $k[0];
		my (@cols, @names);
		for my $s (@systems) {
			for my $k (@ends) {
				push @cols, [map { mmed($bn, $n, $s, $k, "$pre$_") } @x];
				push @names, "$s k=$k";
			}
		}
		dat("detail_$tag.dat", map { my $i = $_; [$x[$i], map { $_->[$i] } @cols] } 0 .. $#x);
		my @s2;
		for my $i (0 .. $#cols) {
			next unless grep { defined } @{$cols[$i]};
			push @s2, "'$dir/detail_$tag.dat' using 1:" . ($i + 2) .
				" with linespoints title '$names[$i]'";
		}
		next unless @s2;
		if ($bn eq 'synch1') {
			$gp .= "set output '$dir/barrier_$tag.png'\nset title 'SYNCH1, $n node(s): " .
				"barrier time (median)'\nset xlabel 'tasks in the barrier'\n" .
				"set ylabel 'microseconds'\nunset logscale\nset logscale y\n" .
				"set xrange [1:*]\nset yrange [*:*]\n";
			push @png, "barrier_$tag.png";
		} else {
			$gp .= "set output '$dir/length_$tag.png'\nset title '" . $title{$bn} .
				", $n node(s): time per message (mean, median of runs)'\n" .
				"set xlabel 'message length (bytes)'\nset ylabel 'microseconds'\n" .
				"set logscale xy\nset xrange [*:*]\nset yrange [*:*]\n";
			push @png, "length_$tag.png";
		}
		$gp .= 'plot ' . join(', ', @s2) . "\n";
	}
}

# With the models: Gain over LIN and over stock, and LO, per benchmark,
# one line per system.
for my $bn ($classic ? () : @benches) {
	for my $n (sort { $a <=> $b } keys %{$seen{$bn}}) {
		my $tag = "${bn}_n$n";
		for my $g (['lin', 'gainlin', 'Gain over LIN = T_lin / T_model'],
			   ['stock', 'gainstock', 'Gain over stock = T_stock / T_model']) {
			my ($ref, $file, $what) = @$g;
			next unless grep { $_ eq $ref } @systems;
			my @ss = grep { $_ ne $ref } $ref eq 'stock' ? @models : @systems;
			my @rows = map { my $k = $_; [$k, map { gain_of($ref, $bn, $n, $_, $k) } @ss] } @k;
			my @ps = map { "'$dir/${file}_$tag.dat' using 1:" . ($_ + 2) .
				" with linespoints title '$ss[$_]'" }
				grep { my $i = $_; grep { defined $_->[$i + 1] } @rows } 0 .. $#ss;
			next unless @ps;
			dat("${file}_$tag.dat", @rows);
			$gp .= "set output '$dir/${file}_$tag.png'\nset title '" . btitle($bn) .
				", $n node(s): $what'\nset xlabel 'local jobs per node (k)'\n" .
				"set ylabel 'gain'\nunset logscale\nset xrange [-0.5:" . ($k[-1] + 0.5) .
				"]\nset yrange [0:*]\n" .
				'plot ' . join(', ', @ps) . ", 1 with lines dashtype 2 title ''\n";
			push @png, "${file}_$tag.png";
		}
		my @rows = map { my $k = $_; [$k, map { lmed($bn, $n, $_, $k) } @systems] } @k;
		my @ps = map { "'$dir/lo_$tag.dat' using 1:" . ($_ + 2) .
			" with linespoints dashtype " . ($systems[$_] eq 'stock' ? 2 : 1) .
			" title '$systems[$_]'" }
			grep { my $i = $_; grep { defined $_->[$i + 1] } @rows } 0 .. $#systems;
		next unless @ps;
		dat("lo_$tag.dat", @rows);
		$gp .= "set output '$dir/lo_$tag.png'\nset title '" . btitle($bn) .
			", $n node(s): Local Overhead LO = ET_dedicated / ET_nondedicated'\n" .
			"set xlabel 'local jobs per node (k)'\nset ylabel 'LO'\nunset logscale\n" .
			"set xrange [-0.5:" . ($k[-1] + 0.5) . "]\nset yrange [0:*]\n" .
			'plot ' . join(', ', @ps) . "\n";
		push @png, "lo_$tag.png";
	}
}

# Gain and LO over k, one line per benchmark (and system for LO).
my %nodes_all;
for my $bn (@benches) { $nodes_all{$_} = 1 for keys %{$seen{$bn}}; }
for my $n ($classic ? sort { $a <=> $b } keys %nodes_all : ()) {
	my @bs = grep { $seen{$_}{$n} } @benches;
	my @g = map { my $k = $_; [$k, map { gain($_, $n, $k) } @bs] } @k;
	my @gs = map { "'$dir/gain_n$n.dat' using 1:" . ($_ + 2) .
		" with linespoints title '$bs[$_]'" }
		grep { my $i = $_; grep { defined $_->[$i + 1] } @g } 0 .. $#bs;
	if (@gs) {
		dat("gain_n$n.dat", @g);
		$gp .= "set output '$dir/gain_n$n.png'\nset title 'Gain = T_stock / T_copvm, " .
			"$n node(s)'\nset xlabel 'local jobs per node (k)'\nset ylabel 'gain'\n" .
			"unset logscale\nset xrange [-0.5:" . ($k[-1] + 0.5) . "]\nset yrange [0:*]\n" .
			'plot ' . join(', ', @gs) . ", 1 with lines dashtype 2 title ''\n";
		push @png, "gain_n$n.png";
	}
	my (@names, @l);
	for my $bn (@bs) { for my $s (@systems) { push @names, "$bn $s"; } }
	@l = map { my $k = $_; [$k, map { my $bn = $_; map { lmed($bn, $n, $_, $k) } @systems } @bs] } @k;
	my @ls = map { "'$dir/lo_n$n.dat' using 1:" . ($_ + 2) .
		" with linespoints dashtype " . ($names[$_] =~ /stock$/ ? 2 : 1) .
		" title '$names[$_]'" }
		grep { my $i = $_; grep { defined $_->[$i + 1] } @l } 0 .. $#names;
	if (@ls) {
		dat("lo_n$n.dat", @l);
		$gp .= "set output '$dir/lo_n$n.png'\nset title 'Local Overhead LO = " .
			"ET_dedicated / ET_nondedicated of calcula2, $n node(s)'\n" .
			"set xlabel 'local jobs per node (k)'\nset ylabel 'LO'\nunset logscale\n" .
			"set xrange [-0.5:" . ($k[-1] + 0.5) . "]\nset yrange [0:*]\n" .
			'plot ' . join(', ', @ls) . "\n";
		push @png, "lo_n$n.png";
	}
}

# ---- the coscheduling trace of one cell ----
# copvm-trace-plot (tools/, installed beside this script) draws it: run on
# `$trace' it writes `$png' (none with --no-plots) and prints its table;
# returns the table and what it said on standard error.
sub trace_plot {
	my ($trace, $png, $title) = @_;
	my ($tool) = grep { -f $_ } ("$FindBin::RealBin/copvm-trace-plot",
		"$FindBin::RealBin/../tools/copvm-trace-plot");
	die "report.pl: copvm-trace-plot not found beside $FindBin::RealBin\n"
		if !$tool;
	my $err = "$dir/trace-plot.err";
	open(my $saved, '>&', \*STDERR) or die "report.pl: stderr: $!\n";
	open(STDERR, '>', $err) or die "report.pl: $err: $!\n";
	my @cmd = ($^X, $tool, ($plots ? ('-o', $png) : '-n'), '-t', $title,
		$trace);
	my $table = '';
	if (open(my $p, '-|', @cmd)) {
		local $/;
		$table = <$p> // '';
		close $p;
	}
	open(STDERR, '>&', $saved) or die "report.pl: stderr: $!\n";
	open(my $e, '<', $err) or return ($table, '');
	my $said = do { local $/; <$e> // '' };
	close $e;
	unlink $err;
	return ($table, $said);
}

# Trace files: logs/<bench>.<system>.k<k>.r<rep>.trace.
my %traces;	# cell (bench.kK.rR) => {system => file}
if (opendir(my $ld, "$dir/logs")) {
	for my $f (readdir $ld) {
		next unless $f =~ /^(\w+)\.(.+)\.k(\d+)\.r(\d+)\.trace$/;
		$traces{"$1.k$3.r$4"}{$2} = "$dir/logs/$f";
	}
	closedir $ld;
}
if (%traces) {
	my $cell = $trace_cell;
	if (!defined $cell) {
		# The first benchmark, the first repetition, the largest k.
		my @c = sort {
			my @x = $a =~ /^(\w+)\.k(\d+)\.r(\d+)$/;
			my @y = $b =~ /^(\w+)\.k(\d+)\.r(\d+)$/;
			my ($ia) = grep { $benches[$_] eq $x[0] } 0 .. $#benches;
			my ($ib) = grep { $benches[$_] eq $y[0] } 0 .. $#benches;
			($ia // 99) <=> ($ib // 99) || $x[2] <=> $y[2] || $y[1] <=> $x[1]
		} keys %traces;
		$cell = $c[0];
	}
	print $md "## Coscheduling trace: $cell\n\n";
	my $t = $traces{$cell} // {};
	my @ts = grep { exists $t->{$_} } @systems;
	my ($drawn, @empty) = (0);
	if (!@ts) {
		print $md "No trace file for $cell (cells with one: ",
			join(', ', sort keys %traces), ").\n\n";
	}
	for my $s (@ts) {
		my $tag = "trace_${cell}_$s" =~ s/[^\w.-]/_/gr;
		$tag =~ s/\./_/g;
		my ($table, $said) = trace_plot($t->{$s}, "$dir/$tag.png",
			"$s, $cell: coscheduling events");
		my ($nev, $ntasks) = $said =~ /(\d+) events of (\d+) tasks/;
		my ($bad) = $said =~ /(\d+) malformed lines/;
		if (!defined $nev) {
			push @empty, $s . ($bad ? " ($bad malformed lines)" : '');
			next;
		}
		print $md "### $s: $nev events of $ntasks tasks",
			($bad ? ", $bad malformed lines skipped" : ''), "\n\n$table\n";
		push @png, "$tag.png" if $plots;
		$drawn++;
	}
	print $md "No trace lines, so no timeline, for: ", join(', ', @empty), ".\n\n"
		if @empty;
}

if ($plots && @png) {
	open(my $g, '>', "$dir/plots.gp") or die "report.pl: plots.gp: $!\n";
	print $g $gp;
	close $g;
	system('gnuplot', "$dir/plots.gp") == 0 or die "report.pl: gnuplot failed\n";
	print $md "## Plots\n\n";
	print $md "![$_]($_)\n\n" for @png;
}
close $md;
print "$_\n" for @png;

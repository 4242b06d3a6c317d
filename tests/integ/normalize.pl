#!/usr/bin/perl
# normalize.pl - make one run's output of a PVM example comparable with
# another run's: replace what legitimately differs between runs (and
# between two correct PVM implementations) by stable placeholders, and put
# lines whose order is not fixed even on stock PVM into a fixed order.
#
#   perl normalize.pl [options] < output > normalised
#
# Always done:
#   - the host name (--host NAME) becomes <HOST>;
#   - a number after "context", "context:", "ctx =" or "sctx =" becomes
#     <C1>, <C2>, ... by first appearance, except 0 (the base context);
#   - a task id written "t%x" (5 to 8 hex digits, at least one a digit)
#     becomes <T1>, <T2>, ... by first appearance; the same tid written in
#     other forms (below) gets the same label.
# Options:
#   --host NAME         the host name to replace
#   --dec-tids          decimal numbers in [0x40000, 0x40000000) are tids
#   --hex-tid-after S   a bare hex number right after the text S is a tid
#   --subst CODE        perl code run on each line ($_) first (repeatable)
#   --drop RE           delete lines matching RE (before anything else)
#   --catchout          output caught with pvm_catchout ("[t40003] text"):
#                       group it by task (stable), tasks in label order,
#                       lines of no task first
#   --sort-runs RE      then sort each run of consecutive lines matching RE
#   --mhf               reduce pvmdisplaymhfinfo() tables to the list of
#                       active user handlers (see mhf_table below)
use strict;
use warnings;
use Getopt::Long;

my ($host, $dec_tids, $catchout, $mhf) = ('', 0, 0, 0);
my (@hex_after, @subst, @drop, @sort_runs);
GetOptions(
	'host=s' => \$host,
	'dec-tids' => \$dec_tids,
	'hex-tid-after=s' => \@hex_after,
	'subst=s' => \@subst,
	'drop=s' => \@drop,
	'sort-runs=s' => \@sort_runs,
	'catchout' => \$catchout,
	'mhf' => \$mhf,
) or die "normalize.pl: bad options\n";

my @substs = map {
	my $code = $_;
	my $sub = eval "sub { $code }" or die "normalize.pl: --subst '$code': $@";
	$sub;
} @subst;

my (%tid_label, %ctx_label);
my ($ntid, $nctx) = (0, 0);

sub tid_label {
	my ($value) = @_;
	$tid_label{$value} //= '<T' . ++$ntid . '>';
	return $tid_label{$value};
}

sub ctx_label {
	my ($value) = @_;
	return '0' if $value == 0;
	$ctx_label{$value} //= '<C' . ++$nctx . '>';
	return $ctx_label{$value};
}

sub is_tid_hex {
	my ($hex) = @_;
	return $hex =~ /[0-9]/ && length($hex) >= 5 && length($hex) <= 8;
}

sub normalize_line {
	local $_ = shift;
	for my $sub (@substs) {
		$sub->();
	}
	if ($host ne '') {
		s/(?<![\w.-])\Q$host\E(?![\w-])/<HOST>/g;
	}
	s/\b(context:?|ctx =|sctx =|\.header\.ctx =)(\s+)(-?\d+)/$1 . $2 . ctx_label($3)/ge;
	for my $prefix (@hex_after) {
		s/(\Q$prefix\E)([0-9a-f]+)\b/is_tid_hex($2) ? $1 . tid_label(hex $2) : $1 . $2/ge;
	}
	s/(?<![0-9A-Za-z_])t([0-9a-f]{5,8})(?![0-9a-f])/is_tid_hex($1) ? tid_label(hex $1) : "t$1"/ge;
	if ($dec_tids) {
		s/(?<![\w.<])(\d{6,10})(?![\w.])/($1 >= 0x40000 && $1 < 0x40000000) ? tid_label($1) : $1/ge;
	}
	return $_;
}

# pvmdisplaymhfinfo() prints the whole handler table of the library,
# stock's internal handlers (context 524287) and stale slots included:
#	mhf_server t40001: Display Message Handler Information: ndhandles = 11 nhandles = 10 ...
#	pvmdisplaymhfinfo: free list.  head <- 1 -< tail
#	mhf_server t40001: <caption>
#	mhf_server t40001: dhandles[ 9].mhid = ...  handles[ 9].mhid =  9  .header.src = t40002 .header.ctx = 262145 .header.tag= 100
# What the example shows is which user handlers are active: the first
# nhandles entries of handles[] outside the library's own context.  Keep
# the caption, and in place of the table header those handlers, sorted
# by tag and context, as "handler src=... ctx = ... tag=...".
my @tables;	# [ index in @lines of the header, nhandles, [handlers] ]

sub mhf_table {
	my ($line, $out) = @_;
	if ($line =~ /^\S+ t[0-9a-f]+: Display Message Handler Information:.*\bnhandles = (\d+)/) {
		push @$out, 'handler table:';
		push @tables, [ $#$out, $1, [] ];
		return 1;
	}
	return 1 if $line =~ /^pvmdisplaymhfinfo: free list/;
	if ($line =~ /^\S+ t[0-9a-f]+: dhandles\[\s*\d+\]\..*\bhandles\[\s*(\d+)\]\.mhid\s*=\s*-?\d+\s+\.header\.src = (\S+)\s+\.header\.ctx =\s*(-?\d+)\s+\.header\.tag=\s*(-?\d+)/) {
		my ($i, $src, $ctx, $tag) = ($1, $2, $3, $4);
		my $t = $tables[-1];
		if (defined $t && $i < $t->[1] && $ctx != 524287) {
			push @{$t->[2]}, "handler src=$src ctx = $ctx tag=$tag";
		}
		return 1;
	}
	return 0;
}

my @lines;
LINE: while (my $line = <STDIN>) {
	chomp $line;
	for my $re (@drop) {
		next LINE if $line =~ /$re/;
	}
	next if $mhf && mhf_table($line, \@lines);
	push @lines, $line;
}
for my $t (reverse @tables) {
	# by tag, then context: both are what the example chose
	my @sorted = sort {
		($a =~ /tag=(-?\d+)/)[0] <=> ($b =~ /tag=(-?\d+)/)[0] ||
		($a =~ /ctx = (-?\d+)/)[0] <=> ($b =~ /ctx = (-?\d+)/)[0]
	} @{$t->[2]};
	splice @lines, $t->[0] + 1, 0, @sorted, 'end of handler table';
}

@lines = map { normalize_line($_) } @lines;

if ($catchout) {
	my $i = 0;
	my @keyed = map { [ /^\[<T(\d+)>\]/ ? $1 : 0, $i++, $_ ] } @lines;
	@lines = map { $_->[2] } sort { $a->[0] <=> $b->[0] || $a->[1] <=> $b->[1] } @keyed;
}

for my $re (@sort_runs) {
	my (@out, @run);
	for my $line (@lines, undef) {
		if (defined $line && $line =~ /$re/) {
			push @run, $line;
			next;
		}
		push @out, sort @run;
		@run = ();
		push @out, $line if defined $line;
	}
	@lines = @out;
}

print "$_\n" for @lines;

#!/bin/bash
# doc-links.sh - no Markdown file of the tree points at nothing.
#
# For every *.md under git (README.md, docs/, kmod/...), outside fenced
# code blocks:
#  - each relative link, [text](target), ![image](target) or a reference
#    definition [name]: target, must name a file or directory that exists,
#    taken from the Markdown file's own directory (from the top when the
#    target starts with /); the #fragment is ignored, URLs are skipped;
#  - each path under docs/ named in the text (`docs/results/x.md', say)
#    must exist, taken from the top of the tree.
# It fails with one line per dangling link, FILE:LINE: target.
#
# Paths of other parts of the tree named in docs/*.md and README.md
# (lib/x.c, tests/integ/y.sh...) that do not exist are listed as notes,
# without failing: reports may name files that have since gone.
#
# Exit status 0 (pass), 1 (fail), 77 when the source tree is not a git
# checkout (a release tarball ships only part of docs/).
set -u
top=$(cd "${srcdir:-.}" && pwd)
git_top=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null) || git_top=
if [ "$git_top" != "$top" ]; then
	echo "SKIP: $top is not a git checkout" >&2
	exit 77
fi
command -v perl >/dev/null || { echo "SKIP: perl missing" >&2; exit 77; }

git -C "$top" ls-files -z '*.md' | perl -0 -ne 'chomp; print "$_\n"' |
perl -e '
use strict; use warnings;
my $top = shift;
my $parts = "bench|tests|lib|common|daemon|agent|kmod|console|group|" .
	"fortran|examples|tools|man|include|fuzz";
my $ext = "md|sh|c|h|pl|txt|csv|tsv|png|mk|in|map";
my ($bad, $notes) = (0, 0);
while (my $f = <STDIN>) {
	chomp $f;
	open(my $fh, "<", "$top/$f") or next;
	(my $dir = $f) =~ s{/?[^/]*$}{};
	my $guide = $f eq "README.md" || $f =~ m{^docs/[^/]*$};
	my ($fence, $n) = (0, 0);
	while (my $l = <$fh>) {
		$n++;
		if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next; }
		next if $fence;
		my @links;
		push @links, $1 while $l =~ /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
		push @links, $1 if $l =~ /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)/;
		(my $text = $l) =~ s/\]\([^)]*\)/]/g;
		for my $t (@links) {
			next if $t =~ m{^[a-zA-Z][\w+.-]*:} || $t =~ /^#/;
			$t =~ s/[#?].*//;
			next if $t eq "";
			my $p = $t =~ m{^/} ? "$top$t" :
				$dir eq "" ? "$top/$t" : "$top/$dir/$t";
			next if -e $p;
			print "$f:$n: link $t\n";
			$bad++;
		}
		while ($text =~ m{(?<![\w./~\$-])(docs/[\w./-]*[\w/])(?![\w*<\{\$-])}g) {
			next if -e "$top/$1";
			print "$f:$n: path $1\n";
			$bad++;
		}
		next unless $guide;
		while ($text =~ m{(?<![\w./~\$-])((?:$parts)/[\w./-]*\.(?:$ext))(?![\w/*<\{\$-])}g) {
			my $p = $1;
			next if -e "$top/$p" || $p =~ /[A-Z]{3,}/;
			print "note: $f:$n: names $p, which does not exist\n";
			$notes++;
		}
	}
}
print "doc-links: $bad dangling link(s) or docs/ path(s)", ($notes ? ", $notes note(s)" : ""), "\n";
exit($bad ? 1 : 0);
' "$top"

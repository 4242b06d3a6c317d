#!/bin/bash
# layout.sh - the tree keeps the shape shared/docs/LAYOUT.md and
# docs/architecture.md describe.  It fails when:
#  1. a source file (*.c, *.h) under lib/, daemon/, common/, agent/,
#     kmod/ or bench/ is over 800 lines (not tests/: a suite's cases are
#     long by nature, one program per unit);
#  2. a file under common/ includes a header of lib/ (common/ is shared by
#     the library and the daemon and sits below both);
#  3. lib/transport/transport.h declares anything but the transport table
#     and its types: at file scope it may hold macros, typedefs, struct,
#     union and enum types and `extern const struct pvmi_transport NAME;'
#     tables, and no function (prototype or inline) and no other data.
#  4. the objects of lib/ or of daemon/, as built, hold an import circle
#     of more than two files: A imports B when A uses a symbol that B
#     defines (nm, tools/import-graph.sh).  Needs a build for that part
#     (it says so otherwise).
#
# usage: tests/integ/layout.sh   (from the top build directory; srcdir
#        names the source tree when it is elsewhere)
# Exit status 0 (pass), 1 (fail), 77 (perl missing).
set -u
top=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
command -v perl >/dev/null || { echo "SKIP: perl missing" >&2; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# 1. Lengths.
while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -gt 800 ] && fail "${f#"$top"/} has $n lines (at most 800)"
done < <(find "$top/lib" "$top/daemon" "$top/common" "$top/agent" \
	"$top/kmod" "$top/bench" -path "$top/kmod/build" -prune -o \
	-name '*.[ch]' -type f -exec wc -l {} + 2>/dev/null)

# 2. common/ includes no header of lib/.  A quoted include is looked up
# beside the including file first, so a name common/ has itself is its own.
for f in "$top"/common/*.[ch]; do
	[ -e "$f" ] || continue
	while IFS=: read -r line inc; do
		case $inc in
		../lib/* | lib/*) fail "common/${f##*/}:$line includes \"$inc\" (a lib/ header)"; continue ;;
		esac
		[ -e "$top/common/$inc" ] && continue
		[ -e "$top/lib/$inc" ] &&
			fail "common/${f##*/}:$line includes \"$inc\" (lib/$inc)"
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done

# 3. transport.h: only the table and its types.
th=$top/lib/transport/transport.h
if [ -e "$th" ]; then
	while read -r what; do
		fail "lib/transport/transport.h declares $what"
	done < <(perl -e '
		local $/; my $s = <STDIN>;
		$s =~ s{/\*.*?\*/}{ }gs; $s =~ s{//[^\n]*}{}g;
		$s =~ s{\\\n}{ }g; $s =~ s{^\s*#[^\n]*}{}mg;
		my ($depth, $chunk) = (0, "");
		for my $c (split //, $s) {
			if ($c eq "{") {
				if ($depth == 0 && $chunk =~ /\(/ && $chunk !~ /^\s*(typedef|struct|union|enum)\b[^(]*$/) {
					(my $n = $chunk) =~ s/\s+/ /g;
					print "a function: $1\n" if $n =~ /(\w+)\s*\(/;
				}
				$depth++; $chunk .= $c; next;
			}
			if ($c eq "}") { $depth--; $chunk .= $c; next; }
			if ($c eq ";" && $depth == 0) {
				(my $n = $chunk) =~ s/\s+/ /g; $n =~ s/^ | $//g;
				$chunk = "";
				next if $n eq "" || $n =~ /^typedef\b/;
				next if $n =~ /^(struct|union|enum)\s+\w+\s*(\{.*\})?$/s;
				next if $n =~ /^(struct|union|enum)\s*(\w+\s*)?\{.*\}$/s;
				next if $n =~ /^extern\s+const\s+struct\s+pvmi_transport\s+\w+$/;
				if ($n =~ /(\w+)\s*\(/ && $n !~ /\{/) { print "a function: $1\n"; }
				elsif ($n =~ /\}\s*$/) { }
				else { (my $d = $n) =~ s/.*\b(\w+)\s*(\[.*\])?$/$1/; print "data or another declaration: $d\n"; }
				next;
			}
			$chunk .= $c;
			$chunk = "" if $depth == 0 && $c eq "}";
		}' <"$th")
fi

# 4. Import circles: tools/import-graph.sh over the object of each source
# of lib/ (with its subfolders) and of daemon/, whichever of the names
# automake and libtool give it is the newest (not the copies that unit
# tests compile).
objects_of() {
	local part=$1 prefixes=$2 src base dir o best
	while read -r src; do
		dir=$(dirname "${src#"$top"/}") base=$(basename "$src" .c)
		best=
		for p in $prefixes ""; do
			for o in "$build/$dir/$p$base.o" "$build/$dir/.libs/$p$base.o"; do
				[ -e "$o" ] || continue
				[ -z "$best" ] || [ "$o" -nt "$best" ] && best=$o
			done
		done
		[ -n "$best" ] && echo "$best"
	done < <(find "$top/$part" -name '*.c' -type f | sort)
}
circles() {
	local part=$1 objs
	mapfile -t objs < <(objects_of "$part" "$2")
	if [ ${#objs[@]} -eq 0 ]; then
		echo "note: no objects of $part/ in $build (build first): no circles computed"
		return
	fi
	if "$top/tools/import-graph.sh" -e "${objs[@]}"; then
		echo "$part/: ${#objs[@]} objects, no import circle of more than 2 files"
	else
		fail "import circles among the objects of $part/ (above)"
	fi
}
if command -v nm >/dev/null; then
	circles lib "libpvm3_la- lib_libpvm3_la-"
	circles daemon "pvmd- daemon_pvmd-"
else
	echo "note: nm missing: no circles computed"
fi

[ $failed = 0 ] && echo "layout: PASS" || echo "layout: FAIL"
exit $failed

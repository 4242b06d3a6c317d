#!/bin/bash
# The manual pages of man/ are clean and complete:
# - each page formats with `groff -ww -z -man' without a single warning,
#   and holds only ASCII (other characters are written as groff escapes);
# - a page that is only a `.so' link points at a page of man/;
# - every page is listed in man/local.mk (so `make install' installs it);
# - every pvm_* symbol that lib/libpvm3.map or group/libgpvm3.map exports
#   (and every one the built libpvm3.so and libgpvm3.so export) has a page
#   man/<name>.3, whose NAME section (the linked page's, for a link)
#   names it, so that `man <name>' finds a page about it;
# - every copvm_* function exported by lib/.libs/libpvm3.so has a page
#   man/<name>.3 (skipped, with a note, while the library exports none);
# - console/pvm.1, which console/local.mk installs, formats cleanly too.
# Exits 0 (pass), 1 (fail) or 77 (skip: groff is not installed).
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
mandir=$top_srcdir/man
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

command -v groff >/dev/null ||
	{ echo "SKIP: groff is not installed (Debian: groff-base)" >&2; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The NAME section of a page: the lines between .SH NAME and the next .SH.
name_section() {
	sed -n '/^\.SH NAME/,/^\.SH /{/^\.SH /d;p}' "$1"
}

# Formats `page' with every warning on; complains about any output.
groff_lint() {
	# -ww: every warning; -z: format, print nothing; CHECKSTYLE: the man
	# macros' own style checks where groff has them (1.23 and later).
	groff -ww -z -man -rCHECKSTYLE=3 "$1" >"$tmp/out" 2>&1
	if [ -s "$tmp/out" ]; then
		fail "${1##*/}: groff warns:"
		sed 's/^/    /' "$tmp/out" >&2
	fi
}

pages=0
for page in "$mandir"/*.[1-8]; do
	[ -e "$page" ] || continue
	name=${page##*/}
	pages=$((pages + 1))
	grep -qE "(^|[[:space:]])man/$name([[:space:]]|\\\\|\$)" "$mandir/local.mk" ||
		fail "$name is not listed in man/local.mk"
	if LC_ALL=C grep -qn '[^[:print:][:space:]]' "$page"; then
		fail "$name: characters other than printable ASCII:"
		LC_ALL=C grep -n '[^[:print:][:space:]]' "$page" | head -3 >&2
	fi
	# A link: one .so request naming another page of man/.
	if [ "$(grep -vc '^\.\\"' "$page")" = 1 ] && grep -q '^\.so ' "$page"; then
		target=$(sed -n 's/^\.so *//p' "$page")
		[ -f "$mandir/${target##*/}" ] ||
			fail "$name: .so to $target, which man/ does not have"
		continue
	fi
	groff_lint "$page"
done
[ "$pages" -gt 0 ] || fail "no pages in $mandir"
if [ -f "$top_srcdir/console/pvm.1" ]; then
	groff_lint "$top_srcdir/console/pvm.1"
	pages=$((pages + 1))
fi
echo "man-lint: $pages pages linted" >&2

# Every exported pvm_* symbol has a page naming it.  The version scripts
# are the list of what the libraries export; the built libraries, when
# there, are checked too, in case one exports more than its script says.
maps="$top_srcdir/lib/libpvm3.map $top_srcdir/group/libgpvm3.map"
for map in $maps; do
	[ -f "$map" ] || fail "${map#"$top_srcdir"/} is missing"
done
{
	cat $maps 2>/dev/null |
		sed -n 's/^[[:space:]]*\(pvm_[A-Za-z0-9_]*\);.*/\1/p'
	if command -v nm >/dev/null; then
		for so in lib/.libs/libpvm3.so group/.libs/libgpvm3.so; do
			[ -e "$top_builddir/$so" ] || continue
			nm -D --defined-only "$top_builddir/$so" |
				awk '{ sub(/@.*/, "", $NF) }
				     $NF ~ /^pvm_/ { print $NF }'
		done
	fi
} | sort -u >"$tmp/pvmsyms"
if [ "$(wc -l <"$tmp/pvmsyms")" -lt 100 ]; then
	fail "found only $(wc -l <"$tmp/pvmsyms") exported pvm_* symbols: are the version scripts readable?"
fi
while read -r sym; do
	page=$mandir/$sym.3
	if [ ! -f "$page" ]; then
		fail "exported $sym has no page man/$sym.3"
		continue
	fi
	target=$(sed -n 's/^\.so *//p' "$page" | head -1)
	[ -n "$target" ] && page=$mandir/${target##*/}
	[ -f "$page" ] || continue	# reported above as a broken link
	name_section "$page" | grep -qE "(^|[^A-Za-z0-9_])$sym([^A-Za-z0-9_]|\$)" ||
		fail "$sym: the NAME section of ${page##*/} does not name it"
done <"$tmp/pvmsyms"
echo "man-lint: checked $(wc -l <"$tmp/pvmsyms") exported pvm_* symbols for pages" >&2

lib=$top_builddir/lib/.libs/libpvm3.so
if [ ! -e "$lib" ]; then
	fail "$lib is missing (build copvm first)"
elif ! command -v nm >/dev/null; then
	echo "note: nm missing (binutils): exported copvm_* functions not checked" >&2
else
	nm -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $NF) } $NF ~ /^copvm_/ { print $NF }' |
		sort -u >"$tmp/syms"
	if [ ! -s "$tmp/syms" ]; then
		echo "note: libpvm3 exports no copvm_* symbol yet: the check that each has a page is skipped" >&2
	else
		while read -r sym; do
			[ -f "$mandir/$sym.3" ] || fail "exported $sym has no page man/$sym.3"
		done <"$tmp/syms"
		echo "man-lint: checked $(wc -l <"$tmp/syms") exported copvm_* symbols for pages" >&2
	fi
fi

if [ "$failed" -ne 0 ]; then
	echo "man-lint: FAIL" >&2
	exit 1
fi
echo "man-lint: PASS" >&2
exit 0

#!/bin/bash
# The manual pages of man/ are clean and complete:
# - each page formats with `groff -ww -z -man' without a single warning,
#   and holds only ASCII (other characters are written as groff escapes);
# - a page that is only a `.so' link points at a page of man/;
# - every page is listed in man/local.mk (so `make install' installs it);
# - every copvm_* function exported by lib/.libs/libpvm3.so has a page
#   man/<name>.3 (skipped, with a note, while the library exports none).
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
	# -ww: every warning; -z: format, print nothing; CHECKSTYLE: the man
	# macros' own style checks where groff has them (1.23 and later).
	groff -ww -z -man -rCHECKSTYLE=3 "$page" >"$tmp/out" 2>&1
	if [ -s "$tmp/out" ]; then
		fail "$name: groff warns:"
		sed 's/^/    /' "$tmp/out" >&2
	fi
done
[ "$pages" -gt 0 ] || fail "no pages in $mandir"
echo "man-lint: $pages pages linted" >&2

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

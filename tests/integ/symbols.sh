#!/bin/bash
# copvm's libpvm3.so.3 is a drop-in for Debian's: same soname, and every
# function and data symbol Debian's exports is exported by ours, as the
# same kind (function or data).  Data that programs may copy-relocate
# (pvm_errlist, pvm_errno, pvm_nerr, and any data symbol an installed
# binary copy-relocates) must also have the same size.  The same for
# libgpvm3.so.3 once copvm builds it.
set -u
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
deb_dir=/usr/lib/x86_64-linux-gnu
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

[ -e "$deb_dir/libpvm3.so.3" ] || { echo "SKIP: Debian's libpvm3 is not installed" >&2; exit 77; }
command -v nm >/dev/null && command -v readelf >/dev/null ||
	{ echo "SKIP: binutils missing" >&2; exit 77; }

# symbols LIB: "name kind size" for every defined dynamic symbol, where
# kind is func or data.
symbols() {
	nm -D -S --defined-only "$1" | awk '
		NF == 4 { size = $2; type = $3; name = $4 }
		NF == 3 { size = "?"; type = $2; name = $3 }
		NF < 3 { next }
		{
			kind = (type ~ /^[TtWwi]$/) ? "func" : "data"
			sub(/@.*/, "", name)
			printf "%s %s %s\n", name, kind, size
		}' | sort -u
}

# Data symbols some installed binary copy-relocates from library $1.
copied_symbols() {
	local f soname=$1
	for f in /usr/bin/* /usr/lib/pvm3/lib/*; do
		[ -f "$f" ] || continue
		readelf -d "$f" 2>/dev/null | grep -q "Shared library: \[$soname\]" || continue
		readelf -rW "$f" 2>/dev/null | awk '$3 == "R_X86_64_COPY" { print $5 }'
	done | sed 's/@.*//' | sort -u
}

check_lib() {
	local soname=$1 ours=$top_builddir/lib/.libs/$1 deb=$deb_dir/$1
	local fixed=$2 name kind size okind osize n=0 missing=0
	if [ ! -e "$ours" ]; then
		fail "$ours is missing (build copvm first)"
		return
	fi
	got=$(readelf -d "$ours" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
	[ "$got" = "$soname" ] || fail "$ours: soname '$got', expected $soname"

	symbols "$deb" >"$tmp/deb"
	symbols "$ours" >"$tmp/ours"
	{ echo $fixed | tr ' ' '\n'; copied_symbols "$soname"; } | sort -u >"$tmp/sized"
	while read -r name kind size; do
		n=$((n + 1))
		read -r okind osize < <(awk -v n="$name" '$1 == n { print $2, $3; exit }' "$tmp/ours")
		if [ -z "${okind:-}" ]; then
			echo "  missing: $name ($kind)" >&2
			missing=$((missing + 1))
			continue
		fi
		[ "$okind" = "$kind" ] || fail "$soname: $name is $okind in copvm, $kind in Debian's"
		if [ "$kind" = data ] && grep -qx "$name" "$tmp/sized" &&
		   [ "$((16#$osize))" != "$((16#$size))" ]; then
			fail "$soname: $name has size $((16#$osize)) in copvm, $((16#$size)) in Debian's"
		fi
		okind=
	done <"$tmp/deb"
	[ "$missing" -eq 0 ] || fail "$soname: $missing of Debian's $n symbols are not exported by copvm"
	echo "$soname: checked $n symbols, $missing missing" >&2
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check_lib libpvm3.so.3 "pvm_errlist pvm_errno pvm_nerr"
if [ -e "$top_builddir/lib/.libs/libgpvm3.so.3" ] && [ -e "$deb_dir/libgpvm3.so.3" ]; then
	check_lib libgpvm3.so.3 ""
else
	echo "libgpvm3.so.3: not built by copvm yet, not checked" >&2
fi

if [ "$failed" -ne 0 ]; then
	echo "symbols: FAIL" >&2
	exit 1
fi
echo "symbols: PASS" >&2
exit 0

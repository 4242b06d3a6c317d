#!/bin/bash
# copvm's libfpvm3 defines exactly the routines of Debian's libfpvm3.a
# (PVM 3.4.6's Fortran binding), no more and no less: the shared library
# exports them and nothing else (soname libfpvm3.so.3), and the static
# library defines them plus only its own fpvmi_* helpers.
set -u
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
stock=/usr/lib/x86_64-linux-gnu/libfpvm3.a
so=$top_builddir/fortran/.libs/libfpvm3.so.3
ar=$top_builddir/fortran/.libs/libfpvm3.a
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

[ -e "$stock" ] || { echo "SKIP: $stock (pvm-dev) is not installed" >&2; exit 77; }
command -v nm >/dev/null && command -v readelf >/dev/null ||
	{ echo "SKIP: binutils missing" >&2; exit 77; }
[ -e "$so" ] && [ -e "$ar" ] ||
	{ echo "FAIL: $so or $ar is missing (build copvm first)" >&2; exit 1; }

# Global functions an archive defines.
archive_functions() {
	nm "$1" | awk '$2 == "T" { print $3 }' | sort -u
}

want=$(archive_functions "$stock")
[ "$(echo "$want" | wc -l)" -ge 60 ] || fail "$stock: too few functions found"

got=$(nm -D --defined-only "$so" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u)
if [ "$got" != "$want" ]; then
	fail "libfpvm3.so.3 exports differ from $stock's functions (- stock, + copvm):"
	diff <(echo "$want") <(echo "$got") | grep '^[<>]' | sed 's/^</-/; s/^>/+/' >&2
fi
nm -D --defined-only "$so" | awk '$2 != "T" { print }' | grep . >&2 &&
	fail "libfpvm3.so.3 exports symbols that are not functions"

got=$(archive_functions "$ar" | grep -v '^fpvmi_')
if [ "$got" != "$want" ]; then
	fail "libfpvm3.a defines other functions than $stock (- stock, + copvm):"
	diff <(echo "$want") <(echo "$got") | grep '^[<>]' | sed 's/^</-/; s/^>/+/' >&2
fi

soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libfpvm3.so.3 ] || fail "soname is '$soname', not libfpvm3.so.3"

if [ "$failed" -ne 0 ]; then
	echo "fortran-symbols: FAIL" >&2
	exit 1
fi
echo "fortran-symbols: PASS ($(echo "$want" | wc -l) routines)" >&2
exit 0

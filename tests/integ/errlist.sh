#!/bin/bash
# Binaries built without PIE copy pvm_errlist, pvm_nerr and pvm_errno into
# themselves at load time, with the sizes of the library they were linked
# against.  Build such a program (tests/tools/errlist.c) against stock PVM
# and run it on both libraries: the error texts, pvm_errno after failed
# calls and pvm_perror's message must match, and the dynamic linker must
# not warn about a size mismatch.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init errlist

exe=$W/errlist
${CC:-cc} -O2 -fno-pic -no-pie -o "$exe" "$top_srcdir/tests/tools/errlist.c" \
	-I/usr/include -lpvm3 || die "cannot build errlist against stock PVM"
readelf -rW "$exe" | grep -q 'R_X86_64_COPY.*pvm_errlist' ||
	die "errlist has no copy relocation for pvm_errlist: the test proves nothing"

scenario() {
	run_prog "$1" errlist -- "$exe"
}
run_sides scenario

expect_status errlist 0
compare errlist
integ_finish

#!/bin/bash
# The Fortran examples from Debian's pvm-examples tarball (master1.f,
# slave1.f, spmd.f, gexample.f, hitc.f, hitc_slave.f), compiled with
# gfortran: on the stock side with PVM 3.4.6's fpvm3.h and libfpvm3, on the
# copvm side with our include/fpvm3.h and fortran/libfpvm3 (static, as
# Debian links stock's), and then run through the same fortran-*.sh
# scripts as Debian's binaries; fspmd and fgexample also linked with our
# shared libfpvm3.so.  Before that, our fpvm3.h must define the same names
# with the same values as stock's, and no example may get a warning with
# our header that stock's does not give.
#
# With INTEG_SELFTEST the "copvm" side runs stock's pvmd, libpvm3 and
# libgpvm3 under our fpvm3.h and libfpvm3.a: our binding on stock PVM.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init fortran-src

tarball=/usr/share/doc/pvm-examples/examples.tar.gz
[ -r "$tarball" ] || { log "SKIP: $tarball is missing"; exit 77; }
[ -r /usr/include/fpvm3.h ] && [ -r /usr/lib/x86_64-linux-gnu/libfpvm3.a ] ||
	{ log "SKIP: stock's fpvm3.h or libfpvm3.a (pvm-dev) is missing"; exit 77; }
FC=${FC:-gfortran}
# Under ./configure --enable-sanitizers the libraries need the sanitizer
# runtime, which changes what linking a program against them prints.
if ldd "$COPVM_LIBDIR/libpvm3.so" 2>/dev/null | grep -q libasan; then
	log "SKIP: copvm is built with sanitizers (--enable-sanitizers)"
	exit 77
fi
command -v "$FC" >/dev/null || { log "SKIP: $FC (package gfortran) is not installed"; exit 77; }

COPVM_FLIB=$top_builddir/fortran/.libs/libfpvm3.a
GROUP_LIBDIR=$top_builddir/group/.libs
[ -e "$COPVM_FLIB" ] || die "$COPVM_FLIB is missing (build copvm first)"
[ -e "$COPVM_LIBDIR/libpvm3.so" ] || die "$COPVM_LIBDIR/libpvm3.so is missing (build copvm first)"
[ -e "$GROUP_LIBDIR/libgpvm3.so" ] || die "$GROUP_LIBDIR/libgpvm3.so is missing (build copvm first)"

# The constants of an fpvm3.h as lower-case "name value" lines, sorted.
constants() {
	sed -n 's/^ \{6\}parameter *( *\([A-Za-z0-9_]*\) *= *\(-\{0,1\}[0-9]*\) *).*/\1 \2/Ip' "$1" |
		tr 'A-Z' 'a-z' | sort
}
if ! diff -u --label stock --label copvm <(constants /usr/include/fpvm3.h) \
	<(constants "$top_srcdir/include/fpvm3.h") >"$W/constants.diff"; then
	fail "include/fpvm3.h does not define the constants of stock's fpvm3.h:"
	cat "$W/constants.diff" >&2
fi
[ "$(constants "$top_srcdir/include/fpvm3.h" | wc -l)" -ge 100 ] ||
	fail "include/fpvm3.h: too few constants found (is it still fixed form?)"

tar -xzf "$tarball" -C "$W" || die "cannot extract $tarball"
src=$W/examples

# Program names as Debian installs them, and their sources.
PROGRAMS="fmaster1 fslave1 fspmd hitc hitc_slave fgexample"
source_of() {
	case $1 in
	f*) echo "${1#f}.f" ;;
	*) echo "$1.f" ;;
	esac
}

# The examples pass INTEGER and REAL*8 arrays to the same pvmfpack, which
# gfortran 10 and later refuse unless told to allow it (as a warning).
FFLAGS="-Wall -fallow-argument-mismatch -fdiagnostics-plain-output"

# build IMPL [PROGRAM...]: compile the programs (default: all) into
# $W/bin-IMPL, warnings in .log files.  IMPL is stock, copvm (our static
# libfpvm3.a, as Debian's examples link stock's) or copvm-so (our shared
# libfpvm3.so, found through a run path; libpvm3 still comes from the
# library path).  The sources include '../include/fpvm3.h': -I names a
# directory whose ../include holds the header.
build() {
	local impl=$1 out=$W/bin-$1 p inc libs progs grp
	shift
	progs=${*:-$PROGRAMS}
	mkdir -p "$out"
	for p in $progs; do
		# with static libraries, only what is used needs linking
		grp=
		[ "$p" = fgexample ] || [ "$impl" = copvm-so ] && grp=1
		case $impl in
		stock)
			inc=/usr/include
			libs="-lfpvm3 ${grp:+-lgpvm3} -lpvm3" ;;
		copvm)
			inc=$top_srcdir/include
			libs="-Wl,--trace-symbol=pvmfmytid_ $COPVM_FLIB
				${grp:+-L$GROUP_LIBDIR -lgpvm3} -L$COPVM_LIBDIR -lpvm3" ;;
		copvm-so)
			inc=$top_srcdir/include
			libs="-L$top_builddir/fortran/.libs -lfpvm3
				-L$GROUP_LIBDIR -lgpvm3 -L$COPVM_LIBDIR -lpvm3
				-Wl,-rpath,$top_builddir/fortran/.libs:$GROUP_LIBDIR" ;;
		esac
		if ! (cd "$out" && $FC $FFLAGS -I"$inc" -o "$p" \
			"$src/$(source_of "$p")" $libs) >"$out/$p.log" 2>&1; then
			cat "$out/$p.log" >&2
			fail "$impl: $(source_of "$p") does not build"
		fi
	done
	# side_begin checks that `hello' loads copvm's libpvm3 through the
	# library path; Debian's serves for that here
	ln -sf /usr/bin/hello.pvm "$out/hello"
}

# The warnings of IMPL's build of $2, without paths.
warnings() {
	grep -h 'Warning:' "$W/bin-$1/$2.log" | sed 's|^[^ ]*/||' | sort -u
}

build stock
build copvm
build copvm-so fspmd fgexample
[ "$INTEG_FAILED" -eq 0 ] || integ_finish
for p in $PROGRAMS; do
	extra=$(comm -13 <(warnings stock "$p") <(warnings copvm "$p"))
	if [ -n "$extra" ]; then
		fail "$(source_of "$p"): warnings with copvm's fpvm3.h that stock's does not give:"
		log "$extra"
	fi
done
# the copvm builds must have used our header and our libfpvm3
for p in $PROGRAMS; do
	$FC -cpp -M -I"$top_srcdir/include" "$src/$(source_of "$p")" 2>/dev/null |
		grep -qF "$top_srcdir/include/../include/fpvm3.h" ||
		fail "$(source_of "$p"): does not include copvm's fpvm3.h"
	grep -qF "$COPVM_FLIB(" "$W/bin-copvm/$p.log" ||
		fail "$p: pvmfmytid_ does not come from $COPVM_FLIB"
done
[ "$INTEG_FAILED" -eq 0 ] || integ_finish
log "the Fortran examples build against copvm with no new warning"

# run_test SCRIPT COPVM-BINDIR WHAT: fortran-SCRIPT.sh on these binaries.
run_test() {
	if INTEG_BINDIR_STOCK=$W/bin-stock INTEG_BINDIR_COPVM=$W/$2 \
		bash "$top_srcdir/tests/integ/fortran-$1.sh" >"$W/$1-$2.log" 2>&1; then
		log "PASS: $1 ($3)"
	elif [ "$?" = 77 ]; then
		log "SKIP: $1 ($3)"
	else
		fail "$1 ($3):"
		sed 's/^/    /' "$W/$1-$2.log" >&2
	fi
}

# Every Fortran example test on these binaries; two again with the shared
# libfpvm3, which must load from the build tree.
for t in master1 spmd hitc gexample; do
	run_test "$t" bin-copvm "built from source"
done
for p in fspmd fgexample; do
	got=$(ldd "$W/bin-copvm-so/$p" | awk '$1 == "libfpvm3.so.3" { print $3 }')
	[ "$got" -ef "$top_builddir/fortran/.libs/libfpvm3.so.3" ] ||
		fail "$p would load libfpvm3 from '$got', not from $top_builddir/fortran/.libs"
done
# (their run path names our libgpvm3, which needs our libpvm3: not for
# INTEG_SELFTEST, where the "copvm" side runs stock's)
if [ "${IMPL[copvm]}" = copvm ]; then
	run_test spmd bin-copvm-so "built from source, shared libfpvm3"
	run_test gexample bin-copvm-so "built from source, shared libfpvm3"
fi
integ_finish

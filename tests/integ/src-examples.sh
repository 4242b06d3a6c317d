#!/bin/bash
# The sources of the examples (Debian's pvm-examples tarball) build with
# -Wall against copvm's pvm3.h and library, without any warning that the
# stock header does not also give, and pass the same comparisons as
# Debian's binaries: each ex-*.sh test runs again, with the examples built
# against stock PVM on the stock side and against copvm on the copvm side.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init src-examples

tarball=/usr/share/doc/pvm-examples/examples.tar.gz
[ -r "$tarball" ] || { log "SKIP: $tarball is missing"; exit 77; }
CC=${CC:-cc}
# Under ./configure --enable-sanitizers the libraries need the sanitizer
# runtime, which changes what linking a program against them prints.
if ldd "$COPVM_LIBDIR/libpvm3.so" 2>/dev/null | grep -q libasan; then
	log "SKIP: copvm is built with sanitizers (--enable-sanitizers)"
	exit 77
fi

PROGRAMS="hello hello_other master1 slave1 spmd timing timing_slave
	inherit1 inherit2 inherit3 inherita inheritb task0 task1 task_end
	mhf_server mhf_tickle gmbi lmbi rme"
# The mailbox examples share helpers (set_flags, get_flagstring) in taskf.c.
TASKF="task0 task1 task_end gmbi lmbi rme"
EXAMPLES="hello master1 spmd timing inherit1 inherit2 inherit3 inherita
	inheritb task0 mhf gmbi lmbi rme"

tar -xzf "$tarball" -C "$W" || die "cannot extract $tarball"
src=$W/examples

# build IMPL: compile every example into $W/bin-IMPL, warnings in .log files.
build() {
	local impl=$1 out=$W/bin-$1 p extra cflags libs
	mkdir -p "$out"
	if [ "$impl" = stock ]; then
		cflags="-I/usr/include"
		libs="-lpvm3"
	else
		cflags="-I$top_srcdir/include"
		libs="-L$COPVM_LIBDIR -lpvm3"
	fi
	(cd "$out" && $CC -Wall -g $cflags -c "$src/taskf.c" -o taskf.o) \
		>"$out/taskf.log" 2>&1 || { cat "$out/taskf.log" >&2; fail "$impl: taskf.c does not compile"; }
	for p in $PROGRAMS; do
		extra=
		case " $(echo $TASKF) " in *" $p "*) extra=$out/taskf.o ;; esac
		if ! $CC -Wall -g $cflags -o "$out/$p" "$src/$p.c" $extra $libs \
			>"$out/$p.log" 2>&1; then
			cat "$out/$p.log" >&2
			fail "$impl: $p.c does not build"
		fi
	done
}

# The warnings of IMPL's build of $2, without paths (the same source files).
warnings() {
	grep -h 'warning:' "$W/bin-$1/$2.log" | sed 's|^[^ ]*/||' | sort -u
}

[ -e "$COPVM_LIBDIR/libpvm3.so" ] || die "$COPVM_LIBDIR/libpvm3.so is missing (build copvm first)"
build stock
build copvm
for p in taskf $PROGRAMS; do
	extra=$(comm -13 <(warnings stock "$p") <(warnings copvm "$p"))
	if [ -n "$extra" ]; then
		fail "$p.c: warnings with copvm's pvm3.h that stock's does not give:"
		log "$extra"
	fi
done
[ "$INTEG_FAILED" -eq 0 ] || integ_finish
log "all examples build against copvm with no new warning"

# Run every example test on these binaries.  Each prints its own result.
for t in $EXAMPLES; do
	if INTEG_BINDIR_STOCK=$W/bin-stock INTEG_BINDIR_COPVM=$W/bin-copvm \
		bash "$top_srcdir/tests/integ/ex-$t.sh" >"$W/$t.log" 2>&1; then
		log "PASS: $t (built from source)"
	else
		rc=$?
		if [ "$rc" = 77 ]; then
			log "SKIP: $t (built from source)"
		else
			fail "$t (built from source):"
			sed 's/^/    /' "$W/$t.log" >&2
		fi
	fi
done
integ_finish

# diff-pack-lib.sh - build and run the small differential programs of
# tests/integ/diffprog/pack/ (sourced by diff-*.sh after lib.sh).
#
# Each program is compiled twice: against stock's pvm3.h and libpvm3 for
# the stock side, against copvm's header and library for the copvm side
# (with the sanitizers when copvm's library was built with them).  A
# program prints what a PVM program can observe (return codes, buffer
# fields, data), never a tid or a time, so its two outputs must be equal
# as they are.
#
#	diff_build NAME...		compile diffprog/pack/NAME.c per side
#					(also offered to pvm_spawn)
#	diff_run SIDE OUT NAME [ARGS...]
#					run it on SIDE, output in out/OUT.*

# diff_build NAME...: compile each program for both sides into $W/bin-SIDE.
diff_build() {
	local side impl p cflags libs san=
	if ldd "$COPVM_LIBDIR/libpvm3.so" 2>/dev/null | grep -q libasan; then
		san="-fsanitize=address,undefined"
	fi
	for side in stock copvm; do
		impl=${IMPL[$side]}
		mkdir -p "$W/bin-$side"
		if [ "$impl" = stock ]; then
			cflags="-I/usr/include"
			libs="-lpvm3"
		else
			[ -e "$COPVM_LIBDIR/libpvm3.so" ] ||
				die "$COPVM_LIBDIR/libpvm3.so is missing (build copvm first)"
			cflags="-I$top_srcdir/include $san"
			libs="-L$COPVM_LIBDIR -lpvm3"
		fi
		for p in "$@"; do
			${CC:-cc} -Wall -g $cflags -o "$W/bin-$side/$p" \
				"$top_srcdir/tests/integ/diffprog/pack/$p.c" \
				$libs >"$W/bin-$side/$p.log" 2>&1 || {
				cat "$W/bin-$side/$p.log" >&2
				die "$impl: diffprog/pack/$p.c does not build"
			}
			# where pvm_spawn looks for it
			ln -sf "$W/bin-$side/$p" \
				"$W/$side/home/pvm3/bin/LINUX64/$p"
		done
	done
}

# diff_run SIDE OUT NAME [ARGS...]: run program NAME on SIDE; its output
# goes to out/OUT.{out,err,rc} as with run_prog.
diff_run() {
	local side=$1 out=$2 name=$3
	shift 3
	run_prog "$side" "$out" -- "$W/bin-$side/$name" "$@"
}

# build.sh - builds the small differential programs of tests/integ/diff-*.sh
# (sourced after lib.sh's integ_init).
#
# Each program in tests/integ/diffprog/tasks/ is built once, against stock
# PVM's pvm3.h and libpvm3, and that one binary runs on both sides: on
# copvm it loads copvm's libpvm3 (LD_LIBRARY_PATH), which is exactly how a
# program built for stock meets copvm.  The binaries go to $W/dprog/ and
# are offered to pvm_spawn on both sides under their own names.

DIFFPROG_SRC=$top_srcdir/tests/integ/diffprog/tasks

# diffprog_build NAME...: build NAME.c against stock PVM into $W/dprog/NAME
# and make it spawnable on both sides; a program that does not build
# fails the test at once.
diffprog_build() {
	local p side
	mkdir -p "$W/dprog"
	for p in "$@"; do
		${CC:-cc} -O1 -g -Wall -o "$W/dprog/$p" "$DIFFPROG_SRC/$p.c" \
			-I/usr/include -lpvm3 >"$W/dprog/$p.log" 2>&1 ||
			{ cat "$W/dprog/$p.log" >&2; die "cannot build $p.c against stock PVM"; }
		for side in stock copvm; do
			ln -sf "$W/dprog/$p" "$W/$side/home/pvm3/bin/LINUX64/$p"
		done
	done
}

# The path of built program $1, for run_prog and bg_prog.
diffprog() {
	echo "$W/dprog/$1"
}

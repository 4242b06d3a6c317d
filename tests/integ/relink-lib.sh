# relink-lib.sh - sourced by deb-package.sh and install-prefix.sh: programs
# rebuilt against an installed copvm (docs/install.md, "Building programs
# against copvm") load its libraries and run on its daemon when started
# alone, as an ordinary user, with no environment variable of copvm or of
# PVM set.
#
# relink_check PVMD LIBDIR PCDIR CCDIR W builds pvm-examples' hello.c and
# hello_other.c, master1.c and slave1.c, master1.f and slave1.f twice:
# through pkg-config (PCDIR's pvm3.pc, fpvm3.pc) and through CCDIR's
# copvm-cc and copvm-f77.  Each program must name LIBDIR as its run path
# (readelf -d) and load libpvm3.so.3 from there (ldd), although Debian's
# libpvm3.so.3 is in a default directory; a build with
# --define-variable=copvm_rpath= must carry no run path.  Then a new
# user with only HOME, PATH, USER and LOGNAME runs hello, master1 and
# fmaster1 of each build (the spawned programs in ~/pvm3/bin/LINUX64, as
# for stock PVM): each prints its expected results, PVMD (copvm's
# daemon) runs as that user, and stock's daemon never started (no
# /tmp/pvmd.UID).  The caller's log and fail report; W is a scratch
# directory readable by all.  Needs root (useradd, runuser).
#
# relink_cleanup: ends what the runs left (the user's processes, by pid),
# removes the user and its run directories; for the caller's EXIT trap.

RELINK_USER=
RELINK_UID=

relink_cleanup() {
	local p
	[ -n "$RELINK_USER" ] || return 0
	if [ -n "$RELINK_UID" ]; then
		for p in $(pgrep -u "$RELINK_UID" 2>/dev/null); do
			kill -TERM "$p" 2>/dev/null
		done
		for p in 1 2 3 4 5 6 7 8 9 10; do
			pgrep -u "$RELINK_UID" >/dev/null 2>&1 || break
			sleep 0.2
		done
		for p in $(pgrep -u "$RELINK_UID" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
		sleep 0.2
		rm -rf "/tmp/copvm-$RELINK_UID" "/tmp/pvmd.$RELINK_UID" "/tmp/pvml.$RELINK_UID"
	fi
	userdel "$RELINK_USER" 2>/dev/null
	RELINK_USER=
}

# relink_run DIR PROG: PROG of DIR run as the user, from its home, with a
# minimal environment; output in DIR/PROG.out.
relink_run() {
	(cd "$RELINK_HOME" && timeout 60 runuser -u "$RELINK_USER" -- env -i \
		HOME="$RELINK_HOME" PATH=/usr/bin:/bin USER="$RELINK_USER" \
		LOGNAME="$RELINK_USER" "$1/$2") >"$1/$2.out" 2>&1 </dev/null
}

# The pids of the user's daemons and the program each runs.
relink_daemons() {
	local p
	for p in $(pgrep -u "$RELINK_UID" 2>/dev/null); do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in
		*/pvmd | */pvmd3*) echo "$p $(readlink "/proc/$p/exe")" ;;
		esac
	done
}

# Its steps stop at the first failure of their own, whatever failed
# before them.
relink_check() {
	local saved=$failed

	failed=0
	relink_steps "$@"
	[ "$saved" = 0 ] || failed=1
}

relink_steps() {
	local pvmd=$1 libdir=$2 pcdir=$3 ccdir=$4 W=$5 how d p src out
	local tarball=/usr/share/doc/pvm-examples/examples.tar.gz
	local FFLAGS=-fallow-argument-mismatch

	[ -r "$tarball" ] || { fail "relink: $tarball is missing"; return; }
	command -v gfortran >/dev/null || { fail "relink: gfortran is missing"; return; }
	mkdir -p "$W" && chmod 755 "$W" && tar -xzf "$tarball" -C "$W" ||
		{ fail "relink: cannot extract $tarball"; return; }
	src=$W/examples

	# Build: C through pkg-config and copvm-cc, Fortran through
	# pkg-config (fpvm3) and copvm-f77.
	for how in pc cc; do
		d=$W/$how
		mkdir -p "$d"
		for p in hello hello_other master1 slave1; do
			if [ $how = pc ]; then
				PKG_CONFIG_PATH=$pcdir cc -Wall -o "$d/$p" "$src/$p.c" \
					$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs pvm3)
			else
				"$ccdir/copvm-cc" -Wall -o "$d/$p" "$src/$p.c"
			fi >"$d/$p.log" 2>&1 || fail "relink: $p.c through $how: $(cat "$d/$p.log")"
		done
		for p in master1 slave1; do
			if [ $how = pc ]; then
				gfortran $FFLAGS -o "$d/f$p" "$src/$p.f" \
					$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs fpvm3)
			else
				"$ccdir/copvm-f77" -o "$d/f$p" "$src/$p.f"
			fi >"$d/f$p.log" 2>&1 || fail "relink: $p.f through $how: $(cat "$d/f$p.log")"
		done
	done
	# pkg-config's opt-out: no run path.
	PKG_CONFIG_PATH=$pcdir cc -o "$W/hello-norpath" "$src/hello.c" \
		$(PKG_CONFIG_PATH=$pcdir pkg-config --define-variable=copvm_rpath= \
			--cflags --libs pvm3) >"$W/norpath.log" 2>&1 ||
		fail "relink: hello.c without the run path: $(cat "$W/norpath.log")"
	readelf -d "$W/hello-norpath" 2>/dev/null | grep -qE '\((RUNPATH|RPATH)\)' &&
		fail "relink: --define-variable=copvm_rpath= still gives a run path"
	# ... and then the loader does not find copvm's library by itself
	# (the check of the run path below could not fail otherwise).
	env -u LD_LIBRARY_PATH ldd "$W/hello-norpath" | grep -q "=> $libdir/libpvm3" &&
		fail "relink: $libdir is searched with no run path: the test proves nothing"
	[ "$failed" = 0 ] || return

	# Every program: run path to libdir, copvm's libpvm3.so.3 loaded,
	# and the Fortran ones copvm's libfpvm3.
	for how in pc cc; do
		for p in hello hello_other master1 slave1 fmaster1 fslave1; do
			out=$(readelf -d "$W/$how/$p" | grep -E '\((RUNPATH|RPATH)\)')
			case $out in
			*"[$libdir]"* | *"[$libdir:"* | *":$libdir]"* | *":$libdir:"*) ;;
			*) fail "relink: $how/$p: run path is not $libdir: ${out:-none}" ;;
			esac
			out=$(env -u LD_LIBRARY_PATH ldd "$W/$how/$p" | grep 'libpvm3\.so\.3')
			case $out in
			*"=> $libdir/libpvm3.so.3 "*) ;;
			*) fail "relink: $how/$p loads $out" ;;
			esac
		done
		out=$(env -u LD_LIBRARY_PATH ldd "$W/$how/fmaster1" | grep 'libfpvm3\.so')
		case $out in
		*"=> $libdir/libfpvm3.so"*) ;;
		*) fail "relink: $how/fmaster1 loads ${out:-no libfpvm3.so}" ;;
		esac
	done
	[ "$failed" = 0 ] || return

	# An ordinary user, made for this run.
	RELINK_USER=cpvrl$$
	RELINK_HOME=$W/home
	useradd -M -d "$RELINK_HOME" -s /bin/sh "$RELINK_USER" ||
		{ fail "relink: useradd $RELINK_USER"; RELINK_USER=; return; }
	RELINK_UID=$(id -u "$RELINK_USER")
	mkdir -p "$RELINK_HOME/pvm3/bin/LINUX64"
	chown -R "$RELINK_USER" "$RELINK_HOME"
	for how in pc cc; do
		d=$W/$how
		for p in hello_other slave1 fslave1; do
			cp "$d/$p" "$RELINK_HOME/pvm3/bin/LINUX64/$p"
		done
		relink_run "$d" hello || fail "relink: $how/hello: exit $?: $(cat "$d/hello.out")"
		grep -q '^from t[0-9a-f]*: hello, world from ' "$d/hello.out" ||
			fail "relink: $how/hello got no greeting: $(cat "$d/hello.out")"
		relink_run "$d" master1 || fail "relink: $how/master1: exit $?: $(cat "$d/master1.out")"
		grep -q 'Spawning 3 worker tasks \.\.\. SUCCESSFUL' "$d/master1.out" ||
			fail "relink: $how/master1 did not spawn its slaves: $(cat "$d/master1.out")"
		p=$(grep -c '^I got \([0-9]*\)\.0* from [0-9]; (expecting \1\.0*)$' "$d/master1.out")
		[ "$p" = 3 ] || fail "relink: $how/master1: $p right sums of 3: $(cat "$d/master1.out")"
		relink_run "$d" fmaster1 || fail "relink: $how/fmaster1: exit $?: $(cat "$d/fmaster1.out")"
		p=$(grep -c '^ I got *\([0-9]*\)\.0* from *[0-9]* (expected *\1\.0* )$' "$d/fmaster1.out")
		[ "$p" = 3 ] || fail "relink: $how/fmaster1: $p right sums of 3: $(cat "$d/fmaster1.out")"
	done
	log "relink: 12 programs built, hello, master1 and fmaster1 ran twice as $RELINK_USER"
	out=$(relink_daemons)
	case $out in
	*" $pvmd") ;;
	*) fail "relink: the user's daemons are not copvm's $pvmd: ${out:-none}" ;;
	esac
	log "relink: the user's daemon (pid, program): $out"
	[ -e "/tmp/pvmd.$RELINK_UID" ] && fail "relink: stock's daemon ran (/tmp/pvmd.$RELINK_UID)"
	ls /tmp/copvm-"$RELINK_UID"/pvmd.log >/dev/null 2>&1 ||
		fail "relink: no copvm daemon log in /tmp/copvm-$RELINK_UID"
	relink_cleanup
}

#!/bin/bash
# installed-harness.sh - the benchmark tools work from an installed tree,
# not only from the build tree (issue 14, "installed tools").
#
# A build of the distribution tree of its own, `make install DESTDIR=D'
# into a fresh directory, then from D only:
# copvm-bench lists the eight benchmark programs and runs one (calcula2,
# no PVM needed) and refuses an unknown name; copvm-cluster-bench --help
# prints the options; run by an unprivileged user it exits 77 and says
# what it needs (network namespaces, the sysctl
# kernel.sched_autogroup_enabled); run by root in quick mode on one
# system (-q -s lin -b comms1 -k 0 -n 1) it writes a report whose runs
# all succeeded, with the installed programs (settings.txt names the
# installed layout, every run's command is under D).
#
# Needs root (the harness makes namespaces): exit 77 otherwise.  About
# a minute and a half (most of it the build), plus the wait if another bench-cluster run holds the
# harness's lock.  Exit status 0 (pass), 1 (fail), 77 (skip).
set -u
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
failed=0

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }

[ "$(id -u)" = 0 ] || { log "SKIP: installed-harness.sh needs root (namespaces)"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-installed.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
D=$T/root
# Installed from a build of its own: a `make install' in the build tree
# relinks libgpvm3 and libfpvm3 there (libtool moves each aside while it
# links), and a test running beside this one could start a program in
# that moment and load Debian's libgpvm3 instead (seen: SYNCH1 hung).
t0=$(date +%s)
make -C "$top_builddir" distdir distdir="$T/src" >"$T/distdir.log" 2>&1 ||
	{ tail -n 20 "$T/distdir.log" >&2; log "FAIL: make distdir"; exit 1; }
mkdir "$T/build"
if ! (cd "$T/build" && "$T/src/configure" --without-kernel-headers &&
	nice make -j2 && make install DESTDIR="$D") >"$T/install.log" 2>&1; then
	tail -n 30 "$T/install.log" >&2
	log "FAIL: configure, make or make install DESTDIR=$D"
	exit 1
fi
log "installed-harness: configure, make, make install took $(($(date +%s) - t0)) s"
. "$T/build/bench/paths.sh"
LIBEXEC=$D$COPVM_PKGLIBEXECDIR
BIN=$D$COPVM_BINDIR
export COPVM_BENCH_LIBEXEC=$LIBEXEC

# copvm-bench: list, run, bad name.
"$BIN/copvm-bench" list >"$T/list" 2>&1 || fail "copvm-bench list: exit $?"
for b in COMMS1 COMMS2 SYNCH1 sinring sintree master-slave calcula calcula2; do
	grep -q "^$b " "$T/list" || fail "copvm-bench list has no $b"
done
grep -q missing "$T/list" && fail "copvm-bench list: $(grep missing "$T/list")"
"$BIN/copvm-bench" run calcula2 -u 1 >"$T/c2" 2>&1 || fail "copvm-bench run calcula2: exit $?"
[ -s "$T/c2" ] || fail "copvm-bench run calcula2 printed nothing"
"$BIN/copvm-bench" run nosuchbench >"$T/bad" 2>&1 && fail "copvm-bench accepted an unknown name"
grep -q "unknown benchmark" "$T/bad" || fail "copvm-bench, unknown name: $(cat "$T/bad")"

# copvm-cluster-bench --help, and as an unprivileged user.
"$BIN/copvm-cluster-bench" --help >"$T/help" 2>&1 || fail "copvm-cluster-bench --help: exit $?"
grep -q -- '-q ' "$T/help" || fail "copvm-cluster-bench --help has no -q"
if command -v setpriv >/dev/null; then
	setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/ \
		"$BIN/copvm-cluster-bench" -q >"$T/user" 2>&1
	rc=$?
	[ $rc = 77 ] || fail "copvm-cluster-bench as nobody: exit $rc, not 77"
	for w in root namespace sched_autogroup_enabled; do
		grep -q "$w" "$T/user" || fail "copvm-cluster-bench as nobody does not mention $w: $(cat "$T/user")"
	done
else
	log "note: no setpriv, the unprivileged run is not tried"
fi

# The quick mode, one system, from the installed tree.
"$BIN/copvm-cluster-bench" -q -s lin -b comms1 -k 0 -n 1 -o "$T/out" \
	>"$T/run" 2>&1
rc=$?
[ $rc = 0 ] || { tail -n 20 "$T/run" >&2; fail "copvm-cluster-bench -q: exit $rc"; }
grep -q "^copvm: .*(installed, $LIBEXEC)" "$T/out/settings.txt" 2>/dev/null ||
	fail "settings.txt does not name the installed layout: $(grep '^copvm:' "$T/out/settings.txt" 2>/dev/null)"
grep -q "^comms1,lin,1,0,1,ok," "$T/out/runs.csv" 2>/dev/null ||
	fail "runs.csv has no successful comms1 lin run: $(cat "$T/out/runs.csv" 2>/dev/null)"
[ -s "$T/out/results.md" ] || fail "no results.md"
grep -q "$top_builddir/examples\|$top_builddir/daemon\|$T/build/" "$T/out/settings.txt" "$T/run" &&
	fail "the installed harness used a build tree"
[ $failed = 0 ] && log "installed-harness: PASS"
exit $failed

#!/bin/bash
# spawn-debian-path.sh - with PVM_ROOT unset, the daemon's spawn path ends
# with Debian's PVM directory, /usr/lib/pvm3/bin/$PVM_ARCH, where Debian's
# PVM applications keep their workers (stock's daemon, started by
# Debian's console, has PVM_ROOT=/usr/lib/pvm3).  Debian's master1, with
# copvm's library, spawns slave1, which is only there (a link made for
# the test and removed after it): three slaves, three right sums.  With
# PVM_ROOT set (to copvm's own root) the same spawn fails, as stock's
# would.  Root only (it writes in /usr/lib/pvm3), with pvm-examples'
# master1 and slave1; exit 77 otherwise.
set -u
top=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
log() { printf '%s\n' "$*" >&2; }
failed=0
fail() { log "FAIL: $*"; failed=1; }
[ "$(id -u)" = 0 ] || { log "SKIP: root only (writes in /usr/lib/pvm3)"; exit 77; }
[ -x /usr/bin/master1 ] && [ -x /usr/bin/slave1 ] ||
	{ log "SKIP: pvm-examples' master1 and slave1 are not installed"; exit 77; }
D=/usr/lib/pvm3/bin/LINUX64
[ -e "$D/slave1" ] && { log "SKIP: $D/slave1 exists already"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-debpath.XXXXXX") || exit 1
made_dir=
[ -d "$D" ] || made_dir=1
cleanup() {
	(cd "$T/home" && env PVM_TMP="$T/tmp" HOME="$T/home" \
		LD_LIBRARY_PATH="$top/lib/.libs" "$top/tests/tools/pvmhalt") >/dev/null 2>&1
	rm -f "$D/slave1"
	[ -n "$made_dir" ] && rmdir "$D" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$D" "$T/home" "$T/tmp" || exit 1
ln -s /usr/bin/slave1 "$D/slave1"

# run_master1 [VAR=VALUE...]: Debian's master1 on copvm, PVM_ROOT unset
# unless given; its output in $T/out.
run_master1() {
	(cd "$T/home" && env -u PVM_ROOT -u PVM_EXPORT HOME="$T/home" \
		PVM_TMP="$T/tmp" PVM_ALLOW_ROOT=1 COPVM_PVMD="$top/daemon/pvmd" \
		LD_LIBRARY_PATH="$top/lib/.libs" "$@" timeout 60 /usr/bin/master1) \
		>"$T/out" 2>&1 </dev/null
}
run_master1
grep -q 'Spawning 3 worker tasks \.\.\. SUCCESSFUL' "$T/out" ||
	fail "PVM_ROOT unset: master1 did not spawn slave1 from $D: $(cat "$T/out")"
n=$(grep -c '^I got \([0-9]*\)\.0* from [0-9]; (expecting \1\.0*)$' "$T/out")
[ "$n" = 3 ] || fail "PVM_ROOT unset: $n right sums of 3: $(cat "$T/out")"
(cd "$T/home" && env PVM_TMP="$T/tmp" HOME="$T/home" \
	LD_LIBRARY_PATH="$top/lib/.libs" "$top/tests/tools/pvmhalt") >/dev/null 2>&1
sleep 0.5

# The control: a PVM_ROOT of the user's keeps stock's two directories.
run_master1 PVM_ROOT="$T/root"
grep -q 'SUCCESSFUL' "$T/out" &&
	fail "PVM_ROOT set: slave1 was found in $D all the same: $(cat "$T/out")"
[ $failed = 0 ] && log "spawn-debian-path: PASS"
exit $failed

#!/bin/bash
# deb-package.sh - copvm's Debian packages (debian/, docs/install.md) build,
# install beside Debian's pvm packages, run a stock-built program and
# purge without a trace.
#
# 1. A distribution tree (make distdir) builds with
#    `dpkg-buildpackage -us -uc -b' into copvm, copvm-dev and copvm-dkms.
# 2. No file of the three packages belongs to an installed package
#    (dpkg -S), and copvm + copvm-dev install with dpkg -i while Debian's
#    pvm, libpvm3, pvm-dev and pvm-examples are installed; afterwards
#    those still verify (dpkg -V) and no copvm file is in /usr/bin but
#    copvm-* names.
# 3. Through copvm-run, pvm-examples' /usr/bin/master1 loads copvm's
#    libpvm3.so.3 (ldd), runs on copvm's daemon (its log under PVM_TMP,
#    where stock never writes) with its slave1 tasks, and gets the three
#    expected sums; the console's halt then leaves no daemon.
# 4. Programs rebuilt against the installed copvm-dev (pvm-examples' C and
#    Fortran sources, through pkg-config and /usr/bin/copvm-cc,
#    copvm-f77) carry the run path /usr/lib/copvm/lib and, started alone
#    by an ordinary user with no environment variable set, run on copvm's
#    daemon (relink-lib.sh); the wrappers and their pages are copvm-dev's.
# 5. dpkg --purge copvm-dev copvm: every file dpkg -L listed is gone,
#    /usr/lib/copvm, /usr/include/copvm and /usr/share/copvm too.
# Between 2 and 3, the agent (docs/agent.md): copvm's unit
# /lib/systemd/system/copvm-agent.service is enabled by the install,
# passes `systemd-analyze verify', and its ExecStart command, run by hand
# (systemd does not run here), serves an ordinary user's pvm-examples
# `timing' with COPVM_MODEL=pre: copvm-cosched -r shows backend=agent
# while it runs.  The purge then leaves no agent running.
#
# Runs only when asked (COPVM_TEST_DEB=1: a package build takes about a
# minute), as root, with dpkg-buildpackage, the build dependencies,
# gfortran, useradd and runuser, and pvm-examples installed, and copvm not already installed (it would be
# purged): exit 77 otherwise, with the reason.  The copvm-dkms package is
# built and checked for conflicts but not installed (that needs dkms and
# kernel headers).  Exit status 0 (pass), 1 (fail), 77 (skip).
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
failed=0
. "$top_srcdir/tests/integ/relink-lib.sh"

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }
skip() { log "SKIP: deb-package.sh: $*"; exit 77; }

[ "${COPVM_TEST_DEB:-}" = 1 ] || skip "set COPVM_TEST_DEB=1 to build the packages (about a minute)"
[ "$(id -u)" = 0 ] || skip "needs root (dpkg -i, --purge)"
command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (apt-get install dpkg-dev debhelper dh-dkms)"
[ -x /usr/bin/master1 ] && [ -x /usr/bin/slave1 ] &&
	[ -r /usr/share/doc/pvm-examples/examples.tar.gz ] || skip "pvm-examples is not installed"
for p in gfortran readelf useradd userdel runuser pgrep; do
	command -v $p >/dev/null || skip "$p is missing (gfortran, binutils, passwd, util-linux, procps)"
done
dpkg-query -W -f '${Status}' copvm 2>/dev/null | grep -q 'installed' &&
	skip "a copvm package is already installed: this test would purge it"
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
[ -n "$version" ] || { log "FAIL: no PACKAGE_VERSION in $top_builddir/Makefile"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-deb.XXXXXX") || exit 1
chmod 755 "$T"
installed=
agent_pid=
agent_user=
made_run_dir=
cleanup() {
	local p
	relink_cleanup
	if [ -n "$installed" ]; then
		dpkg --purge copvm-dev copvm >/dev/null 2>&1
	fi
	for p in $(daemons); do kill -KILL "$p" 2>/dev/null; done
	[ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null
	[ -n "$agent_user" ] && userdel "$agent_user" 2>/dev/null
	[ -n "$made_run_dir" ] && rm -rf "$made_run_dir"
	rm -rf "$T"
}
trap cleanup EXIT

# daemons: the pids of copvm daemons of this test (PVM_TMP=$T/tmp).
daemons() {
	local f p
	for f in /proc/[0-9]*/environ; do
		p=${f#/proc/}
		p=${p%/environ}
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = /usr/lib/copvm/bin/pvmd ] || continue
		tr '\0' '\n' <"$f" 2>/dev/null | grep -qx "PVM_TMP=$T/tmp" && echo "$p"
	done
}

# 1. Build.
src=$T/copvm-$version
make -C "$top_builddir" distdir distdir="$src" >"$T/distdir.log" 2>&1 ||
	{ tail -n 20 "$T/distdir.log" >&2; log "FAIL: make distdir"; exit 1; }
(cd "$src" && dpkg-checkbuilddeps) >"$T/deps.log" 2>&1 ||
	skip "build dependencies missing: $(cat "$T/deps.log")"
t0=$(date +%s)
(cd "$src" && nice dpkg-buildpackage -us -uc -b -j2) >"$T/build.log" 2>&1 ||
	{ tail -n 30 "$T/build.log" >&2; log "FAIL: dpkg-buildpackage"; exit 1; }
log "deb-package: dpkg-buildpackage took $(($(date +%s) - t0)) s"
debs=
for p in copvm_${version}_*.deb copvm-dev_${version}_*.deb copvm-dkms_${version}_all.deb; do
	f=$(ls "$T"/$p 2>/dev/null | head -n 1)
	[ -n "$f" ] || { fail "no $p"; continue; }
	debs="$debs $f"
done
[ $failed = 0 ] || exit 1

# 2. No conflicts, install beside Debian's pvm.
for f in $debs; do
	dpkg-deb -c "$f" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||'
done | sort -u >"$T/files"
[ -s "$T/files" ] || fail "the packages have no files"
xargs -r dpkg -S <"$T/files" >"$T/owners" 2>/dev/null
[ -s "$T/owners" ] && fail "files already owned: $(head -n 5 "$T/owners")"
grep '^/usr/bin/' "$T/files" | grep -v '^/usr/bin/copvm-' >"$T/binnames" &&
	fail "names in /usr/bin that are not copvm-*: $(cat "$T/binnames")"
stock=
for p in pvm libpvm3 pvm-dev pvm-examples; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q ' installed' && stock="$stock $p"
done
log "deb-package: Debian's packages installed beside:${stock:- none}"
installed=1
dpkg -i $(echo $debs | tr ' ' '\n' | grep -v dkms) >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "dpkg -i copvm copvm-dev"; exit 1; }
[ -z "$stock" ] || dpkg -V $stock >"$T/verify" 2>&1
[ -s "$T/verify" ] && fail "Debian's packages changed: $(cat "$T/verify")"

# 2b. The agent's unit, its command, a task of an ordinary user on it.
unit=/lib/systemd/system/copvm-agent.service
case $(dpkg -S "$unit" 2>/dev/null) in
copvm:*) ;;
*) fail "$unit is not copvm's" ;;
esac
[ -L /etc/systemd/system/multi-user.target.wants/copvm-agent.service ] ||
	fail "the install did not enable copvm-agent.service"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" >"$T/verify-unit" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$T/verify-unit")"
fi
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
sock=$(printf '%s\n' "$cmd" | sed -n 's/.* -s \([^ ]*\).*/\1/p')
if [ -e "$sock" ]; then
	fail "an agent socket already exists at $sock: not starting another"
else
	[ -d "${sock%/*}" ] || made_run_dir=${sock%/*}
	# Not our child: its exit must not leave a zombie that kill -0 sees.
	( $cmd 2>"$T/agent.log" & echo $! >"$T/agent.pid" )
	agent_pid=$(cat "$T/agent.pid")
	for i in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || fail "the unit's command made no socket: $(cat "$T/agent.log")"
	agent_user=copvmag$$
	AH=$T/agent-home
	mkdir -p "$AH/pvm3/bin/LINUX64" "$AH/tmp"
	ln -s /usr/bin/timing_slave "$AH/pvm3/bin/LINUX64/timing_slave"
	useradd -M -d "$AH" -s /bin/sh "$agent_user" || fail "useradd $agent_user"
	chown -R "$agent_user" "$AH"
	as_user() {
		(cd "$AH" && runuser -u "$agent_user" -- env -i PATH=/usr/bin:/bin \
			HOME="$AH" PVM_TMP="$AH/tmp" COPVM_MODEL=pre "$@")
	}
	# timing takes a fraction of a second (and exits 1, as its source
	# does): run it again and again until a look catches it.
	as_user sh -c 'for i in $(seq 40); do timeout 60 copvm-run timing; done' \
		>"$T/timing.out" 2>&1 </dev/null &
	tpid=$!
	seen=
	while [ -z "$seen" ] && kill -0 "$tpid" 2>/dev/null; do
		as_user copvm-cosched -r >>"$T/cosched.out" 2>&1
		grep -q ' backend=agent ' "$T/cosched.out" && seen=1
		sleep 0.05
	done
	wait "$tpid"
	grep -q '^done$' "$T/timing.out" ||
		fail "copvm-run timing never finished: $(tail -n 5 "$T/timing.out")"
	[ -n "$seen" ] || fail "copvm-cosched never showed backend=agent: $(grep backend= "$T/cosched.out" | sort -u | head -n 5)"
	[ -n "$seen" ] && log "deb-package: the unit's agent served $agent_user's timing (backend=agent)"
	(echo halt | as_user timeout 30 copvm-run pvm) >/dev/null 2>&1
fi

# 3. master1 from pvm-examples on copvm.
ldd_out=$(copvm-run ldd /usr/bin/master1 | grep 'libpvm3\.so\.3')
case $ldd_out in
*/usr/lib/copvm/lib/libpvm3.so.3*) ;;
*) fail "copvm-run ldd master1: $ldd_out" ;;
esac
H=$T/home
mkdir -p "$H/pvm3/bin/LINUX64" "$T/tmp"
ln -s /usr/bin/slave1 "$H/pvm3/bin/LINUX64/slave1"
(cd "$H" && env -u PVM_ROOT -u COPVM_PVMD -u LD_LIBRARY_PATH HOME="$H" \
	PVM_TMP="$T/tmp" PVM_ALLOW_ROOT=1 timeout 60 copvm-run master1) \
	>"$T/master1.out" 2>&1 </dev/null
rc=$?
[ $rc = 0 ] || fail "copvm-run master1: exit $rc: $(tail -n 5 "$T/master1.out")"
grep -q 'Spawning 3 worker tasks \.\.\. SUCCESSFUL' "$T/master1.out" ||
	fail "master1 did not spawn its slaves: $(cat "$T/master1.out")"
n=$(grep -c '^I got \([0-9]*\)\.0* from [0-9]; (expecting \1\.0*)$' "$T/master1.out")
[ "$n" = 3 ] || fail "master1: $n right sums of 3: $(cat "$T/master1.out")"
ls "$T"/tmp/copvm-*/pvmd.log >/dev/null 2>&1 ||
	fail "no copvm daemon log under PVM_TMP: master1 did not run on copvm"
[ -n "$(daemons)" ] || fail "no copvm daemon running after master1"
(cd "$H" && echo halt | env HOME="$H" PVM_TMP="$T/tmp" PVM_ALLOW_ROOT=1 \
	timeout 30 copvm-run pvm) >"$T/halt.out" 2>&1
for i in $(seq 50); do
	[ -z "$(daemons)" ] && break
	sleep 0.2
done
[ -z "$(daemons)" ] || fail "copvm daemon left after halt: $(daemons)"

# 4. Programs rebuilt against the packages.
for f in /usr/bin/copvm-cc /usr/bin/copvm-f77 /usr/lib/copvm/bin/copvm-cc \
	/usr/lib/copvm/bin/copvm-f77 /usr/share/copvm/man/man1/copvm-cc.1 \
	/usr/share/copvm/man/man1/copvm-f77.1 /usr/lib/copvm/lib/pkgconfig/fpvm3.pc \
	/usr/include/copvm/fortran/include/fpvm3.h; do
	case $(dpkg -S "$f" 2>/dev/null) in
	copvm-dev:*) ;;
	*) fail "$f is not in copvm-dev: $(dpkg -S "$f" 2>&1)" ;;
	esac
done
t0=$(date +%s)
relink_check /usr/lib/copvm/bin/pvmd /usr/lib/copvm/lib /usr/lib/copvm/lib/pkgconfig \
	/usr/bin "$T/relink"
log "deb-package: the relinked examples took $(($(date +%s) - t0)) s"

# 5. Purge.
dpkg -L copvm copvm-dev >"$T/listed" 2>&1 || fail "dpkg -L copvm copvm-dev"
dpkg --purge copvm-dev copvm >"$T/purge.log" 2>&1 || { cat "$T/purge.log" >&2; fail "dpkg --purge"; }
installed=
if [ -n "$agent_pid" ]; then
	for i in $(seq 50); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$agent_pid" 2>/dev/null && fail "the agent still runs after the purge"
	# The package's agents only (other tests may run agents of a build tree).
	for p in $(pgrep -x copvm-agent); do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in
		/usr/lib/copvm/sbin/copvm-agent*) fail "a packaged copvm-agent still runs: $(ps -o pid=,args= -p "$p")" ;;
		esac
	done
	agent_pid=
fi
dpkg-query -W -f '${Status}' copvm 2>/dev/null | grep -q 'installed' && fail "copvm still installed"
while read -r f; do
	case $f in
	/usr/lib/copvm* | /usr/share/copvm* | /usr/include/copvm* | /usr/bin/copvm-* | \
	/usr/share/doc/copvm*) ;;
	*) continue ;;   # shared directories (/usr, /usr/bin...)
	esac
	[ -e "$f" ] || [ -L "$f" ] && fail "left after purge: $f"
done <"$T/listed"
for d in /usr/lib/copvm /usr/include/copvm /usr/share/copvm /usr/share/doc/copvm; do
	[ -e "$d" ] && fail "left after purge: $d"
done
[ $failed = 0 ] && log "deb-package: PASS"
exit $failed

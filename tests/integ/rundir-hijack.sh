#!/bin/bash
# rundir-hijack.sh - another user must not be able to stand in for our
# daemon (issue 15, items 1 and 2; common/rundir.c).  As root, with user
# "nobody" as the attacker, each case prepares a trap, then checks that
# root's task and root's pvmd refuse it with a clear message, in bounded
# time, and that the attacker's fake daemon saw no connection:
#   owned    copvm-0 made by the attacker, a fake daemon listening in it
#   symlink  copvm-0 a symbolic link to the attacker's directory
#   peer     copvm-0 is root's, but the socket in it is the attacker's
#   tmpowner PVM_TMP itself belongs to the attacker
#   tmpmode  PVM_TMP writable by all and not sticky (root's own)
#   dirmode  copvm-0 is root's but open to others (mode 0755)
. "${srcdir:-.}/tests/integ/harden-lib.sh"
h_init rundir-hijack
h_need_other
FAKE=${srcdir:-.}/tests/integ/fake-pvmd.pl
u=$(id -u)

# expect_refused CASE TMP [LOG]: the task fails with a message saying
# it refuses, the daemon too, and the fake saw nobody.
expect_refused() {
	local c=$1 t=$2 flog=${3:-} rc
	h_probe "$t" "$t/../$c.probe" mytid
	rc=$?
	if [ $rc = 124 ]; then
		h_fail "$c: the task hung"
	elif [ $rc = 0 ]; then
		h_fail "$c: the task enrolled: $(cat "$t/../$c.probe")"
	elif ! grep -q refusing "$t/../$c.probe.err"; then
		h_fail "$c: no clear message: $(cat "$t/../$c.probe.err")"
	fi
	PVM_TMP=$t timeout -k 5 "$H_TIMEOUT" "$PVMD" >/dev/null \
		2>"$t/../$c.pvmd.err"
	rc=$?
	if [ $rc = 0 ]; then
		h_fail "$c: pvmd started"
		h_kill_daemon "$t"
	elif ! grep -q refusing "$t/../$c.pvmd.err"; then
		h_fail "$c: pvmd gave no clear message: $(cat "$t/../$c.pvmd.err")"
	fi
	if [ -n "$flog" ] && grep -q connection "$flog"; then
		h_fail "$c: the attacker's daemon got a connection"
	fi
}

# fake_in DIR LOG: starts the attacker's fake daemon in DIR.
fake_in() {
	setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups \
		perl "$FAKE" "$1/pvmd.sock" "$2" silent &
	h_bg $!
	for _ in $(seq 100); do
		grep -q listening "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	h_die "the fake daemon did not start"
}

h_tmpdir top
chmod 755 "$top"

# owned: the attacker made copvm-0 in a shared sticky PVM_TMP
t=$top/owned; mkdir -m 1777 "$t"
as_other mkdir -m 700 "$t/copvm-$u"
as_other touch "$t/copvm-$u/fake.log"
fake_in "$t/copvm-$u" "$t/copvm-$u/fake.log"
expect_refused owned "$t" "$t/copvm-$u/fake.log"

# symlink: copvm-0 points at the attacker's directory
t=$top/symlink; mkdir -m 1777 "$t"
as_other mkdir -m 777 "$t/evil"
as_other touch "$t/evil/fake.log"
as_other ln -s evil "$t/copvm-$u"
fake_in "$t/evil" "$t/evil/fake.log"
expect_refused symlink "$t" "$t/evil/fake.log"

# peer: root's directory, the attacker's listening socket
t=$top/peer; mkdir -m 755 "$t"; mkdir -m 777 "$t/copvm-$u"
touch "$t/fake.log"; chmod 666 "$t/fake.log"
fake_in "$t/copvm-$u" "$t/fake.log"
chmod 700 "$t/copvm-$u"
h_probe "$t" "$top/peer.probe" mytid
rc=$?
if [ $rc = 124 ]; then
	h_fail "peer: the task hung"
elif [ $rc = 0 ]; then
	h_fail "peer: the task enrolled with the attacker's daemon"
elif ! grep -q refusing "$top/peer.probe.err"; then
	h_fail "peer: no clear message: $(cat "$top/peer.probe.err")"
fi
grep -q 'read [1-9]' "$t/fake.log" &&
	h_fail "peer: the task sent its request to the attacker"

# tmpowner: PVM_TMP is the attacker's
t=$top/tmpowner; mkdir -m 755 "$t"; chown "$OTHER_UID" "$t"
expect_refused tmpowner "$t"
[ -e "$t/copvm-$u" ] && h_fail "tmpowner: copvm-$u was created"

# tmpmode: PVM_TMP writable by everyone, not sticky
t=$top/tmpmode; mkdir "$t"; chmod 777 "$t"
expect_refused tmpmode "$t"

# dirmode: copvm-0 open to others
t=$top/dirmode; mkdir -m 700 "$t"; mkdir -m 755 "$t/copvm-$u"
expect_refused dirmode "$t"

h_finish

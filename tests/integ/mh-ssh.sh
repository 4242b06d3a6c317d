#!/bin/bash
# A host added through real ssh, by an unprivileged user.
#
# Two emulated hosts (netns.sh).  node2 runs Debian's sshd (our own config:
# keys only, this test's user only, its own host key and port 22 of
# node2's address).  The test makes a throw-away user with a key pair
# (ssh config: that key, no host-key prompts) and copies what it needs
# (pvmd, libpvm3, mhcheck, pvmhalt) where that user can read them.  As
# that user, on node1: a master pvmd, then pvm_addhosts("node2") with
# PVM_RSH unset, so the master runs `ssh node2 .../pvmd -s ...' and gives
# the secret on ssh's stdin; then messages of 0 B to 4 MiB to a task on
# node2 over the default and the direct route, and pvm_halt.  Nothing of
# the user may be left running afterwards, on either host.  The user, the
# sshd, the hosts and the files are removed whatever happens.
#
# Skips (77) only without root (no namespaces, no user to make), or when
# sshd, ssh or ssh-keygen is not installed (CI installs them).
set -u
srcdir=${srcdir:-.}
top_srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
NETNS_ID=cpvmh$$
. "$top_srcdir/tests/integ/netns/netns.sh"

failed=0
log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }
die() { log "FAIL: $*"; exit 1; }

netns_check
for p in /usr/sbin/sshd ssh ssh-keygen useradd userdel usermod runuser pgrep; do
	command -v "$p" >/dev/null 2>&1 ||
		{ log "SKIP: $p is not installed (openssh-server, openssh-client, passwd)"; exit 77; }
done

user=cpvssh$$
W=
sshd_pid=

cleanup() {
	local rc=$? pid uid
	trap - EXIT
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
	if id "$user" >/dev/null 2>&1; then
		uid=$(id -u "$user")
		for pid in $(pgrep -u "$uid" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		sleep 0.2
		userdel "$user" 2>/dev/null
		rm -rf "/tmp/copvm-$uid"
	fi
	netns_teardown
	[ -n "$W" ] && rm -rf "$W"
	exit $rc
}
trap cleanup EXIT
trap 'log interrupted; exit 1' INT TERM HUP

W=$(mktemp -d "${TMPDIR:-/tmp}/copvm-mh-ssh.XXXXXX") || die mktemp
chmod 755 "$W"
netns_up 2 "$W" || die "cannot create the emulated hosts"

# the user and its keys
useradd -M -d "$W/home" -s /bin/sh "$user" || die "useradd $user"
usermod -p '*' "$user"		# no password, but not a locked account
uid=$(id -u "$user")
mkdir -p "$W/home/.ssh" "$W/bin" "$W/lib" "$W/tmp1" "$W/home/pvm3/bin/LINUX64"
ssh-keygen -q -t ed25519 -N '' -f "$W/home/.ssh/id_ed25519" || die ssh-keygen
cp "$W/home/.ssh/id_ed25519.pub" "$W/home/.ssh/authorized_keys"
cat >"$W/home/.ssh/config" <<'EOF'
Host *
	IdentityFile ~/.ssh/id_ed25519
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	LogLevel ERROR
	BatchMode yes
	ConnectTimeout 10
EOF
cp "$top_builddir/daemon/pvmd" "$top_builddir/tests/tools/pvmhalt" \
	"$top_builddir/tests/integ/netns/mhcheck" "$W/bin/" || die "copy programs"
cp -P "$top_builddir"/lib/.libs/libpvm3.so* "$W/lib/" || die "copy libpvm3"
ln -s "$W/bin/mhcheck" "$W/home/pvm3/bin/LINUX64/mhcheck"
chown -R "$user" "$W/home" "$W/tmp1"
chmod 700 "$W/home" "$W/home/.ssh" "$W/tmp1"

# sshd on node2
mkdir -p "$W/sshd" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$W/sshd/host_key" || die "host key"
cat >"$W/sshd/config" <<EOF
Port 22
ListenAddress $NETNS_NET.2
HostKey $W/sshd/host_key
PidFile $W/sshd/sshd.pid
AuthorizedKeysFile .ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin no
AllowUsers $user
X11Forwarding no
EOF
ip netns exec "$(netns_name 2)" /usr/sbin/sshd -D -e -f "$W/sshd/config" \
	2>"$W/sshd/log" &
sshd_pid=$!

# as_user SECONDS HOST COMMAND...: run as the user on an emulated host,
# with a clean environment (PVM_RSH unset: the default, ssh).
as_user() {
	local t=$1 host=$2
	shift 2
	timeout -k 5 "$t" ip netns exec "$(netns_name "${host#node}")" \
		unshare --uts /bin/sh -c \
		'hostname "$1" && shift && exec "$@"' sh "$host" \
		runuser -u "$user" -- env -i HOME="$W/home" PATH=/usr/bin:/bin \
		LC_ALL=C PVM_TMP="$W/tmp1" LD_LIBRARY_PATH="$W/lib" \
		PVM_EXPORT=LD_LIBRARY_PATH COPVM_PVMD="$W/bin/pvmd" "$@"
}

for i in $(seq 50); do
	as_user 10 node1 ssh node2 true 2>/dev/null && break
	sleep 0.2
done
as_user 10 node1 ssh node2 true || { cat "$W/sshd/log" >&2; die "ssh to node2 does not work"; }

as_user 30 node1 "$W/bin/pvmd" </dev/null >"$W/pvmd.out" 2>&1 ||
	{ cat "$W/pvmd.out" >&2; die "the master did not start"; }
as_user 60 node1 "$W/bin/mhcheck" add node2 >"$W/add.out" 2>&1
grep -qx "node2: added" "$W/add.out" || {
	fail "pvm_addhosts(node2) over ssh failed:"
	cat "$W/add.out" "$W/tmp1/copvm-$uid/pvmd.log" >&2
}
# the secret goes on stdin: no command line of the user's processes
# (the slave's among them) holds anything like it
for pid in $(pgrep -u "$uid"); do
	if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -Eq '[0-9a-f]{64}'; then
		fail "a command line holds a secret: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
	fi
done
pgrep -u "$uid" -f -- "-nnode2" >/dev/null || fail "no slave pvmd runs for the user"
# and it came through sshd (the probe above was the first login)
n=$(grep -c "Accepted publickey for $user" "$W/sshd/log")
[ "$n" -ge 2 ] || { fail "sshd saw $n logins, not the master's"; cat "$W/sshd/log" >&2; }
for route in default direct; do
	as_user 60 node1 "$W/bin/mhcheck" routes "$route" \
		>"$W/$route.out" 2>"$W/$route.err" || fail "routes $route failed"
	n=$(grep -c ': ok$' "$W/$route.out")
	[ "$n" = 9 ] || { fail "routes $route: $n sizes ok, not 9"; cat "$W/$route.out" "$W/$route.err" >&2; }
	grep -qx "500 messages in order: yes" "$W/$route.out" ||
		fail "routes $route: order"
done
# pvm_getfds: one more descriptor for the direct circuit, as stock (an
# io_uring ring that drives it is watched inside the first one)
grep -q "descriptors 1 before, 2 after" "$W/direct.err" ||
	fail "no direct circuit over the ssh-started host: $(cat "$W/direct.err")"

as_user 20 node1 "$W/bin/pvmhalt" >/dev/null 2>&1 || fail "pvm_halt failed"
for i in $(seq 50); do
	left=$(pgrep -u "$uid" -a)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "left running after the halt: $left"

if [ "$failed" -ne 0 ]; then
	log "mh-ssh: FAIL"
	exit 1
fi
log "mh-ssh: PASS"
exit 0

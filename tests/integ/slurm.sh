#!/bin/bash
# copvm-slurm on a Slurm cluster of our own (docs/slurm.md).
#
# Three emulated hosts (netns.sh), each a Slurm node: its own slurmd
# (NodeName=nodeI, NodeAddr its address), in its own UTS namespace (host
# name nodeI) and mount namespace, where $W/nodetmp is the node's private
# directory (a node-local /tmp).  slurmctld runs on node1 too; munged, for
# the credentials, in the caller's namespace (a socket of its own).  The
# configuration, munge key, state and spool directories, logs and pid
# files are all under the test's directory; no system service is used.
#
# Job 1 (sbatch --wait, 3 nodes): copvm-slurm runs copvm's console `conf'
# (the machine must hold the three nodes) and Debian's master1, whose
# slave1 tasks go round the hosts; its output is checked.
# Job 2 (3 nodes): copvm-slurm starts a long task on every node through
# the console and waits; once the tasks run on all three nodes, scancel.
# Then no pvmd, task, srun or step of the job may be left on any node,
# and copvm-slurm must have halted the machine itself.
# Slurm, munge and the hosts are removed whatever happens.
#
# Skips (77) without root (namespaces), or when slurmctld, slurmd,
# munged, the Slurm clients or pvm-examples' master1 are missing.
set -u
srcdir=${srcdir:-.}
top_srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
NETNS_ID=cpvsl$$
. "$top_srcdir/tests/integ/netns/netns.sh"

NODES=3
failed=0
log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }
die() { log "FAIL: $*"; exit 1; }

netns_check
for p in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged sbatch \
	 scancel squeue sinfo srun scontrol /usr/bin/master1 /usr/bin/slave1; do
	command -v "$p" >/dev/null 2>&1 || {
		log "SKIP: $p is not installed (slurmctld, slurmd, slurm-client, munge, pvm-examples)"
		exit 77
	}
done
for f in daemon/pvmd tools/copvm-slurm tools/copvm-srun-rsh console/pvm; do
	[ -x "$top_builddir/$f" ] || die "$top_builddir/$f is not built"
done

W=
munged_pid=

cleanup() {
	local rc=$?
	trap - EXIT
	netns_teardown		# slurmctld, slurmd and whatever they started
	[ -n "$munged_pid" ] && kill "$munged_pid" 2>/dev/null
	if [ -n "$W" ]; then
		if [ $rc != 0 ] && [ $rc != 77 ]; then
			for f in "$W"/log/*.log "$W"/job*.out; do
				[ -s "$f" ] || continue
				log "--- $f"
				tail -n 30 "$f" >&2
			done
		fi
		rm -rf "$W"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'log interrupted; exit 1' INT TERM HUP

W=$(mktemp -d "${TMPDIR:-/tmp}/copvm-slurm.XXXXXX") || die mktemp
chmod 755 "$W"
netns_up $NODES "$W" || die "cannot create the emulated hosts"
mkdir -p "$W/log" "$W/ctld" "$W/munge" "$W/nodetmp" "$W/bin" \
	"$W/home/pvm3/bin/LINUX64"
chmod 700 "$W/munge"

# munge, with its own key and socket
dd if=/dev/urandom of="$W/munge/key" bs=1024 count=1 status=none
chmod 400 "$W/munge/key"
/usr/sbin/munged -F --force --socket="$W/munge/sock" \
	--key-file="$W/munge/key" --pid-file="$W/munge/pid" \
	--log-file="$W/log/munged.log" --seed-file="$W/munge/seed" \
	>"$W/log/munged.out" 2>&1 &
munged_pid=$!
for i in $(seq 100); do
	[ -S "$W/munge/sock" ] && break
	kill -0 "$munged_pid" 2>/dev/null || break
	sleep 0.1
done
[ -S "$W/munge/sock" ] || { cat "$W/log/munged.out" >&2; die "munged did not start"; }

# the programs: a copy of pvmd and a task whose names are this test's
cp "$top_builddir/daemon/pvmd" "$W/bin/pvmd"
ln -s /usr/bin/slave1 "$W/home/pvm3/bin/LINUX64/slave1"
ln -s /bin/sleep "$W/home/pvm3/bin/LINUX64/cpvsleep"

conf=$W/slurm.conf
: >"$W/plugstack.conf"
nodes=
for i in $(seq $NODES); do nodes="$nodes node$i"; done
{
	cat <<EOF
ClusterName=copvmtest
SlurmctldHost=node1($NETNS_NET.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$W/munge/sock
StateSaveLocation=$W/ctld
SlurmdSpoolDir=$W/spool/%n
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.%n.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.%n.log
PlugStackConfig=$W/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/linear
SlurmdParameters=config_overrides
ReturnToService=2
# Slurm's default: the time copvm-slurm's halt has after scancel's
# SIGTERM before SIGKILL (5 s cut it short on a busy machine)
KillWait=30
MessageTimeout=20
InactiveLimit=0
MinJobAge=300
EOF
	for i in $(seq $NODES); do
		echo "NodeName=node$i NodeAddr=$NETNS_NET.$i CPUs=1 State=UNKNOWN"
	done
	echo "PartitionName=copvm Nodes=ALL Default=YES MaxTime=10 State=UP"
} >"$conf"

# on_node I COMMAND...: run on node I: its network namespace (entered
# with nsenter, not `ip netns exec', which would hide /sys/fs/cgroup,
# where slurmd looks), its hosts file, host name and /tmp.
on_node() {
	local i=$1 ns
	shift
	ns=$(netns_name "$i")
	mkdir -p "$W/nodes/node$i/tmp" "$W/spool/node$i"
	nsenter --net="/run/netns/$ns" unshare --uts --mount /bin/sh -c \
		'hostname "$1" && mount --bind "$2" /etc/hosts &&
		 mount --bind "$3" "$4" && shift 4 && exec "$@"' \
		sh "node$i" "/etc/netns/$ns/hosts" "$W/nodes/node$i/tmp" \
		"$W/nodetmp" env SLURM_CONF="$conf" "$@"
}
# client COMMAND...: a Slurm client command, from node1.
client() {
	ip netns exec "$(netns_name 1)" env SLURM_CONF="$conf" "$@"
}

on_node 1 /usr/sbin/slurmctld -D -i -f "$conf" >"$W/log/slurmctld.out" 2>&1 &
daemons=$!
for i in $(seq $NODES); do
	on_node "$i" /usr/sbin/slurmd -D -N "node$i" -f "$conf" \
		>"$W/log/slurmd$i.out" 2>&1 &
	daemons="$daemons $!"
done
up=0
for i in $(seq 300); do
	for pid in $daemons; do
		kill -0 "$pid" 2>/dev/null || die "a Slurm daemon exited"
	done
	n=$(client timeout 10 sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
	[ "$n" = $NODES ] && { up=1; break; }
	sleep 0.2
done
[ $up = 1 ] || { client sinfo -N >&2; die "the $NODES Slurm nodes did not come up"; }

# The job's environment: the build tree's copvm, this test's directories.
export PATH=$top_builddir/tools:$top_builddir/console:$PATH
export HOME=$W/home COPVM_PVMD=$W/bin/pvmd
export COPVM_LIBDIR=$top_builddir/lib/.libs
export COPVM_SLURM_RSH=$top_builddir/tools/copvm-srun-rsh
export COPVM_BINDIR=$top_builddir/tools
export COPVM_SLURM_TMP=$W/nodetmp PVM_ALLOW_ROOT=1 LC_ALL=C
unset PVM_RSH PVM_TMP PVM_ROOT PVM_DPATH PVM_EXPORT LD_PRELOAD

# Job 1: the machine's configuration, then master1.
cat >"$W/job1.sh" <<'EOF'
#!/bin/bash
copvm-slurm bash -c 'echo conf | pvm; master1'
EOF
client timeout -k 5 90 sbatch --wait --parsable -N $NODES -J copvm-job1 \
	--chdir="$W/home" -o "$W/job1.out" "$W/job1.sh" >"$W/job1.id" 2>&1
rc=$?
[ $rc = 0 ] || fail "job 1 failed (sbatch --wait: $rc)"
for i in $(seq $NODES); do
	grep -Eq "^ *node$i( |\$)" "$W/job1.out" ||
		fail "job 1: node$i is not in the machine's configuration"
done
grep -Eq "^ *$NODES hosts?," "$W/job1.out" || fail "job 1: not $NODES hosts"
n=$(grep -c '^I got ' "$W/job1.out")
[ "$n" = $((3 * NODES)) ] ||
	fail "job 1: master1 got $n results, not $((3 * NODES))"

# leftovers: what runs in the nodes besides slurmctld and slurmd.
leftovers() {
	local pid comm
	for pid in $(netns_all_pids); do
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		case $comm in
		slurmctld | slurmscriptd | slurmd) ;;
		*) printf '%s %s\n' "$pid" "$(tr '\0' ' ' <"/proc/$pid/cmdline")" ;;
		esac
	done
}
for i in $(seq 100); do
	left=$(leftovers)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "left running after job 1: $left"
# no_files WHEN: the nodes' directories (their /tmp) must be empty.
no_files() {
	local f
	f=$(cd "$W/nodes" && ls -d node*/tmp/* 2>/dev/null)
	[ -z "$f" ] && return
	fail "left in the nodes' /tmp after $1: $(echo $f)"
	# what is left, and when each file was last changed, for the log
	(cd "$W/nodes" && find node*/tmp -mindepth 1 -printf '%TT %y %p\n') >&2
	date '+now: %T.%N' >&2
}
no_files "job 1"

# Job 2: a task on every node, then waits; cancelled once they all run.
# copvm-slurm is exec'd, as copvm-slurm(1) advises for a job that may be
# cancelled: a shell running it as a child dies at once on scancel's
# SIGTERM, and Slurm then kills what is left of the step, which could cut
# copvm-slurm's halt short.
cat >"$W/job2.sh" <<EOF
#!/bin/bash
exec copvm-slurm bash -c 'for i in \$(seq $NODES); do
	echo "spawn -node\$i cpvsleep 600"
done | pvm; sleep 600'
EOF
client sbatch --parsable -N $NODES -J copvm-job2 --chdir="$W/home" \
	-o "$W/job2.out" "$W/job2.sh" >"$W/job2.id" 2>&1 ||
	die "sbatch job 2: $(cat "$W/job2.id")"
job2=$(cat "$W/job2.id")
running=0
for i in $(seq 600); do
	n=0
	for j in $(seq $NODES); do
		for pid in $(netns_pids "$j"); do
			if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = cpvsleep ] ||
			   tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
			   grep -q 'cpvsleep 600'; then
				n=$((n + 1))
				break
			fi
		done
	done
	[ $n = $NODES ] && { running=1; break; }
	sleep 0.1
done
[ $running = 1 ] || fail "job 2: the tasks did not start on all $NODES nodes"
pgrep -f -- "$W/bin/pvmd" >/dev/null || fail "job 2: no pvmd runs"
client scancel "$job2" || fail "scancel $job2 failed"
for i in $(seq 600); do
	[ -z "$(client squeue -h -j "$job2" 2>/dev/null)" ] && break
	sleep 0.1
done
for i in $(seq 200); do
	left=$(leftovers)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "left running after scancel: $left"
left=$(pgrep -af -- "$W/bin/pvmd")
[ -z "$left" ] || fail "a pvmd is left after scancel: $left"
no_files scancel
grep -q "halting the virtual machine" "$W/job2.out" || {
	fail "job 2: copvm-slurm did not halt the machine itself"
	cat "$W/job2.out" >&2
}

if [ "$failed" -ne 0 ]; then
	log "slurm: FAIL"
	exit 1
fi
log "slurm: PASS"
exit 0

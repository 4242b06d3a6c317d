#!/bin/bash
# copvm-slurm's own expansion of Slurm node lists (used when scontrol is
# missing): ranges, lists, zero padding, several bracket groups,
# suffixes, and a clear error, never a crash, on bad lists.  When
# scontrol is installed, every good list must also expand as it does.
# Also checks the refusals outside an allocation (copvm-slurm and
# copvm-srun-rsh), --help, the arguments copvm-srun-rsh gives srun, and,
# without Slurm (the job's variables set by hand), a one-node machine:
# copvm-slurm's exit status, and SIGTERM (what scancel sends) halting
# the machine and removing its directory.
set -u
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
cs=$top_builddir/tools/copvm-slurm
rsh=$top_builddir/tools/copvm-srun-rsh
[ -x "$cs" ] && [ -x "$rsh" ] || { echo "FAIL: tools are not built" >&2; exit 1; }
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-slurm-tools.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
# scontrol needs a configuration, even to expand a list
printf 'ClusterName=x\nSlurmctldHost=localhost\n' >"$T/slurm.conf"
export SLURM_CONF=$T/slurm.conf

# good [-n] LIST EXPECTED...: LIST expands to the EXPECTED names, in order
# (-n: a list scontrol refuses, which we accept).
good() {
	local list out want sc check=1
	[ "$1" = -n ] && { check=0; shift; }
	list=$1
	shift
	want=$(printf '%s\n' "$@")
	out=$(COPVM_SLURM_NO_SCONTROL=1 "$cs" --expand "$list" 2>&1)
	[ $? = 0 ] || fail "\"$list\": failed: $out"
	[ "$out" = "$want" ] || fail "\"$list\": got [$(echo $out)], not [$(echo $want)]"
	if [ $check = 1 ] && command -v scontrol >/dev/null 2>&1; then
		sc=$(scontrol show hostnames "$list" 2>/dev/null)
		[ "$sc" = "$want" ] || fail "\"$list\": scontrol says [$(echo $sc)]"
	fi
}

# bad LIST: a non-zero exit and a message naming the problem.
bad() {
	local out
	out=$(COPVM_SLURM_NO_SCONTROL=1 "$cs" --expand "$1" 2>&1)
	[ $? = 1 ] || fail "\"$1\": accepted: $out"
	case $out in
	copvm-slurm:*) ;;
	*) fail "\"$1\": no clear error: $out" ;;
	esac
}

good node1 node1
good 'node[1-3]' node1 node2 node3
good 'node[1-3,7]' node1 node2 node3 node7
good 'n[08-11]' n08 n09 n10 n11
good 'a1,b[2-3],c' a1 b2 b3 c
good 'rack[1-2]-n[1-2]' rack1-n1 rack1-n2 rack2-n1 rack2-n2
good -n 'gpu[1,3]x.dom' gpu1x.dom gpu3x.dom
good 'a,,b' a b
good 'x[5]' x5
bad ''
bad 'node[1-3'
bad 'node1-3]'
bad 'node[]'
bad 'node[3-1]'
bad 'node[a-b]'
bad 'node[1-3]]'
bad 'node[[1]]'
bad ','
bad 'node;rm'
bad 'n[0-99999999]'

out=$(env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST "$cs" true 2>&1)
[ $? = 1 ] && [[ $out == *"not inside a Slurm allocation"* ]] ||
	fail "copvm-slurm outside an allocation: $out"
out=$(env -u SLURM_JOB_ID "$rsh" node1 true 2>&1)
[ $? = 255 ] && [[ $out == *"not inside a Slurm allocation"* ]] ||
	fail "copvm-srun-rsh outside an allocation: $out"
out=$(SLURM_JOB_ID=1 "$rsh" 'bad;host' true 2>&1)
[ $? = 255 ] && [[ $out == *"bad host name"* ]] ||
	fail "copvm-srun-rsh with a bad host: $out"
out=$("$cs" --bogus 2>&1)
[ $? = 2 ] || fail "copvm-slurm --bogus: $out"
"$cs" --help | grep -q '^usage: copvm-slurm' || fail "copvm-slurm --help"
"$rsh" --help | grep -q '^usage: copvm-srun-rsh' || fail "copvm-srun-rsh --help"

# The arguments copvm-srun-rsh gives srun: a fake srun prints them.
cat >"$T/srun" <<'EOF'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done
EOF
chmod +x "$T/srun"
out=$(SLURM_JOB_ID=1 COPVM_SRUN=$T/srun "$rsh" -n node2 /x/pvmd -s -d0x0 -nnode2)
printf '%s\n' "$out" | grep -qx -- '--nodelist=node2' || fail "srun: no --nodelist: $out"
printf '%s\n' "$out" | grep -qx -- '--overlap' || fail "srun: no --overlap: $out"
printf '%s\n' "$out" | grep -qx -- '/x/pvmd -f -s -d0x0 -nnode2' ||
	fail "srun: the slave is not kept in the foreground: $out"

# A one-node machine: the node is this host.
cp "$top_builddir/daemon/pvmd" "$T/pvmd-slurm-tools"
one() {
	exec env -u PVM_TMP -u PVM_RSH SLURM_JOB_ID=77 SLURM_JOB_NODELIST="$(hostname -s)" \
		SLURMD_NODENAME="$(hostname -s)" COPVM_SLURM_TMP="$T/nodetmp" \
		COPVM_PVMD="$T/pvmd-slurm-tools" COPVM_LIBDIR="$top_builddir/lib/.libs" \
		COPVM_SLURM_RSH="$rsh" COPVM_BINDIR="$top_builddir/tools" \
		PVM_ALLOW_ROOT=1 \
		PATH="$top_builddir/console:$PATH" HOME="$T" "$cs" "$@"
}
mkdir -p "$T/nodetmp"
out=$(one bash -c 'echo conf | pvm; exit 3' 2>&1)
rc=$?
[ $rc = 3 ] || fail "one node: exit $rc, not the program's 3: $out"
[[ $out == *"1 host, 1 data format"* ]] || fail "one node: conf: $out"
[ -z "$(ls -A "$T/nodetmp")" ] || fail "one node: left $(ls "$T/nodetmp")"
# SIGTERM once the program runs on the machine (it says so in a file)
one bash -c 'echo conf | pvm >"$HOME/conf.out" && exec sleep 600' \
	>"$T/term.out" 2>&1 &
pid=$!
for i in $(seq 300); do
	grep -q "1 host" "$T/conf.out" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
grep -q "1 host" "$T/conf.out" 2>/dev/null || fail "SIGTERM: the program did not run"
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit $rc, not 143"
grep -q "SIGTERM: halting the virtual machine" "$T/term.out" ||
	fail "SIGTERM: no message: $(cat "$T/term.out")"
left=$(pgrep -af -- "$T/pvmd-slurm-tools")
if [ -n "$left" ]; then
	fail "SIGTERM: left running: $left"
	for pid in $(pgrep -f -- "$T/pvmd-slurm-tools"); do kill -KILL "$pid"; done
fi
[ -z "$(ls -A "$T/nodetmp")" ] || fail "SIGTERM: left $(ls "$T/nodetmp")"

[ $failed = 0 ] || { echo "slurm-tools: FAIL" >&2; exit 1; }
echo "slurm-tools: PASS" >&2
exit 0

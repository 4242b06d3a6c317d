#!/bin/bash
# bench-cluster.sh - the benchmark suite on an emulated non-dedicated
# cluster, stock PVM and copvm's coscheduling models side by side
# (docs/benchmarks.md).
#
# Builds N nodes on this machine (network namespaces, each pinned to its
# own CPU: bench/cluster-lib.sh), sets kernel.sched_autogroup_enabled to
# 0, measures calcula2 alone on every node (ET_dedicated), then runs the
# matrix {repetition} x {benchmark} x {local jobs per node k} x {system},
# the systems back to back for each point so that their ratios are
# measured side by side.  Each run gets a fresh virtual machine; the same
# benchmark binaries serve every system (Debian's libpvm3.so.3 first on
# LD_LIBRARY_PATH for stock; the copvm systems differ only in the COPVM_*
# environment of the daemons and tasks: bench/cluster-lib.sh).  A run that fails (for instance copvm
# without multi-host support asked for two nodes) is recorded with its
# reason and the matrix goes on.
#
# Writes into the output directory: runs.csv (one line per run), metrics.csv
# (every RESULT line of every successful run), settings.txt (machine,
# kernel, parameters), results.md (tables: execution time, Gain =
# T_ref / T_model over LIN and over stock, LO = ET_dedicated /
# ET_nondedicated) and PNG plots.
# Whatever happens (end, error, Ctrl-C, SIGTERM), the namespaces, the
# sysctl and every process it started are cleaned up.
#
# usage: bench/bench-cluster.sh [-q] [-n nodes|auto] [-b benchmarks]
#            [-k ks] [-s systems] [-P Ps] [-B backend] [-J jobs] [-U users] [-r reps]
#            [-w seconds] [-d duty] [-L kind] [-T] [-t seconds] [-o dir] [-K]
#   (as root, from the top build directory after `make', or installed:
#   copvm-cluster-bench, same options)
#   -q        quick mode: comms1 (short lengths) and synch1 (2 tasks),
#             k = 0,1, one repetition, 1 s of calcula2 work, nodes auto,
#             systems stock,lin,imp,hpdt,dyn,pre,dcs,exp (under 6 minutes)
#   -n nodes  emulated nodes (default 2; auto: 2 if copvm can add a host,
#             else 1)
#   -b list   benchmarks, from comms1,comms2,synch1,sinring,sintree,mslave
#             (default comms1,comms2,synch1,sintree,mslave)
#   -k list   local jobs per node (default 0-5)
#   -s list   systems (default stock,copvm): stock (Debian's PVM), copvm
#             (copvm, the library's default model) and the models lin,
#             imp, hpdt, dyn, pre, dcs, exp (COPVM_MODEL), and unbounded
#             (LIN with every PVM process at SCHED_FIFO 1); dyn and pre take
#             a P: pre0, pre0.5, dyn1 (COPVM_P), and after it a real-time
#             threshold in messages/s: pre0.5r50 (COPVM_F_RT)
#   -P list   one system per P for every plain dyn and pre of -s
#             (-s lin,pre -P 0,0.5,1: lin,pre0,pre0.5,pre1)
#   -B name   COPVM_BACKEND of every copvm system: auto (default), none,
#             self, agent or kmod (the module must be loaded: with kmod and
#             no /dev/pvm_cosched the runs go on with none, as the library
#             does); agent, or auto when agent/copvm-agent is
#             built, runs one copvm-agent for the whole run (its socket in
#             COPVM_AGENT_SOCK); with agent and no agent, the copvm runs
#             fail (status noagent)
#   -J jobs   copies of the benchmark's master run at once in the same
#             virtual machine (1 or 2; default 1): T is their mean
#   -U users  1 (default) or 2: two jobs at once, of two users, each in a
#             virtual machine of its own (its own daemons, HOME and
#             PVM_TMP) on the same nodes: job 1 the harness's user, job 2
#             $BENCH_USER2 (default copvmb, made if missing and removed at
#             the end); the report has both jobs' times, their ratio and
#             each job's Gain over LIN per run
#   -r reps   repetitions of the whole matrix (default 3)
#   -w secs   calcula2's work, in seconds of CPU on an idle node (default 4)
#   -d pct    CPU duty cycle of every local job (10, 50, 90...; default 100)
#   -L kind   local jobs: calcula (default: 10 ms bursts, sched_yield) or
#             busy (never yield: calcula -n, calcula2 -n)
#   -T        coscheduling trace: COPVM_COSCHED_TRACE for the copvm systems,
#             one file per run (logs/<run>.trace), a timeline in the report
#   -t secs   time limit of one benchmark run (default 900)
#   -o dir    output directory (default bench-results/<date>-<time>)
#   -K        keep the work directory (logs of every run)
# Benchmark arguments can be replaced through BENCH_ARGS_<name>, e.g.
# BENCH_ARGS_comms1='-m 64k -r 100'.  COPVM_INTERVAL_MS and COPVM_SHARE,
# if set, are passed on to the copvm systems.
# Exit status: 0 when the report was written (failed runs included),
# 1 on an error of the harness, 77 when not root or namespaces are
# unavailable.
set -u
# The command line, for settings.txt (a report names its command).
BC_CMDLINE="$0$(printf ' %q' "$@")"

# Where the programs and the scripts are, in this order:
#  1. COPVM_BENCH_LIBEXEC, if set: an installed copvm's libexec directory
#     (PREFIX/libexec/copvm: the programs, these scripts and paths.sh);
#  2. run from a source tree (bench/ beside tests/integ/netns/): the build tree
#     (INTEG_BUILDDIR, else the current directory, else the source tree);
#  3. else this script's own directory: the installed harness
#     (copvm-cluster-bench runs PREFIX/libexec/copvm/bench-cluster.sh).
# An installed tree staged with DESTDIR works too: paths.sh's configured
# directories are taken under the same DESTDIR as the libexec directory.
bc_here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${COPVM_BENCH_LIBEXEC:-}" ] && [ -e "$bc_here/../tests/integ/netns/netns.sh" ]; then
	BC_SRC=$(cd "${srcdir:-$bc_here/..}" && pwd)
	BC_B=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
	[ -x "$BC_B/examples/comms1" ] || [ ! -x "$BC_SRC/examples/comms1" ] || BC_B=$BC_SRC
	BC_LAYOUT="build tree $BC_B"
	BC_SCRIPTS=$BC_SRC/bench
	BC_NETNS_SH=$BC_SRC/tests/integ/netns/netns.sh
	BC_NETNS_RSH=$BC_SRC/tests/integ/netns/rsh
	BC_PROGS=$BC_B/examples
	BC_PVMHOSTS=$BC_B/bench/pvmhosts
	BC_PVMD=$BC_B/daemon/pvmd
	BC_PVMGS=$BC_B/group/pvmgs
	BC_AGENT=$BC_B/agent/copvm-agent
	BC_LIBPATH=$BC_B/lib/.libs:$BC_B/group/.libs
	BC_LIBS="$BC_B/lib/.libs/libpvm3.so.3 $BC_B/group/.libs/libgpvm3.so.3"
else
	BC_SCRIPTS=$(cd "${COPVM_BENCH_LIBEXEC:-$bc_here}" 2>/dev/null && pwd) ||
		{ echo "bench-cluster: no directory ${COPVM_BENCH_LIBEXEC:-$bc_here}" >&2; exit 1; }
	[ -r "$BC_SCRIPTS/paths.sh" ] ||
		{ echo "bench-cluster: $BC_SCRIPTS/paths.sh is missing (not an installed copvm libexec directory; set COPVM_BENCH_LIBEXEC)" >&2; exit 1; }
	. "$BC_SCRIPTS/paths.sh"
	# DESTDIR staging: the same leading directories as the libexec one.
	bc_root=
	case $BC_SCRIPTS in
	*"$COPVM_PKGLIBEXECDIR") bc_root=${BC_SCRIPTS%"$COPVM_PKGLIBEXECDIR"} ;;
	esac
	BC_SRC=$BC_SCRIPTS
	BC_B=$BC_SCRIPTS
	BC_LAYOUT="installed, $BC_SCRIPTS"
	BC_NETNS_SH=$BC_SCRIPTS/netns.sh
	BC_NETNS_RSH=$BC_SCRIPTS/netns-rsh
	BC_PROGS=$BC_SCRIPTS
	BC_PVMHOSTS=$BC_SCRIPTS/pvmhosts
	BC_PVMD=$bc_root$COPVM_BINDIR/pvmd
	BC_PVMGS=$bc_root$COPVM_BINDIR/pvmgs
	BC_AGENT=$bc_root$COPVM_SBINDIR/copvm-agent
	BC_LIBPATH=$bc_root$COPVM_LIBDIR
	BC_LIBS="$BC_LIBPATH/libpvm3.so.3 $BC_LIBPATH/libgpvm3.so.3"
fi

. "$BC_NETNS_SH"
. "$BC_SCRIPTS/cluster-lib.sh"
BC_RSH=$BC_SCRIPTS/rsh

quick=
nodes=
benches=
klist=
systems=
plist=
backend=auto
njobs=1
nusers=1
reps=
work=
duty=
lkind=calcula
trace=
limit=
out=
usage() { sed -n '/^# usage/,/^# Exit/p' "$0" | sed 's/^# \{0,1\}//'; }
case ${1:-} in
-h | --help) usage; exit 0 ;;
esac
while getopts qn:b:k:s:P:B:J:U:r:w:d:L:Tt:o:K opt; do
	case $opt in
	q) quick=1 ;;
	n) nodes=$OPTARG ;;
	b) benches=$OPTARG ;;
	k) klist=$OPTARG ;;
	s) systems=$OPTARG ;;
	P) plist=$OPTARG ;;
	B) backend=$OPTARG ;;
	J) njobs=$OPTARG ;;
	U) nusers=$OPTARG ;;
	r) reps=$OPTARG ;;
	w) work=$OPTARG ;;
	d) duty=$OPTARG ;;
	L) lkind=$OPTARG ;;
	T) trace=1 ;;
	t) limit=$OPTARG ;;
	o) out=$OPTARG ;;
	K) BC_KEEP=1 ;;
	*) usage >&2; exit 1 ;;
	esac
done
[ $OPTIND -gt $# ] || { bc_log "bench-cluster: unexpected argument ${!OPTIND}"; exit 1; }
# Defaults: the full run, or the quick mode's small matrix.
if [ -n "$quick" ]; then
	: "${nodes:=auto}" "${benches:=comms1,synch1}" "${klist:=0,1}"
	: "${reps:=1}" "${work:=1}" "${limit:=60}"
	: "${systems:=stock,lin,imp,hpdt,dyn,pre,dcs,exp}"
else
	: "${nodes:=2}" "${benches:=comms1,comms2,synch1,sintree,mslave}"
	: "${klist:=0-5}" "${reps:=3}" "${work:=4}" "${limit:=900}"
	: "${systems:=stock,copvm}"
fi
[ -n "$out" ] || out=$PWD/bench-results/$(date +%Y%m%d-%H%M%S)

# Arguments of each benchmark's master.
bench_args() {
	local var=BENCH_ARGS_$1
	if [ -n "${!var:-}" ]; then
		echo "${!var}"
		return
	fi
	if [ -n "$quick" ]; then
		case $1 in
		comms1 | comms2) echo "-s 0,8,64,512,1k -r 50" ;;
		synch1) echo "-n 2 -r 10" ;;
		sinring | sintree) echo "-n 4 -s 1024 20" ;;
		mslave) echo "20" ;;
		esac
	else
		case $1 in
		comms1 | comms2) echo "-m 4M -r 200" ;;
		synch1) echo "-n 2-8 -r 20" ;;
		sinring | sintree) echo "-n 4 -s 1024 200" ;;
		mslave) echo "200" ;;
		esac
	fi
}

# A comma list with ranges (0-5) as words.
expand() {
	local w a b
	for w in ${1//,/ }; do
		case $w in
		*-*) a=${w%-*}; b=${w#*-}; seq "$a" "$b" ;;
		*) echo "$w" ;;
		esac
	done
}

# The systems of -s, plain dyn and pre once per P of -P, each once.
expand_systems() {
	local s p
	for s in ${systems//,/ }; do
		case $s in
		dyn | pre)
			if [ -n "$plist" ]; then
				for p in ${plist//,/ }; do echo "$s$p"; done
			else
				echo "$s"
			fi ;;
		*) echo "$s" ;;
		esac
	done | awk '!seen[$0]++'
}

# jobname J: the output name of the J-th copy of a benchmark's master.
jobname() { [ "$1" = 1 ] && echo main || echo "main$1"; }

if [ "$(id -u)" != 0 ]; then
	bc_log "bench-cluster: SKIP: this harness needs root. It makes one network" \
		"namespace per emulated node (ip netns, unshare) and pins each to a CPU," \
		"and it sets the sysctl kernel.sched_autogroup_enabled to 0 for the run" \
		"(restored at the end). Run it as root, e.g. sudo $0 -q."
	exit 77
fi
for p in ${plist//,/ }; do
	bc_kind "pre$p" >/dev/null || bc_die "-P $p: P is a number from 0 to 1"
done
syslist=$(expand_systems)
for s in $syslist; do
	case $(bc_kind "$s") in
	stock | copvm) ;;
	*) bc_die "unknown system $s (stock, copvm, lin, imp, hpdt, dyn[P], pre[P], dcs, exp)" ;;
	esac
done
[ -n "$syslist" ] || bc_die "no system"
case $backend in
auto | none | self | agent | kmod) ;;
*) bc_die "-B $backend: auto, none, self, agent or kmod" ;;
esac
case $njobs in
1 | 2) ;;
*) bc_die "-J $njobs: 1 or 2 jobs" ;;
esac
case $nusers in
1) ;;
2) njobs=2 ;;
*) bc_die "-U $nusers: 1 or 2 users" ;;
esac
# The users of the jobs: job 1 runs as the harness (root), job 2 with
# -U 2 as the second user, each in its own virtual machine.
user2=${BENCH_USER2:-copvmb}
[ "$nusers" = 1 ] || [ "$user2" != root ] || bc_die "BENCH_USER2 must not be root"
# as_job J: what bc_on starts from now on runs as job J's user.
as_job() { BC_AS=; [ "$nusers" = 1 ] || [ "$1" = 1 ] || BC_AS=$user2; }
# vm_users: the users with a virtual machine of their own in a run.
vm_users() { seq "$nusers"; }
case $lkind in
calcula) BC_LOCAL_OPTS= ;;
busy) BC_LOCAL_OPTS=-n ;;
*) bc_die "-L $lkind: calcula or busy" ;;
esac
[ -z "$duty" ] || awk -v d="$duty" 'BEGIN { exit !(d > 0 && d <= 100) }' ||
	bc_die "-d $duty: a duty cycle from 1 to 100"
BC_LOCAL_OPTS="${duty:+-d $duty}${duty:+${BC_LOCAL_OPTS:+ }}$BC_LOCAL_OPTS"
ncopvm=0
for s in $syslist; do [ "$(bc_kind "$s")" = copvm ] && ncopvm=$((ncopvm + 1)); done
for b in $(expand "$benches"); do
	[ -n "$(bench_args "$b")" ] || bc_die "unknown benchmark $b"
	[ -x "$BC_PROGS/$b" ] || bc_die "$BC_PROGS/$b is missing (run make)"
done
for f in "$BC_PROGS/calcula" "$BC_PROGS/calcula2" "$BC_PVMHOSTS" "$BC_PVMD" \
	"$BC_PVMGS" $BC_LIBS; do
	[ -e "$f" ] || bc_die "$f is missing (run make, or make install)"
done
BC_STOCK_LIBDIR=
if echo "$syslist" | grep -qx stock; then
	BC_STOCK_LIBDIR=$(bc_stock_libdir) ||
		bc_die "system stock: Debian's libpvm3/libgpvm3 are not installed"
	[ -x "$STOCK_ROOT/lib/pvmd" ] ||
		bc_die "system stock: stock PVM (package pvm) is not installed"
fi
for c in gnuplot perl taskset ip unshare timeout flock; do
	command -v "$c" >/dev/null || bc_die "$c is missing (see docs/benchmarks.md)"
done

# One harness at a time: two would fight over the sysctl.
lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
exec 9>"$lockdir/copvm-bench-cluster.lock"
flock -w 900 9 || bc_die "another bench-cluster.sh holds $lockdir/copvm-bench-cluster.lock"

BC_W=$(mktemp -d "${TMPDIR:-/tmp}/copvm-bench.XXXXXX") || bc_die "mktemp"
chmod 755 "$BC_W"
bc_log "bench-cluster: work directory $BC_W, results in $out"
trap 'bc_restore' EXIT
trap 'trap "" INT TERM HUP; bc_log "bench-cluster: interrupted"; exit 130' INT TERM HUP
mkdir -p "$out" || bc_die "cannot create $out"
out=$(cd "$out" && pwd)

bc_check_netns
netns_check
maxnodes=$nodes
[ "$nodes" = auto ] && maxnodes=2
netns_up "$maxnodes" "$BC_W" || bc_die "could not create the namespaces"
trap 'bc_restore' EXIT
[ "$nusers" = 1 ] || { bc_user_ensure "$user2"; command -v setpriv >/dev/null ||
	bc_die "setpriv is missing (util-linux): it runs the second user's jobs"; }
bc_setup_nodes "$maxnodes"
bc_autogroup_off
start=$(date +%s)

# The boost agent: one for the run, if the copvm systems may use it.
BC_BACKEND=$backend
agent_state="not used"
if [ "$ncopvm" -gt 0 ] && { [ "$backend" = agent ] ||
	{ [ "$backend" = auto ] && [ -x "$BC_AGENT" ]; }; }; then
	if bc_agent_start "$BC_AGENT"; then
		agent_state="$BC_AGENT -f -s $BC_AGENT_SOCK ${BENCH_AGENT_ARGS:-}(pid $BC_AGENT_PID)"
	else
		agent_state="failed: $BC_AGENT_NOTE"
		if [ "$backend" = agent ]; then
			bc_log "bench-cluster: -B agent: $BC_AGENT_NOTE; the copvm runs will fail"
		else
			bc_log "bench-cluster: -B auto: $BC_AGENT_NOTE; going on without the agent"
		fi
	fi
fi

if [ "$nodes" = auto ]; then
	# Two nodes if copvm can add a host and talk across it.
	mkdir -p "$BC_W/probe"
	nodes=1
	if bc_vm_start copvm 2 "$BC_W/probe"; then
		if bc_prog copvm 30 "$BC_W/probe/comms1" "$BC_PROGS/comms1 -s 8 -r 10"; then
			nodes=2
		else
			echo "comms1 across two nodes: $(tail -n 1 "$BC_W/probe/comms1.err")" \
				>"$BC_W/probe/vm.note"
		fi
	fi
	bc_vm_stop copvm "$BC_W/probe"
	[ $nodes = 2 ] || bc_log "bench-cluster: copvm multi-host does not work" \
		"($(cat "$BC_W/probe/vm.note" 2>/dev/null)); quick mode on one node"
fi

units=$(awk -v w="$work" 'BEGIN { u = int(w * 100 + 0.5); print u < 1 ? 1 : u }')
c2args="-u $units${BC_LOCAL_OPTS:+ $BC_LOCAL_OPTS}"
# ET_dedicated of each node: the smallest of all the measurements made
# so far (other work on the machine only ever adds to it): several before
# the matrix, one more before each further repetition.
ded=()
ded_all=
measure_dedicated() {
	local i t
	bc_dedicated "$nodes" "$c2args" "$BC_W/dedicated.$1" ||
		bc_die "calcula2 failed on an idle node"
	t=($(bc_calcula2_times "$nodes" "$BC_W/dedicated.$1"))
	for i in "${!t[@]}"; do
		if [ -z "${ded[$i]:-}" ] ||
		   awk -v a="${t[$i]}" -v b="${ded[$i]}" 'BEGIN { exit !(a < b) }'; then
			ded[$i]=${t[$i]}
		fi
	done
	ded_all="$ded_all${ded_all:+; }${t[*]}"
	for i in "${!t[@]}"; do
		echo "$1,node$((i + 1)),${t[$i]}" >>"$out/dedicated.csv"
	done
	ded_mean=$(printf '%s\n' "${ded[@]}" | awk '{ s += $1 } END { printf "%.4f", s / NR }')
}
echo "measurement,node,elapsed_s" >"$out/dedicated.csv"
bc_log "bench-cluster: calcula2 $c2args alone on each of $nodes node(s)..."
for i in $(seq "$([ -n "$quick" ] && echo 1 || echo 3)"); do
	measure_dedicated "start$i"
done
bc_log "bench-cluster: ET_dedicated ${ded[*]} s (all: $ded_all)"

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $BC_CMDLINE"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "kernel: $(uname -sr), $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')"
	echo "stock PVM: Debian pvm $(dpkg-query -W -f '${Version}' pvm 2>/dev/null), libraries from $BC_STOCK_LIBDIR"
	echo "copvm: $(git -C "$BC_SRC" describe --always --dirty 2>/dev/null || echo unknown) ($BC_LAYOUT)"
	echo "nodes: $nodes network namespace(s), node i pinned to CPU (i-1) mod $(nproc) (taskset); kernel.sched_autogroup_enabled=0 during the run (was $BC_AUTOGROUP_ORIG)"
	echo "local jobs: k per node = $klist; one calcula2 $c2args, the others calcula${BC_LOCAL_OPTS:+ $BC_LOCAL_OPTS} ($([ "$lkind" = busy ] && echo 'busy: never yield' || echo '10 ms bursts, sched_yield')${duty:+, $duty% duty cycle})"
	echo "systems: $(echo $syslist | tr ' ' ,)"
	for s in $syslist; do
		[ "$(bc_kind "$s")" = copvm ] || continue
		echo "system $s: $(bc_env "$s" | tr -s ' \t\n' '\n\n\n' | grep '^COPVM_[A-Z_]*=' |
			grep -v '^COPVM_PVM' | sed "s|$BC_W|WORK|g" | tr '\n' ' ' | sed 's/ $//')"
	done
	[ "$ncopvm" -gt 0 ] && echo "backend: COPVM_BACKEND=$backend; copvm-agent: $agent_state${COPVM_INTERVAL_MS:+; COPVM_INTERVAL_MS=$COPVM_INTERVAL_MS}"
	# The agent grants rt as nice where it cannot set the tasks'
	# RLIMIT_RTTIME backstop (docs/agent.md): a report must say so.
	[ -n "$BC_AGENT_PID" ] && grep -q 'no CAP_SYS_RESOURCE' "$BC_W/agent.log" 2>/dev/null &&
		echo "copvm-agent grants rt as nice at its floor here (no CAP_SYS_RESOURCE: no RLIMIT_RTTIME backstop)"
	echo "parallel jobs: $njobs copy(ies) of the benchmark's master at once"
	[ "$nusers" = 1 ] || echo "users: job 1 $(id -un) (uid $(id -u)), job 2 $user2 (uid $(id -u "$user2")), each a virtual machine of its own on the same nodes"
	[ -n "$trace" ] && echo "trace: COPVM_COSCHED_TRACE, one file per copvm run (logs/*.trace)"
	echo "repetitions: $reps; time limit per run: $limit s$([ -n "$quick" ] && echo '; quick mode')"
	for b in $(expand "$benches"); do echo "$b: $b $(bench_args "$b")"; done
} >"$out/settings.txt"

echo "bench,system,nodes,k,rep,status,time_s,wall_s,calcula2_s,calcula2_ded_s,lo,note,jobs,job_times_s" >"$out/runs.csv"
echo "bench,system,nodes,k,rep,metric,value" >"$out/metrics.csv"
mkdir -p "$out/logs"

now() { date +%s.%N; }
clean_note() { tr '\n,"' '  ' | tr -s ' ' | cut -c1-160 | sed 's/ *$//'; }

# run_jobs SYSTEM DIR COMMAND: the timed run(s) of the benchmark's master
# on node1: $njobs copies at once, each with its own output
# (DIR/$(jobname J).{out,err}); JOB_RC[J] is each one's exit status.
# With two, a copy that is done runs again, untimed, until the other is
# done too, so that two programs share the nodes all along.
run_jobs() {
	local sys=$1 dir=$2 cmd=$3 j running
	local -a pid fpid
	JOB_RC=()
	if [ "$njobs" = 1 ]; then
		bc_prog "$sys" "$limit" "$dir/main" "$cmd"
		JOB_RC[1]=$?
		return
	fi
	for j in $(seq "$njobs"); do
		as_job "$j"
		bc_prog -b "$sys" "$limit" "$dir/$(jobname "$j")" "$cmd"
		pid[$j]=$BC_PROG_PID
	done
	BC_AS=
	while :; do
		running=0
		for j in $(seq "$njobs"); do
			[ -n "${pid[$j]}" ] || continue
			if kill -0 "${pid[$j]}" 2>/dev/null; then
				running=$((running + 1))
			else
				wait "${pid[$j]}"
				JOB_RC[$j]=$?
				pid[$j]=
			fi
		done
		[ $running -gt 0 ] || break
		for j in $(seq "$njobs"); do
			[ -z "${pid[$j]}" ] && [ "${JOB_RC[$j]}" = 0 ] || continue
			if [ -n "${fpid[$j]:-}" ]; then
				kill -0 "${fpid[$j]}" 2>/dev/null && continue
				wait "${fpid[$j]}"
			fi
			as_job "$j"
			bc_prog -b "$sys" "$limit" "$dir/filler$j" "$cmd"
			BC_AS=
			fpid[$j]=$BC_PROG_PID
		done
		sleep 0.05
	done
	for j in $(seq "$njobs"); do
		[ -n "${fpid[$j]:-}" ] || continue
		kill -TERM "${fpid[$j]}" 2>/dev/null
		wait "${fpid[$j]}"
	done
}

# run_cell BENCH SYSTEM K REP: one run, one line of runs.csv.
# The agent's CPU time so far, in seconds (nothing without an agent):
# with its share of each run, the boosts' own cost shows in metrics.csv.
agent_cpu_s() {
	[ -n "$BC_AGENT_PID" ] && [ -r "/proc/$BC_AGENT_PID/stat" ] || return 0
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' \
		"/proc/$BC_AGENT_PID/stat"
}

run_cell() {
	local b=$1 sys=$2 k=$3 rep=$4 name dir status=ok note= t= wall= c2= lo=
	local cmd rc vmrc t0 i j et kind times= tj jn fp p running u udir
	local agent0= agent1= agent_share=
	name=$b.$sys.k$k.r$rep
	dir=$BC_W/cells/$name
	mkdir -p "$dir"
	kind=$(bc_kind "$sys")
	cmd="$BC_PROGS/$b $(bench_args "$b")"
	BC_TRACE=
	if [ -n "$trace" ] && [ "$kind" = copvm ]; then
		BC_TRACE=$dir/trace
		: >"$BC_TRACE"
		chmod 666 "$BC_TRACE"
	fi
	if [ "$kind" = copvm ] && [ "$backend" = agent ] && ! bc_agent_alive; then
		vmrc=3
		status=noagent
		note="-B agent: $BC_AGENT_NOTE"
		echo "$note" >"$dir/vm.note"
	else
		# One virtual machine per user (with -U 2, the second user's
		# logs in DIR/u2).
		for u in $(vm_users); do
			as_job "$u"
			[ "$u" = 1 ] && udir=$dir || { udir=$dir/u$u; mkdir -p "$udir"; }
			bc_vm_start "$sys" "$nodes" "$udir"
			vmrc=$?
			BC_AS=
			if [ "$u" != 1 ] && [ $vmrc != 0 ]; then
				sed -i "s/^/user $user2: /" "$udir/vm.note"
				cp "$udir/vm.note" "$dir/vm.note"
			fi
			[ $vmrc = 0 ] || break
		done
	fi
	if [ $vmrc = 1 ] || [ $vmrc = 2 ]; then
		[ $vmrc = 1 ] && status=novm || status=nohosts
		note=$(clean_note <"$dir/vm.note")
	elif [ $vmrc = 0 ]; then
		bc_local_start "$k" "$nodes" "$dir" "$c2args"
		t0=$(now)
		agent0=$(agent_cpu_s)
		run_jobs "$sys" "$dir" "$cmd"
		wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
		for j in $(seq "$njobs"); do
			jn=$(jobname "$j")
			rc=${JOB_RC[$j]}
			tj=$(awk '$1 == "RESULT" && $2 == "time_s" { print $3 }' "$dir/$jn.out")
			times="$times${times:+ }${tj:-–}"
			p=
			[ "$njobs" = 1 ] || p="job $j: "
			[ "$status" = ok ] || continue
			if [ $rc = 124 ] || [ $rc = 137 ]; then
				status=timeout
				note="${p}no result after $limit s"
			elif [ $rc != 0 ]; then
				status=fail
				note="${p}exit $rc: $(tail -n 2 "$dir/$jn.err" | clean_note)"
			elif [ -z "$tj" ]; then
				status=noresult
				note="$p$(tail -n 2 "$dir/$jn.err" | clean_note)"
			fi
		done
		if [ "$status" = ok ]; then
			if [ "$njobs" = 1 ]; then
				t=$times
			else
				t=$(echo "$times" | awk '{ for (i = 1; i <= NF; i++) s += $i; printf "%.9f", s / NF }')
			fi
		fi
		# Keep the distributed load on until every calcula2 is done:
		# untimed runs of the same benchmark ($njobs at once), the
		# last ones cut short.
		while [ "$status" = ok ] && [ "$k" -gt 0 ] && ! bc_calcula2_done "$nodes" "$dir"; do
			if awk -v a="$t0" -v b="$(now)" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
				note="calcula2 outlived the time limit"
				break
			fi
			fp=
			for j in $(seq "$njobs"); do
				as_job "$j"
				bc_prog -b "$sys" "$limit" "$dir/filler$j" "$cmd"
				fp="$fp $BC_PROG_PID"
			done
			BC_AS=
			while ! bc_calcula2_done "$nodes" "$dir"; do
				running=
				for i in $fp; do
					kill -0 "$i" 2>/dev/null && running=1
				done
				[ -n "$running" ] || break
				sleep 0.1
			done
			for i in $fp; do
				kill -TERM "$i" 2>/dev/null
				wait "$i"
				rc=$?
				if [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 143 ] &&
				   ! bc_calcula2_done "$nodes" "$dir"; then
					note="a filler run failed"
					sleep 0.5
				fi
			done
		done
		if [ "$status" = ok ] && [ "$k" -gt 0 ] && bc_calcula2_done "$nodes" "$dir"; then
			local ctimes
			ctimes=$(bc_calcula2_times "$nodes" "$dir" | tr '\n' ' ')
			c2=$(echo "$ctimes" | awk '{ for (i = 1; i <= NF; i++) s += $i; printf "%.4f", s / NF }')
			lo=$(awk -v d="$ded_mean" -v e="$c2" 'BEGIN { printf "%.4f", d / e }')
			agent1=$(agent_cpu_s)
			[ -n "$agent0" ] && [ -n "$agent1" ] &&
				agent_share=$(awk -v a="$agent0" -v b="$agent1" -v t0="$t0" -v t1="$(now)" \
					'BEGIN { printf "%.4f", (b - a) / (t1 - t0) }')
		fi
		bc_local_stop
	fi
	if [ $vmrc != 3 ]; then
		for u in $(vm_users | sort -rn); do
			as_job "$u"
			[ "$u" = 1 ] && udir=$dir || udir=$dir/u$u
			if [ "$u" = 1 ]; then bc_vm_stop "$sys" "$udir"; else bc_vm_stop -n "$sys" "$udir"; fi
			BC_AS=
		done
	fi
	BC_TRACE=
	cp "$dir/main.out" "$out/logs/$name.out" 2>/dev/null
	for j in $(seq 2 "$njobs"); do
		cp "$dir/$(jobname "$j").out" "$out/logs/$name.job$j.out" 2>/dev/null
	done
	[ -e "$dir/trace" ] && cp "$dir/trace" "$out/logs/$name.trace"
	[ "$status" = ok ] || cat "$dir"/*.note "$dir"/main*.err "$dir/addhosts.out" \
		>"$out/logs/$name.err" 2>/dev/null
	echo "$b,$sys,$nodes,$k,$rep,$status,$t,$wall,$c2,$ded_mean,$lo,$note,$njobs,$times" >>"$out/runs.csv"
	if [ "$status" = ok ]; then
		for j in $(seq "$njobs"); do
			awk -v p="$b,$sys,$nodes,$k,$rep" \
				'$1 == "RESULT" && NF == 3 { print p "," $2 "," $3 }' \
				"$dir/$(jobname "$j").out" >>"$out/metrics.csv"
		done
		if [ "$njobs" != 1 ]; then
			j=0
			for tj in $times; do
				j=$((j + 1))
				echo "$b,$sys,$nodes,$k,$rep,time_s.job$j,$tj" >>"$out/metrics.csv"
			done
		fi
	fi
	[ -n "$agent_share" ] &&
		echo "$b,$sys,$nodes,$k,$rep,agent_cpu_share,$agent_share" >>"$out/metrics.csv"
	if [ -n "$c2" ]; then
		i=0
		for et in $(bc_calcula2_times "$nodes" "$dir"); do
			i=$((i + 1))
			echo "$b,$sys,$nodes,$k,$rep,calcula2_s.node$i,$et" >>"$out/metrics.csv"
		done
	fi
	CELL_STATUS=$status
	CELL_SUMMARY="T=${t:-–} s$([ "$njobs" = 1 ] || echo " ($times)")${lo:+ LO=$lo}${note:+ ($note)}"
}

total=0
for rep in $(seq "$reps"); do
	for b in $(expand "$benches"); do
		for k in $(expand "$klist"); do
			for sys in $syslist; do total=$((total + 1)); done
		done
	done
done
done_cells=0
for rep in $(seq "$reps"); do
	[ "$rep" -gt 1 ] && measure_dedicated "rep$rep"
	for b in $(expand "$benches"); do
		for k in $(expand "$klist"); do
			for sys in $syslist; do
				c0=$(date +%s)
				run_cell "$b" "$sys" "$k" "$rep"
				done_cells=$((done_cells + 1))
				el=$(($(date +%s) - start))
				eta=$((el * (total - done_cells) / done_cells))
				printf '[%3d/%d %d:%02d, about %d:%02d left] %-7s %-6s k=%d rep %d: %-8s %s (%ds)\n' \
					"$done_cells" "$total" $((el / 60)) $((el % 60)) \
					$((eta / 60)) $((eta % 60)) "$b" "$sys" "$k" "$rep" \
					"$CELL_STATUS" "$CELL_SUMMARY" $(($(date +%s) - c0)) >&2
			done
		done
	done
done

echo "ET_dedicated (calcula2 alone, per node, smallest of all measurements): ${ded[*]} s; all measurements: $ded_all" >>"$out/settings.txt"
perl "$BC_SCRIPTS/report.pl" "$out" >/dev/null || bc_die "the report failed"
ok=$(awk -F, 'NR > 1 && $6 == "ok"' "$out/runs.csv" | wc -l)
bc_log "bench-cluster: $ok of $total runs succeeded, $(($(date +%s) - start)) s; report: $out/results.md"
sed -n '/^## Summary/,/^## [^S]/p' "$out/results.md" | sed '$d'
exit 0

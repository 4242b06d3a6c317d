# cluster-lib.sh - the emulated non-dedicated cluster behind
# bench/bench-cluster.sh (sourced by bash after
# tests/integ/netns/netns.sh).
#
# A node is a network namespace made by netns.sh (node1..nodeN, private
# 10.213.0.x addresses, a bridge in a namespace of its own, a hosts file
# per namespace); bench/rsh adds the node's CPU (taskset), so that a
# node's daemon, its PVM tasks and its local jobs all share one processor
# and compete as equals (kernel.sched_autogroup_enabled is 0 meanwhile).
# Everything a node runs is started through that rsh, and the daemons use
# it as PVM_RSH to start each other, stock PVM today and copvm once it has
# multi-host virtual machines.
#
# Each run ("cell") starts a fresh virtual machine of one system (stock
# PVM, or copvm with one coscheduling model: bc_kind), adds the other nodes, starts k local jobs per node, runs one
# benchmark's master on node1, keeps the benchmark running (untimed
# filler runs) until every node's calcula2 has finished, then halts the
# machine and kills whatever is left in the namespaces.  Of the k local
# jobs of a node, one is calcula2 (fixed work; it turns into calcula when
# done, so the load stays k until the end) and k - 1 are calcula; all of
# them with the same options (BC_LOCAL_OPTS: duty cycle, never yield).
#
# The copvm systems are copvm (the library's default model) and the
# models lin, imp, hpdt, dyn, pre, dcs and exp, dyn and pre with an
# optional P (pre0.5: COPVM_MODEL=pre COPVM_P=0.5).  Their settings reach
# every process of the machine through the environment: bc_env gives
# them to what runs on node1 (the daemon, the master), the daemon passes
# its environment to the tasks it spawns and, through PVM_RSH (bench/rsh,
# then netns/rsh: both keep the environment), to the slave daemons of the
# other nodes, which pass it to their tasks.  BC_BACKEND (COPVM_BACKEND),
# BC_AGENT_SOCK (COPVM_AGENT_SOCK, the copvm-agent of the run: one for
# all nodes, they share the machine) and BC_TRACE (COPVM_COSCHED_TRACE)
# go the same way.
#
# Two users (bench-cluster.sh -U 2): while BC_AS names a user, what
# bc_on starts runs as that user (setpriv), in a virtual machine of its
# own: its own side directory (HOME, PVM_TMP: $BC_W/side/KIND.USER, owned
# by that user, so that its run directory passes the library's checks
# and only its own tasks reach its daemon), its own daemons on the same
# nodes.  It keeps two capabilities, CAP_SYS_ADMIN and CAP_NET_ADMIN
# (setns into a network namespace wants both), as ambient ones, so that
# its daemon's PVM_RSH (bench/rsh, netns/rsh) can enter a node's
# namespace to start a slave as it would by ssh; neither touches
# scheduling (that is CAP_SYS_NICE), and nothing else of root is kept.
#
# Every process started gets BENCH_CLUSTER_ID=$BC_ID in its environment
# (the harness itself does not have it): bc_restore finds and kills
# strays by it, and the smoke test checks that none is left.
#
# Needs: BC_W (work directory); the paths bench/bench-cluster.sh
# sets for the build tree or an installed tree (BC_PROGS, BC_PVMHOSTS,
# BC_PVMD, BC_PVMGS, BC_LIBPATH); BC_NODES; and netns.sh's NETNS_MAP once
# netns_up has run.

STOCK_ROOT=${STOCK_ROOT:-/usr/lib/pvm3}
BC_UID=$(id -u)
BC_ID=bench-cluster-$$-$(date +%s)
BC_AUTOGROUP=/proc/sys/kernel/sched_autogroup_enabled
BC_AUTOGROUP_ORIG=
BC_STOCK_PVMD=
BC_LOCAL_PIDS=
BC_KEEP=
BC_RESTORED=0
BC_LOCAL_OPTS=
BC_BACKEND=
BC_AGENT_PID=
BC_AGENT_SOCK=
BC_AGENT_NOTE=
BC_TRACE=
BC_AS=
BC_USER_MADE=

bc_log() { printf '%s\n' "$*" >&2; }
bc_die() { bc_log "bench-cluster: $*"; exit 1; }

# The directory holding Debian's libpvm3.so.3 and libgpvm3.so.3.
bc_stock_libdir() {
	local d
	for d in /usr/lib/*-linux-gnu /usr/lib64 /usr/lib; do
		if [ -e "$d/libpvm3.so.3" ] && [ -e "$d/libgpvm3.so.3" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# ---- the machine's state, and putting it back ----

bc_autogroup_off() {
	if [ ! -e "$BC_AUTOGROUP" ]; then
		BC_AUTOGROUP_ORIG=absent
		return 0
	fi
	BC_AUTOGROUP_ORIG=$(cat "$BC_AUTOGROUP")
	echo 0 >"$BC_AUTOGROUP" || bc_die "cannot write $BC_AUTOGROUP"
}

bc_autogroup_restore() {
	case $BC_AUTOGROUP_ORIG in
	'' | absent) ;;
	*) echo "$BC_AUTOGROUP_ORIG" >"$BC_AUTOGROUP" ||
		bc_log "bench-cluster: could not restore $BC_AUTOGROUP" ;;
	esac
	BC_AUTOGROUP_ORIG=
}

# Processes carrying this run's marker (never the harness itself).
bc_marked_pids() {
	local f pid
	for f in $(grep -lzx "BENCH_CLUSTER_ID=$BC_ID" /proc/[0-9]*/environ 2>/dev/null); do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" = $$ ] || echo "$pid"
	done
}

# Processes in the nodes' namespaces.
bc_ns_pids() {
	[ "${NETNS_UP:-0}" = 1 ] || return 0
	netns_all_pids
}

# What this file needs of tests/integ/netns/netns.sh.
bc_check_netns() {
	local f
	for f in netns_check netns_up netns_teardown netns_all_pids; do
		type "$f" >/dev/null 2>&1 ||
			bc_die "tests/integ/netns/netns.sh has no $f (interface changed?)"
	done
}

# Kill everything a cell left in the namespaces; waits until it is gone.
bc_ns_clean() {
	local i pids
	for i in $(seq 50); do
		pids=$(bc_ns_pids)
		[ -z "$pids" ] && return 0
		kill -KILL $pids 2>/dev/null
		sleep 0.1
	done
	bc_log "bench-cluster: processes survive in the namespaces: $pids"
}

# Undo everything, once; the harness's EXIT trap.  netns.sh leaves a
# caller's own EXIT trap in place and offers netns_teardown (kill what
# runs in the namespaces, remove them and their /etc/netns files).
bc_restore() {
	local p
	[ "$BC_RESTORED" = 1 ] && return 0
	BC_RESTORED=1
	trap '' INT TERM HUP
	bc_agent_stop
	for p in $(jobs -p); do
		kill -KILL "$p" 2>/dev/null
	done
	bc_ns_clean
	type netns_teardown >/dev/null 2>&1 && netns_teardown
	for p in $(bc_marked_pids); do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	bc_user_remove
	bc_autogroup_restore
	if [ -n "${BC_W:-}" ] && [ -d "$BC_W" ]; then
		if [ -n "$BC_KEEP" ]; then
			bc_log "bench-cluster: work directory kept: $BC_W"
		else
			rm -rf "$BC_W"
		fi
	fi
}

# ---- the second user ----

# bc_user_ensure NAME: the user exists (made, as a system user without a
# home or a login shell, if it did not: bc_restore removes it then).
bc_user_ensure() {
	id -u "$1" >/dev/null 2>&1 && return 0
	command -v useradd >/dev/null || bc_die "no user $1, and no useradd to make it"
	useradd -r -M -U -d /nonexistent -s /usr/sbin/nologin "$1" ||
		bc_die "could not make user $1"
	BC_USER_MADE=$1
}

bc_user_remove() {
	[ -n "$BC_USER_MADE" ] || return 0
	userdel "$BC_USER_MADE" 2>/dev/null ||
		bc_log "bench-cluster: could not remove user $BC_USER_MADE"
	BC_USER_MADE=
}

# bc_uid: the uid of whoever runs what bc_on starts now.
bc_uid() { if [ -n "$BC_AS" ]; then id -u "$BC_AS"; else echo "$BC_UID"; fi; }

# bc_side SYSTEM: the side directory (HOME and PVM_TMP of each node) of
# SYSTEM's virtual machine for the current user.
bc_side() { echo "$BC_W/side/$(bc_kind "$1")${BC_AS:+.$BC_AS}"; }

# ---- running things on nodes ----

# ---- systems ----

# bc_model SYS: the COPVM_MODEL of a copvm system (empty for copvm, the
# library's default); fails for a name that is no system.
bc_model() {
	case $1 in
	copvm) echo "" ;;
	lin | imp | hpdt | dcs | exp | dyn | pre) echo "$1" ;;
	unbounded) echo lin ;;
	dyn* | pre*) bc_pval "$1" >/dev/null && echo "${1:0:3}" ;;
	*) return 1 ;;
	esac
}

# bc_pval SYS: the P of dynP/preP (0..1), empty for plain dyn and pre;
# a real-time threshold suffix (pre0.5r50) is not part of it.
bc_pval() {
	local p
	case $1 in
	dyn | pre) echo "" ;;
	dyn* | pre*)
		p=${1:3}
		p=${p%r*}
		[[ $p =~ ^(|0|1|0?\.[0-9]+|1\.0*)$ ]] || return 1
		[[ ${1:3} =~ ^[0-9.]*(r[1-9][0-9]*)?$ ]] || return 1
		echo "$p" ;;
	*) echo "" ;;
	esac
}

# bc_frt SYS: the COPVM_F_RT of a dyn or pre system with an r<rate>
# suffix (pre0.5r50: 50 messages/s earn the real-time boost), else empty.
bc_frt() {
	case $1 in
	dyn*r* | pre*r*) echo "${1##*r}" ;;
	*) echo "" ;;
	esac
}

# bc_kind SYS: stock, copvm (every copvm system) or local; fails for an
# unknown name.
bc_kind() {
	case $1 in
	stock | local) echo "$1" ;;
	*) bc_model "$1" >/dev/null && echo copvm ;;
	esac
}

# The environment (env(1) arguments) of system $1: stock, a copvm system,
# or local (a local job: no PVM at all).  Unsets come first: env stops
# reading options at the first NAME=VALUE.  COPVM_INTERVAL_MS, if the
# harness has it, is passed on to every copvm system.
bc_env() {
	local unset="-u PVM_ARCH -u PVM_EXPORT -u PVM_DPATH -u PVM_DEBUGGER
		-u PVM_VMID -u LD_PRELOAD -u PVM_TMP -u COPVM_MODEL -u COPVM_P
		-u COPVM_BACKEND -u COPVM_AGENT_SOCK -u COPVM_COSCHED_TRACE
		-u COPVM_F_RT"
	local common="BENCH_CLUSTER_ID=$BC_ID NETNS_MAP=${NETNS_MAP:-}
		NETNS_RSH=$BC_NETNS_RSH BENCH_CPUMAP=$BC_W/cpumap LC_ALL=C"
	local model p frt
	case $(bc_kind "$1") in
	stock)
		echo "$unset -u COPVM_PVMD -u COPVM_PVMGS -u COPVM_INTERVAL_MS $common
			NETNS_SIDE=$(bc_side stock) PVM_RSH=$BC_RSH
			PVM_ALLOW_ROOT=1 PVM_ROOT=$STOCK_ROOT
			LD_LIBRARY_PATH=$BC_STOCK_LIBDIR" ;;
	copvm)
		model=$(bc_model "$1")
		p=$(bc_pval "$1")
		frt=$(bc_frt "$1")
		echo "$unset -u PVM_ROOT $common
			NETNS_SIDE=$(bc_side "$1") PVM_RSH=$BC_RSH
			PVM_ALLOW_ROOT=1 COPVM_PVMD=$BC_PVMD
			COPVM_PVMGS=$BC_PVMGS
			LD_LIBRARY_PATH=$BC_LIBPATH
			${model:+COPVM_MODEL=$model} ${p:+COPVM_P=$p}
			${frt:+COPVM_F_RT=$frt}
			${BC_BACKEND:+COPVM_BACKEND=$BC_BACKEND}
			${BC_AGENT_SOCK:+COPVM_AGENT_SOCK=$BC_AGENT_SOCK}
			${BC_TRACE:+COPVM_COSCHED_TRACE=$BC_TRACE}" ;;
	*)
		echo "$unset -u LD_LIBRARY_PATH -u COPVM_INTERVAL_MS $common NETNS_SIDE=$BC_W/side/local" ;;
	esac
}

# ---- the boost agent ----

# bc_agent_start BIN: one copvm-agent for the whole run (as root, in the
# machine's namespaces: the nodes share this kernel, so one agent serves
# every node; a Unix socket bound to a path is reachable from every
# network namespace).  Sets BC_AGENT_SOCK; on failure returns 1 with
# BC_AGENT_NOTE saying why.  BENCH_AGENT_ARGS adds options (e.g. -p 80).
bc_agent_start() {
	local bin=$1 i
	BC_AGENT_SOCK=
	if [ ! -x "$bin" ]; then
		BC_AGENT_NOTE="$bin is not built"
		return 1
	fi
	env BENCH_CLUSTER_ID="$BC_ID" "$bin" -f -s "$BC_W/agent.sock" ${BENCH_AGENT_ARGS:-} \
		</dev/null >"$BC_W/agent.log" 2>&1 9>&- &
	BC_AGENT_PID=$!
	for i in $(seq 100); do
		[ -S "$BC_W/agent.sock" ] && break
		kill -0 "$BC_AGENT_PID" 2>/dev/null || break
		sleep 0.05
	done
	if [ ! -S "$BC_W/agent.sock" ]; then
		BC_AGENT_NOTE="copvm-agent did not start: $(head -c 200 "$BC_W/agent.log" | tr '\n' ' ')"
		bc_agent_stop
		return 1
	fi
	BC_AGENT_SOCK=$BC_W/agent.sock
	return 0
}

# bc_agent_alive: the agent still runs (else BC_AGENT_NOTE says so).
bc_agent_alive() {
	[ -n "$BC_AGENT_PID" ] && kill -0 "$BC_AGENT_PID" 2>/dev/null && return 0
	[ -n "$BC_AGENT_NOTE" ] ||
		BC_AGENT_NOTE="copvm-agent exited: $(tail -c 200 "$BC_W/agent.log" 2>/dev/null | tr '\n' ' ')"
	return 1
}

# bc_agent_stop: SIGTERM (it undoes its boosts), then SIGKILL after 2 s.
bc_agent_stop() {
	local i
	[ -n "$BC_AGENT_PID" ] || return 0
	kill -TERM "$BC_AGENT_PID" 2>/dev/null
	for i in $(seq 40); do
		kill -0 "$BC_AGENT_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$BC_AGENT_PID" 2>/dev/null
	wait "$BC_AGENT_PID" 2>/dev/null
	BC_AGENT_PID=
}

# bc_on [-e] [-t SECS] NODE SYSTEM COMMAND: run the shell command on a
# node in a system's environment (with a time limit if -t), in the
# foreground; the caller redirects and backgrounds.  -e: exec it, for a
# caller that backgrounds a subshell (`bc_on -e ... &'), so that $! is
# the process itself (or its timeout(1), which passes a SIGTERM on).  The
# lock's descriptor is not passed on (a daemon that outlived us would
# hold the lock).
bc_on() {
	local limit= ex=
	while :; do
		case $1 in
		-e) ex=exec; shift ;;
		-t) limit=$2; shift 2 ;;
		*) break ;;
		esac
	done
	local node=$1 sys=$2 rt= as=
	shift 2
	# "unbounded": every process of the machine at SCHED_FIFO 1 (the
	# daemons' tasks inherit it), the best boosting can do for the job.
	[ "$sys" = unbounded ] && rt="chrt -f 1"
	# The second user: its uid and groups, and only what entering the
	# nodes' namespaces needs (ambient).
	[ -n "$BC_AS" ] && as="setpriv --reuid=$BC_AS --regid=$(id -g "$BC_AS")
		--init-groups --inh-caps=-all,+sys_admin,+net_admin
		--ambient-caps=+sys_admin,+net_admin"
	if [ -n "$limit" ]; then
		$ex $rt timeout -k 5 "$limit" $as env $(bc_env "$sys") "$BC_RSH" "$node" "$*" 9>&-
	else
		$ex $rt $as env $(bc_env "$sys") "$BC_RSH" "$node" "$*" 9>&-
	fi
}

# bc_setup_nodes N: the CPU of each node and the per-node directories.
bc_setup_nodes() {
	local n=$1 ncpu i
	ncpu=$(nproc)
	: >"$BC_W/cpumap"
	for i in $(seq "$n"); do
		echo "node$i $(((i - 1) % ncpu)) $(awk -v h="node$i" \
			'$1 == h { print $3 }' "$NETNS_MAP")" >>"$BC_W/cpumap"
	done
}

# ---- virtual machines ----

# bc_vm_start SYSTEM NODES DIR: a fresh virtual machine of SYSTEM on
# node1..nodeNODES; logs go to DIR.  Returns 0, 1 (no daemon: "novm") or
# 2 (hosts could not be added: "nohosts"); DIR/vm.note says why.
bc_vm_start() {
	local sys=$1 n=$2 dir=$3 side i hosts= uid
	side=$(bc_side "$sys")
	uid=$(bc_uid)
	rm -rf "$side"
	for i in $(seq "$n"); do
		mkdir -p "$side/node$i/home/pvm3/bin/LINUX64" "$side/node$i/tmp"
		if [ "$sys" = stock ]; then
			ln -s "$STOCK_ROOT/lib/pvmgs" "$side/node$i/home/pvm3/bin/LINUX64/pvmgs"
		else
			ln -s "$BC_PVMGS" "$side/node$i/home/pvm3/bin/LINUX64/pvmgs"
		fi
	done
	[ -z "$BC_AS" ] || chown -hR "$BC_AS:$(id -g "$BC_AS")" "$side"
	if [ "$sys" = stock ]; then
		bc_on -e node1 stock "exec $STOCK_ROOT/lib/pvmd" </dev/null \
			>"$dir/pvmd.out" 2>&1 &
		BC_STOCK_PVMD="$BC_STOCK_PVMD $!"
		for i in $(seq 100); do
			[ -e "$side/node1/tmp/pvmd.$uid" ] && break
			kill -0 "${BC_STOCK_PVMD##* }" 2>/dev/null || break
			sleep 0.1
		done
		if [ ! -e "$side/node1/tmp/pvmd.$uid" ]; then
			echo "stock pvmd did not start: $(head -c 200 "$dir/pvmd.out")" >"$dir/vm.note"
			return 1
		fi
	else
		# Forks and returns once the daemon is ready.
		if ! bc_on -t 30 node1 "$sys" "exec $BC_PVMD" </dev/null \
			>"$dir/pvmd.out" 2>&1 ||
			[ ! -S "$side/node1/tmp/copvm-$uid/pvmd.sock" ]; then
			echo "copvm pvmd did not start: $(head -c 200 "$dir/pvmd.out")" >"$dir/vm.note"
			return 1
		fi
	fi
	[ "$n" -gt 1 ] || return 0
	for i in $(seq 2 "$n"); do hosts="$hosts node$i"; done
	if ! bc_on -t 90 node1 "$sys" "exec $BC_PVMHOSTS add$hosts" \
		</dev/null >"$dir/addhosts.out" 2>&1 ||
	   ! bc_on -t 40 node1 "$sys" "exec $BC_PVMHOSTS wait $n 30" \
		</dev/null >>"$dir/addhosts.out" 2>&1; then
		echo "could not add$hosts: $(tr '\n' ' ' <"$dir/addhosts.out" | head -c 200)" \
			>"$dir/vm.note"
		return 2
	fi
	return 0
}

# bc_vm_stop [-n] SYSTEM DIR: halt the machine, then clear the
# namespaces (-n: not yet, another user's machine still runs there).
bc_vm_stop() {
	local keep=
	[ "$1" = -n ] && { keep=1; shift; }
	local sys=$1 dir=$2 i p
	bc_on -t 20 node1 "$sys" "exec $BC_PVMHOSTS halt" </dev/null \
		>>"$dir/halt.out" 2>&1
	[ -n "$keep" ] && return 0
	for p in $BC_STOCK_PVMD; do
		for i in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	BC_STOCK_PVMD=
	bc_ns_clean
}

# ---- local jobs ----

# bc_local_start K NODES DIR C2ARGS: K local jobs on each node, the first
# being calcula2 (with C2ARGS, output DIR/calcula2.nodeI) then calcula
# (with BC_LOCAL_OPTS, calcula2's C2ARGS already have them).
bc_local_start() {
	local k=$1 n=$2 dir=$3 units=$4 i j
	BC_LOCAL_PIDS=
	[ "$k" -gt 0 ] || return 0
	for i in $(seq "$n"); do
		bc_on -e "node$i" local "$BC_PROGS/calcula2 $units \
			>$dir/calcula2.node$i 2>&1; exec $BC_PROGS/calcula $BC_LOCAL_OPTS" \
			</dev/null >/dev/null 2>&1 &
		BC_LOCAL_PIDS="$BC_LOCAL_PIDS $!"
		for j in $(seq 2 "$k"); do
			bc_on -e "node$i" local "exec $BC_PROGS/calcula $BC_LOCAL_OPTS" \
				</dev/null >/dev/null 2>&1 &
			BC_LOCAL_PIDS="$BC_LOCAL_PIDS $!"
		done
	done
}

bc_local_stop() {
	local p
	for p in $BC_LOCAL_PIDS; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	BC_LOCAL_PIDS=
}

# bc_calcula2_done NODES DIR: every node's calcula2 has printed its time.
bc_calcula2_done() {
	local i
	for i in $(seq "$1"); do
		grep -q '^RESULT elapsed_s ' "$2/calcula2.node$i" 2>/dev/null || return 1
	done
	return 0
}

# bc_calcula2_times NODES DIR: the elapsed times, one per node, in order.
bc_calcula2_times() {
	local i
	for i in $(seq "$1"); do
		awk '$1 == "RESULT" && $2 == "elapsed_s" { print $3 }' "$2/calcula2.node$i" 2>/dev/null
	done
}

# bc_dedicated NODES C2ARGS DIR: calcula2 alone on every node at once (each
# on its own CPU, nothing else of ours running): ET_dedicated per node.
bc_dedicated() {
	local n=$1 units=$2 dir=$3 i pids=
	mkdir -p "$dir"
	for i in $(seq "$n"); do
		bc_on -e "node$i" local "exec $BC_PROGS/calcula2 $units" \
			</dev/null >"$dir/calcula2.node$i" 2>&1 &
		pids="$pids $!"
	done
	for i in $pids; do wait "$i"; done
	bc_calcula2_done "$n" "$dir"
}

# ---- one benchmark run ----

# bc_prog [-b] SYSTEM LIMIT OUT COMMAND: run a benchmark master on node1
# with a time limit, output to OUT.out and OUT.err; returns its status
# (124 or 137: the time limit).  Waits with `wait', so that a signal to
# the harness is handled at once.  -b: do not wait; BC_PROG_PID is the
# run's timeout(1), which a SIGTERM stops (with the master).
bc_prog() {
	local bg=
	if [ "$1" = -b ]; then
		bg=1
		shift
	fi
	local sys=$1 limit=$2 out=$3 pid
	shift 3
	bc_on -e -t "$limit" node1 "$sys" "exec $*" </dev/null >"$out.out" 2>"$out.err" &
	pid=$!
	BC_PROG_PID=$pid
	[ -n "$bg" ] && return 0
	wait "$pid"
}

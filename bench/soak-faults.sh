#!/bin/bash
# soak-faults.sh - the soak-and-faults benchmark of issue 15 (a benchmark,
# not a test: its report is docs/results/soak.md, it is not run by `make
# check').  Two phases, both with bench/soak (read its head):
#
#   A  one host: `soak count' sends MESSAGES mixed messages (0 B .. 1 MiB,
#      three encodings, four types) among 4 workers, every one checked by
#      sequence number and checksum at its receiver; the resident memory
#      of the master, the workers and the daemon is sampled every few
#      seconds, to show whether it stays flat after the warm-up.
#   B  four emulated hosts (network namespaces, tests/integ/netns/; needs
#      root, else skipped with a reason): `soak faults' runs 3 workers on
#      each of node2..node4, all sending to all, while this script kills
#      (SIGKILL) KILLS random workers, then the daemon of a random host
#      other than the master's.  Every survivor, and the master, must get
#      a TaskExit notify for each killed worker and for each worker of the
#      dead host, a HostDelete notify for that host and for no other, and
#      no message between survivors may be lost, duplicated or corrupted.
#      Repeated ROUNDS times, each on a fresh machine.
#
# usage: bench/soak-faults.sh [-n MESSAGES] [-t SECONDS] [-k KILLS]
#                             [-r ROUNDS] [-s SEED] [-o REPORT] [-A|-B]
#   (from the top build directory, after `make')
#   -n MESSAGES  phase A's message count (default 10000000)
#   -t SECONDS   each phase-B round's length (default 40)
#   -k KILLS     workers killed per round before the daemon (default 3)
#   -r ROUNDS    phase-B rounds (default 3)
#   -s SEED      seed of the random choices (default: the time)
#   -o REPORT    write the Markdown report there (default: stdout)
#   -A, -B       run only that phase
# Exit status: 0 when every check held, 1 when one failed; the report
# says which.
set -u
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=$(pwd)
SOAK=$builddir/bench/soak
COPVM_PVMD=$builddir/daemon/pvmd
LIBDIR=$builddir/lib/.libs

cmdline="bench/soak-faults.sh $*"
messages=10000000
seconds=40
kills=3
rounds=3
seed=$(date +%s)
report=
phases=AB
bround=
while getopts n:t:k:r:s:o:ABb: opt; do
	case $opt in
	n) messages=$OPTARG ;;
	t) seconds=$OPTARG ;;
	k) kills=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) seed=$OPTARG ;;
	o) report=$OPTARG ;;
	A) phases=A ;;
	B) phases=B ;;
	b) bround=$OPTARG ;;	# internal: one phase-B round, see main
	*) sed -n '21,31p' "$0" >&2; exit 2 ;;
	esac
done

[ -x "$SOAK" ] || { echo "$SOAK is missing (run make first)" >&2; exit 1; }
[ -x "$COPVM_PVMD" ] || { echo "$COPVM_PVMD is missing" >&2; exit 1; }
# phase B brings the emulated hosts up with the multi-host tests' helper
# (a check program, so not built by `make')
if [ "${phases#*B}" != "$phases" ] && [ ! -x tests/integ/netns/mhcheck ]; then
	make tests/integ/netns/mhcheck >&2 ||
		{ echo "cannot build tests/integ/netns/mhcheck" >&2; exit 1; }
fi

log() { printf '%s\n' "$*" >&2; }

# ---------------------------------------------------------------- phase A

# phase_a OUT: the one-host run; its output in OUT.{out,err}, status in
# OUT.rc.
phase_a() {
	local out=$1 tmp pid
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/copvm-soak.XXXXXX")
	chmod 700 "$tmp"
	local envs="-u PVM_ROOT -u PVM_ARCH -u PVM_EXPORT -u PVM_DPATH
		-u PVM_RSH -u PVM_VMID -u LD_PRELOAD HOME=$tmp PVM_TMP=$tmp
		PVM_ALLOW_ROOT=1 LC_ALL=C LD_LIBRARY_PATH=$LIBDIR
		COPVM_PVMD=$COPVM_PVMD"
	(cd "$tmp" && exec timeout 30 env $envs "$COPVM_PVMD" \
		</dev/null >"$out.pvmd" 2>&1) || {
		log "phase A: pvmd did not start"; cat "$out.pvmd" >&2
		rm -rf "$tmp"; echo 1 >"$out.rc"; return 1
	}
	pid=$(cat "$tmp/copvm-$(id -u)/pvmd.pid")
	log "phase A: $messages messages, pvmd pid $pid"
	(cd "$tmp" && exec timeout -k 5 3600 env $envs "$SOAK" count \
		-n "$messages" -i 5 -d "$pid") >"$out.out" 2>"$out.err"
	echo $? >"$out.rc"
	timeout 20 env $envs "$builddir/tests/tools/pvmhalt" >/dev/null 2>&1
	# whatever the halt left (it should leave nothing): by pid
	local p
	for p in $pid $(awk '/^TASK/ { print $4 }' "$out.out"); do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}

# ---------------------------------------------------------------- phase B

# One round in the emulated hosts, run as a child process with mh.sh
# sourced (its traps and skips are its own): writes
# $OUT.{out,err,kills,left,rc}.
phase_b_round() {
	local out=$1
	mh_init soak-faults 4
	[ "${IMPL[copvm]}" = copvm ] || { log "SKIP: copvm only"; exit 77; }
	mh_begin copvm
	RANDOM=$seed
	timeout -k 5 $((seconds + 200)) env $(mh_env copvm) "$MH_RSH" node1 \
		"$SOAK" faults -w 3 -t "$seconds" </dev/null >"$out.out" \
		2>"$out.err" &
	local pid=$! i
	for i in $(seq 600); do
		grep -q '^READY' "$out.out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^READY' "$out.out" || { cat "$out.err" >&2; die "soak did not start"; }
	# the victims: KILLS workers, then a daemon other than the master's
	local -a tids pids hosts
	local n=0 t dt p h
	while read -r _ t dt p h; do
		tids[n]=$t pids[n]=$p hosts[n]=$h
		n=$((n + 1))
	done < <(grep '^TASK' "$out.out")
	local vhost=node$((2 + RANDOM % 3)) start=$SECONDS k
	: >"$out.kills"
	for k in $(seq "$kills"); do
		# spread over the first half of the run
		sleep "$(awk -v s="$seconds" -v k="$kills" -v r=$RANDOM \
			'BEGIN { printf "%.1f", s / 2 / k * (0.5 + r / 32768) }')"
		i=$((RANDOM % n))
		for p in $(seq "$n"); do
			kill -0 "${pids[i]}" 2>/dev/null && break
			i=$(((i + 1) % n))
		done
		kill -KILL "${pids[i]}"
		echo "task ${tids[i]} ${hosts[i]} pid ${pids[i]} at $((SECONDS - start)) s" >>"$out.kills"
	done
	# the daemon, in the second half but well before the end
	sleep "$(awk -v s="$seconds" -v r=$RANDOM \
		'BEGIN { printf "%.1f", s / 4 * r / 32768 }')"
	local vpid=
	for p in $(netns_pids "${vhost#node}"); do
		case $(proc_cmdline "$p") in *pvmd*) vpid="$vpid $p" ;; esac
	done
	[ -n "$vpid" ] || die "no daemon found on $vhost"
	local vdtid
	vdtid=$(awk -v h="$vhost" '$1 == "TASK" && $5 == h { print $3; exit }' "$out.out")
	kill -KILL $vpid
	echo "daemon $vdtid $vhost pid$vpid at $((SECONDS - start)) s" >>"$out.kills"
	wait "$pid"
	echo $? >"$out.rc"
	# the dead host's tasks must have gone with their daemon (a few
	# seconds' grace: they notice its end on their own)
	for i in $(seq 50); do
		[ -z "$(netns_pids "${vhost#node}")" ] && break
		sleep 0.1
	done
	: >"$out.left"
	for p in $(netns_pids "${vhost#node}"); do
		echo "$vhost $p $(proc_cmdline "$p")" >>"$out.left"
	done
	mh_end copvm
	[ "$INTEG_FAILED" = 0 ] || echo "processes were left after the halt" >>"$out.left"
	integ_finish
}

# check_round OUT: compares the notifies each survivor got with what was
# killed; prints one line per problem, nothing when all held.
check_round() {
	perl -e '
		my ($out, $kills) = @ARGV;
		my (%host, %dead, %dhost, @who, $res, %seen);
		open my $k, "<", $kills or die;
		my $vdt;
		while (<$k>) {
			$dead{$1} = 1 if /^task (\S+)/;
			$vdt = $1 if /^daemon (\S+)/;
		}
		open my $o, "<", $out or die;
		while (<$o>) {
			$host{$1} = $2 if /^TASK (\S+) (\S+)/;
			push @who, $_ if /^(WORKER|MASTER) /;
			$res = $_ if /^RESULT /;
		}
		for my $t (keys %host) { $dead{$t} = 1 if $host{$t} eq $vdt }
		my $want = join ",", sort keys %dead;
		for (@who) {
			my ($kind, $tid) = /^(\S+) (\S+)/;
			$seen{$tid} = 1;
			print "$kind $tid was killed but reported\n" if $dead{$tid};
			my ($ex) = / exits=(\S+)/;
			my ($hd) = / hdels=(\S+)/;
			my $got = join ",", sort grep { $_ ne "-" } split /,/, $ex;
			print "$kind $tid: TaskExit notifies for $got, ",
			      "expected $want\n" if $got ne $want;
			print "$kind $tid: HostDelete notifies for $hd, ",
			      "expected $vdt\n" if $hd ne $vdt;
			for my $f (qw(corrupt lost dup badfinal)) {
				my ($v) = / $f=(\d+)/;
				print "$kind $tid: $f=$v\n" if $v;
			}
		}
		for my $t (sort keys %host) {
			print "survivor $t did not report\n"
				unless $dead{$t} || $seen{$t};
		}
		print "no RESULT line\n" unless $res;
	' "$1.out" "$1.kills"
}

# ---------------------------------------------------------------- report

fmt_kb() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

report_a() {
	local out=$1 rc
	rc=$(cat "$out.rc")
	echo "## Phase A: $messages mixed messages on one host"
	echo
	echo "This phase runs \`bench/soak count -n $messages -i 5 -d PVMD_PID\`"
	echo "(4 workers, all to all) on a daemon of its own."
	echo
	echo '```'
	grep -E '^(READY|ELAPSED|RSS|RESULT)' "$out.out"
	echo '```'
	echo
	echo "Exit status $rc$( [ "$rc" = 0 ] && echo ': every message arrived once, in order, intact.')"
	echo
	echo "Resident memory (KiB), sampled every 5 s (every"
	echo "$(( $(grep -c '^SAMPLE' "$out.out") / 20 + 1 ))th sample shown; the RSS lines above use every sample taken after the first 10 % of the messages):"
	echo
	echo '| t (s) | messages sent | master | largest worker | all workers | pvmd |'
	echo '|------:|--------------:|-------:|---------------:|------------:|-----:|'
	local every=$(( $(grep -c '^SAMPLE' "$out.out") / 20 + 1 ))
	awk -v e="$every" '/^SAMPLE/ {
		n++; if ((n - 1) % e) next
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "| %s | %s | %s | %s | %s | %s |\n", v["t"], v["msgs"],
			v["master_kb"], v["worker_max_kb"], v["workers_kb"], v["pvmd_kb"]
	}' "$out.out"
	if [ -s "$out.err" ] && grep -qv 'BEGIN\|EOF' "$out.err"; then
		echo
		echo "Its error output:"
		echo
		echo '```'
		grep -v 'BEGIN\|EOF' "$out.err" | head -20
		echo '```'
	fi
	echo
}

report_b_round() {
	local out=$1 r=$2 problems
	echo "### Round $r"
	echo
	if [ "$(cat "$out.rc" 2>/dev/null)" = 77 ]; then
		echo "Skipped: $(grep SKIP "$out.log" | head -1)"
		echo
		return
	fi
	touch "$out.kills" "$out.out" "$out.err" "$out.rc"
	echo "Killed (SIGKILL), in this order:"
	echo
	sed 's/^/- /' "$out.kills"
	echo
	echo '```'
	grep -E '^(READY|STOP|WORKER|MASTER|RESULT)' "$out.out"
	echo '```'
	echo
	problems=$(check_round "$out" 2>&1)
	if [ -s "$out.left" ]; then
		problems="$problems
left on the dead host: $(cat "$out.left")"
	fi
	if [ -z "$problems" ] && [ "$(cat "$out.rc")" = 0 ]; then
		echo "Every survivor and the master got exactly the TaskExit"
		echo "notifies of the killed workers and of the dead host's workers,"
		echo "and that host's HostDelete; no message between survivors was"
		echo "lost, duplicated or corrupted; nothing was left on the dead host."
	else
		echo "**Problems** (soak exit status $(cat "$out.rc")):"
		echo
		echo '```'
		printf '%s\n' "$problems" | sed '/^$/d'
		grep -v 'BEGIN\|EOF' "$out.err" | head -20
		grep -i 'fail\|left' "$out.log" | head -10
		echo '```'
		B_FAILED=1
	fi
	echo
}

# ---------------------------------------------------------------- main

if [ -n "$bround" ]; then
	export srcdir INTEG_BUILDDIR=$builddir
	. "$srcdir/tests/integ/netns/mh.sh"
	phase_b_round "$bround"
	exit $?
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/copvm-soak-faults.XXXXXX")
trap 'rm -rf "$work"' EXIT
B_FAILED=0
A_FAILED=0
{
	echo "# Soak and faults"
	echo
	echo "Written by \`bench/soak-faults.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'),"
	echo "commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo '?'),"
	echo "$(nproc) CPUs, Linux $(uname -r), seed $seed."
	echo
	echo "Run as: \`$cmdline\` (from the top build directory, as $(id -un))."
	echo
} >"$work/report"

if [ "${phases#*A}" != "$phases" ]; then
	phase_a "$work/a"
	report_a "$work/a" >>"$work/report"
	[ "$(cat "$work/a.rc")" = 0 ] || A_FAILED=1
fi
if [ "${phases#*B}" != "$phases" ]; then
	{
		echo "## Phase B: kill -9 of workers and a daemon, 4 hosts"
		echo
		echo "Each round: a fresh machine of node1..node4 (network namespaces),"
		echo "\`bench/soak faults -w 3 -t $seconds\` on node1 (3 workers on each of"
		echo "node2..node4, all to all), $kills random workers killed in the"
		echo "first half of the run, then the daemon of a random slave host."
		echo
	} >>"$work/report"
	for r in $(seq "$rounds"); do
		log "phase B: round $r of $rounds"
		seed=$((seed + 1))
		"$0" -t "$seconds" -k "$kills" -s "$seed" -b "$work/b$r" \
			>"$work/b$r.log" 2>&1
		echo $? >"$work/b$r.rc2"
		[ -e "$work/b$r.rc" ] || cp "$work/b$r.rc2" "$work/b$r.rc"
		[ "$(cat "$work/b$r.rc2")" = 77 ] && echo 77 >"$work/b$r.rc"
		[ "$(cat "$work/b$r.rc2")" != 0 ] && [ "$(cat "$work/b$r.rc2")" != 77 ] &&
			{ cat "$work/b$r.log" >&2; echo 1 >"$work/b$r.rc"; }
		report_b_round "$work/b$r" "$r" >>"$work/report"
		[ "$(cat "$work/b$r.rc")" = 77 ] && break
	done
fi
if [ -n "$report" ]; then cp "$work/report" "$report"; else cat "$work/report"; fi
[ "$A_FAILED$B_FAILED" = 00 ]

# harden-lib.sh - shared code of the hardening tests (tests/harden.mk),
# sourced by bash scripts run from the top build directory.
#
# A test does:
#	. "${srcdir:-.}/tests/integ/harden-lib.sh"
#	h_init NAME
#	h_tmpdir T			# T: a private PVM_TMP, cleaned at exit
#	h_probe "$T" OUT mytid		# hprobe with PVM_TMP=$T, bounded
#	...; h_finish
# Every daemon whose pid file is under a directory from h_tmpdir, and
# every process registered with h_bg, is killed at exit.  A test needing
# a second user calls h_need_other, which skips (77) unless run as root.

set -u

H_FAILED=0
H_DIRS=()
H_BG=()
H_TIMEOUT=${H_TIMEOUT:-60}

h_log() { printf '%s\n' "$*" >&2; }
h_fail() { h_log "FAIL: $*"; H_FAILED=1; }
h_die() { h_log "FAIL: $*"; exit 1; }
h_skip() { h_log "SKIP: $*"; exit 77; }

h_init() {
	H_NAME=$1
	top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
	PROBE=$top_builddir/tests/tools/hprobe
	PVMD=$top_builddir/daemon/pvmd
	[ -x "$PROBE" ] || h_die "$PROBE is missing (make check builds it)"
	[ -x "$PVMD" ] || h_die "$PVMD is missing (build copvm first)"
	export PVM_ALLOW_ROOT=1
	unset PVM_ROOT COPVM_TID COPVM_LISTEN_FD COPVM_TCP_FD
	trap h_cleanup EXIT
}

# Kills the daemon whose run directory is $1 (if its pid file says one).
h_kill_daemon() {
	local pidf pid
	for pidf in "$1"/copvm-*/pvmd.pid "$1"/*/copvm-*/pvmd.pid; do
		[ -f "$pidf" ] || continue
		pid=$(head -n1 "$pidf" 2>/dev/null)
		[ -n "$pid" ] || continue
		kill -CONT "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
}

h_cleanup() {
	local d p
	for p in "${H_BG[@]}"; do
		{ kill -KILL "$p"; wait "$p"; } 2>/dev/null
	done
	for d in "${H_DIRS[@]}"; do
		h_kill_daemon "$d"
		[ -n "${H_KEEP:-}" ] || rm -rf "$d"
	done
}

# Registers pid $1 to be killed at exit.
h_bg() { H_BG+=("$1"); }

# h_tmpdir VAR: sets VAR to a new private directory for PVM_TMP (mode
# 0700, ours), removed at exit with the daemons in it.
h_tmpdir() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/copvm-harden.XXXXXX") ||
		h_die "mktemp failed"
	H_DIRS+=("$d")
	printf -v "$1" '%s' "$d"
}

# h_probe TMP OUT ARGS...: runs hprobe with PVM_TMP=TMP and our pvmd,
# stdout in OUT, stderr in OUT.err; returns its status (124: it hung).
h_probe() {
	local tmp=$1 out=$2
	shift 2
	PVM_TMP=$tmp COPVM_PVMD=${H_PVMD-$PVMD} \
		timeout -k 5 "$H_TIMEOUT" "$PROBE" "$@" >"$out" 2>"$out.err"
}

# Skips unless we are root and user "nobody" exists (the second user).
h_need_other() {
	[ "$(id -u)" = 0 ] || h_skip "needs root to act as a second user"
	id nobody >/dev/null 2>&1 || h_skip "no user nobody"
	command -v setpriv >/dev/null || h_skip "setpriv is missing"
	OTHER_UID=$(id -u nobody)
	OTHER_GID=$(id -g nobody)
}

# as_other CMD...: runs CMD as the second user.
as_other() {
	setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups "$@"
}

h_finish() {
	if [ "$H_FAILED" = 0 ]; then
		h_log "PASS: $H_NAME"
		exit 0
	fi
	exit 1
}

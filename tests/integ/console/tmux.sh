# tmux.sh - driving an interactive PVM console through tmux, for the
# console tests (sourced by bash scripts after tests/integ/lib.sh).
#
# A console runs in a detached tmux session of a fixed size on a private
# tmux server (its own socket, no user configuration), so it gets a real
# pseudo-terminal: line editing, echo and prompts behave as for a person.
# Keys go in with send-keys; the screen, scroll-back included, comes out
# with capture-pane.  Every wait polls the screen and gives up after
# CON_TIMEOUT seconds, failing the test with the screen in the log.
#
# Screens are normalised before matching, so that one script can check
# stock's console and copvm's:
#   - trailing blanks are dropped;
#   - a leading "pvm> " is dropped (repeatedly): stock's console prints
#     job output right after its prompt ("pvm> [1:t40003] hello"), and
#     echoes each command once more below the line typed, copvm's draws
#     the prompt again below the output.  Output lines then read the
#     same, and assertions match output lines, never command lines.
#
# Sides: the integration library's stock and copvm sides, plus any other
# name mapped in IMPL (e.g. IMPL[debian]=copvm: Debian's console on
# copvm's library); con_side_init makes its directories.

CON_TIMEOUT=${CON_TIMEOUT:-10}
CON_TMUX=
CON_FAILED_SCREEN=
declare -A CON_SIDE	# session -> side, for messages

con_init() {
	command -v tmux >/dev/null ||
		{ log "SKIP: tmux is not installed"; exit 77; }
	printf '%s\n' 'set -g remain-on-exit on' 'set -g history-limit 10000' \
		'set -g default-terminal screen' 'set -g status off' \
		>"$W/tmux.conf"
	CON_TMUX="tmux -S $W/tmux.sock -f $W/tmux.conf"
	trap con_cleanup EXIT
}

# Makes the directories of side $1 (for sides other than stock/copvm).
con_side_init() {
	mkdir -p "$W/$1/home/pvm3/bin/LINUX64" "$W/$1/tmp" "$W/$1/out"
}

# Offers program $2 (a path) to side $1 under the name $3.
con_program() {
	ln -sf "$2" "$W/$1/home/pvm3/bin/LINUX64/$3"
}

con_cleanup() {
	local rc=$? side pid
	[ -n "$CON_TMUX" ] && $CON_TMUX kill-server >/dev/null 2>&1
	if [ -n "$W" ] && [ -d "$W" ]; then
		for side in "${!IMPL[@]}"; do
			for pid in $(side_procs "$side"); do
				kill -KILL "$pid" 2>/dev/null
			done
		done
	fi
	# integ_cleanup removes the work directory and exits with rc.
	(exit $rc)
	integ_cleanup
}

# con_start SIDE SESSION CONSOLE [ARGS...]: run a console for SIDE in a
# new 100x50 session named SESSION, in SIDE's home and environment.
con_start() {
	local side=$1 session=$2
	shift 2
	local a envs
	# side_env's words span lines; a shell command line must not.
	envs=$(echo $(side_env "$side"))
	local cmd="cd $W/$side/home && exec env $envs"
	for a in "$@"; do
		cmd="$cmd $(printf '%q' "$a")"
	done
	$CON_TMUX new-session -d -s "$session" -x 100 -y 50 "$cmd" ||
		die "tmux cannot start a session"
	CON_SIDE[$session]=$side
}

# The normalised screen of SESSION (scroll-back included).
con_screen() {
	$CON_TMUX capture-pane -p -J -S - -t "$1" 2>/dev/null |
		sed -E -e 's/[[:space:]]+$//' -e ':a' -e 's/^pvm> ?//' -e 'ta'
}

# con_wait_prompt SESSION: wait until the console shows its prompt.
con_wait_prompt() {
	local i
	for i in $(seq $((CON_TIMEOUT * 20))); do
		$CON_TMUX capture-pane -p -J -S - -t "$1" 2>/dev/null |
			grep -q '^pvm>' && return 0
		sleep 0.05
	done
	con_fail "$1" "no prompt"
	return 1
}

# con_type SESSION TEXT: type TEXT (literally) and press Enter.
con_type() {
	$CON_TMUX send-keys -t "$1" -l "$2"
	$CON_TMUX send-keys -t "$1" Enter
}

# con_keys SESSION KEY...: press keys by tmux name (Up, BSpace, C-d...).
con_keys() {
	local s=$1
	shift
	$CON_TMUX send-keys -t "$s" "$@"
}

# How many lines of SESSION's screen match the extended regex $2.
con_count() {
	con_screen "$1" | grep -cE -- "$2"
}

# con_wait SESSION REGEX [COUNT]: wait until at least COUNT (default 1)
# lines match.  Fails the test (once per session, with its screen) and
# returns 1 on time-out.
con_wait() {
	local s=$1 re=$2 want=${3:-1} i n
	for i in $(seq $((CON_TIMEOUT * 20))); do
		n=$(con_count "$s" "$re")
		[ "${n:-0}" -ge "$want" ] && return 0
		sleep 0.05
	done
	con_fail "$s" "no line matching '$re' (wanted $want, got ${n:-0})"
	return 1
}

# con_absent SESSION REGEX: no line may match (checked now).
con_absent() {
	local n
	n=$(con_count "$1" "$2")
	[ "${n:-0}" -eq 0 ] || con_fail "$1" "unexpected line matching '$2'"
}

# The first match of sed -E expression $2 on SESSION's screen.
con_value() {
	con_screen "$1" | sed -nE "$2" | head -n 1
}

# Whether the console of SESSION has ended.
con_dead() {
	[ "$($CON_TMUX display-message -p -t "$1" '#{pane_dead}' 2>/dev/null)" = 1 ]
}

# con_wait_dead SESSION: wait until its console has ended.
con_wait_dead() {
	local i
	for i in $(seq $((CON_TIMEOUT * 20))); do
		con_dead "$1" && return 0
		sleep 0.05
	done
	con_fail "$1" "the console did not end"
	return 1
}

# con_wait_gone SIDE: wait until no process of SIDE is left (after halt);
# whatever is left then is killed and fails the test.
con_wait_gone() {
	local side=$1 i left pid
	for i in $(seq $((CON_TIMEOUT * 10))); do
		left=$(side_procs "$side")
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	for pid in $left; do
		log "left behind on $side: $(proc_cmdline "$pid")(pid $pid)"
		kill -KILL "$pid" 2>/dev/null
	done
	fail "$side: processes left after halt"
}

# con_show SESSION...: print the screens (CON_SHOW=1 asks for it).
con_show() {
	local s
	for s in "$@"; do
		log "--- screen of ${CON_SIDE[$s]:-?}/$s:"
		$CON_TMUX capture-pane -p -J -S - -t "$s" 2>/dev/null |
			sed -e '/^$/d' >&2
	done
}

con_fail() {
	local s=$1
	fail "${CON_SIDE[$s]:-?}/$s: $2"
	case " $CON_FAILED_SCREEN " in
	*" ${CON_SIDE[$s]:-?}/$s "*) return ;;
	esac
	CON_FAILED_SCREEN="$CON_FAILED_SCREEN ${CON_SIDE[$s]:-?}/$s"
	log "--- screen of ${CON_SIDE[$s]:-?}/$s (raw):"
	$CON_TMUX capture-pane -p -J -S - -t "$s" 2>/dev/null | sed -e '/^$/d' >&2
	log "---"
}

#!/bin/bash
# mhf_server registers itself in mailbox entry "mhf_server", moves to a new
# context and serves requests from mhf_tickle, an interactive client (its
# menu answers come from a pipe here, one step at a time: each waits for the
# server's output so that the order is fixed).  The steps: show handlers,
# load a string handler (tag 100, server context) and an integer handler
# (tag 101, base context) with pvm_addmhf, hit both (the handler prints what
# it caught), delete the first (pvm_delmhf) and hit it again (now the
# server's pvm_recv gets the message), have the server leave PVM and rejoin
# (its handlers are gone), hit the second, and stop the server.
#
# mhf_server shows the handler table with the library's pvmdisplaymhfinfo;
# normalize.pl --mhf reduces it to the user handlers that are active.
. "${srcdir:-.}/tests/integ/lib.sh"
integ_init mhf

# mhid_of SIDE TAG: the id of the handler for TAG in the server's last table.
mhid_of() {
	sed -n "s/.*handles\[ *[0-9]*\]\.mhid = *\([0-9]*\) .*\.header\.tag= *$2\$/\1/p" \
		"$W/$1/out/server.out" | tail -n 1
}

# step SIDE TEXT COUNT ANSWER...: type the answers into mhf_tickle, then
# wait until the server has printed TEXT on COUNT lines.
step() {
	local s=$1 text=$2 count=$3
	shift 3
	# In a subshell: if mhf_tickle has died, only that gets SIGPIPE.
	(printf '%s\n' "$@" >&"$TICKLE_FD") 2>/dev/null ||
		{ fail "$s: mhf_tickle no longer reads its input"; return 1; }
	wait_output "$s" server "$text" "$count"
}

scenario() {
	local s=$1 sctx mhid
	bg_prog "$s" server -- mhf_server
	wait_output "$s" server "startup..." || return
	sctx=$(out_value "$s" server 's/^mhf_server: t[0-9a-f]* on machine <.*> with context \(-\{0,1\}[0-9]*\)\.$/\1/p')

	mkfifo "$W/$s/tickle.in"
	bg_prog "$s" tickle -i "$W/$s/tickle.in" -- mhf_tickle
	exec {TICKLE_FD}>"$W/$s/tickle.in"

	step "$s" "PMH: Are you talking to me" 1 0 &&
	step "$s" "loaded SC1" 1 1 100 "$sctx" 1 &&
	step "$s" "loaded IC1" 1 1 101 0 6 &&
	step "$s" "strings match" 1 4 100 "$sctx" 1 "hello,   string handler" &&
	step "$s" "magic_numbers match" 1 4 101 0 6 4242 &&
	mhid=$(mhid_of "$s" 100) &&
	step "$s" "DMH: AFTER delete" 1 2 "${mhid:-0}" &&
	step "$s" "strings NO match" 1 4 100 "$sctx" 1 "after delete" &&
	step "$s" "just registered server" 1 3 &&
	step "$s" "PMH: Are you talking to me" 2 "" 0 &&
	step "$s" "magic_numbers NO match" 1 4 101 0 6 77 &&
	step "$s" "Termiate Self" 1 9 ||
		{ kill_prog "$s" tickle; kill_prog "$s" server; }
	exec {TICKLE_FD}>&-
	wait_prog "$s" tickle
	wait_prog "$s" server
}
run_sides scenario

expect_status server 0
expect_status tickle 0
# The handler id the tickle typed is the library's own numbering.
compare_out server --mhf --subst 's/pvm_delmhf\( mhid = \d+ \)/pvm_delmhf( mhid = <id> )/'
# Stock's pvm_exit complains about handlers it has already freed.
compare_err server --drop 'pvm_delmhf\(\): Not Found'
compare_rc server
compare tickle --dec-tids
integ_finish

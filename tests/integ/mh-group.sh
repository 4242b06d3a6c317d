#!/bin/bash
# Dynamic groups across a virtual machine of four emulated hosts, stock
# PVM 3.4.6 (Debian's libgpvm3 and pvmgs) and copvm, the same program
# (tests/integ/netns/mhgroup.c) on both, outputs compared.  Members are
# spawned with PvmTaskHost on every host (checked with pvm_tidtohost) and
# make their group calls when the conductor, on node1, tells them to;
# every result is asserted by mhgroup itself as well:
#   check   8 members join in turn (instances 0..7); two leave and join
#           again: the first gets the lowest free instance; pvm_gettid,
#           pvm_getinst and pvm_gsize agree from every host and from a
#           non-member; barriers with count 8 and -1, PvmMismatch for a
#           count other than the first arrival's, pvm_freezegroup(-1),
#           a barrier(-1) of the frozen group; pvm_reduce of every data
#           type with PvmSum/PvmProduct/PvmMax/PvmMin to a root on node3,
#           against results computed locally (stock's PVM_LONG sum, max
#           and min are wrong: docs/groups.md); pvm_gather (root on
#           node4) and pvm_scatter (root on node3) of INT and DOUBLE;
#           pvm_bcast from a member on node2 and from the non-member;
#   errors  PvmNoGroup for every call on an unknown group, PvmNotInGroup
#           for a non-member (on node1 and on node2); barrier and freeze
#           counts of 0 and -2: copvm PvmBadParam, stock PvmMismatch, and
#           then stock fails every barrier of the group (docs/groups.md);
#   die-inside  a member on node4 killed (SIGKILL) inside a barrier of
#           four, after it arrived, one member arriving after the kill:
#           the three others are released with 0 and the group has three
#           members (stock counts the dead member's arrival, copvm lowers
#           the count to the members left);
#   die-before  (copvm only: stock waits for ever) the same, but killed
#           while the three others wait at the barrier for it.
# Then the machine is halted and nothing may be left on any host.
. "${srcdir:-.}/tests/integ/netns/mh.sh"
mh_init group 4

# The group server is found by name on the spawn path: COPVM_PVMGS
# from the caller's environment must not point elsewhere.
eval "mhg_plain_env() $(declare -f mh_env | sed 1d)"
mh_env() { echo "-u COPVM_PVMGS $(mhg_plain_env "$1")"; }

[ -x "$STOCK_ROOT/lib/pvmgs" ] || { log "SKIP: $STOCK_ROOT/lib/pvmgs is missing"; exit 77; }
MHG_COPVM=$top_builddir/tests/integ/netns/mhgroup
MHG_STOCK=$W/stock/mhgroup
[ -x "$MHG_COPVM" ] || die "$MHG_COPVM is missing (make check builds it)"
[ -x "$top_builddir/group/pvmgs" ] || die "group/pvmgs is missing (build copvm first)"
${CC:-cc} -O2 -o "$MHG_STOCK" "$top_srcdir/tests/integ/netns/mhgroup.c" \
	-I/usr/include -lgpvm3 -lpvm3 || die "cannot build mhgroup for stock"
if [ "${IMPL[copvm]}" = copvm ]; then
	got=$(env $(mh_env copvm) ldd "$MHG_COPVM" | awk '$1 == "libgpvm3.so.3" { print $3 }')
	[ "$got" -ef "$top_builddir/group/.libs/libgpvm3.so.3" ] ||
		die "mhgroup would load libgpvm3 from '$got', not from group/.libs"
fi

# mhg_offer SIDE: mhgroup and the side's pvmgs on every host's spawn path;
# prints the side's mhgroup.
mhg_offer() {
	local prog=$MHG_COPVM server=$top_builddir/group/pvmgs i d
	if [ "${IMPL[$1]}" = stock ]; then
		prog=$MHG_STOCK
		server=$STOCK_ROOT/lib/pvmgs
	fi
	for i in $(seq "$MH_HOSTS"); do
		d=$W/$1/hosts/node$i/home/pvm3/bin/LINUX64
		mkdir -p "$d"
		ln -sf "$prog" "$d/mhgroup"
		ln -sf "$server" "$d/pvmgs"
	done
	echo "$prog"
}

scenario() {
	local side=$1 prog impl=
	prog=$(mhg_offer "$side")
	[ "${IMPL[$side]}" = stock ] && impl=stock
	mh_begin "$side"
	for t in check errors die-inside; do
		mh_run "$side" node1 "$t" -- "$prog" "$t" $impl
	done
	[ "${IMPL[$side]}" = copvm ] && mh_run "$side" node1 die-before -- "$prog" die-before
	mh_end "$side"
}
mh_sides scenario

# mhgroup asserts each side's results itself; the outputs must also be
# the same, except where stock differs (checked by mhgroup on each side).
for t in check errors die-inside; do
	expect_status "$t" 0
done
compare check --drop '(^|: )reduce (LONG (PvmSum|PvmMax|PvmMin)|USHORT|UINT|ULONG)[ :]'
compare errors --drop '^count: '
compare die-inside
rc=$(cat "$W/copvm/out/die-before.rc" 2>/dev/null)
if [ "${IMPL[copvm]}" = copvm ] && [ "$rc" != 0 ]; then
	fail "copvm: die-before exited with ${rc:-nothing}:"
	cat "$W/copvm/out/die-before.out" "$W/copvm/out/die-before.err" >&2
fi
integ_finish

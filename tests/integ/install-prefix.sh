#!/bin/bash
# install-prefix.sh - a `make install' into a prefix of its own serves
# programs built against it as the Debian packages do (docs/install.md):
# the distribution tree (make distdir) is configured with
# --prefix=TMP/prefix, built and installed; then relink-lib.sh rebuilds
# pvm-examples' hello, master1 and master1.f through TMP/prefix's
# pkg-config files and its copvm-cc and copvm-f77, checks that each
# carries the run path TMP/prefix/lib and loads copvm's libraries from
# there, and runs them as a new user with no environment variable set:
# on TMP/prefix/bin/pvmd, the daemon the installed library finds by
# itself.  Also: the installed pvm3.pc's run path is TMP/prefix/lib, and
# fpvm3.h is in TMP/prefix/include/fortran/include.
#
# A configure and build of the whole tree (a minute or two on two CPUs):
# runs only with COPVM_TEST_INSTALL=1 or COPVM_TEST_DEB=1 (which CI's root
# `make check' sets), as root (useradd, runuser), with pvm-examples,
# gfortran, readelf and pkg-config installed; exit 77 otherwise.  Exit
# status 0 (pass), 1 (fail), 77 (skip).
set -u
top_srcdir=$(cd "${srcdir:-.}" && pwd)
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
failed=0

log() { printf '%s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failed=1; }
skip() { log "SKIP: install-prefix.sh: $*"; exit 77; }

[ "${COPVM_TEST_INSTALL:-}" = 1 ] || [ "${COPVM_TEST_DEB:-}" = 1 ] ||
	skip "set COPVM_TEST_INSTALL=1 to build and install a copy (a minute or two)"
[ "$(id -u)" = 0 ] || skip "needs root (useradd, runuser)"
[ -r /usr/share/doc/pvm-examples/examples.tar.gz ] || skip "pvm-examples is not installed"
for p in gfortran readelf pkg-config useradd userdel runuser pgrep; do
	command -v $p >/dev/null || skip "$p is missing (gfortran, binutils, pkgconf, passwd, util-linux, procps)"
done
. "$top_srcdir/tests/integ/relink-lib.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-prefix.XXXXXX") || exit 1
chmod 755 "$T"
trap 'relink_cleanup; rm -rf "$T"' EXIT
P=$T/prefix

t0=$(date +%s)
make -C "$top_builddir" distdir distdir="$T/src" >"$T/distdir.log" 2>&1 ||
	{ tail -n 20 "$T/distdir.log" >&2; log "FAIL: make distdir"; exit 1; }
mkdir "$T/build"
(cd "$T/build" && "$T/src/configure" --prefix="$P" --without-kernel-headers &&
	nice make -j2 && make install) >"$T/build.log" 2>&1 ||
	{ tail -n 30 "$T/build.log" >&2; log "FAIL: configure, make or make install"; exit 1; }
log "install-prefix: configure, make, make install took $(($(date +%s) - t0)) s"

out=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --variable=copvm_rpath pvm3)
[ "$out" = "-Wl,-rpath,$P/lib" ] || fail "installed pvm3.pc: copvm_rpath is '$out'"
cmp -s "$top_srcdir/include/fpvm3.h" "$P/include/fortran/include/fpvm3.h" ||
	fail "fpvm3.h is not in $P/include/fortran/include"
[ "$("$P/bin/copvm-cc" --showme:link)" = "-L$P/lib -Wl,-rpath,$P/lib -lgpvm3 -lpvm3" ] ||
	fail "copvm-cc --showme:link: $("$P/bin/copvm-cc" --showme:link)"

relink_check "$P/bin/pvmd" "$P/lib" "$P/lib/pkgconfig" "$P/bin" "$T/relink"
[ $failed = 0 ] && log "install-prefix: PASS"
exit $failed

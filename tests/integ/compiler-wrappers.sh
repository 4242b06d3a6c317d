#!/bin/bash
# compiler-wrappers.sh - tools/copvm-cc and tools/copvm-f77 of the build
# tree (copvm-cc(1)) pass their arguments to the compiler unchanged
# (spaces and quotes included), put copvm's compile flags before them and
# its link flags after them, leave the libraries out of a command that
# does not link, and answer --showme, --showme:compile, --showme:link and
# an unknown --showme: as documented.  The compiler is a stand-in
# (COPVM_CC, COPVM_F77) that writes the arguments it got, one a line; the
# flags expected are those of the configured directories (as the built
# pvm3.pc names them, with its run path).
# Needs nothing installed.  Exit status 0 (pass), 1 (fail).
set -u
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
failed=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failed=1; }

pcvar() { sed -n "s/^$1=//p" "$top_builddir/pvm3.pc" | sed "s|\${libdir}|${libdir:-}|"; }
libdir=$(pcvar libdir)
includedir=$(pcvar includedir)
rpath=$(pcvar copvm_rpath)
[ -n "$libdir" ] && [ -n "$includedir" ] || { fail "no libdir or includedir in pvm3.pc"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/copvm-wrappers.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
# The stand-in compiler: its arguments, one a line, into $T/args.
cat >"$T/fakecc" <<EOF
#!/bin/sh
for a; do printf '%s\n' "\$a"; done >"$T/args"
EOF
chmod +x "$T/fakecc"

cc=$top_builddir/tools/copvm-cc
f77=$top_builddir/tools/copvm-f77
[ -x "$cc" ] && [ -x "$f77" ] || { fail "tools/copvm-cc or copvm-f77 is not built"; exit 1; }

# expect WRAPPER VAR 'expected args, one a line' ARGS...
expect() {
	local w=$1 var=$2 want=$3
	shift 3
	rm -f "$T/args"
	env "$var=$T/fakecc" "$w" "$@" || fail "${w##*/} $*: exit $?"
	if [ "$(cat "$T/args" 2>/dev/null)" != "$want" ]; then
		fail "${w##*/} $*: the compiler got:"
		sed 's/^/    /' "$T/args" >&2
		printf '  not:\n%s\n' "$want" | sed 's/^/    /' >&2
	fi
}
lines() { printf '%s\n' "$@" | sed '/^$/d'; }

clibs=$(lines "-L$libdir" $rpath -lgpvm3 -lpvm3)
flibs=$(lines "-L$libdir" $rpath -lfpvm3 -lgpvm3 -lpvm3)
expect "$cc" COPVM_CC "$(lines "-I$includedir" 'a b.c' -o 'x"y' -DS='it s' "$clibs")" \
	'a b.c' -o 'x"y' -DS='it s'
expect "$cc" COPVM_CC "$(lines "-I$includedir" -c a.c)" -c a.c
expect "$cc" COPVM_CC "$(lines "-I$includedir" -E a.c)" -E a.c
expect "$cc" COPVM_CC "" # no argument: the compiler gets none of ours
# not gfortran: no -fallow-argument-mismatch
expect "$f77" COPVM_F77 "$(lines "-I$includedir/fortran/include" m.f -o m "$flibs")" m.f -o m
expect "$f77" COPVM_F77 "$(lines "-I$includedir/fortran/include" -c m.f)" -c m.f

# --showme prints, runs nothing
rm -f "$T/args"
out=$(COPVM_CC=$T/fakecc "$cc" --showme a.c -o a)
[ -e "$T/args" ] && fail "copvm-cc --showme ran the compiler"
[ "$out" = "$T/fakecc -I$includedir a.c -o a -L$libdir${rpath:+ $rpath} -lgpvm3 -lpvm3" ] ||
	fail "copvm-cc --showme: $out"
[ "$("$cc" --showme:compile)" = "-I$includedir" ] || fail "copvm-cc --showme:compile: $("$cc" --showme:compile)"
[ "$("$cc" --showme:link)" = "-L$libdir${rpath:+ $rpath} -lgpvm3 -lpvm3" ] ||
	fail "copvm-cc --showme:link: $("$cc" --showme:link)"
[ "$("$f77" --showme:link)" = "-L$libdir${rpath:+ $rpath} -lfpvm3 -lgpvm3 -lpvm3" ] ||
	fail "copvm-f77 --showme:link: $("$f77" --showme:link)"
"$cc" --showme:help | grep -q -- '--showme:link' || fail "copvm-cc --showme:help"
"$cc" --showme:nonsense >/dev/null 2>&1
rc=$?
[ $rc = 2 ] || fail "copvm-cc --showme:nonsense: exit $rc, not 2"
# gfortran 10 and later get -fallow-argument-mismatch
if command -v gfortran >/dev/null; then
	v=$(gfortran -dumpversion)
	out=$(COPVM_F77=gfortran "$f77" --showme:compile)
	case ${v%%.*}:$out in
	1[0-9]:*-fallow-argument-mismatch* | [2-9][0-9]:*-fallow-argument-mismatch*) ;;
	[1-9]:*-fallow-argument-mismatch*) fail "copvm-f77: gfortran $v got -fallow-argument-mismatch" ;;
	[1-9]:*) ;;
	*) fail "copvm-f77 with gfortran $v: $out" ;;
	esac
fi
# a failing compiler's status comes back
COPVM_CC=false "$cc" a.c >/dev/null 2>&1
rc=$?
[ $rc = 1 ] || fail "copvm-cc with a failing compiler: exit $rc, not 1"
[ $failed = 0 ] && echo "compiler-wrappers: PASS" >&2
exit $failed

#!/bin/bash
# The daemon's modules form layers: no import circle of more than two
# files (issue 24).  File A imports file B when A's object uses a symbol
# B's object defines; tools/import-graph.sh prints each circle and exits 1
# when there is one.  A lower module that must report upwards calls a
# hook (daemon/wiring.c), never the higher module by name.
set -u
top_builddir=$(cd "${INTEG_BUILDDIR:-.}" && pwd)
command -v nm >/dev/null || { echo "SKIP: binutils missing" >&2; exit 77; }
shopt -s nullglob
objs=()
for o in "$top_builddir"/daemon/*.o; do
	# not the copies unit tests compile (tests_check_pvmd_ring-ring.o)
	case ${o##*/} in tests_*) continue ;; esac
	objs+=("$o")
done
[ ${#objs[@]} -gt 0 ] || { echo "SKIP: no daemon objects" >&2; exit 77; }
if ! "${srcdir:-.}/tools/import-graph.sh" -e "${objs[@]}"; then
	echo "FAIL: import circles among daemon/*.o (above)" >&2
	exit 1
fi
echo "daemon: ${#objs[@]} objects, no import circle of more than 2 files"

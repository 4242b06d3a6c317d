#!/bin/sh
# import-graph.sh: the import circles among a set of object files.  File A
# imports file B when A's object uses a symbol that B's object defines
# (nm); symbols defined outside the given objects (common/, libc) are not
# edges.  Prints each strongly connected component of more than MIN files
# (default 2), one per line, largest first, and exits 1 if there is any.
#
#   tools/import-graph.sh [-m MIN] [-e] [-s] file.o...
#     -m MIN  report components of more than MIN files (default 2)
#     -e      also print every edge inside a reported component, with the
#             symbols it stands for ("a -> b: sym1 sym2")
#     -s      print the whole graph's edges and stop (no components)
# Example: tools/import-graph.sh -e daemon/*.o
set -eu
min=2 edges=0 all=0
while getopts m:es opt; do
	case $opt in
	m) min=$OPTARG ;;
	e) edges=1 ;;
	s) all=1 ;;
	*) echo "usage: $0 [-m MIN] [-e] [-s] file.o..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-m MIN] [-e] [-s] file.o..." >&2; exit 2; }

# One line per symbol: "D file sym" for a definition, "U file sym" for a use.
for o in "$@"; do
	f=$(basename "$o" .o)
	f=${f#*-}	# automake's per-target prefix: pvmd-main.o -> main
	nm -g --defined-only "$o" | awk -v f="$f" 'NF >= 3 { print "D", f, $3 }'
	nm -u "$o" | awk -v f="$f" '{ print "U", f, $NF }'
done | awk -v min="$min" -v edges="$edges" -v all="$all" '
$1 == "D" { def[$3] = $2; node[$2] = 1; next }
$1 == "U" { use[++nu] = $2 " " $3; node[$2] = 1 }
END {
	for (i = 1; i <= nu; i++) {
		split(use[i], p, " ")
		if (!(p[2] in def) || def[p[2]] == p[1]) continue
		e = p[1] SUBSEP def[p[2]]
		if (!(e in sym)) { out[p[1]] = out[p[1]] " " def[p[2]] }
		sym[e] = sym[e] " " p[2]
	}
	if (all) {
		for (e in sym) { split(e, q, SUBSEP); print q[1] " -> " q[2] ":" sym[e] }
		exit 0
	}
	# Tarjan, recursive (awk locals are extra parameters).
	idx = 0; top = 0; nc = 0
	for (v in node) if (!(v in index_)) strong(v)
	found = 0
	# largest first
	for (c = 1; c <= nc; c++) order[c] = c
	for (i = 1; i <= nc; i++) for (j = i + 1; j <= nc; j++)
		if (size[order[j]] > size[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
	for (i = 1; i <= nc; i++) {
		c = order[i]
		if (size[c] <= min) continue
		found = 1
		printf "%d files:%s\n", size[c], members[c]
		if (!edges) continue
		for (e in sym) {
			split(e, q, SUBSEP)
			if (comp[q[1]] == c && comp[q[2]] == c)
				print "  " q[1] " -> " q[2] ":" sym[e]
		}
	}
	exit found
}
function strong(v,    n, k, w, list) {
	index_[v] = idx; low[v] = idx; idx++
	stack[++top] = v; on[v] = 1
	n = split(out[v], list, " ")
	for (k = 1; k <= n; k++) {
		w = list[k]
		if (!(w in index_)) {
			strong(w)
			if (low[w] < low[v]) low[v] = low[w]
		} else if (on[w] && index_[w] < low[v]) low[v] = index_[w]
	}
	if (low[v] == index_[v]) {
		nc++
		do {
			w = stack[top--]; on[w] = 0
			comp[w] = nc; size[nc]++; members[nc] = members[nc] " " w
		} while (w != v)
	}
}'

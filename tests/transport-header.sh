#!/bin/sh
# transport-header.sh - lib/transport/transport.h declares only the
# transport table and its types (issue 24): no function outside the
# table, so a transport's set-up and side calls stay its own business
# (registry.h, stream.h and each transport's own header hold the rest),
# and every transport file under lib/transport/ is registered once in
# registry.c.
srcdir=${srcdir:-.}
h="$srcdir/lib/transport/transport.h"
[ -r "$h" ] || { echo "no $h"; exit 1; }
# A declaration at file scope that takes arguments and is not a member of
# a struct (those are indented): a function outside the table.
bad=$(grep -nE '^[A-Za-z_][A-Za-z0-9_ *]*\(' "$h")
if [ -n "$bad" ]; then
	echo "transport.h declares functions outside the table:"
	echo "$bad"
	exit 1
fi
# Every exported table is registered in registry.c.
for t in $(sed -n 's/^extern const struct pvmi_transport \([a-z_]*\);/\1/p' "$h"); do
	n=$(grep -c "&$t," "$srcdir/lib/transport/registry.c")
	if [ "$n" != 1 ]; then
		echo "$t is registered $n times in registry.c"
		exit 1
	fi
done
exit 0

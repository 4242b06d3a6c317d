#!/bin/bash
# kmod-vm-bench.sh - COMMS1 inside a booted Debian kernel with the
# pvm_cosched module: LIN against PRE on the kmod backend, with 0 and 2
# CPU-bound local jobs, five runs each (bench/kmod/vm-comms1.sh), and a
# table of medians and ratios.  A benchmark, not a test: qemu's TCG
# distorts absolute times, so only the ratios mean anything.
#
# Usage (from the build tree, after make and make check-kmod's
# prerequisites: qemu, busybox-static, the kernel packages):
#   bench/kmod-vm-bench.sh [meta-package]   (default linux-headers-6.12-amd64)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
meta=${1:-linux-headers-6.12-amd64}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# idle=poll: a halted emulated CPU wakes only at qemu's next timer, which
# would make the dedicated runs the slowest; nice 0: the guest competes
# as an equal with whatever else runs on the host.
KMOD_QEMU_KERNELS=$meta KMOD_PVM=1 KMOD_QEMU_TIMEOUT=900 \
	KMOD_QEMU_NICE=0 KMOD_QEMU_APPEND=idle=poll \
	KMOD_PVM_SCRIPT=$src/bench/kmod/vm-comms1.sh srcdir=$src \
	COPVM_CHECK_KMOD=1 bash "$src/tests/integ/kmod-qemu.sh" > "$log" 2>&1
rc=$?
abi=$(sed -n 's/^KMOD-BOOT: //p' "$log" | head -n 1)
serial=$PWD/tests/kmod/qemu/$abi/serial.log
[ "$rc" -eq 0 ] && [ -r "$serial" ] || {
	cat "$log"
	echo "kmod-vm-bench: the guest run failed" >&2
	exit 1
}
tr -d '\r' < "$serial" | grep '^BOOSTCOST'
tr -d '\r' < "$serial" | awk -v abi="$abi" '
/^VMBENCH / {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	key = v["k"] " " v["model"]
	t[key, ++n[key]] = v["ms"]
}
function median(key,   a, m, i, j, x) {
	m = n[key]
	for (i = 1; i <= m; i++) a[i] = t[key, i]
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
		}
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	printf "# COMMS1 in a TCG guest (%s), kmod backend; medians of 5, ms\n", abi
	printf "| local jobs | LIN | PRE | Gain (LIN/PRE) |\n|---:|---:|---:|---:|\n"
	for (k = 0; k <= 2; k += 2) {
		l = median(k " lin"); p = median(k " pre")
		printf "| %d | %d | %d | %.2f |\n", k, l, p, p ? l / p : 0
	}
	l0 = median("0 lin"); p0 = median("0 pre")
	printf "\nSlowdown at 2 jobs over 0: LIN %.2f, PRE %.2f\n",
		median("2 lin") / l0, median("2 pre") / p0
}'

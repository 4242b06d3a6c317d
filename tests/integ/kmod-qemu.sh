#!/bin/bash
# kmod-qemu.sh - the pvm_cosched module in Debian 12's two kernels, booted
# under qemu (TCG: /dev/kvm does not work on these machines).
#
# For each kernel, 6.1 (linux-headers-amd64) and 6.12
# (linux-headers-6.12-amd64), whose ABI names are read from the installed
# meta packages: build the module against its headers, find its image
# (/boot, an unpacked copy in the cache, a .deb in $COPVM_KMOD_DEBS or
# the cache, or `apt-get download'), build a busybox-static initramfs
# with the module and the static ioctl suite (tests/kmod/mkinitramfs.sh),
# boot it with oops=panic panic_on_warn=1 and read the verdict from the
# serial log: the line `KMOD-SUITE: PASS ...', and no WARNING, BUG, Oops
# or panic line.  Exits 0 (both pass), 1 (one failed) or 77 (qemu,
# busybox-static, cpio, a kernel's headers or its image are missing).
#
# It runs only with COPVM_CHECK_KMOD=1 (make check-kmod), and skips in a
# plain make check, where other tests load the host.
# Environment: COPVM_KMOD_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/
# copvm-kmod) keeps the unpacked kernels; COPVM_KMOD_DEBS (default
# /var/cache/copvm-kmod) is where CI puts the 6.1 image package;
# KMOD_QEMU_KERNELS picks the meta packages (default: both);
# KMOD_SUITE is the suite (default tests/kmod/kmod-suite); KMOD_EXTRA
# lists more files for the initramfs (see mkinitramfs.sh).  Unless
# KMOD_PVM=0, each boot also runs a 2-task PVM program with the kmod
# backend (tests/kmod/pvm-test.sh, with this build's pvmd, pingpong,
# copvm-cosched and pvmhalt) and requires its `KMOD-PVM: PASS' line;
# KMOD_PVM_SCRIPT replaces that script (bench/kmod-vm-bench.sh's COMMS1
# runs, which also get examples/comms1 and bench/boost_cost);
# KMOD_QEMU_NICE (default 19) and KMOD_QEMU_APPEND (more kernel
# arguments) serve the benchmark.
set -u
srcdir=${srcdir:-.}
top=$(cd "$srcdir" && pwd)
suite=${KMOD_SUITE:-$PWD/tests/kmod/kmod-suite}
work=$PWD/tests/kmod/qemu
cache=${COPVM_KMOD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/copvm-kmod}
debs=${COPVM_KMOD_DEBS:-/var/cache/copvm-kmod}
metas=${KMOD_QEMU_KERNELS:-linux-headers-amd64 linux-headers-6.12-amd64}
boot_timeout=${KMOD_QEMU_TIMEOUT:-300}

skip() { echo "SKIP: $*"; exit 77; }
# Alone only: other tests loading the host break its timing cases.
[ "${COPVM_CHECK_KMOD:-}" = 1 ] ||
	skip "run alone, by make check-kmod (COPVM_CHECK_KMOD=1)"

command -v qemu-system-x86_64 >/dev/null ||
	skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
command -v cpio >/dev/null || skip "no cpio (apt-get install cpio)"
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ||
	skip "no static /bin/busybox (apt-get install busybox-static)"
[ -x "$suite" ] || skip "no ioctl suite at $suite (make check builds it)"
mkdir -p "$work" "$cache" || skip "cannot create $work or $cache"

# The ABI name (6.1.0-56-amd64) a headers meta package depends on.
abi_of() {
	dpkg-query -W -f '${Depends}' "$1" 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p'
}

# Prints the path of the kernel image of ABI $1, unpacking or
# downloading its package into the cache if needed.
image_of() {
	local abi=$1 deb=
	if [ -r "/boot/vmlinuz-$abi" ]; then
		echo "/boot/vmlinuz-$abi"
		return 0
	fi
	if [ -s "$cache/vmlinuz-$abi" ]; then
		echo "$cache/vmlinuz-$abi"
		return 0
	fi
	for d in "$debs" "$cache"; do
		deb=$(ls "$d"/linux-image-"${abi}"_*.deb 2>/dev/null | head -n 1)
		[ -n "$deb" ] && break
	done
	if [ -z "$deb" ]; then
		(cd "$cache" && apt-get download -q "linux-image-$abi") \
			>&2 || return 1
		deb=$(ls "$cache"/linux-image-"${abi}"_*.deb | head -n 1)
	fi
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./boot/vmlinuz-$abi" > "$cache/vmlinuz-$abi.tmp" &&
		mv "$cache/vmlinuz-$abi.tmp" "$cache/vmlinuz-$abi" || return 1
	echo "$cache/vmlinuz-$abi"
}

# Builds the module for ABI $1 in a copy of kmod/ under the build dir.
build_module() {
	local abi=$1 dir=$work/$1/kmod
	rm -rf "$dir"
	mkdir -p "$dir/uapi"
	cp "$top"/kmod/*.[ch] "$top/kmod/Kbuild" "$dir/" &&
		cp "$top/kmod/uapi/pvm_cosched.h" "$dir/uapi/" &&
		make -C "/usr/src/linux-headers-$abi" M="$dir" modules \
			> "$work/$abi/build.log" 2>&1 &&
		[ -f "$dir/pvm_cosched.ko" ]
}

# Boots kernel image $2 (ABI $1) with the initramfs; checks the log.
boot_and_judge() {
	local abi=$1 image=$2 log=$work/$1/serial.log start
	start=$(date +%s)
	# nice: two busy emulated CPUs must not starve the tests beside it.
	# no_timer_check: on a loaded host the guest's IO-APIC timer check
	# can fail under TCG and panic the boot (seen with 6.1).
	# tsc=reliable: on a loaded host the clocksource watchdog finds the
	# emulated TSC skewed and switches clocksources at run time; the
	# text patching that follows oopsed 6.12 under TCG (int3 in
	# sched_clock_cpu).
	timeout "$boot_timeout" nice -n "${KMOD_QEMU_NICE:-19}" \
		qemu-system-x86_64 -accel tcg -m 512 -smp 2 \
		-nographic -no-reboot -kernel "$image" \
		-initrd "$work/$abi/initramfs.cpio.gz" \
		-append "console=ttyS0 no_timer_check tsc=reliable panic=-1 oops=panic panic_on_warn=1${KMOD_QEMU_APPEND:+ $KMOD_QEMU_APPEND}" \
		</dev/null >"$log" 2>&1
	echo "# $abi: booted and ran in $(($(date +%s) - start)) s (log: $log)"
	grep -E '^(not ok|ok) |^KMOD-|bench:|^#   ' "$log" | tr -d '\r'
	if grep -nE 'WARNING:|BUG:|Oops|Kernel panic|general protection|Call Trace' "$log"; then
		echo "FAIL: $abi: the kernel warned, oopsed or panicked"
		return 1
	fi
	grep -q '^KMOD-SUITE: PASS .*fail=0' "$log" &&
		grep -q '^KMOD-BENCH: PASS' "$log" && grep -q '^KMOD-END' "$log" ||
		{ echo "FAIL: $abi: no passing verdict in the serial log"; return 1; }
	if [ -n "$pvm_files" ] && ! grep -q '^KMOD-PVM: PASS' "$log"; then
		echo "FAIL: $abi: the PVM run with the kmod backend did not pass"
		return 1
	fi
	echo "PASS: $abi"
}

# A program of this build as the guest can run it: the ELF behind a
# libtool wrapper script (a program linked with libpvm3.la to be
# installed, as copvm-cosched is), which finds libpvm3 through
# LD_LIBRARY_PATH (pvm-test.sh sets it; mkinitramfs.sh's ldd sees it).
elf_of() {
	if [ "$(head -c 4 "$1" 2>/dev/null)" = $'\177ELF' ]; then
		echo "$1"
	else
		echo "$(dirname "$1")/.libs/$(basename "$1")"
	fi
}
export LD_LIBRARY_PATH=$PWD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# The PVM run's script, with this build's programs, and what to copy in.
pvm_files=
if [ "${KMOD_PVM:-1}" = 1 ]; then
	mkdir -p "$work"
	cosched_tool=$(elf_of "$PWD/tools/copvm-cosched")
	sed -e "s|@PVMD@|$PWD/daemon/pvmd|" \
		-e "s|@LIBDIR@|$PWD/lib/.libs|" \
		-e "s|@PINGPONG@|$PWD/examples/pingpong|" \
		-e "s|@COSCHED_TOOL@|$cosched_tool|" \
		-e "s|@PVMHALT@|$PWD/tests/tools/pvmhalt|" \
		-e "s|@COMMS1@|$PWD/examples/comms1|" \
		-e "s|@BOOST_COST@|$PWD/bench/boost_cost|" \
		"${KMOD_PVM_SCRIPT:-$top/tests/kmod/pvm-test.sh}" > "$work/pvm-test.sh"
	pvm_files="$PWD/daemon/pvmd $PWD/examples/pingpong $cosched_tool $PWD/tests/tools/pvmhalt $work/pvm-test.sh"
	[ -z "${KMOD_PVM_SCRIPT:-}" ] ||
		pvm_files="$pvm_files $PWD/examples/comms1 $PWD/bench/boost_cost"
fi

failed=0 skipped=()
for meta in $metas; do
	abi=$(abi_of "$meta")
	if [ -z "$abi" ] || [ ! -d "/usr/src/linux-headers-$abi" ]; then
		skipped+=("$meta: not installed (apt-get install $meta)")
		continue
	fi
	mkdir -p "$work/$abi"
	if ! image=$(image_of "$abi"); then
		skipped+=("$abi: no image (/boot, $debs or apt-get download linux-image-$abi)")
		continue
	fi
	if ! build_module "$abi"; then
		echo "FAIL: $abi: the module does not build"
		cat "$work/$abi/build.log"
		failed=1
		continue
	fi
	# shellcheck disable=SC2086
	if ! "$top/tests/kmod/mkinitramfs.sh" "$work/$abi/initramfs.cpio.gz" \
		"$work/$abi/kmod/pvm_cosched.ko" "$suite" $pvm_files \
		${KMOD_EXTRA:-}; then
		echo "FAIL: $abi: no initramfs"
		failed=1
		continue
	fi
	boot_and_judge "$abi" "$image" || failed=1
done
for s in "${skipped[@]}"; do
	echo "SKIP: $s"
done
[ "$failed" -eq 0 ] || exit 1
[ "${#skipped[@]}" -eq 0 ] || exit 77
exit 0

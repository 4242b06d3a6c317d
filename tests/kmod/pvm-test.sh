#!/bin/sh
# pvm-test.sh - run by the initramfs's /init after the ioctl suite when
# tests/integ/kmod-qemu.sh is given KMOD_PVM=1: a 2-task PVM program
# (pingpong, which spawns its echoing child) on copvm's pvmd with the
# `kmod' coscheduling backend, then the module's counters, which must
# show boosts put in force.  Prints `KMOD-PVM: PASS|FAIL ...'.
# Needs libpvm3's kmod backend (lib/cosched/backend_kmod.c).
export PVM_ALLOW_ROOT=1 PVM_TMP=/tmp/pvm HOME=/root
export COPVM_PVMD=@PVMD@ COPVM_BACKEND=kmod
mkdir -p "$PVM_TMP"
before=$(/bin/kmod-suite --stats | sed -n 's/.* applied=\([0-9]*\).*/\1/p')
if ! timeout 120 @PINGPONG@ -r 200 -s 8,1024; then
	echo "KMOD-PVM: FAIL pingpong"
	exit 1
fi
@COSCHED_TOOL@ 2>&1 | head -n 20
after=$(/bin/kmod-suite --stats | tee /dev/stderr |
	sed -n 's/.* applied=\([0-9]*\).*/\1/p')
@PVMHALT@ >/dev/null 2>&1
if [ "${after:-0}" -gt "${before:-0}" ]; then
	echo "KMOD-PVM: PASS applied=$((after - before))"
else
	echo "KMOD-PVM: FAIL no boost applied through the module"
	exit 1
fi

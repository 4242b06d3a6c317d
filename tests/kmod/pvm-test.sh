#!/bin/sh
# pvm-test.sh - run by the initramfs's /init after the ioctl suite when
# tests/integ/kmod-qemu.sh is given KMOD_PVM=1: a 2-task PVM program
# (pingpong, which spawns its echoing child) on copvm's pvmd with the
# `kmod' coscheduling backend, then the module's counters, which must
# show boosts put in force, and copvm-cosched, which must show the tasks
# on the kmod backend; then the same program under DCS, whose tasks hand
# their input files to the module (WATCH): the module must have boosted
# them on arrival (each task writes that count as it leaves, in its
# COPVM_WAIT_STATS line).  Prints `KMOD-PVM: PASS|FAIL ...'.
export PVM_ALLOW_ROOT=1 PVM_TMP=/tmp/pvm HOME=/root
export COPVM_PVMD=@PVMD@ COPVM_BACKEND=kmod
# copvm-cosched is the ELF behind its libtool wrapper: libpvm3 from here.
export LD_LIBRARY_PATH=@LIBDIR@
mkdir -p "$PVM_TMP"
# The engine asks for boosts only while more tasks are runnable than
# there are CPUs; the VM runs nothing else, so it is given a busy load.
echo "1.00 1.00 1.00 64/300 4242" > /tmp/loadavg.busy
export COPVM_LOADAVG_FILE=/tmp/loadavg.busy
before=$(/bin/kmod-suite --stats | sed -n 's/.* applied=\([0-9]*\).*/\1/p')
# The observability tool looks at the pages while the two tasks run.
timeout 120 @PINGPONG@ -r 3000 -s 8,1024 > /tmp/pingpong.out 2>&1 &
pp=$!
# It must show a task on the kmod backend (TCG is slow: wait for it).
seen=0 i=0
while [ $i -lt 60 ] && kill -0 $pp 2>/dev/null; do
	if @COSCHED_TOOL@ > /tmp/cosched.out 2>&1 &&
		grep -q ' kmod' /tmp/cosched.out; then
		seen=1
		break
	fi
	sleep 0.5
	i=$((i + 1))
done
head -n 20 /tmp/cosched.out
wait $pp
rc=$?
cat /tmp/pingpong.out
if [ "$seen" -ne 1 ]; then
	echo "KMOD-PVM: FAIL copvm-cosched showed no task on the kmod backend"
	@PVMHALT@ >/dev/null 2>&1
	exit 1
fi
if [ "$rc" -ne 0 ]; then
	echo "KMOD-PVM: FAIL pingpong (exit $rc)"
	@PVMHALT@ >/dev/null 2>&1
	exit 1
fi
after=$(/bin/kmod-suite --stats | tee /dev/stderr |
	sed -n 's/.* applied=\([0-9]*\).*/\1/p')
@PVMHALT@ >/dev/null 2>&1
if [ "${after:-0}" -le "${before:-0}" ]; then
	echo "KMOD-PVM: FAIL no boost applied through the module"
	exit 1
fi
# DCS: boosts on arrival, given in the kernel (a new daemon, whose
# tasks get the model and the stats file).
sleep 1
rm -f /tmp/waits
COPVM_MODEL=dcs COPVM_WAIT_STATS=/tmp/waits timeout 120 @PINGPONG@ \
	-r 3000 -s 8 > /tmp/pingpong-dcs.out 2>&1
rc=$?
@PVMHALT@ >/dev/null 2>&1
cat /tmp/waits 2>/dev/null
arrivals=$(awk '$4 == "arrivals" { n++; s += $5 } END { print n + 0, s + 0 }' \
	/tmp/waits 2>/dev/null)
set -- $arrivals
if [ "$rc" -ne 0 ]; then
	cat /tmp/pingpong-dcs.out
	echo "KMOD-PVM: FAIL pingpong under DCS (exit $rc)"
	exit 1
fi
if [ "${1:-0}" -lt 2 ] || [ "${2:-0}" -lt 1 ]; then
	echo "KMOD-PVM: FAIL under DCS: ${1:-0} tasks told their arrival boosts, ${2:-0} in all"
	exit 1
fi
echo "KMOD-PVM: PASS applied=$((after - before)) dcs_arrivals=$2"

#!/bin/sh
# vm-comms1.sh - run inside the qemu guest by bench/kmod-vm-bench.sh (as
# its /pvm-test.sh): COMMS1 under LIN and under PRE with the kmod backend,
# with 0 and 2 CPU-bound local jobs (busy shell loops) beside it, each
# five times after one run not counted, timed by the guest's clock.
# Prints one line per run,
#   VMBENCH k=<jobs> model=<lin|pre> rep=<n> ms=<wall time>
# then `KMOD-PVM: PASS' (the runs ended) or `KMOD-PVM: FAIL ...'.
export PVM_ALLOW_ROOT=1 PVM_TMP=/tmp/pvm HOME=/root
export COPVM_PVMD=@PVMD@ COPVM_BACKEND=kmod
mkdir -p "$PVM_TMP"
args=${VM_COMMS1_ARGS:--s 0,8,64,512,1k,8k,64k -r 200}

now_ms() {
	read -r up _ < /proc/uptime
	echo "${up%.*}${up#*.}0"
}

# One boost's cost through the module, against getppid (BOOSTCOST line).
@BOOST_COST@ kmod -n 20000 -r 5 | sed 's/^RESULT/BOOSTCOST/'

# A first run starts the daemon and warms the caches; not counted.
COPVM_MODEL=lin timeout 300 @COMMS1@ $args > /dev/null 2>&1

for k in 0 2; do
	jobs=
	i=0
	while [ $i -lt $k ]; do
		sh -c 'while :; do :; done' &
		jobs="$jobs $!"
		i=$((i + 1))
	done
	for rep in 1 2 3 4 5; do
		for model in lin pre; do
			t0=$(now_ms)
			if ! COPVM_MODEL=$model timeout 300 @COMMS1@ $args \
				> /tmp/comms1.out 2>&1; then
				cat /tmp/comms1.out
				echo "KMOD-PVM: FAIL comms1 k=$k model=$model"
				kill $jobs 2>/dev/null
				exit 1
			fi
			t1=$(now_ms)
			echo "VMBENCH k=$k model=$model rep=$rep ms=$((t1 - t0))"
		done
	done
	[ -z "$jobs" ] || kill $jobs
	wait 2>/dev/null
done
/bin/kmod-suite --stats
@PVMHALT@ >/dev/null 2>&1
echo "KMOD-PVM: PASS"

#!/bin/sh
# shm-off.sh - the same-host circuit tests over the unix-socket fallback:
# check_conn and check_recv with COPVM_SHM=0 (the rest of `make check'
# runs over the shared-memory rings, the default).
COPVM_SHM=0
export COPVM_SHM
for t in tests/check_conn tests/check_recv; do
	./$t || exit 1
done

# private-vm-lib.sh - a private copvm virtual machine for a script that
# runs the built programs on this host (sourced by bash:
# bench/pingpong-syscalls.sh, tests/integ/vcc-allocs.sh).
#
# private_vm TOP (TOP: the top build directory) exports a fresh PVM_TMP
# and HOME (mktemp -d) and COPVM_PVMD=TOP/daemon/pvmd, so that the first
# PVM call starts that daemon in them, clears PVM_ROOT and PVM_EXPORT, and
# sets an EXIT trap that halts the daemon (TOP/tests/tools/pvmhalt) and
# removes both directories.  Starting the daemon is the caller's choice.

private_vm() {
	PRIVATE_VM_TOP=$1
	export PVM_TMP=$(mktemp -d) HOME=$(mktemp -d)
	export COPVM_PVMD=$PRIVATE_VM_TOP/daemon/pvmd PVM_ALLOW_ROOT=1
	unset PVM_ROOT PVM_EXPORT
	trap private_vm_cleanup EXIT
}

private_vm_cleanup() {
	"$PRIVATE_VM_TOP/tests/tools/pvmhalt" >/dev/null 2>&1
	rm -rf "$PVM_TMP" "$HOME"
}

/*
 * vm_fixture.h - a private single-host virtual machine for library tests.
 *
 * vm_fixture_setup() points PVM_TMP and HOME at fresh temporary
 * directories and COPVM_PVMD at the freshly built daemon, so the first
 * PVM call of a test starts its own pvmd; vm_fixture_teardown() stops
 * that daemon (and its tasks) and removes the directories.  Use them as an
 * unchecked Check fixture so teardown runs even when a test fails.
 */
#ifndef COPVM_VM_FIXTURE_H
#define COPVM_VM_FIXTURE_H

/* Creates the directories and sets the environment. */
void vm_fixture_setup(void);
/* Kills the daemon started under the fixture and removes its files. */
void vm_fixture_teardown(void);
/* The fixture's PVM_TMP directory. */
const char *vm_fixture_tmp(void);

/* Sends one int to `tid' with `tag' from a private buffer (the active
 * send buffer is left alone); errors are not reported. */
void vm_send_int(int tid, int tag, int v);
/* Receives an int from `tid' with `tag'; -12345 when the receive fails. */
int vm_recv_int(int tid, int tag);

#endif

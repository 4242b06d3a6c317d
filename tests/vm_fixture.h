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

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
/* A child's side of `n' round trips that set up its circuit to `parent':
 * it sends -1 - i with tag `data' and expects i back with tag `echo'.
 * 0, or 1 when an answer is wrong. */
int vm_trips_child(int parent, int n, int data, int echo);
/* The test's side of them with task `kid'; a wrong value fails the
 * calling Check test. */
void vm_trips(int kid, int n, int data, int echo);


/* Forks a process that enrols as its own task and exits with
 * fn(parent); returns its tid (received through a pipe), *pid its pid.
 * A failure fails the calling Check test. */
int vm_fork_task(int (*fn)(int parent), int parent, pid_t *pid);
/* Reaps `pid' and fails the calling Check test unless it exited 0. */
void vm_wait_ok(pid_t pid);
/* Puts the shm transport on (0) or off (1: COPVM_SHM=0) for the tasks
 * this process starts from now on, and for its own first circuit. */
void vm_set_shm(int sockets_only);
/* Mappings of copvm's ring segments in this process (-1: unreadable). */
int vm_ring_maps(void);
/* FNV-1a of `n' bytes: equal data, equal sums. */
uint32_t vm_checksum(const unsigned char *p, size_t n);
/* Fills `n' bytes with a pattern that `seed' changes. */
void vm_fill(unsigned char *p, size_t n, unsigned seed);

#endif

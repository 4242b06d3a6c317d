/*
 * wait.h - how a receive waits for input: spin briefly, then block.
 */
#ifndef COPVM_WAIT_H
#define COPVM_WAIT_H

/* Nanoseconds of CLOCK_MONOTONIC. */
long pvmi_now_ns(void);
/* Waits for more input until `deadline' (pvmi_now_ns() units; < 0: none),
 * staging precommunication first when input is not there already.
 * Returns 1 when something arrived or was staged (look at the queue
 * again), 0 at the deadline, PvmSysErr when nothing can arrive any more. */
int pvmi_wait_input(long deadline);
/* Sets how long a wait may spin before it blocks, in ns (PvmPollTime). */
void pvmi_set_spin_ns(long ns);

#endif /* COPVM_WAIT_H */

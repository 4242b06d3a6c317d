/*
 * kmod_watch.h - the ioctl suite's cases on WATCH, the module's boost on
 * arrival (kmod_watch.c).  Each returns KT_PASS, KT_FAIL or KT_SKIP
 * (ktest.h).
 */
#ifndef COPVM_KMOD_WATCH_H
#define COPVM_KMOD_WATCH_H

/* WATCH before REGISTER, bad fds, ops, levels, nice, box, reserved
 * fields, files that do not poll, twice, deleting what is not watched,
 * and beyond PVM_COSCHED_MAX_WATCH: each gets its error. */
int case_watch_arguments(void);

/* Input on a watched socket, then eventfd, while the task is blocked
 * boosts it before it runs, for the box; input that finds it running,
 * or on a file it does not watch, boosts nothing. */
int case_watch_boosts_on_arrival(void);

/* A watched file the task closed is let go at its next request, and all
 * of them when it closes the device fd: the peer sees the hang-up then,
 * not before. */
int case_watch_lets_closed_files_go(void);

#endif /* COPVM_KMOD_WATCH_H */

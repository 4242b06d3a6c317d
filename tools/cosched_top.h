/*
 * cosched_top.h - copvm-cosched top, the live view of every task of the
 * virtual machine (cosched_top.c).
 */
#ifndef COPVM_COSCHED_TOP_H
#define COPVM_COSCHED_TOP_H

/* Runs `top' with its words argv[1..argc-1] (argv[0] is "top"): enrols,
 * then prints a table of the machine's tasks every interval.  The exit
 * status: 0, 1 (no daemon, a failed request), 2 (bad arguments). */
int cosched_top(int argc, char **argv);

#endif /* COPVM_COSCHED_TOP_H */

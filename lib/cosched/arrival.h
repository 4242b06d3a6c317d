/*
 * arrival.h - the task's input files, watched by a backend that boosts
 * on arrival (arrival.c).  conn.c names the files; the engine (cosched.c)
 * turns the watch on and off.
 */
#ifndef COPVM_COSCHED_ARRIVAL_H
#define COPVM_COSCHED_ARRIVAL_H

#include <stdint.h>

/* A backend's watch operation (backend.h, watch). */
typedef int (*arrival_watch_fn)(int fd, int level, int nice,
				uint64_t box_ns);

/* Names `fd' as a file on which input reaches this task; watched at once
 * when a watch is in force. */
void pvmi_cosched_input_added(int fd);
/* Forgets input file `fd' (call before closing it): its watch ends. */
void pvmi_cosched_input_gone(int fd);
/* Watches every input file with `fn' at boost `level' (nice `nice') for
 * `box_ns' per arrival, or none when `fn' is NULL; the previous watches
 * end first.  Called by the engine when its model or backend changes. */
void pvmi_cosched_arrivals_set(arrival_watch_fn fn, int level, int nice,
			       uint64_t box_ns);
/* How many input files the backend watches now (for tests and tools). */
int pvmi_cosched_arrivals_watched(void);

#endif

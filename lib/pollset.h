/*
 * pollset.h - the one descriptor that pvm_getfds() reports first: an
 * epoll set over every fd a receive waits on (pollset.c).  conn.c says
 * which fds belong in it; this module keeps the set equal to that list.
 */
#ifndef COPVM_POLLSET_H
#define COPVM_POLLSET_H

/* The set's descriptor, made on the first call and kept (the same
 * number) until pvmi_pollset_close(); -1 with errno set on failure. */
int pvmi_pollset_open(void);

/* The set's descriptor, or -1 when pvmi_pollset_open() was not called
 * (then nothing need be kept up to date). */
int pvmi_pollset_fd(void);

/* Makes the set watch exactly the `n' fds of `fds' for input.  With
 * `changed' == 0 it does nothing when the list is the one of the last
 * call; otherwise (an fd number of the list may now name another file)
 * it builds the set anew.  0, or -1 with errno set (the old set stays). */
int pvmi_pollset_sync(const int *fds, int n, int changed);

/* Closes the set (the task leaves, or a forked child forgets its
 * parent's); the next pvmi_pollset_open() makes a new one. */
void pvmi_pollset_close(void);

#endif /* COPVM_POLLSET_H */

/*
 * daemon_watch.h - the liveness watch of a request to the daemon: a task
 * waiting for a reply gives up with an error, instead of waiting for
 * ever, when the daemon is stopped or when what answers on its socket is
 * no copvm daemon (daemon_watch.c).
 */
#ifndef COPVM_DAEMON_WATCH_H
#define COPVM_DAEMON_WATCH_H

/* How long, in ms, the daemon link's poll waits between two checks. */
#define PVMI_DWATCH_TICK_MS	250

/* Bounds the next request's wait for its reply to `ms' (0: no bound
 * while the daemon runs); the bound applies to that request only. */
void pvmi_dwatch_limit(int ms);

/* Starts watching a request just sent to the daemon. */
void pvmi_dwatch_begin(void);

/* Called while the reply is awaited.  Returns 0 to go on waiting, or a
 * negative PVM code (the reason printed) to give up. */
int pvmi_dwatch_check(void);

/* Non-zero when the latest watched request was given up by the watch. */
int pvmi_dwatch_gave_up(void);

/* Non-zero when the link to our daemon has ended (input already waiting
 * on it is read first): the task has outlived its virtual machine. */
int pvmi_dwatch_daemon_gone(void);

#endif

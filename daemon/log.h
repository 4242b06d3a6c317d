/*
 * log.h - the daemon's log (log.c): timestamped lines, the -d mask's
 * debug lines, and task output nobody else takes.
 *
 * A leaf: any module of the daemon may log, and the log calls no module
 * (it reads only the -d mask of the daemon's state).
 */
#ifndef COPVM_PVMD_LOG_H
#define COPVM_PVMD_LOG_H

#include <stddef.h>

/* Debug mask bits (-d), a subset of the stock meanings. */
#define PVMD_DBG_MSG		0x2	/* requests and replies */
#define PVMD_DBG_TASK		0x4	/* task state changes */
#define PVMD_DBG_HOST		0x8	/* slave start-up */
#define PVMD_DBG_HTAB		0x10	/* host table updates */
#define PVMD_DBG_LOOP		0x20	/* event loop, connections */
#define PVMD_DBG_NET		0x40	/* daemon to daemon traffic */
#define PVMD_DBG_MBOX		0x200	/* mailbox and notify traffic */

/* Opens the log file (truncating it); 0 or -1 with errno set. */
int pvmd_log_open(const char *path, int also_stderr);
/* Writes one timestamped line to the log. */
void pvmd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes one timestamped line when any bit of `mask' is in the -d mask. */
void pvmd_dbg(int mask, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Writes raw task output to the log, one "[t%x] " prefixed line at a time
 * (complete lines only; the caller keeps partial ones). */
void pvmd_log_lines(int tid, const char *buf, size_t n);

#endif /* COPVM_PVMD_LOG_H */

/*
 * log.h - stock's loggers (compat/log.c), which pvm3.h does not declare:
 * text on stderr with the task's "libpvm [t<tid>]: " prefix at the start
 * of each line.  The library's parts log through these.
 */
#ifndef COPVM_COMPAT_LOG_H
#define COPVM_COMPAT_LOG_H

#include <stdarg.h>
#include <sys/select.h>

/* Logs printf-style text on stderr with the task prefix at each line's
 * start.  Returns the number of characters formatted, or negative. */
int vpvmlogprintf(const char *fmt, va_list ap);
/* vpvmlogprintf() with the arguments inline.
 * Returns the number of characters formatted, or negative. */
int pvmlogprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Logs string `s' as is (the caller supplies its newline).
 * Returns 0. */
int pvmlogerror(char *s);
/* Logs "s: <text of errno>" as one line.
 * Returns 0. */
int pvmlogperror(char *s);
/* Stock's low-level code calls this before giving up; does nothing. */
void pvmbailout(int n);
/* Logs `n' bytes at `cp' in hex, 16 to a line, each led by `pad'.
 * Returns 0. */
int pvmhdump(char *cp, int n, char *pad);
/* Logs the descriptors below `n' set in `f', after `pad', on one line.
 * Returns 0. */
int print_fdset(char *pad, int n, fd_set *f);

#endif /* COPVM_COMPAT_LOG_H */

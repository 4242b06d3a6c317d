/*
 * procfile.h - reading a small file whole (a /proc entry, a cache file):
 * the daemon's watch and EXP, and the library's engine, read /proc this
 * way, one open/read/close each.
 */
#ifndef COPVM_PROCFILE_H
#define COPVM_PROCFILE_H

#include <sys/types.h>

/* Reads at most `len' - 1 bytes of `path' into `buf' and ends them with a
 * NUL; the number of bytes read, or -1 when the file cannot be read or
 * is empty. */
ssize_t copvm_read_small(const char *path, char *buf, size_t len);

#endif /* COPVM_PROCFILE_H */

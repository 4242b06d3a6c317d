/*
 * pvmd_start.h - finding and starting copvm's own daemon (pvmd_start.c).
 */
#ifndef COPVM_PVMD_START_H
#define COPVM_PVMD_START_H

#include <stddef.h>

/* Runs copvm's pvmd with `argv' and waits until it is ready (bounded
 * when the program is no copvm pvmd).  PvmOk or an error code. */
int pvmi_start_daemon(int argc, char **argv);
/* The pvmd the library starts: writes its path into `buf'; returns 1, or
 * 0 when there is no copvm pvmd to start. */
int pvmi_pvmd_path(char *buf, size_t len);

#endif /* COPVM_PVMD_START_H */

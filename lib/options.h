/*
 * options.h - what options.c offers the rest of the library besides
 * pvm_setopt/pvm_getopt.
 */
#ifndef COPVM_OPTIONS_H
#define COPVM_OPTIONS_H

struct pvmi_wbuf;

/* Writes "PVMTMASK=...", "PVMTRCBUF=...", "PVMTRCOPT=..." (the trace
 * settings a child inherits) into `w', nothing when `dry'; returns 3. */
int pvmi_trace_env(struct pvmi_wbuf *w, int dry);

#endif /* COPVM_OPTIONS_H */

/*
 * top_term.h - how copvm-cosched top redraws a terminal: through
 * terminfo (top_term_tinfo.c, when configure found libtinfo) or with the
 * ANSI sequence (top_term_ansi.c); the build links one of the two.
 */
#ifndef COPVM_TOP_TERM_H
#define COPVM_TOP_TERM_H

#include <stdio.h>

/* Prepares full-screen refreshes of the terminal on standard output:
 * 0, or -1 when it cannot clear its screen (top prints plain text). */
int top_term_open(void);

/* Writes to `out' what clears the screen and homes the cursor. */
void top_term_clear(FILE *out);

#endif /* COPVM_TOP_TERM_H */

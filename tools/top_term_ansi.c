/*
 * top_term_ansi.c - top's screen clearing without terminfo: the ANSI
 * (ECMA-48) cursor-home and erase-display sequence, which every terminal
 * emulator of today understands (top_term.h).
 */
#include "top_term.h"

/* Nothing to prepare: every terminal is taken to understand the
 * sequence (top_term.h); always 0. */
int top_term_open(void)
{
	return 0;
}

/* Writes the cursor-home and erase-display sequence to `out'
 * (top_term.h). */
void top_term_clear(FILE *out)
{
	fputs("\033[H\033[2J", out);
}

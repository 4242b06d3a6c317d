/*
 * top_term_ansi.c - top's screen clearing without terminfo: the ANSI
 * (ECMA-48) cursor-home and erase-display sequence, which every terminal
 * emulator of today understands (top_term.h).
 */
#include "top_term.h"

int top_term_open(void)
{
	return 0;
}

void top_term_clear(FILE *out)
{
	fputs("\033[H\033[2J", out);
}

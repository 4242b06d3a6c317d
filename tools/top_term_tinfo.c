/*
 * top_term_tinfo.c - top's screen clearing through terminfo: the
 * terminal named by TERM says how it clears (its `clear' capability); a
 * terminal without one (TERM=dumb, unknown) makes top print plain text
 * (top_term.h).
 */
#include <curses.h>
#include <term.h>
#include <unistd.h>

#include "top_term.h"

static const char *clear_seq;
static FILE *clear_out;

/* Looks up TERM's `clear' capability (top_term.h); 0, or -1 for an
 * unknown terminal or one that cannot clear. */
int top_term_open(void)
{
	const char *s;
	int err = 0;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return -1;
	s = tigetstr("clear");
	if (!s || s == (const char *)-1)
		return -1;
	clear_seq = s;
	return 0;
}

static int put_one(int c)
{
	return putc(c, clear_out);
}

/* Writes TERM's `clear' sequence to `out' through tputs (top_term.h);
 * nothing before a successful top_term_open. */
void top_term_clear(FILE *out)
{
	if (!clear_seq)
		return;
	clear_out = out;
	tputs(clear_seq, 1, put_one);
}

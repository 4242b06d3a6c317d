/*
 * input.c - reading command lines, with editing on a terminal.
 *
 * On a terminal the console uses libedit through its readline-compatible
 * interface, in callback mode: the event loop hands it one keystroke at
 * a time (rl_callback_read_char), so job output can be printed while a
 * command is half typed.  Such output first takes the prompt line off
 * the screen and then has libedit draw it again below the output.  The
 * Up and Down arrows walk the history of this session; Tab completes
 * command names in the first word and file names after it.
 *
 * When stdin is not a terminal (a pipe, a file, a here-document) lines
 * are read plainly and, as stock's console does, each one is echoed
 * after the prompt so that the transcript shows what was run.  Lines
 * are handed over one at a time so that messages which arrived in the
 * meantime are printed between commands, in the order things happened.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <editline/readline.h>

#include "console.h"

#define PROMPT		"pvm> "
#define HISTORY_MAX	500

static void (*line_handler)(char *line);
static int tty;			/* stdin and stdout are terminals */
static int editing;		/* the libedit callback is installed */
static int in_async;		/* between con_async_begin and _end */

/* Plain input: bytes read but not handed over yet. */
static char *pending;
static size_t npending, cap_pending;
static int at_eof;

int con_input_is_tty(void)
{
	return tty;
}

/* Whether `s' has anything but blanks. */
static int has_words(const char *s)
{
	return s[strspn(s, " \t")] != '\0';
}

/* libedit hands us a finished line (NULL at ^D on an empty line). */
static void edited_line(char *line)
{
	if (line && has_words(line))
		add_history(line);
	if (!line) {
		/* ^D: redraw the prompt without the ^D libedit echoed, so
		 * that "quit" reads as if it had been typed. */
		fputs("\r\033[K" PROMPT, stdout);
	}
	line_handler(line);
	free(line);
	/* Some libedit versions leave the terminal in cooked mode after
	 * the handler, so that the next key would start a blocking read of
	 * a whole line; installing again puts editing back and shows the
	 * prompt (a no-op on versions that do it themselves). */
	if (editing)
		rl_callback_handler_install(PROMPT, edited_line);
}

/* Completion of the first word: the command names starting with
 * `text', one per call (state 0 starts over). */
static char *command_names(const char *text, int state)
{
	static int next;
	size_t len = strlen(text);
	const char *name;

	if (state == 0)
		next = 0;
	while ((name = con_cmd_name(next)) != NULL) {
		next++;
		if (!strncmp(name, text, len))
			return strdup(name);
	}
	return NULL;
}

/* Command names for the first word; NULL (libedit's file names) after. */
static char **complete(const char *text, int start, int end)
{
	if (strspn(rl_line_buffer, " \t") < (size_t)start)
		return NULL;
	return rl_completion_matches(text, command_names);
}

void con_input_init(void (*handler)(char *line))
{
	line_handler = handler;
	tty = isatty(0) && isatty(1);
	if (!tty) {
		con_input_prompt();
		return;
	}
	rl_readline_name = "pvm";
	/* The console's own handlers deal with signals; libedit's would
	 * send them on to the whole process group. */
	rl_catch_signals = 0;
	rl_attempted_completion_function = complete;
	using_history();
	stifle_history(HISTORY_MAX);
	rl_callback_handler_install(PROMPT, edited_line);
	editing = 1;
}

void con_input_prompt(void)
{
	if (tty)
		return;
	fputs(PROMPT, stdout);
	fflush(stdout);
}

/* Hands the first whole line of `pending' (or, at the end of input, the
 * rest) to the handler.  Returns 0 if there was none. */
static int plain_next_line(void)
{
	char *nl = npending ? memchr(pending, '\n', npending) : NULL;
	size_t len;
	char *line;

	if (!nl && !(at_eof && npending))
		return 0;
	len = nl ? (size_t)(nl - pending) : npending;
	line = malloc(len + 1);
	if (!line)
		return 0;
	memcpy(line, pending, len);
	line[len] = '\0';
	if (nl)
		len++;
	memmove(pending, pending + len, npending - len);
	npending -= len;
	/* The echo stock's console gives a line read without a terminal. */
	printf("%s\n", line);
	line_handler(line);
	free(line);
	con_input_prompt();
	return 1;
}

int con_input_buffered(void)
{
	if (tty)
		return 0;
	return at_eof || (npending && memchr(pending, '\n', npending));
}

/* Reads what stdin has without a terminal. */
static void plain_read(void)
{
	ssize_t n;

	if (plain_next_line())
		return;
	if (!at_eof) {
		if (cap_pending - npending < 4096) {
			char *grown = realloc(pending, cap_pending + 8192);

			if (!grown) {
				perror("pvm");
				return;
			}
			pending = grown;
			cap_pending += 8192;
		}
		n = read(0, pending + npending, cap_pending - npending);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0)
			at_eof = 1;
		else
			npending += n;
	}
	if (!plain_next_line() && at_eof)
		line_handler(NULL);
}

void con_input_ready(void)
{
	int avail = 0;

	if (!tty) {
		plain_read();
		return;
	}
	/* ^C makes the terminal discard typed-ahead input; libedit would
	 * then block reading (and retry after the signal), so look first. */
	if (ioctl(0, FIONREAD, &avail) == 0 && avail == 0)
		return;
	rl_callback_read_char();
}

void con_async_begin(void)
{
	if (!editing || in_async++)
		return;
	/* Back to the start of the prompt line, and clear it. */
	fputs("\r\033[K", stdout);
	fflush(stdout);
}

void con_async_end(void)
{
	if (!editing) {
		fflush(stdout);
		return;
	}
	if (--in_async)
		return;
	fflush(stdout);
	fflush(stderr);
	rl_forced_update_display();
}

void con_input_cancel(void)
{
	if (!editing)
		return;
	fputs("\n", stdout);
	fflush(stdout);
	/* Installing anew starts an empty line under a fresh prompt;
	 * rl_replace_line cannot empty a line in libedit. */
	rl_callback_handler_remove();
	rl_callback_handler_install(PROMPT, edited_line);
}

void con_input_resize(void)
{
	if (editing)
		rl_resize_terminal();
}

void con_input_done(void)
{
	if (!editing)
		return;
	editing = 0;
	/* Leave the cursor on a line of its own if something was typed. */
	if (rl_end > 0)
		fputs("\n", stdout);
	rl_callback_handler_remove();
	fflush(stdout);
}

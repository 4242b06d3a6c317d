/*
 * log.c - libpvm-style logging, stock's exported loggers: every line on
 * stderr starts with "libpvm [t<tid in hex>]: ", or "libpvm [pid<pid>]: "
 * before the task has a tid.  A line may be built by several calls; the
 * prefix goes at the start of each line only.  The library's own parts
 * log through it (log.h); it reads the task's state and nothing else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "compat/log.h"
#include "pvmi.h"

static int log_at_line_start = 1;

static void log_text(const char *text)
{
	const char *nl;
	size_t n;

	while (*text) {
		nl = strchr(text, '\n');
		n = nl ? (size_t)(nl - text) + 1 : strlen(text);
		if (log_at_line_start) {
			if (pvmi.mytid > 0)
				fprintf(stderr, "libpvm [t%x]: ", pvmi.mytid);
			else
				fprintf(stderr, "libpvm [pid%d]: ",
					(int)getpid());
		}
		fwrite(text, 1, n, stderr);
		log_at_line_start = nl != NULL;
		text += n;
	}
	fflush(stderr);
}

/* Logs printf-style text on stderr with the task prefix at each line's
 * start.  Returns the number of characters formatted, or negative. */
PVMI_EXPORT int vpvmlogprintf(const char *fmt, va_list ap)
{
	char small[512], *text = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		text = malloc((size_t)n + 1);
		if (text)
			vsnprintf(text, (size_t)n + 1, fmt, again);
		else
			text = small;	/* log what fits */
	}
	va_end(again);
	if (n >= 0)
		log_text(text);
	if (text != small)
		free(text);
	return n;
}

/* pvmlogprintf(fmt, ...): vpvmlogprintf() with the arguments inline.
 * Returns the number of characters formatted, or negative. */
PVMI_EXPORT int pvmlogprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vpvmlogprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* Logs string `s' as is (the caller supplies its newline).
 * Returns 0. */
PVMI_EXPORT int pvmlogerror(char *s)
{
	log_text(s ? s : "(null)\n");
	return 0;
}

/* Logs "s: <text of errno>" as one line.
 * Returns 0. */
PVMI_EXPORT int pvmlogperror(char *s)
{
	int e = errno;

	pvmlogprintf("%s: %s\n", s ? s : "(null)", strerror(e));
	return 0;
}

/* Stock's low-level code calls this before giving up; the library never
 * exits on its own account, so it does nothing. */
PVMI_EXPORT void pvmbailout(int n)
{
}

/* Logs `n' bytes at `cp' in hex, 16 to a line, each line led by `pad'.
 * Returns 0. */
PVMI_EXPORT int pvmhdump(char *cp, int n, char *pad)
{
	const unsigned char *p = (const unsigned char *)cp;
	char line[16 * 3];
	size_t len;
	int i, k;

	for (i = 0; i < n; i += 16) {
		len = 0;
		for (k = 0; k < 16 && i + k < n; k++)
			len += snprintf(line + len, sizeof(line) - len,
					"%s%02x", k ? " " : "", p[i + k]);
		pvmlogprintf("%s%s\n", pad ? pad : "", line);
	}
	return 0;
}

/* Logs the descriptors below `n' that are set in `f', after label `pad',
 * as one comma-separated line.  Returns 0. */
PVMI_EXPORT int print_fdset(char *pad, int n, fd_set *f)
{
	const char *sep = "";
	int fd;

	pvmlogprintf("%s", pad ? pad : "");
	for (fd = 0; f && fd < n && fd < FD_SETSIZE; fd++) {
		if (FD_ISSET(fd, f)) {
			pvmlogprintf("%s%d", sep, fd);
			sep = ",";
		}
	}
	pvmlogprintf("\n");
	return 0;
}

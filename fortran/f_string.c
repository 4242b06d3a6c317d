/*
 * f_string.c - conversion between Fortran and C character strings.
 *
 * A Fortran CHARACTER*n variable is n bytes padded with blanks, with no
 * terminator; its length travels as a hidden argument.  Names going to
 * libpvm3 lose their trailing blanks (a leading blank is kept: it is part
 * of the name as far as Fortran is concerned), and strings coming back
 * are cut to the variable's length or padded with blanks.  Strings that
 * do not fit the C buffer are refused rather than cut, so that a task
 * never talks to a host or group whose name was silently shortened.
 *
 * ftocstr and ctofstr are the names PVM 3.4.6's libfpvm3 exports for the
 * same two conversions; they are kept for programs and libraries that
 * call them (their lengths are ints).
 */
#include <string.h>
#include "fpvm.h"

/* Length of Fortran string `f' without its trailing blanks. */
static size_t fstr_len(const char *f, size_t flen)
{
	if (!f)
		return 0;
	while (flen > 0 && f[flen - 1] == ' ')
		flen--;
	return flen;
}

/* Copies `f' without trailing blanks into `buf' (`size' bytes, NUL
 * included).  Returns 0, or -1 (leaving "" in buf) if it does not fit. */
int fpvmi_fstr_in(char *buf, size_t size, const char *f, size_t flen)
{
	size_t n = fstr_len(f, flen);

	if (size == 0)
		return -1;
	buf[0] = '\0';
	if (n >= size)
		return -1;
	if (n)		/* an empty Fortran string may come as NULL */
		memcpy(buf, f, n);
	buf[n] = '\0';
	return 0;
}

/* Stores C string `s' in Fortran string `f' of `flen' bytes: cut to
 * flen, or blank-padded.  NULL stores blanks (an empty string). */
void fpvmi_fstr_out(char *f, size_t flen, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!f)
		return;
	if (n > flen)
		n = flen;
	if (n)
		memcpy(f, s, n);
	memset(f + n, ' ', flen - n);
}

/* PVM 3.4.6 helper: Fortran `src' (srclen bytes) to C `dst' (dstlen
 * bytes).  Returns 0, or non-zero with "" in dst if it does not fit. */
FPVM_EXPORT int ftocstr(char *dst, int dstlen, char *src, int srclen)
{
	if (dstlen <= 0 || srclen < 0)
		return 1;
	return fpvmi_fstr_in(dst, (size_t)dstlen, src, (size_t)srclen) ? 1 : 0;
}

/* PVM 3.4.6 helper: C string `src' to Fortran `dst' of dstlen bytes,
 * cut or blank-padded.  Returns 0. */
FPVM_EXPORT int ctofstr(char *dst, int dstlen, char *src)
{
	if (dstlen > 0)
		fpvmi_fstr_out(dst, (size_t)dstlen, src);
	return 0;
}

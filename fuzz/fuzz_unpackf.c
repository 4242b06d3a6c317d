/*
 * fuzz_unpackf.c - libFuzzer target for pvm_unpackf() formats
 * (lib/packf.c) on a received buffer.
 *
 * Input: byte 0 picks the encoding, byte 1 the format's length; then the
 * format, then the message body.  Every conversion is given a pointer to
 * its own zeroed 64 KiB array.  Formats the harness could not feed
 * safely are skipped, because the fault would be the caller's, not the
 * library's: `*' (count from an int argument), a count or stride above
 * 64, more than 16 conversions.
 */
#include <ctype.h>
#include <stdlib.h>

#include "fuzz_common.h"

#define NARGS		16
#define ARG_BYTES	(64 * 1024)

static unsigned char *args[NARGS];

/* 1 when every conversion of `fmt' gets a big enough array. */
static int format_is_feedable(const char *fmt)
{
	int convs = 0;
	long num = 0;

	for (; *fmt; fmt++) {
		if (*fmt == '*')
			return 0;
		if (*fmt == '%' && ++convs > NARGS - 1)
			return 0;
		if (isdigit((unsigned char)*fmt)) {
			num = num * 10 + (*fmt - '0');
			if (num > 64)
				return 0;
		} else {
			num = 0;
		}
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int enc[] = { PvmDataDefault, PvmDataRaw,
				   PvmDataInPlace };
	size_t flen, i;
	char *fmt;
	int mid;

	if (size < 2)
		return 0;
	fuzz_quiet();
	flen = data[1] % 48;
	if (flen > size - 2)
		flen = size - 2;
	fmt = malloc(flen + 1);
	if (!fmt)
		return 0;
	memcpy(fmt, data + 2, flen);
	fmt[flen] = '\0';
	if (!format_is_feedable(fmt) ||
	    size - 2 - flen >= ARG_BYTES) {
		free(fmt);
		return 0;
	}
	for (i = 0; i < NARGS; i++) {
		if (!args[i] && !(args[i] = malloc(ARG_BYTES)))
			abort();
		memset(args[i], 0, ARG_BYTES);
	}
	mid = fuzz_recv_buffer(data + 2 + flen, size - 2 - flen,
			       enc[data[0] % 3]);
	if (mid) {
		pvm_unpackf(fmt, args[0], args[1], args[2], args[3], args[4],
			    args[5], args[6], args[7], args[8], args[9],
			    args[10], args[11], args[12], args[13], args[14],
			    args[15]);
		pvm_freebuf(mid);
	}
	free(fmt);
	return 0;
}

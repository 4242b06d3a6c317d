/*
 * fuzz_unpack.c - libFuzzer target for message unpacking (lib/pack.c):
 * every pvm_upk* call, on a received buffer of each data encoding.
 *
 * Input: byte 0 picks the encoding (XDR, raw, in place); byte 1 how many
 * of the next bytes are a script; the rest is the message body.  Each
 * script byte picks an unpack call (the low four bits: str, byte,
 * short, int, float, double, long, ushort, uint, ulong, cplx, dcplx,
 * mesg) and its count and stride (the high bits).  The destination is
 * always large enough for count * stride elements, so any write past it
 * is the library's fault.
 */
#include <stdlib.h>

#include "fuzz_common.h"

static const int encodings[] = { PvmDataDefault, PvmDataRaw,
				 PvmDataInPlace };

/* One unpack call of kind `op' with `cnt' elements every `std'. */
static void unpack_one(int op, int cnt, int std, size_t bodylen)
{
	size_t n = (size_t)cnt * std + 1;
	void *dst;
	int mid;

	if (op == 0)
		n = bodylen + 1;	/* pvm_upkstr has no bound: the body's */
	dst = calloc(n, 16);
	if (!dst)
		return;
	switch (op) {
	case 0: pvm_upkstr(dst); break;
	case 1: pvm_upkbyte(dst, cnt, std); break;
	case 2: pvm_upkshort(dst, cnt, std); break;
	case 3: pvm_upkint(dst, cnt, std); break;
	case 4: pvm_upkfloat(dst, cnt, std); break;
	case 5: pvm_upkdouble(dst, cnt, std); break;
	case 6: pvm_upklong(dst, cnt, std); break;
	case 7: pvm_upkushort(dst, cnt, std); break;
	case 8: pvm_upkuint(dst, cnt, std); break;
	case 9: pvm_upkulong(dst, cnt, std); break;
	case 10: pvm_upkcplx(dst, cnt, std); break;
	case 11: pvm_upkdcplx(dst, cnt, std); break;
	case 12: {
		int cur = pvm_getrbuf(), bytes, tag, src;

		mid = pvm_upkmesg();
		if (mid > 0) {
			pvm_bufinfo(mid, &bytes, &tag, &src);
			/* read the inner message as well */
			pvm_setrbuf(mid);
			pvm_upkint(dst, cnt, std);
			pvm_setrbuf(cur);
			pvm_freebuf(mid);
		}
		break;
	}
	default:
		/* bad arguments must be refused, not crash */
		pvm_upkint(dst, -cnt, std);
		pvm_upkint(dst, cnt, 0);
		pvm_upkbyte(NULL, 0, 1);
		break;
	}
	free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nscript, i, bodylen;
	int mid;

	if (size < 2)
		return 0;
	fuzz_quiet();
	nscript = data[1] % 24;
	if (nscript > size - 2)
		nscript = size - 2;
	bodylen = size - 2 - nscript;
	mid = fuzz_recv_buffer(data + 2 + nscript, bodylen,
			       encodings[data[0] % 3]);
	if (!mid)
		return 0;
	for (i = 0; i < nscript; i++) {
		uint8_t b = data[2 + i];

		unpack_one(b & 15, (b >> 4) % 8 + (b >> 7) * 64, 1 + (b >> 6),
			   bodylen);
	}
	pvm_freebuf(mid);
	return 0;
}

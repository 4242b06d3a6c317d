/*
 * fuzz_codec.c - libFuzzer target for the control-protocol codec
 * (common/codec.c), the XDR items of every request and reply between a
 * task and pvmd and between daemons.
 *
 * The input's first byte says how many of the following bytes are a
 * script; the rest is a body that the script reads item by item with
 * the readers the daemon and the library use (int, ints, str, bytes).
 * Then the same values are written with the writers and read back,
 * which must give them unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvmi_rbuf r, back;
	struct pvmi_wbuf w = { 0 };
	size_t nscript, i;
	const uint8_t *script;

	if (size < 1)
		return 0;
	nscript = data[0] % 32;
	if (nscript > size - 1)
		nscript = size - 1;
	script = data + 1;
	pvmi_r_init(&r, data + 1 + nscript, size - 1 - nscript);

	for (i = 0; i < nscript; i++) {
		int32_t v[8];
		size_t n = (script[i] >> 2) % 8 + 1, len;
		const unsigned char *b;
		char *s;

		switch (script[i] & 3) {
		case 0:
			v[0] = pvmi_r_int(&r);
			if (!r.failed)
				pvmi_w_int(&w, v[0]);
			break;
		case 1:
			if (!pvmi_r_ints(&r, v, n))
				pvmi_w_ints(&w, v, n);
			break;
		case 2:
			s = pvmi_r_str(&r);
			if (s) {
				pvmi_w_str(&w, s);
				free(s);
			}
			break;
		case 3:
			b = pvmi_r_bytes(&r, &len);
			if (b) {
				volatile unsigned char last = len ? b[len - 1] : 0;

				(void)last;
				pvmi_w_bytes(&w, b, len);
			}
			break;
		}
		if (r.pos > r.len)
			abort();
		if (r.failed)
			break;
	}
	if (w.failed) {
		pvmi_w_free(&w);
		return 0;
	}
	/* what was read and written again reads back the same */
	pvmi_r_init(&back, w.data, w.len);
	pvmi_r_init(&r, data + 1 + nscript, size - 1 - nscript);
	for (i = 0; i < nscript && back.pos < back.len; i++) {
		int32_t v[8], u[8];
		size_t n = (script[i] >> 2) % 8 + 1, l1, l2;
		const unsigned char *b1, *b2;
		char *s1, *s2;

		switch (script[i] & 3) {
		case 0:
			v[0] = pvmi_r_int(&r);
			u[0] = pvmi_r_int(&back);
			if (r.failed || back.failed || v[0] != u[0])
				abort();
			break;
		case 1:
			if (pvmi_r_ints(&r, v, n) || pvmi_r_ints(&back, u, n) ||
			    memcmp(u, v, n * sizeof(v[0])))
				abort();
			break;
		case 2:
			s1 = pvmi_r_str(&r);
			s2 = pvmi_r_str(&back);
			if (!s1 || !s2 || strcmp(s1, s2))
				abort();
			free(s1);
			free(s2);
			break;
		case 3:
			b1 = pvmi_r_bytes(&r, &l1);
			b2 = pvmi_r_bytes(&back, &l2);
			if (!b1 || !b2 || l1 != l2 || memcmp(b1, b2, l1))
				abort();
			break;
		}
	}
	if (back.failed || back.pos != back.len)
		abort();
	pvmi_w_free(&w);
	return 0;
}

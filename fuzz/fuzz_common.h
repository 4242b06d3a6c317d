/*
 * fuzz_common.h - helpers shared by the libFuzzer targets that unpack
 * messages through libpvm3's API (fuzz_unpack.c, fuzz_unpackf.c): making
 * a received message from the fuzz input and silencing the library's
 * error printing.
 */
#ifndef COPVM_FUZZ_COMMON_H
#define COPVM_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pvm3.h"
#include "pvmi.h"
#include "msg.h"
#include "bufcache.h"

/* Makes `body' (`len' bytes, copied) the active receive buffer, as if it
 * had arrived with encoding `enc'; returns its id, or 0 when out of
 * memory.  Free it with pvm_freebuf(). */
static inline int fuzz_recv_buffer(const uint8_t *body, size_t len, int enc)
{
	unsigned char *copy = pvmi_buf_alloc(len);
	struct pvmi_msg *m;
	int mid;

	if (!copy)
		return 0;
	if (len)
		memcpy(copy, body, len);
	m = pvmi_msg_from_body(copy, len, enc);
	if (!m) {
		pvmi_buf_free(copy);
		return 0;
	}
	mid = pvmi_mid_register(m);
	if (mid <= 0) {
		pvmi_msg_free(m);
		return 0;
	}
	pvm_setrbuf(mid);
	return mid;
}

/* No error messages on stderr for the expected PvmBadMsg and the like. */
static inline void fuzz_quiet(void)
{
	pvmi.autoerr = 0;
}

#endif /* COPVM_FUZZ_COMMON_H */

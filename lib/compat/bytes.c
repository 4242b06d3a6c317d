/*
 * bytes.c - big-endian byte access (pvmput32/pvmget32 and their 16- and
 * 8-bit kin) and the running CRC-32 stock exports.
 */
#include <endian.h>
#include <stdint.h>
#include <string.h>

#include "compat/compat.h"
#include "pvmi.h"

/* Stores the low 32 bits of `n' at `p', most significant byte first.
 * Returns 0. */
PVMI_EXPORT int pvmput32(char *p, int n)
{
	uint32_t v = htobe32((uint32_t)n);

	memcpy(p, &v, 4);
	return 0;
}

/* Stores the low 16 bits of `n' at `p', most significant byte first.
 * Returns 0. */
PVMI_EXPORT int pvmput16(char *p, int n)
{
	uint16_t v = htobe16((uint16_t)n);

	memcpy(p, &v, 2);
	return 0;
}

/* Stores the low 8 bits of `n' at `p'.
 * Returns 0. */
PVMI_EXPORT int pvmput8(char *p, int n)
{
	*p = (char)n;
	return 0;
}

/* Reads a big-endian 32-bit value at `p'.
 * Returns it as a (possibly negative) int. */
PVMI_EXPORT int pvmget32(char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (int)be32toh(v);
}

/* Reads a big-endian 16-bit value at `p'.
 * Returns it, 0..65535. */
PVMI_EXPORT int pvmget16(char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

/* Reads the byte at `p'.
 * Returns it, 0..255. */
PVMI_EXPORT int pvmget8(char *p)
{
	return (unsigned char)*p;
}

/* Feeds `len' bytes at `buf' into running CRC-32 value `crc' (no pre- or
 * post-inversion).  Returns the new running value. */
PVMI_EXPORT unsigned int pvmcrcappend(char *buf, int len, unsigned int crc)
{
	/* The IEEE 802.3 polynomial, bit-reflected: the usual CRC-32 of a
	 * buffer is ~pvmcrcappend(buf, len, ~0u). */
	static uint32_t table[256];
	const unsigned char *p = (const unsigned char *)buf;
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = (uint32_t)i;
			for (k = 0; k < 8; k++)
				c = (c >> 1) ^ (0xedb88320u & -(c & 1));
			table[i] = c;
		}
	}
	c = crc;
	while (len-- > 0)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

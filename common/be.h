/*
 * be.h - big-endian loads and stores of 32-bit words.
 *
 * The one copy of the byte-order helpers used by the frame header
 * (wire.c), the XDR codec (codec.c), the handshake (auth.c) and the
 * prebuilt headers of the virtual circuits (lib/route.c).  Byte by byte,
 * so `p' needs no alignment and the host's byte order does not matter.
 */
#ifndef COPVM_BE_H
#define COPVM_BE_H

#include <stdint.h>

/* Stores `v' at `p' as four big-endian bytes. */
static inline void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Returns the big-endian 32-bit word at `p'. */
static inline uint32_t get_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

#endif

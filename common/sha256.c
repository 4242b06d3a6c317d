/*
 * sha256.c - SHA-256 and HMAC-SHA256, written from FIPS 180-4 and
 * RFC 2104 (see sha256.h).
 *
 * The message schedule is computed in place in a 16-word ring, which
 * keeps the state small; the constants are the first 32 bits of the
 * fractional parts of the cube roots of the first 64 primes (K) and of
 * the square roots of the first 8 primes (initial hash), as the standard
 * defines them.  Tests against the standard's vectors live in
 * tests/check_auth.c.
 */
#include <string.h>

#include "sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t H0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Runs the compression function on one 64-byte block. */
static void compress(uint32_t h[8], const unsigned char *blk)
{
	uint32_t w[16], v[8], s0, s1, ch, maj, t1, t2, x, y;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(blk + 4 * i);
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		if (i >= 16) {
			x = w[(i + 1) & 15];	/* W[i - 15] */
			y = w[(i + 14) & 15];	/* W[i - 2] */
			s0 = ror(x, 7) ^ ror(x, 18) ^ (x >> 3);
			s1 = ror(y, 17) ^ ror(y, 19) ^ (y >> 10);
			w[i & 15] += s0 + w[(i + 9) & 15] + s1;
		}
		s1 = ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25);
		ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		t1 = v[7] + s1 + ch + K[i] + w[i & 15];
		s0 = ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22);
		maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		t2 = s0 + maj;
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

/* Starts a new hash in `s'. */
void pvmi_sha256_init(struct pvmi_sha256 *s)
{
	memcpy(s->h, H0, sizeof(s->h));
	s->total = 0;
	s->buflen = 0;
}

/* Adds `n' bytes at `p' to the hash. */
void pvmi_sha256_update(struct pvmi_sha256 *s, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t k;

	s->total += n;
	if (s->buflen) {
		k = PVMI_SHA256_BLOCK - s->buflen;
		if (k > n)
			k = n;
		memcpy(s->buf + s->buflen, c, k);
		s->buflen += k;
		c += k;
		n -= k;
		if (s->buflen < PVMI_SHA256_BLOCK)
			return;
		compress(s->h, s->buf);
		s->buflen = 0;
	}
	for (; n >= PVMI_SHA256_BLOCK; c += PVMI_SHA256_BLOCK,
	     n -= PVMI_SHA256_BLOCK)
		compress(s->h, c);
	memcpy(s->buf, c, n);
	s->buflen = n;
}

/* Pads (0x80, zeros, the bit length), writes the digest, wipes `s'. */
void pvmi_sha256_final(struct pvmi_sha256 *s, unsigned char *out)
{
	uint64_t bits = s->total * 8;
	int i;

	s->buf[s->buflen++] = 0x80;
	if (s->buflen > PVMI_SHA256_BLOCK - 8) {
		memset(s->buf + s->buflen, 0, PVMI_SHA256_BLOCK - s->buflen);
		compress(s->h, s->buf);
		s->buflen = 0;
	}
	memset(s->buf + s->buflen, 0, PVMI_SHA256_BLOCK - 8 - s->buflen);
	store_be32(s->buf + 56, (uint32_t)(bits >> 32));
	store_be32(s->buf + 60, (uint32_t)bits);
	compress(s->h, s->buf);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, s->h[i]);
	memset(s, 0, sizeof(*s));
}

/* One-shot digest of `n' bytes at `p' into `out'. */
void pvmi_sha256(const void *p, size_t n, unsigned char *out)
{
	struct pvmi_sha256 s;

	pvmi_sha256_init(&s);
	pvmi_sha256_update(&s, p, n);
	pvmi_sha256_final(&s, out);
}

/* HMAC(K, m) = H((K' ^ opad) || H((K' ^ ipad) || m)), where K' is the
 * key zero-padded to a block, or its digest when longer than a block. */
void pvmi_hmac_sha256(const void *key, size_t keylen, int nparts,
		      const void *const *parts, const size_t *lens,
		      unsigned char *out)
{
	unsigned char k[PVMI_SHA256_BLOCK], pad[PVMI_SHA256_BLOCK];
	unsigned char inner[PVMI_SHA256_LEN];
	struct pvmi_sha256 s;
	int i;

	memset(k, 0, sizeof(k));
	if (keylen > PVMI_SHA256_BLOCK)
		pvmi_sha256(key, keylen, k);
	else if (keylen)
		memcpy(k, key, keylen);

	for (i = 0; i < PVMI_SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	pvmi_sha256_init(&s);
	pvmi_sha256_update(&s, pad, sizeof(pad));
	for (i = 0; i < nparts; i++)
		pvmi_sha256_update(&s, parts[i], lens[i]);
	pvmi_sha256_final(&s, inner);

	for (i = 0; i < PVMI_SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	pvmi_sha256_init(&s);
	pvmi_sha256_update(&s, pad, sizeof(pad));
	pvmi_sha256_update(&s, inner, sizeof(inner));
	pvmi_sha256_final(&s, out);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
	memset(inner, 0, sizeof(inner));
}

/* Compares `n' bytes without an early exit; 1 when equal. */
int pvmi_ct_equal(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

/*
 * sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), the only
 * cryptography copvm needs: daemons and tasks prove to each other that
 * they hold the virtual machine's secret (auth.h) without sending it.
 *
 * Plain portable C, no table beyond the 64 round constants; fast enough
 * for a handshake per connection, not meant for bulk data.
 */
#ifndef COPVM_SHA256_H
#define COPVM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PVMI_SHA256_LEN		32
#define PVMI_SHA256_BLOCK	64

struct pvmi_sha256 {
	uint32_t h[8];
	uint64_t total;			/* bytes hashed so far */
	unsigned char buf[PVMI_SHA256_BLOCK];
	size_t buflen;
};

/* Starts a new hash in `s'. */
void pvmi_sha256_init(struct pvmi_sha256 *s);
/* Adds `n' bytes at `p' to the hash. */
void pvmi_sha256_update(struct pvmi_sha256 *s, const void *p, size_t n);
/* Finishes the hash, writes the 32-byte digest to `out' and wipes `s'. */
void pvmi_sha256_final(struct pvmi_sha256 *s, unsigned char *out);
/* One-shot digest of `n' bytes at `p' into `out' (32 bytes). */
void pvmi_sha256(const void *p, size_t n, unsigned char *out);

/* HMAC-SHA256 of the concatenation of `nparts' buffers (parts[i] of
 * lens[i] bytes) under `key' (any length); writes 32 bytes to `out'.
 * Taking several parts lets callers authenticate a transcript without
 * copying it together first. */
void pvmi_hmac_sha256(const void *key, size_t keylen, int nparts,
		      const void *const *parts, const size_t *lens,
		      unsigned char *out);

/* Compares `n' bytes in time independent of where they differ; returns
 * 1 when equal, else 0. */
int pvmi_ct_equal(const void *a, const void *b, size_t n);

#endif /* COPVM_SHA256_H */

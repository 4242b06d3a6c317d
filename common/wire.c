/*
 * wire.c - encoding and decoding of the 36-byte frame header (wire.h).
 *
 * The header is nine 32-bit fields in the order of struct pvmi_frame,
 * each big-endian.  Decoding is where a receiver decides whether a byte
 * stream still makes sense: a wrong magic, an unknown kind or a length
 * above PVMI_FRAME_MAX_BODY means the stream is corrupt or hostile, and
 * the caller must drop it rather than try to resynchronise.  The
 * decoding of a shm ring's shortened header is inline in wire.h.
 */
#include "wire.h"

/* Writes `f' as PVMI_FRAME_HDR_LEN big-endian bytes into `out'; the
 * magic is taken from `f' as given, so callers set it. */
void pvmi_frame_encode(const struct pvmi_frame *f, unsigned char *out)
{
	put_be32(out + 0, f->magic);
	put_be32(out + 4, f->len);
	put_be32(out + 8, (uint32_t)f->src);
	put_be32(out + 12, (uint32_t)f->dst);
	put_be32(out + 16, (uint32_t)f->tag);
	put_be32(out + 20, (uint32_t)f->ctx);
	put_be32(out + 24, (uint32_t)f->enc);
	put_be32(out + 28, (uint32_t)f->wid);
	put_be32(out + 32, f->kind);
}

/* Reads a header from `in' into `f'; returns 0, or -1 (with `f' filled
 * anyway, for logging) when the stream cannot be trusted any more. */
int pvmi_frame_decode(const unsigned char *in, struct pvmi_frame *f)
{
	f->magic = get_be32(in + 0);
	f->len = get_be32(in + 4);
	f->src = (int32_t)get_be32(in + 8);
	f->dst = (int32_t)get_be32(in + 12);
	f->tag = (int32_t)get_be32(in + 16);
	f->ctx = (int32_t)get_be32(in + 20);
	f->enc = (int32_t)get_be32(in + 24);
	f->wid = (int32_t)get_be32(in + 28);
	f->kind = get_be32(in + 32);

	if (f->magic != PVMI_FRAME_MAGIC)
		return -1;
	if (f->kind > PVMI_KIND_RELEASE)
		return -1;
	if (f->len > PVMI_FRAME_MAX_BODY)
		return -1;
	return 0;
}

/*
 * wire.h - the frame format shared by libpvm3 and pvmd.
 *
 * Every byte that crosses a socket between two copvm processes (task to
 * task, task to daemon, daemon to daemon) is a frame: a fixed 36-byte
 * header followed by `len' body bytes, except the handshake that opens a
 * TCP connection (auth.h), which comes before the first frame.  Header fields travel big-endian.
 * A frame carries one whole message; there is no fragmentation above the
 * byte stream.
 */
#ifndef COPVM_WIRE_H
#define COPVM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "be.h"

/* "CPV2": version 2 added the wait id; a version-1 peer's frames fail
 * the magic check, so the two never mix silently. */
#define PVMI_FRAME_MAGIC	0x43505632u
#define PVMI_FRAME_HDR_LEN	36
/* Largest body a receiver accepts; larger lengths mean a corrupt stream. */
#define PVMI_FRAME_MAX_BODY	(1u << 30)

/* What a frame is for (the `kind' field). */
enum pvmi_frame_kind {
	PVMI_KIND_USER = 0,	/* a PVM message for a task's receive queue */
	PVMI_KIND_REQUEST = 1,	/* task -> daemon control request, tag = op */
	PVMI_KIND_REPLY = 2,	/* daemon -> task answer to the last request */
	PVMI_KIND_DAEMON = 3,	/* daemon -> daemon, tag = enum pvmi_dd_op */
	PVMI_KIND_RING = 4,	/* task -> task on a same-host circuit: the
				 * shared-memory ring's fds ride with it, and
				 * the frames after it go through the ring
				 * (lib/transport/shm.c) */
	/* Precommunication, task -> task on a direct circuit (lib/precomm.c):
	 * a user message the receiver keeps, not deliverable, until ... */
	PVMI_KIND_HELD = 5,
	/* ... this frame (no body, same tag and ctx) releases it (enc 1)
	 * or cancels it (enc 0). */
	PVMI_KIND_RELEASE = 6,
};

/* Decoded frame header (host byte order). */
struct pvmi_frame {
	uint32_t magic;
	uint32_t len;		/* body bytes that follow the header */
	int32_t src;		/* sender's tid */
	int32_t dst;		/* receiver's tid */
	int32_t tag;		/* message tag, or control op for requests */
	int32_t ctx;		/* message context */
	int32_t enc;		/* sender's data encoding (PvmDataDefault...) */
	int32_t wid;		/* user messages: the wait id of pvm_setminfo */
	uint32_t kind;		/* enum pvmi_frame_kind */
};

/* Writes `f' as PVMI_FRAME_HDR_LEN big-endian bytes into `out'. */
void pvmi_frame_encode(const struct pvmi_frame *f, unsigned char *out);
/* Reads a header from `in'; returns 0, or -1 when the magic, kind or
 * length is not acceptable (the stream must then be dropped). */
int pvmi_frame_decode(const unsigned char *in, struct pvmi_frame *f);
/* As pvmi_frame_decode, for a header whose magic and length are not on
 * the wire (a shm ring's whole record): `in' holds the other seven
 * fields, `len' is the body's length.  Returns 0, or -1 as it does.
 * Inline: a small message's receive runs it. */
static inline int pvmi_frame_decode_tail(const unsigned char *in,
					 uint32_t len, struct pvmi_frame *f)
{
	f->magic = PVMI_FRAME_MAGIC;
	f->len = len;
	f->src = (int32_t)get_be32(in + 0);
	f->dst = (int32_t)get_be32(in + 4);
	f->tag = (int32_t)get_be32(in + 8);
	f->ctx = (int32_t)get_be32(in + 12);
	f->enc = (int32_t)get_be32(in + 16);
	f->wid = (int32_t)get_be32(in + 20);
	f->kind = get_be32(in + 24);
	/* the two checks of pvmi_frame_decode that can fail here, in one
	 * branch */
	return -((f->kind > PVMI_KIND_RELEASE) | (len > PVMI_FRAME_MAX_BODY));
}

/*
 * Message bodies are a sequence of items.  An item is an 8-byte header,
 * two big-endian uint32: the data type (PVM_STR .. PVM_ULONG from pvm3.h,
 * or PVMI_TYPE_MSG) and the element count, followed by the elements.
 *   PvmDataDefault (XDR): big-endian; byte 1, short/ushort 4, int/uint 4,
 *     long/ulong 8, float 4, double 8, cplx 8, dcplx 16 bytes; a str item
 *     counts its bytes including the NUL; byte and str items are padded
 *     with zeros to a multiple of 4.
 *   PvmDataRaw / PvmDataInPlace: native layout and sizes, no padding.
 * A PVMI_TYPE_MSG item (pvm_pkmesg) has count = 1 and holds nine XDR int32
 * (enc, tag, ctx, src, body length, dst, wid, crc, the body's length as
 * stock counts it) then that many body bytes, padded to 4.
 * An unpack of the item's type family (signed and unsigned of one width
 * match) reads the elements; one item may be consumed by several unpack
 * calls.  An unpack of another type reads the bytes stock's body would
 * hold (lib/pack_view.c), or fails with PvmBadMsg with
 * COPVM_STRICT_UNPACK=1.
 */
#define PVMI_TYPE_MSG		12
#define PVMI_ITEM_HDR_LEN	8

#endif /* COPVM_WIRE_H */

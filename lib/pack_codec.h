/*
 * pack_codec.h - the element codec of message bodies (pack_codec.c): how
 * each PVM data type is stored natively and in XDR, the item header, and
 * the conversion of strided native arrays to body bytes and back.  Used
 * by pack.c and the short paths of pack_api.c; it knows nothing of
 * messages.
 */
#ifndef COPVM_PACK_CODEC_H
#define COPVM_PACK_CODEC_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pvm3.h"
#include "wire.h"

/* How each data type is stored: native bytes per unit, XDR bytes per
 * unit, units per element (2 for complex), and the type family: signed
 * and unsigned of one width read each other. */
struct pvmi_tdesc {
	unsigned char usz;
	unsigned char wsz;
	unsigned char upe;
	unsigned char family;
};

/* Indexed by PVM type, PVMI_TYPE_MSG included. */
extern const struct pvmi_tdesc pvmi_tdesc[];

/* Native bytes of one element of `type'. */
static inline size_t nat_size(int type)
{
	return (size_t)pvmi_tdesc[type].usz * pvmi_tdesc[type].upe;
}

/* Body bytes of one element of `type' in an XDR or native body. */
static inline size_t wire_size(int type, int xdr)
{
	return (size_t)(xdr ? pvmi_tdesc[type].wsz : pvmi_tdesc[type].usz) *
	       pvmi_tdesc[type].upe;
}

/* Zero bytes that follow an item of `count' elements of `type'. */
static inline size_t pad_of(int type, uint32_t count, int xdr)
{
	if (xdr && (type == PVM_BYTE || type == PVM_STR))
		return -(size_t)count & 3;
	return 0;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void st32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void st64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Whether a body of encoding `enc' is XDR (1), native (0) or unknown (-1). */
static inline int enc_is_xdr(int enc)
{
	switch (enc) {
	case PvmDataDefault:
		return 1;
	case PvmDataRaw:
	case PvmDataInPlace:
		return 0;
	default:
		return -1;
	}
}

/* Writes an item header: `type' and `count', big-endian. */
static inline void put_hdr(unsigned char *p, uint32_t type, uint32_t count)
{
	st32(p, htobe32(type));
	st32(p + 4, htobe32(count));
}

/* Writes `nel' elements of `type', `step' bytes apart in `in', to the
 * body bytes at `out' (XDR when `xdr', else native). */
void pvmi_encode(unsigned char *out, const unsigned char *in, size_t nel,
		 size_t step, int type, int xdr);
/* Reads `nel' elements of `type' from the body bytes at `in' into every
 * `step' bytes of `out'. */
void pvmi_decode(unsigned char *out, size_t step, const unsigned char *in,
		 size_t nel, int type, int xdr);

#endif /* COPVM_PACK_CODEC_H */

/*
 * pack_codec.c - the element codec of message bodies: XDR
 * (PvmDataDefault) converts elements to big-endian wire sizes (a short
 * or an int takes 4 bytes, a long 8), PvmDataRaw and PvmDataInPlace copy
 * native memory.  The conversions run over contiguous runs, so a dense
 * array costs one memcpy or one byte-swapping loop; strided arrays go
 * element by element.
 */
#include "pack_codec.h"

const struct pvmi_tdesc pvmi_tdesc[] = {
	[PVM_STR] =	{ 1, 1, 1, PVM_STR },
	[PVM_BYTE] =	{ 1, 1, 1, PVM_BYTE },
	[PVM_SHORT] =	{ sizeof(short), 4, 1, PVM_SHORT },
	[PVM_INT] =	{ sizeof(int), 4, 1, PVM_INT },
	[PVM_FLOAT] =	{ sizeof(float), 4, 1, PVM_FLOAT },
	[PVM_CPLX] =	{ sizeof(float), 4, 2, PVM_CPLX },
	[PVM_DOUBLE] =	{ sizeof(double), 8, 1, PVM_DOUBLE },
	[PVM_DCPLX] =	{ sizeof(double), 8, 2, PVM_DCPLX },
	[PVM_LONG] =	{ sizeof(long), 8, 1, PVM_LONG },
	[PVM_USHORT] =	{ sizeof(short), 4, 1, PVM_SHORT },
	[PVM_UINT] =	{ sizeof(int), 4, 1, PVM_INT },
	[PVM_ULONG] =	{ sizeof(long), 8, 1, PVM_LONG },
	[PVMI_TYPE_MSG] = { 1, 1, 1, PVMI_TYPE_MSG },
};

_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long) == 8 &&
	       sizeof(float) == 4 && sizeof(double) == 8,
	       "the native layout assumes an LP64 host");

/* Encodes `n' contiguous units of `type' from native `in' to XDR `out'. */
static inline void xdr_enc_run(unsigned char *out, const unsigned char *in,
			       size_t n, int type)
{
	size_t i;
	int16_t s;
	uint16_t us;

	switch (type) {
	case PVM_STR:
	case PVM_BYTE:
		memcpy(out, in, n);
		break;
	case PVM_SHORT:
		for (i = 0; i < n; i++) {
			memcpy(&s, in + 2 * i, 2);
			st32(out + 4 * i, htobe32((uint32_t)(int32_t)s));
		}
		break;
	case PVM_USHORT:
		for (i = 0; i < n; i++) {
			memcpy(&us, in + 2 * i, 2);
			st32(out + 4 * i, htobe32(us));
		}
		break;
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:
	case PVM_CPLX:
		for (i = 0; i < n; i++)
			st32(out + 4 * i, htobe32(ld32(in + 4 * i)));
		break;
	default:		/* the 64-bit types */
		for (i = 0; i < n; i++)
			st64(out + 8 * i, htobe64(ld64(in + 8 * i)));
		break;
	}
}

/* Decodes `n' contiguous units of `type' from XDR `in' to native `out'. */
static inline void xdr_dec_run(unsigned char *out, const unsigned char *in,
			       size_t n, int type)
{
	size_t i;
	uint16_t us;

	switch (type) {
	case PVM_STR:
	case PVM_BYTE:
		memcpy(out, in, n);
		break;
	case PVM_SHORT:
	case PVM_USHORT:
		/* the low half of the int32 is the value, either signedness */
		for (i = 0; i < n; i++) {
			us = (uint16_t)be32toh(ld32(in + 4 * i));
			memcpy(out + 2 * i, &us, 2);
		}
		break;
	case PVM_INT:
	case PVM_UINT:
	case PVM_FLOAT:
	case PVM_CPLX:
		for (i = 0; i < n; i++)
			st32(out + 4 * i, be32toh(ld32(in + 4 * i)));
		break;
	default:
		for (i = 0; i < n; i++)
			st64(out + 8 * i, be64toh(ld64(in + 8 * i)));
		break;
	}
}

/* The strided loop of copy_elems(), inlined at each call so that a
 * constant `esz' turns its memcpy into one move. */
static inline __attribute__((always_inline)) void
copy_strided(unsigned char *out, size_t ostep, const unsigned char *in,
	     size_t istep, size_t nel, size_t esz)
{
	size_t i;

	for (i = 0; i < nel; i++)
		memcpy(out + i * ostep, in + i * istep, esz);
}

/* Copies `nel' elements of `esz' bytes, `istep' apart in `in', to
 * `ostep' apart in `out'; one memcpy when both are dense. */
static void copy_elems(unsigned char *out, size_t ostep,
		       const unsigned char *in, size_t istep,
		       size_t nel, size_t esz)
{
	if (istep == esz && ostep == esz) {
		memcpy(out, in, nel * esz);
		return;
	}
	switch (esz) {
	case 1:
		copy_strided(out, ostep, in, istep, nel, 1);
		break;
	case 2:
		copy_strided(out, ostep, in, istep, nel, 2);
		break;
	case 4:
		copy_strided(out, ostep, in, istep, nel, 4);
		break;
	case 8:
		copy_strided(out, ostep, in, istep, nel, 8);
		break;
	default:
		copy_strided(out, ostep, in, istep, nel, esz);
		break;
	}
}

/* Writes `nel' elements of `type', `step' bytes apart in `in', to the
 * body bytes at `out'. */
void pvmi_encode(unsigned char *out, const unsigned char *in, size_t nel,
		 size_t step, int type, int xdr)
{
	size_t esz = nat_size(type), wsz = wire_size(type, xdr);
	size_t upe = pvmi_tdesc[type].upe, i;

	if (!xdr) {
		copy_elems(out, esz, in, step, nel, esz);
		return;
	}
	if (step == esz) {
		xdr_enc_run(out, in, nel * upe, type);
		return;
	}
	for (i = 0; i < nel; i++)
		xdr_enc_run(out + i * wsz, in + i * step, upe, type);
}

/* Reads `nel' elements of `type' from the body bytes at `in' into every
 * `step' bytes of `out'. */
void pvmi_decode(unsigned char *out, size_t step, const unsigned char *in,
		 size_t nel, int type, int xdr)
{
	size_t esz = nat_size(type), wsz = wire_size(type, xdr);
	size_t upe = pvmi_tdesc[type].upe, i;

	if (!xdr) {
		copy_elems(out, step, in, esz, nel, esz);
		return;
	}
	if (step == esz) {
		xdr_dec_run(out, in, nel * upe, type);
		return;
	}
	for (i = 0; i < nel; i++)
		xdr_dec_run(out + i * step, in + i * wsz, upe, type);
}

/*
 * f_pack.c - Fortran binding: message buffers, packing and unpacking.
 *
 * pvmfpack and pvmfunpack take a type code from fpvm3.h instead of having
 * one routine per type.  The codes have the values of the C PVM_* type
 * codes, and each selects the pvm_pk / pvm_upk routine for the matching
 * C type (INTEGER4 is int, REAL8 double, INTEGER8 long, COMPLEX8 a pair
 * of floats).  STRING moves nitem characters as bytes, like BYTE1: the
 * Fortran string has no terminator, its length is given by nitem, and
 * the receiver unpacks it into a CHARACTER variable of its own.  Any other
 * code is PvmBadParam.
 */
#include "fpvm.h"

/* One row per type code, indexed by the code. */
struct ftype {
	int (*pack)(void *xp, int nitem, int stride);
	int (*unpack)(void *xp, int nitem, int stride);
};

/* The pvm_pk and pvm_upk routines take typed pointers; these adapters
 * give them one signature so that the table can hold them. */
#define FTYPE_ADAPTERS(name, ctype)					\
	static int pk_##name(void *xp, int n, int s)			\
	{								\
		return pvm_pk##name((ctype *)xp, n, s);			\
	}								\
	static int upk_##name(void *xp, int n, int s)			\
	{								\
		return pvm_upk##name((ctype *)xp, n, s);		\
	}

FTYPE_ADAPTERS(byte, char)
FTYPE_ADAPTERS(short, short)
FTYPE_ADAPTERS(int, int)
FTYPE_ADAPTERS(float, float)
FTYPE_ADAPTERS(cplx, float)
FTYPE_ADAPTERS(double, double)
FTYPE_ADAPTERS(dcplx, double)
FTYPE_ADAPTERS(long, long)

#define FTYPE(name)	{ pk_##name, upk_##name }

static const struct ftype ftypes[] = {
	[PVM_STR] = FTYPE(byte),	/* STRING */
	[PVM_BYTE] = FTYPE(byte),	/* BYTE1 */
	[PVM_SHORT] = FTYPE(short),	/* INTEGER2 */
	[PVM_INT] = FTYPE(int),		/* INTEGER4 */
	[PVM_FLOAT] = FTYPE(float),	/* REAL4 */
	[PVM_CPLX] = FTYPE(cplx),	/* COMPLEX8 */
	[PVM_DOUBLE] = FTYPE(double),	/* REAL8 */
	[PVM_DCPLX] = FTYPE(dcplx),	/* COMPLEX16 */
	[PVM_LONG] = FTYPE(long),	/* INTEGER8 */
};

/* The table row for type code `what', or NULL if there is none. */
static const struct ftype *ftype_of(int what)
{
	if (what < 0 || what >= (int)(sizeof(ftypes) / sizeof(ftypes[0])))
		return NULL;
	return &ftypes[what];
}

/* pvmfpack(what, xp, nitem, stride, info): appends nitem items of type
 * what, taken every stride items from xp, to the active send buffer. */
FPVM_EXPORT void pvmfpack_(int *what, void *xp, int *nitem, int *stride,
			   int *info)
{
	const struct ftype *t = ftype_of(*what);

	*info = t ? t->pack(xp, *nitem, *stride) : PvmBadParam;
}

/* pvmfunpack(what, xp, nitem, stride, info): reads nitem items of type
 * what from the active receive buffer into every stride-th item of xp. */
FPVM_EXPORT void pvmfunpack_(int *what, void *xp, int *nitem, int *stride,
			     int *info)
{
	const struct ftype *t = ftype_of(*what);

	*info = t ? t->unpack(xp, *nitem, *stride) : PvmBadParam;
}

/* pvmfinitsend(encoding, bufid): clears the send buffer and starts a new
 * message with the given encoding (PVMDEFAULT, PVMRAW, PVMINPLACE). */
FPVM_EXPORT void pvmfinitsend_(int *encoding, int *bufid)
{
	*bufid = pvm_initsend(*encoding);
}

/* pvmfmkbuf(encoding, bufid): creates an empty message buffer; bufid is
 * its id or an error code. */
FPVM_EXPORT void pvmfmkbuf_(int *encoding, int *bufid)
{
	*bufid = pvm_mkbuf(*encoding);
}

/* pvmffreebuf(bufid, info): frees message buffer bufid; info is 0 or an
 * error code. */
FPVM_EXPORT void pvmffreebuf_(int *bufid, int *info)
{
	*info = pvm_freebuf(*bufid);
}

/* pvmfgetsbuf(bufid): the id of the active send buffer (0 if none). */
FPVM_EXPORT void pvmfgetsbuf_(int *bufid)
{
	*bufid = pvm_getsbuf();
}

/* pvmfgetrbuf(bufid): the id of the active receive buffer (0 if none). */
FPVM_EXPORT void pvmfgetrbuf_(int *bufid)
{
	*bufid = pvm_getrbuf();
}

/* pvmfsetsbuf(bufid, oldbuf): makes bufid the active send buffer; oldbuf
 * gets the previous one (the buffer is kept) or an error code. */
FPVM_EXPORT void pvmfsetsbuf_(int *bufid, int *oldbuf)
{
	*oldbuf = pvm_setsbuf(*bufid);
}

/* pvmfsetrbuf(bufid, oldbuf): makes bufid the active receive buffer;
 * oldbuf gets the previous one or an error code. */
FPVM_EXPORT void pvmfsetrbuf_(int *bufid, int *oldbuf)
{
	*oldbuf = pvm_setrbuf(*bufid);
}

/* pvmfbufinfo(bufid, bytes, msgtag, tid, info): length, tag and sender of
 * the message in buffer bufid; info is 0 or an error code. */
FPVM_EXPORT void pvmfbufinfo_(int *bufid, int *bytes, int *msgtag, int *tid,
			      int *info)
{
	*info = pvm_bufinfo(*bufid, bytes, msgtag, tid);
}

/*
 * packf.c - pvm_packf() and pvm_unpackf(): packing and unpacking driven by
 * a printf-like format (man pvm_packf(3PVM)).
 *
 * A conversion is  % [count] [.stride] [h|l|u...] c|d|f|x|s  where count
 * and stride are digits or `*' (taken from the arguments as an int), and
 * `%+' (pack only) calls pvm_initsend() with the next int argument.
 *   c byte   d int (h short, l long, u unsigned)   f float (l double)
 *   x complex float (l complex double)   s string
 * When packing, a conversion with neither count nor stride takes its
 * value directly (after the usual promotions: %c, %hd take an int, %f a
 * double); otherwise, and always when unpacking, it takes a pointer to
 * the array.  A bare %u, %hu or %lu is read as %ud, %hud, %lud.  Complex
 * values have no by-value form: %x and %lx always take a pointer.  %s
 * takes a char pointer and moves one string; its count and stride are
 * ignored.  Other characters in the format are skipped.  The first
 * failing conversion stops the call.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pvmi.h"
#include "msg.h"

/* One parsed conversion. */
struct conv {
	int type;	/* PVM_STR .. PVM_ULONG */
	int count;
	int stride;
	int byvalue;	/* no count or stride was given */
};

/* Reads a count or stride (digits or `*') at *pp; returns 1 if one was
 * there.  `*' takes an int from `ap'. */
static int parse_num(const char **pp, va_list *ap, int *out)
{
	const char *p = *pp;
	long v;

	if (*p == '*') {
		*out = va_arg(*ap, int);
		*pp = p + 1;
		return 1;
	}
	if (!isdigit((unsigned char)*p))
		return 0;
	for (v = 0; isdigit((unsigned char)*p); p++)
		if (v < 1000000000)
			v = v * 10 + (*p - '0');
	*out = (int)v;
	*pp = p;
	return 1;
}

/* The integer type for modifiers h (short), l (long) and u (unsigned). */
static int int_type(int h, int l, int u)
{
	if (h)
		return u ? PVM_USHORT : PVM_SHORT;
	if (l)
		return u ? PVM_ULONG : PVM_LONG;
	return u ? PVM_UINT : PVM_INT;
}

/* Parses the conversion after a `%' at *pp (not `%+'); returns PvmOk or
 * PvmBadParam for a malformed one. */
static int parse_conv(const char **pp, va_list *ap, struct conv *cv)
{
	const char *p = *pp;
	int h = 0, l = 0, u = 0, have;

	cv->count = 1;
	cv->stride = 1;
	have = parse_num(&p, ap, &cv->count);
	if (*p == '.') {
		p++;
		if (!parse_num(&p, ap, &cv->stride))
			return PvmBadParam;
		have = 1;
	}
	cv->byvalue = !have;
	for (;; p++) {
		if (*p == 'h')
			h = 1;
		else if (*p == 'l')
			l = 1;
		else if (*p == 'u')
			u = 1;
		else
			break;
	}
	switch (*p) {
	case 'c':
		cv->type = PVM_BYTE;
		break;
	case 'f':
		cv->type = l ? PVM_DOUBLE : PVM_FLOAT;
		break;
	case 'x':
		cv->type = l ? PVM_DCPLX : PVM_CPLX;
		break;
	case 's':
		cv->type = PVM_STR;
		break;
	case 'd':
		cv->type = int_type(h, l, u);
		break;
	default:
		/* printf habits: a bare %u, %hu or %lu means %ud, %hud, %lud */
		if (!u)
			return PvmBadParam;
		cv->type = int_type(h, l, u);
		*pp = p;
		return PvmOk;
	}
	*pp = p + 1;
	return PvmOk;
}

/* Packs one by-value argument of conversion `cv' into `m'. */
static int pack_value(struct pvmi_msg *m, const struct conv *cv,
		      va_list *ap)
{
	union {
		char c;
		short s;
		unsigned short us;
		int i;
		unsigned int ui;
		long l;
		unsigned long ul;
		float f;
		double d;
	} v;

	switch (cv->type) {
	case PVM_BYTE:
		v.c = (char)va_arg(*ap, int);
		break;
	case PVM_SHORT:
		v.s = (short)va_arg(*ap, int);
		break;
	case PVM_USHORT:
		v.us = (unsigned short)va_arg(*ap, int);
		break;
	case PVM_INT:
		v.i = va_arg(*ap, int);
		break;
	case PVM_UINT:
		v.ui = va_arg(*ap, unsigned int);
		break;
	case PVM_LONG:
		v.l = va_arg(*ap, long);
		break;
	case PVM_ULONG:
		v.ul = va_arg(*ap, unsigned long);
		break;
	case PVM_FLOAT:
		v.f = (float)va_arg(*ap, double);
		break;
	case PVM_DOUBLE:
		v.d = va_arg(*ap, double);
		break;
	default:
		return PvmBadParam;
	}
	return pvmi_pack(m, cv->type, &v, 1, 1);
}

/* Packs one conversion's data into the active send buffer. */
static int pack_conv(const struct conv *cv, va_list *ap)
{
	struct pvmi_msg *m;
	const char *s;
	void *p;

	/* looked up each time: a `%+' may have replaced the buffer */
	m = pvmi_mid_lookup(pvmi_sbuf);
	if (!m)
		return PvmNoBuf;
	if (cv->type == PVM_STR) {
		s = va_arg(*ap, const char *);
		if (!s)
			return PvmBadParam;
		return pvmi_pack(m, PVM_STR, s, (int)strlen(s) + 1, 1);
	}
	if (cv->byvalue && cv->type != PVM_CPLX && cv->type != PVM_DCPLX)
		return pack_value(m, cv, ap);
	p = va_arg(*ap, void *);
	if (cv->count < 0 || cv->stride < 1 || (!p && cv->count))
		return PvmBadParam;
	return pvmi_pack(m, cv->type, p, cv->count, cv->stride);
}

/* Unpacks one conversion from the active receive buffer. */
static int unpack_conv(const struct conv *cv, va_list *ap)
{
	struct pvmi_msg *m;
	void *p;

	p = va_arg(*ap, void *);
	if (cv->count < 0 || cv->stride < 1 || (!p && cv->count))
		return PvmBadParam;
	m = pvmi_mid_lookup(pvmi_rbuf);
	if (!m)
		return PvmNoBuf;
	return pvmi_unpack(m, cv->type, p, cv->count, cv->stride);
}

/* Runs the format `fmt' over `ap', packing (unpack = 0) or unpacking;
 * returns PvmOk or the error, already reported under `fn'. */
static int run_format(const char *fn, const char *fmt, va_list *ap,
		      int unpack)
{
	const char *p = fmt;
	struct conv cv;
	int cc;

	if (!fmt)
		return pvmi_error(fn, PvmBadParam);
	while (*p) {
		if (*p++ != '%')
			continue;
		if (*p == '+') {
			p++;
			if (unpack)
				return pvmi_error(fn, PvmBadParam);
			cc = pvm_initsend(va_arg(*ap, int));
			if (cc < 0)
				return cc;
			continue;
		}
		cc = parse_conv(&p, ap, &cv);
		if (!cc)
			cc = unpack ? unpack_conv(&cv, ap) : pack_conv(&cv, ap);
		if (cc)
			return pvmi_error(fn, cc);
	}
	return PvmOk;
}

/* pvm_packf() with its arguments as a va_list.
 * Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_vpackf(const char *fmt, va_list ap)
{
	va_list aq;
	int cc;

	va_copy(aq, ap);
	cc = run_format("pvm_packf", fmt, &aq, 0);
	va_end(aq);
	return cc;
}

/* pvm_unpackf() with its arguments as a va_list.
 * Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_vunpackf(const char *fmt, va_list ap)
{
	va_list aq;
	int cc;

	va_copy(aq, ap);
	cc = run_format("pvm_unpackf", fmt, &aq, 1);
	va_end(aq);
	return cc;
}

/* Packs the arguments described by `fmt' into the active send buffer.
 * Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_packf(const char *fmt, ...)
{
	va_list ap;
	int cc;

	va_start(ap, fmt);
	cc = run_format("pvm_packf", fmt, &ap, 0);
	va_end(ap);
	return cc;
}

/* Unpacks from the active receive buffer into the pointers described by
 * `fmt'.  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_unpackf(const char *fmt, ...)
{
	va_list ap;
	int cc;

	va_start(ap, fmt);
	cc = run_format("pvm_unpackf", fmt, &ap, 1);
	va_end(ap);
	return cc;
}

/*
 * codec.c - writer and reader of XDR message bodies (codec.h).
 *
 * Only the three item kinds the control protocol needs are produced here:
 * int32 arrays (PVM_INT), strings (PVM_STR) and opaque bytes (PVM_BYTE),
 * laid out exactly as wire.h describes, so what the daemon writes can be
 * unpacked with the ordinary pvm_upk* calls and vice versa.
 *
 * The reader is fed whatever a peer sent, so every length it reads is
 * checked against the bytes that remain before it is used, all size
 * arithmetic is done in size_t (64-bit) where a 32-bit count cannot
 * overflow it, and the first error makes every later read fail too.
 */
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "be.h"
#include "wire.h"
#include "codec.h"

#define WBUF_MIN_CAP	256

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Makes room for `need' more bytes; returns a pointer to them or NULL
 * (and marks the buffer failed) when that is impossible. */
static unsigned char *wbuf_reserve(struct pvmi_wbuf *w, size_t need)
{
	size_t cap;
	unsigned char *p;

	if (w->failed)
		return NULL;
	if (need > SIZE_MAX / 2 - w->len) {
		w->failed = 1;
		return NULL;
	}
	if (w->len + need > w->cap) {
		cap = w->cap ? w->cap : WBUF_MIN_CAP;
		while (cap < w->len + need)
			cap *= 2;
		p = realloc(w->data, cap);
		if (!p) {
			w->failed = 1;
			return NULL;
		}
		w->data = p;
		w->cap = cap;
	}
	p = w->data + w->len;
	w->len += need;
	return p;
}

/* Appends an item header and `n' payload bytes padded to 4 (zeroed);
 * returns where the payload goes, or NULL on failure. */
static unsigned char *w_item(struct pvmi_wbuf *w, uint32_t type,
			     size_t count, size_t n)
{
	unsigned char *p;
	size_t padded;

	if (count > UINT32_MAX || n > PVMI_FRAME_MAX_BODY) {
		w->failed = 1;
		return NULL;
	}
	padded = pad4(n);
	p = wbuf_reserve(w, PVMI_ITEM_HDR_LEN + padded);
	if (!p)
		return NULL;
	put_be32(p, type);
	put_be32(p + 4, (uint32_t)count);
	if (padded > n)
		memset(p + PVMI_ITEM_HDR_LEN + n, 0, padded - n);
	return p + PVMI_ITEM_HDR_LEN;
}

/* Appends one item of `n' XDR int32 values. */
void pvmi_w_ints(struct pvmi_wbuf *w, const int32_t *v, size_t n)
{
	unsigned char *p;
	size_t i;

	if (n > PVMI_FRAME_MAX_BODY / 4) {
		w->failed = 1;
		return;
	}
	p = w_item(w, PVM_INT, n, n * 4);
	if (!p)
		return;
	for (i = 0; i < n; i++)
		put_be32(p + 4 * i, (uint32_t)v[i]);
}

/* Appends one item holding a single XDR int32. */
void pvmi_w_int(struct pvmi_wbuf *w, int32_t v)
{
	pvmi_w_ints(w, &v, 1);
}

/* Appends `v' as two int32 items, high half first (codec.h). */
void pvmi_w_u64(struct pvmi_wbuf *w, uint64_t v)
{
	pvmi_w_int(w, (int32_t)(uint32_t)(v >> 32));
	pvmi_w_int(w, (int32_t)(uint32_t)v);
}

/* Appends a str item (count includes the NUL); NULL is sent as "". */
void pvmi_w_str(struct pvmi_wbuf *w, const char *s)
{
	unsigned char *p;
	size_t n;

	if (!s)
		s = "";
	n = strlen(s) + 1;
	p = w_item(w, PVM_STR, n, n);
	if (p)
		memcpy(p, s, n);
}

/* Appends a PVM_BYTE item of `n' bytes. */
void pvmi_w_bytes(struct pvmi_wbuf *w, const void *p, size_t n)
{
	unsigned char *d;

	d = w_item(w, PVM_BYTE, n, n);
	if (d && n)
		memcpy(d, p, n);
}

/* Appends `n' bytes that already are whole items, unchanged. */
void pvmi_w_raw(struct pvmi_wbuf *w, const void *p, size_t n)
{
	unsigned char *d;

	if (!n)
		return;
	d = wbuf_reserve(w, n);
	if (d)
		memcpy(d, p, n);
}

/* Frees the buffer's memory and zeroes it. */
void pvmi_w_free(struct pvmi_wbuf *w)
{
	free(w->data);
	memset(w, 0, sizeof(*w));
}

/* Starts reading `len' bytes at `data'. */
void pvmi_r_init(struct pvmi_rbuf *r, const void *data, size_t len)
{
	r->data = data;
	r->len = data ? len : 0;
	r->pos = 0;
	r->failed = 0;
}

/* Reads the next item header, checks its type family and that `elsize'
 * times its count (padded) fits in what is left; on success returns a
 * pointer to the payload, sets *count and advances past the item. */
static const unsigned char *r_item(struct pvmi_rbuf *r, uint32_t want,
				   size_t elsize, size_t *count)
{
	const unsigned char *p;
	uint32_t type;
	size_t n, left, bytes;

	if (r->failed)
		return NULL;
	left = r->len - r->pos;
	if (left < PVMI_ITEM_HDR_LEN)
		goto bad;
	p = r->data + r->pos;
	type = get_be32(p);
	n = get_be32(p + 4);
	left -= PVMI_ITEM_HDR_LEN;
	/* signed and unsigned ints are one family */
	if (want == PVM_INT) {
		if (type != PVM_INT && type != PVM_UINT)
			goto bad;
	} else if (type != want) {
		goto bad;
	}
	/* n < 2^32 and elsize <= 4, so this cannot overflow a 64-bit size_t */
	bytes = n * elsize;
	if (bytes > left)
		goto bad;
	if (elsize == 1)
		bytes = pad4(bytes);
	if (bytes > left)
		goto bad;
	r->pos += PVMI_ITEM_HDR_LEN + bytes;
	*count = n;
	return p + PVMI_ITEM_HDR_LEN;
bad:
	r->failed = 1;
	return NULL;
}

/* Reads an int32 item of exactly `n' values into `out'; 0 or -1. */
int pvmi_r_ints(struct pvmi_rbuf *r, int32_t *out, size_t n)
{
	const unsigned char *p;
	size_t count, i;
	size_t save = r->pos;

	p = r_item(r, PVM_INT, 4, &count);
	if (!p)
		return -1;
	if (count != n) {
		r->pos = save;
		r->failed = 1;
		return -1;
	}
	for (i = 0; i < n; i++)
		out[i] = (int32_t)get_be32(p + 4 * i);
	return 0;
}

/* Reads an item of exactly one int32; returns it, or 0 with r->failed. */
int32_t pvmi_r_int(struct pvmi_rbuf *r)
{
	int32_t v;

	if (pvmi_r_ints(r, &v, 1) < 0)
		return 0;
	return v;
}

/* Reads two int32 items as one unsigned 64-bit value (codec.h). */
uint64_t pvmi_r_u64(struct pvmi_rbuf *r)
{
	uint64_t hi = (uint32_t)pvmi_r_int(r);
	uint64_t lo = (uint32_t)pvmi_r_int(r);

	return r->failed ? 0 : hi << 32 | lo;
}

/* Reads a str item; returns a malloc'd copy, or NULL with r->failed set
 * when the item is not a string, is empty or does not end in a NUL. */
char *pvmi_r_str(struct pvmi_rbuf *r)
{
	const unsigned char *p;
	size_t n;
	char *s;

	p = r_item(r, PVM_STR, 1, &n);
	if (!p)
		return NULL;
	if (n == 0 || p[n - 1] != '\0') {
		r->failed = 1;
		return NULL;
	}
	s = malloc(n);
	if (!s) {
		r->failed = 1;
		return NULL;
	}
	memcpy(s, p, n);
	return s;
}

/* Reads a byte item; returns a pointer into the body and its length in
 * *n (valid while the body lives), or NULL with r->failed set. */
const void *pvmi_r_bytes(struct pvmi_rbuf *r, size_t *n)
{
	const unsigned char *p;
	size_t count;

	p = r_item(r, PVM_BYTE, 1, &count);
	if (!p)
		return NULL;
	*n = count;
	return p;
}

/*
 * codec.h - a small writer/reader of XDR message bodies (the item format
 * of wire.h) for int32 values, strings and opaque byte blobs.
 *
 * The daemon speaks its control protocol with it, and builds the messages
 * it hands to tasks (notifies, task output) with it, so a task unpacks
 * them with the ordinary pvm_upkint()/pvm_upkstr()/pvm_upkbyte().
 */
#ifndef COPVM_CODEC_H
#define COPVM_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* A growable output buffer.  Zero-initialise before first use. */
struct pvmi_wbuf {
	unsigned char *data;
	size_t len;
	size_t cap;
	int failed;		/* set when an allocation failed */
};

/* A read cursor over a body.  Errors are sticky in `failed'. */
struct pvmi_rbuf {
	const unsigned char *data;
	size_t len;
	size_t pos;
	int failed;
};

/* Appends one item of `n' XDR int32 values. */
void pvmi_w_ints(struct pvmi_wbuf *w, const int32_t *v, size_t n);
/* Appends one item holding a single XDR int32. */
void pvmi_w_int(struct pvmi_wbuf *w, int32_t v);
/* Appends an unsigned 64-bit value as two int32 items, high half first
 * (times in nanoseconds between daemons and tasks). */
void pvmi_w_u64(struct pvmi_wbuf *w, uint64_t v);
/* Appends a str item; a NULL string is sent as "". */
void pvmi_w_str(struct pvmi_wbuf *w, const char *s);
/* Appends a PVM_BYTE item of `n' bytes. */
void pvmi_w_bytes(struct pvmi_wbuf *w, const void *p, size_t n);
/* Appends `n' bytes that already are whole items (a part of another
 * body), unchanged. */
void pvmi_w_raw(struct pvmi_wbuf *w, const void *p, size_t n);
/* Frees the buffer's memory and zeroes it. */
void pvmi_w_free(struct pvmi_wbuf *w);

/* Starts reading `len' bytes at `data'. */
void pvmi_r_init(struct pvmi_rbuf *r, const void *data, size_t len);
/* Reads an item of exactly one int32; returns it, or 0 with r->failed set. */
int32_t pvmi_r_int(struct pvmi_rbuf *r);
/* Reads an int32 item of exactly `n' values into `out'; 0 or -1. */
int pvmi_r_ints(struct pvmi_rbuf *r, int32_t *out, size_t n);
/* Reads what pvmi_w_u64() wrote; 0 with r->failed set when it is not
 * there. */
uint64_t pvmi_r_u64(struct pvmi_rbuf *r);
/* Reads a str item; returns a malloc'd copy or NULL with r->failed set. */
char *pvmi_r_str(struct pvmi_rbuf *r);
/* Reads a byte item; returns a pointer into the body and its length in
 * *n (valid while the body lives), or NULL with r->failed set. */
const void *pvmi_r_bytes(struct pvmi_rbuf *r, size_t *n);

#endif /* COPVM_CODEC_H */

/*
 * messages.c - stock's message helpers outside the documented API:
 * unpacking a string of unknown length (pvmupkstralloc), the multicast
 * of a buffer by id (pvmmcast), a send followed by a pump of input
 * (mroute) and a send-and-await-reply in another context (msendrecv).
 */
#include <endian.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "compat/compat.h"
#include "conn.h"
#include "msg.h"
#include "proto.h"
#include "pvmi.h"
#include "task.h"

/* Reads the length (with its NUL) of the string item at the unpack
 * cursor of `m' without moving the cursor; empty items before it are
 * skipped as pvmi_unpack() skips them.  PvmOk, PvmNoData or PvmBadMsg. */
static int peek_str_len(const struct pvmi_msg *m, uint32_t *len)
{
	unsigned char h[PVMI_ITEM_HDR_LEN];
	int frag = m->rfrag;
	size_t off = m->roff, got, k;
	uint32_t type, count;

	if (m->ritem_left)
		return PvmBadMsg;	/* inside an item of another type */
	if (m->rview && m->rview_pos < m->rview_len)
		return PvmBadMsg;	/* inside data read as another type */
	for (;;) {
		for (got = 0; got < sizeof(h) && frag < m->nfrag;) {
			if (off >= m->frags[frag].len) {
				frag++;
				off = 0;
				continue;
			}
			k = m->frags[frag].len - off;
			if (k > sizeof(h) - got)
				k = sizeof(h) - got;
			memcpy(h + got, m->frags[frag].data + off, k);
			got += k;
			off += k;
		}
		if (!got)
			return PvmNoData;
		if (got < sizeof(h))
			return PvmBadMsg;
		memcpy(&type, h, 4);
		memcpy(&count, h + 4, 4);
		type = be32toh(type);
		count = be32toh(count);
		if (count == 0 && type < PVMI_TYPE_MSG)
			continue;
		if (type != PVM_STR || count > m->len)
			return PvmBadMsg;
		*len = count;
		return PvmOk;
	}
}

/* Unpacks the next string of the receive buffer into malloc()ed *ss (the
 * caller frees it).  Returns 0 or an error code, *ss then unchanged. */
PVMI_EXPORT int pvmupkstralloc(char **ss)
{
	struct pvmi_msg *m;
	uint32_t len;
	char *s;
	int rc;

	if (!ss)
		return PvmBadParam;
	if (pvmi_rbuf <= 0 || !(m = pvmi_mid_lookup(pvmi_rbuf)))
		return PvmNoBuf;
	rc = peek_str_len(m, &len);
	if (rc != PvmOk)
		return rc;
	s = malloc(len ? len : 1);
	if (!s)
		return PvmNoMem;
	rc = pvmi_unpack(m, PVM_STR, s, 1, 1);
	if (rc != PvmOk) {
		free(s);
		return rc;
	}
	s[len ? len - 1 : 0] = '\0';
	*ss = s;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sends buffer `mid' with `tag' to each distinct task of tids[count] but
 * the caller, by ascending tid.  Returns PvmOk or an error (unreported). */
PVMI_EXPORT int pvmmcast(int mid, int *tids, int count, int tag)
{
	struct pvmi_msg *m;
	int *dst, i, rc;

	if (count < 0 || (count > 0 && !tids))
		return PvmBadParam;
	m = pvmi_mid_lookup(mid);
	if (mid <= 0 || !m)
		return PvmNoSuchBuf;
	rc = pvmi_attach();
	if (rc != PvmOk)
		return rc;
	for (i = 0; i < count; i++)
		if (pvmi_check_task_tid(tids[i]) == PvmBadParam)
			return PvmBadParam;
	if (!count)
		return PvmOk;
	dst = malloc(count * sizeof(*dst));
	if (!dst)
		return PvmNoMem;
	memcpy(dst, tids, count * sizeof(*dst));
	qsort(dst, count, sizeof(*dst), cmp_int);
	for (i = 0, rc = PvmOk; i < count && rc == PvmOk; i++) {
		if ((i && dst[i] == dst[i - 1]) || dst[i] == pvmi.mytid)
			continue;
		rc = pvmi_send_msg(m, dst[i], tag);
	}
	free(dst);
	return rc;
}

/* Sends buffer `mid' (0: none) to `dtid' with tag `code', then queues input
 * for up to *tmout (NULL: until some).  Returns 1 (input), 0 or an error. */
PVMI_EXPORT int mroute(int mid, int dtid, int code, struct timeval *tmout)
{
	struct pvmi_msg *m;
	long ms = -1;
	int rc;

	rc = pvmi_attach();
	if (rc != PvmOk)
		return rc;
	if (mid > 0) {
		m = pvmi_mid_lookup(mid);
		if (!m)
			return PvmNoSuchBuf;
		rc = pvmi_send_msg(m, dtid, code);
		if (rc < 0)
			return rc;
	}
	if (tmout) {
		if (tmout->tv_sec < 0 || tmout->tv_usec < 0)
			ms = 0;
		else if (tmout->tv_sec > INT_MAX / 1000 - 1)
			ms = INT_MAX;
		else
			ms = tmout->tv_sec * 1000L + tmout->tv_usec / 1000;
	}
	return pvmi_pump((int)ms);
}

/* Sends the send buffer to `other' with tag `code' in `context' and waits
 * for its reply of that tag.  Returns the reply's buffer id or an error. */
PVMI_EXPORT int msendrecv(int other, int code, int context)
{
	int old, rc;

	if (pvmi_sbuf <= 0)
		return PvmNoBuf;
	old = pvm_setcontext(context);
	if (old < 0)
		return old;
	rc = pvm_send(other, code);
	if (rc >= 0)
		rc = pvm_recv(other, code);
	pvm_setcontext(old);
	return rc;
}

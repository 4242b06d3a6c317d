/*
 * mbox.c - the message mailbox: pvm_putinfo, pvm_recvinfo, pvm_delinfo,
 * pvm_getmboxinfo, and the older pvm_insert/pvm_lookup/pvm_delete name
 * service built on it.
 *
 * The daemon keeps the entries (whole message bodies); this file only
 * ships messages to it and turns what comes back into buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "codec.h"
#include "conn.h"
#include "msg.h"
#include "proto.h"
#include "pvmi.h"
#include "task.h"

/* Mailbox refusals (locked, exists, absent) are answers, not faults:
 * like stock, they set pvm_errno but print nothing. */
static int answer(const char *fn, int rc)
{
	if (rc == PvmDenied || rc == PvmExists || rc == PvmNotFound) {
		pvm_errno = rc;
		return rc;
	}
	return rc < 0 ? pvmi_error(fn, rc) : rc;
}

static int put(const char *name, struct pvmi_msg *m, int flags)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	size_t len;

	body = pvmi_msg_flatten(m, &len);
	if (!body)
		return PvmNoMem;
	pvmi_w_str(&w, name);
	pvmi_w_int(&w, flags);
	pvmi_w_int(&w, m->enc);
	pvmi_w_int(&w, m->tag);
	pvmi_w_bytes(&w, body, len);
	pvmi_buf_free(body);
	return pvmi_request(PVMI_OP_MBOX_PUT, &w, &r);
}

/* Stores a copy of buffer `bufid' under `name' with `flags'
 * (PvmMbox...); returns the entry's index. */
PVMI_EXPORT int pvm_putinfo(char *name, int bufid, int flags)
{
	struct pvmi_msg *m;
	int rc;

	if (!name || !*name || bufid <= 0 || flags < 0)
		return pvmi_error("pvm_putinfo", PvmBadParam);
	m = pvmi_mid_lookup(bufid);
	if (!m)
		return pvmi_error("pvm_putinfo", PvmNoSuchBuf);
	rc = put(name, m, flags);
	return answer("pvm_putinfo", rc);
}

static int get(const char *name, int index, int flags)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	struct pvmi_msg *m;
	const void *data;
	void *body;
	size_t len;
	int rc, enc, tag, src, mid;

	pvmi_w_str(&w, name);
	pvmi_w_int(&w, index);
	pvmi_w_int(&w, flags);
	rc = pvmi_request(PVMI_OP_MBOX_GET, &w, &r);
	if (rc < 0)
		return rc;
	enc = pvmi_r_int(&r);
	tag = pvmi_r_int(&r);
	src = pvmi_r_int(&r);
	data = pvmi_r_bytes(&r, &len);
	if (r.failed)
		return PvmSysErr;
	body = pvmi_buf_alloc(len);
	if (!body)
		return PvmNoMem;
	memcpy(body, data, len);
	m = pvmi_msg_from_body(body, len, enc);
	if (!m) {
		pvmi_buf_free(body);
		return PvmNoMem;
	}
	m->tag = tag;
	m->src = src;
	m->dst = pvmi.mytid;
	m->ctx = pvmi.ctx;
	mid = pvmi_mid_register(m);
	if (mid < 0)
		pvmi_msg_free(m);
	return mid;
}

/* Fetches entry `index' of `name' (see pvm_recvinfo(3PVM) for `flags')
 * as a new message buffer, which becomes the receive buffer (the old one
 * is freed, as by pvm_recv); returns its id. */
PVMI_EXPORT int pvm_recvinfo(char *name, int index, int flags)
{
	int rc;

	if (!name || !*name || index < 0 || flags < 0)
		return pvmi_error("pvm_recvinfo", PvmBadParam);
	rc = get(name, index, flags);
	if (rc == PvmNotFound) {	/* stock prints only the other errors */
		pvm_errno = rc;
		return rc;
	}
	if (rc < 0)
		return pvmi_error("pvm_recvinfo", rc);
	pvmi_rbuf_replace(rc);
	return rc;
}

/* Deletes entry `index' of `name'. */
PVMI_EXPORT int pvm_delinfo(char *name, int index, int flags)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc;

	if (!name || !*name || index < 0 || flags < 0)
		return pvmi_error("pvm_delinfo", PvmBadParam);
	pvmi_w_str(&w, name);
	pvmi_w_int(&w, index);
	pvmi_w_int(&w, flags);
	rc = pvmi_request(PVMI_OP_MBOX_DEL, &w, &r);
	return rc < 0 ? answer("pvm_delinfo", rc) : PvmOk;
}

static void free_classes(struct pvmmboxinfo *c, int n)
{
	int i;

	for (i = 0; c && i < n; i++) {
		free(c[i].mi_name);
		free(c[i].mi_indices);
		free(c[i].mi_owners);
		free(c[i].mi_flags);
	}
	free(c);
}

/* Lists the mailbox classes whose names match glob `pattern' (NULL or
 * "" = all); the table stays valid until the next call. */
PVMI_EXPORT int pvm_getmboxinfo(char *pattern, int *nclasses,
				struct pvmmboxinfo **classes)
{
	static struct pvmmboxinfo *tab;
	static int ntab;
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	int rc, i;

	pvmi_w_str(&w, pattern ? pattern : "");
	rc = pvmi_request(PVMI_OP_MBOX_LIST, &w, &r);
	if (rc < 0)
		return pvmi_error("pvm_getmboxinfo", rc);
	free_classes(tab, ntab);
	ntab = 0;
	tab = calloc(rc ? rc : 1, sizeof(*tab));
	if (!tab)
		return pvmi_error("pvm_getmboxinfo", PvmNoMem);
	for (i = 0; i < rc && !r.failed; i++) {
		struct pvmmboxinfo *c = &tab[i];
		int n;

		c->mi_name = pvmi_r_str(&r);
		n = pvmi_r_int(&r);
		if (r.failed || n < 0 || n > (1 << 20))
			break;
		c->mi_nentries = n;
		c->mi_indices = malloc((n ? n : 1) * sizeof(int));
		c->mi_owners = malloc((n ? n : 1) * sizeof(int));
		c->mi_flags = malloc((n ? n : 1) * sizeof(int));
		ntab++;
		if (!c->mi_indices || !c->mi_owners || !c->mi_flags) {
			r.failed = 1;
			break;
		}
		if (n && (pvmi_r_ints(&r, (int32_t *)c->mi_indices, n) ||
			  pvmi_r_ints(&r, (int32_t *)c->mi_owners, n) ||
			  pvmi_r_ints(&r, (int32_t *)c->mi_flags, n)))
			break;
	}
	if (r.failed || ntab != rc)
		return pvmi_error("pvm_getmboxinfo", PvmSysErr);
	if (nclasses)
		*nclasses = ntab;
	if (classes)
		*classes = tab;
	return PvmOk;
}

/* Whether (`name', `index') holds an entry: 1, 0, or an error code. */
static int entry_exists(const char *name, int index)
{
	int mid = get(name, index, 0);

	if (mid == PvmNotFound)
		return 0;
	if (mid < 0)
		return mid;
	pvmi_msg_free(pvmi_mid_lookup(mid));
	pvmi_mid_forget(mid);
	return 1;
}

/* Old name service: stores integer `data' under (`name', `req'); req -1
 * takes the first free index.  Returns the index, or PvmDupEntry (as
 * stock, with no message) when (`name', `req') is taken. */
PVMI_EXPORT int pvm_insert(char *name, int req, int data)
{
	struct pvmi_msg *m;
	int flags = PvmMboxMultiInstance | PvmMboxPersistent, rc;
	int32_t v = data;

	if (!name || !*name || req < -1)
		return pvmi_error("pvm_insert", PvmBadParam);
	if (req >= 0) {
		rc = entry_exists(name, req);
		if (rc < 0)
			return pvmi_error("pvm_insert", rc);
		if (rc)
			return answer("pvm_insert", PvmDupEntry);
		flags |= PvmMboxDirectIndex(req);
	}
	m = pvmi_msg_new(PvmDataRaw);
	if (!m)
		return pvmi_error("pvm_insert", PvmNoMem);
	rc = pvmi_pack(m, PVM_INT, &v, 1, 1);
	if (rc == PvmOk)
		rc = put(name, m, flags);
	pvmi_msg_free(m);
	if (rc == PvmExists)
		rc = PvmDupEntry;
	return rc < 0 ? pvmi_error("pvm_insert", rc) : rc;
}

/* Old name service: finds (`name', `req'), req -1 = any; stores its
 * integer in *data (unless data is NULL) and returns its index, or
 * PvmNoEntry. */
PVMI_EXPORT int pvm_lookup(char *name, int req, int *data)
{
	struct pvmi_msg *m;
	int mid, rc, index = req < 0 ? 0 : req;
	int flags = req < 0 ? PvmMboxFirstAvail : 0;

	if (!name || !*name || req < -1)
		return pvmi_error("pvm_lookup", PvmBadParam);
	mid = get(name, index, flags);
	if (mid < 0)
		return mid == PvmNotFound ? PvmNoEntry :
					    pvmi_error("pvm_lookup", mid);
	m = pvmi_mid_lookup(mid);
	rc = data ? pvmi_unpack(m, PVM_INT, data, 1, 1) : PvmOk;
	pvmi_mid_forget(mid);
	pvmi_msg_free(m);
	return rc < 0 ? pvmi_error("pvm_lookup", rc) : index;
}

/* Old name service: removes (`name', `req'); returns `req', as stock,
 * or PvmNoEntry. */
PVMI_EXPORT int pvm_delete(char *name, int req)
{
	int rc;

	if (!name || !*name || req < 0)
		return pvmi_error("pvm_delete", PvmBadParam);
	rc = pvm_delinfo(name, req, 0);
	if (rc == PvmOk)
		return req;
	return rc == PvmNotFound ? PvmNoEntry : rc;
}

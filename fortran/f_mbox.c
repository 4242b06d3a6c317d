/*
 * f_mbox.c - Fortran binding: the message mailbox (pvmfputinfo,
 * pvmfrecvinfo, pvmfdelinfo, pvmfgetmboxinfo).
 *
 * pvmfgetmboxinfo returns one class per call, with the indices, owners
 * and flags of its entries in three arrays the caller sizes.  This binding
 * does what the manual says: successive calls step through the classes
 * matching the pattern, info is 0 for each of them, and the call after
 * the last returns PvmNotFound and forgets the list, so the next call
 * starts over with a new pattern.  nclasses = -1 on entry restarts at
 * once.  (PVM 3.4.6's binding keeps returning the first class and leaves
 * info unset; a program that relied on that would loop forever there.)
 */
#include "fpvm.h"

/* pvmfputinfo(name, bufid, flags, index): stores message buffer bufid in
 * the mailbox under name; index gets its index or an error code. */
FPVM_EXPORT void pvmfputinfo_(char *name, int *bufid, int *flags, int *index,
			      size_t namelen)
{
	char cname[FPVM_NAMELEN + 1];

	if (fpvmi_fstr_in(cname, sizeof(cname), name, namelen))
		*index = PvmBadParam;
	else
		*index = pvm_putinfo(cname, *bufid, *flags);
}

/* pvmfrecvinfo(name, index, flags, bufid): fetches a copy of entry
 * (name, index) into a new buffer; bufid is its id or an error code. */
FPVM_EXPORT void pvmfrecvinfo_(char *name, int *index, int *flags,
			       int *bufid, size_t namelen)
{
	char cname[FPVM_NAMELEN + 1];

	if (fpvmi_fstr_in(cname, sizeof(cname), name, namelen))
		*bufid = PvmBadParam;
	else
		*bufid = pvm_recvinfo(cname, *index, *flags);
}

/* pvmfdelinfo(name, index, flags, info): removes entry (name, index);
 * info is 0 or an error code (PvmNotFound, PvmDenied). */
FPVM_EXPORT void pvmfdelinfo_(char *name, int *index, int *flags, int *info,
			      size_t namelen)
{
	char cname[FPVM_NAMELEN + 1];

	if (fpvmi_fstr_in(cname, sizeof(cname), name, namelen))
		*info = PvmBadParam;
	else
		*info = pvm_delinfo(cname, *index, *flags);
}

/* The class list pvmfgetmboxinfo steps through: pvm_getmboxinfo's own
 * array, valid until its next call. */
static struct {
	struct pvmmboxinfo *list;
	int count;		/* classes in the list */
	int next;		/* index of the class to return next */
	int active;		/* 0: no list, take one */
} mbox_snap;

/* Copies `n' ints from `src' to `dst' (either may be NULL). */
static void copy_ints(int *dst, const int *src, int n)
{
	int i;

	if (!dst || !src)
		return;
	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

/* pvmfgetmboxinfo(pattern, name, nclasses, nentries, index, owner, flags,
 * info): the next mailbox class matching pattern; info is 0, PvmNotFound
 * after the last class, or an error code. */
FPVM_EXPORT void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses,
				  int *nentries, int *index, int *owner,
				  int *flags, int *info, size_t patternlen,
				  size_t namelen)
{
	struct pvmmboxinfo *c;

	if (nclasses && *nclasses == -1)
		mbox_snap.active = 0;
	if (!mbox_snap.active) {
		char cpat[FPVM_NAMELEN + 1];
		int n = 0, rc;

		if (fpvmi_fstr_in(cpat, sizeof(cpat), pattern, patternlen)) {
			*info = PvmBadParam;
			return;
		}
		rc = pvm_getmboxinfo(cpat, &n, &mbox_snap.list);
		if (rc < 0) {
			*info = rc;
			return;
		}
		mbox_snap.count = n;
		mbox_snap.next = 0;
		mbox_snap.active = 1;
	}
	if (mbox_snap.next >= mbox_snap.count) {
		if (nclasses)
			*nclasses = mbox_snap.count;
		*info = PvmNotFound;
		mbox_snap.active = 0;
		return;
	}
	c = &mbox_snap.list[mbox_snap.next++];
	if (nclasses)
		*nclasses = mbox_snap.count;
	if (name)
		fpvmi_fstr_out(name, namelen, c->mi_name);
	if (nentries)
		*nentries = c->mi_nentries;
	copy_ints(index, c->mi_indices, c->mi_nentries);
	copy_ints(owner, c->mi_owners, c->mi_nentries);
	copy_ints(flags, c->mi_flags, c->mi_nentries);
	*info = PvmOk;
}

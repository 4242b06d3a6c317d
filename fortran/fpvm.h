/*
 * fpvm.h - internal interface of libfpvm3, copvm's Fortran 77 binding.
 *
 * Every pvmf* routine is a C function named the way gfortran names an
 * external procedure: lower case with a trailing underscore.  Fortran
 * passes every argument by reference, so integers arrive as int *, and
 * for each CHARACTER argument it appends the string's length, as a
 * size_t, after the last ordinary argument (in the order the strings
 * appear).  Fortran strings are not NUL-terminated but padded with
 * blanks to their declared length; the helpers below convert between
 * the two forms.  The routines forward to libpvm3 (and libgpvm3 for the
 * group routines) and store the C result in the status argument.
 *
 * The prototypes of all exported routines are here so that the unit
 * tests can call them from C.
 */
#ifndef COPVM_FPVM_H
#define COPVM_FPVM_H

#include <stddef.h>
#include "pvm3.h"

#if defined(__GNUC__)
#define FPVM_EXPORT __attribute__((visibility("default")))
#else
#define FPVM_EXPORT
#endif

/* Longest names PVM 3.4.6's binding accepts, without the NUL: host,
 * task, architecture and mailbox names, and group names. */
#define FPVM_NAMELEN	256
#define FPVM_GROUPLEN	31

/* Copies Fortran string `f' (length `flen') without its trailing
 * blanks into `buf' of `size' bytes.  Returns 0, or -1 if it does not fit. */
int fpvmi_fstr_in(char *buf, size_t size, const char *f, size_t flen);

/* Stores C string `s' (NULL: empty) in Fortran string `f' of length
 * `flen', cut to `flen' or padded with blanks. */
void fpvmi_fstr_out(char *f, size_t flen, const char *s);

/* Sleeps `secs' seconds; libpvm3 exports it without declaring it. */
int pvmsleep(int secs);

/* The string helpers PVM 3.4.6's libfpvm3 exports under these names. */
int ftocstr(char *dst, int dstlen, char *src, int srclen);
int ctofstr(char *dst, int dstlen, char *src);

/* f_tasks.c: tasks, spawning, signals and output. */
void pvmfmytid_(int *tid);
void pvmfparent_(int *tid);
void pvmfexit_(int *info);
void pvmfspawn_(char *task, int *flag, char *where, int *ntask, int *tids,
		int *numt, size_t tasklen, size_t wherelen);
void pvmfkill_(int *tid, int *info);
void pvmfsendsig_(int *tid, int *signum, int *info);
void pvmfpstat_(int *tid, int *status);
void pvmfsiblings_(int *ntids, int *index, int *sibling);
void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid,
		int *flag, char *aout, int *info, size_t aoutlen);
void pvmftidtohost_(int *tid, int *dtid);
void pvmfnotify_(int *what, int *msgtag, int *cnt, int *tids, int *info);
void pvmfcatchout_(int *onoff, int *info);

/* f_vm.c: the virtual machine, its hosts, options and errors. */
void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch,
		 int *speed, int *info, size_t namelen, size_t archlen);
void pvmfaddhost_(char *host, int *info, size_t hostlen);
void pvmfdelhost_(char *host, int *info, size_t hostlen);
void pvmfmstat_(char *host, int *mstat, size_t hostlen);
void pvmfarchcode_(char *arch, int *cod, size_t archlen);
void pvmfhostsync_(int *host, int *clksec, int *clkusec, int *deltasec,
		   int *deltausec, int *info);
void pvmfhalt_(int *info);
void pvmfstartpvmd_(char *args, int *block, int *info, size_t argslen);
void pvmfgetopt_(int *what, int *val);
void pvmfsetopt_(int *what, int *val, int *oldval);
void pvmfperror_(char *msg, int *info, size_t msglen);
void pvmfsleep_(int *secs);

/* f_pack.c: message buffers, packing and unpacking. */
void pvmfinitsend_(int *encoding, int *bufid);
void pvmfmkbuf_(int *encoding, int *bufid);
void pvmffreebuf_(int *bufid, int *info);
void pvmfgetsbuf_(int *bufid);
void pvmfgetrbuf_(int *bufid);
void pvmfsetsbuf_(int *bufid, int *oldbuf);
void pvmfsetrbuf_(int *bufid, int *oldbuf);
void pvmfbufinfo_(int *bufid, int *bytes, int *msgtag, int *tid, int *info);
void pvmfpack_(int *what, void *xp, int *nitem, int *stride, int *info);
void pvmfunpack_(int *what, void *xp, int *nitem, int *stride, int *info);

/* f_msg.c: sending, receiving, contexts and message handlers. */
void pvmfsend_(int *tid, int *msgtag, int *info);
void pvmfmcast_(int *ntask, int *tids, int *msgtag, int *info);
void pvmfrecv_(int *tid, int *msgtag, int *bufid);
void pvmfnrecv_(int *tid, int *msgtag, int *bufid);
void pvmftrecv_(int *tid, int *msgtag, int *sec, int *usec, int *bufid);
void pvmfprobe_(int *tid, int *msgtag, int *bufid);
void pvmfpsend_(int *tid, int *msgtag, void *buf, int *len, int *datatype,
		int *info);
void pvmfprecv_(int *tid, int *msgtag, void *buf, int *len, int *datatype,
		int *atid, int *atag, int *alen, int *info);
void pvmfnewcontext_(int *ctx);
void pvmfsetcontext_(int *new_ctx, int *old_ctx);
void pvmfgetcontext_(int *ctx);
void pvmffreecontext_(int *ctx, int *info);
void pvmfaddmhf_(int *src, int *tag, int *ctx, int *unused,
		 int (*func)(int), int *info);
void pvmfdelmhf_(int *mhid, int *info);

/* f_mbox.c: the message mailbox. */
void pvmfputinfo_(char *name, int *bufid, int *flags, int *index,
		  size_t namelen);
void pvmfrecvinfo_(char *name, int *index, int *flags, int *bufid,
		   size_t namelen);
void pvmfdelinfo_(char *name, int *index, int *flags, int *info,
		  size_t namelen);
void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses,
		      int *nentries, int *index, int *owner, int *flags,
		      int *info, size_t patternlen, size_t namelen);

/* f_group.c: dynamic groups (needs libgpvm3). */
typedef void (*fpvm_reduce_fn)(int *, void *, void *, int *, int *);

void pvmfjoingroup_(char *group, int *inum, size_t grouplen);
void pvmflvgroup_(char *group, int *info, size_t grouplen);
void pvmfgetinst_(char *group, int *tid, int *inum, size_t grouplen);
void pvmfgettid_(char *group, int *inum, int *tid, size_t grouplen);
void pvmfgsize_(char *group, int *size, size_t grouplen);
void pvmfbarrier_(char *group, int *count, int *info, size_t grouplen);
void pvmfbcast_(char *group, int *msgtag, int *info, size_t grouplen);
void pvmffreezegroup_(char *group, int *size, int *info, size_t grouplen);
void pvmfreduce_(fpvm_reduce_fn func, void *data, int *count, int *datatype,
		 int *msgtag, char *group, int *rootginst, int *info,
		 size_t grouplen);
void pvmfgather_(void *result, void *data, int *count, int *datatype,
		 int *msgtag, char *group, int *rootginst, int *info,
		 size_t grouplen);
void pvmfscatter_(void *result, void *data, int *count, int *datatype,
		  int *msgtag, char *group, int *rootginst, int *info,
		  size_t grouplen);
void pvmmax_(int *datatype, void *x, void *y, int *num, int *info);
void pvmmin_(int *datatype, void *x, void *y, int *num, int *info);
void pvmsum_(int *datatype, void *x, void *y, int *num, int *info);
void pvmproduct_(int *datatype, void *x, void *y, int *num, int *info);

#endif /* COPVM_FPVM_H */

/*
 * compat.h - stock libpvm3's exports beside the documented pvm_* API
 * (lib/compat/, one file per concern) that pvm3.h does not declare, and
 * the internal helpers the rest of the library uses.  The loggers have
 * their own header, compat/log.h.
 */
#ifndef COPVM_COMPAT_H
#define COPVM_COMPAT_H

#include <netinet/in.h>
#include <sys/time.h>

/* data.c: copies the task's state into stock's global variables
 * (pvmmytid, pvmmyctx, ...); runs after any change of that state. */
void pvmi_compat_sync(void);
/* data.c: the name set with pvmsettaskname() (stock's global), or
 * NULL. */
extern char *pvmmytaskname;
/* data.c: stock's index of this task in the no-reset mailbox class. */
extern int pvmnoresetindex;

/* fds.c: adds `fd' to the watched descriptors when bit 1 of `sets' is
 * set.  Returns 0, PvmBadParam or PvmNoMem. */
int pvm_fd_add(int fd, int sets);
/* fds.c: removes `fd' from them when bit 1 of `sets' is set.
 * Returns 0 or PvmBadParam. */
int pvm_fd_delete(int fd, int sets);

/* alloc.c: malloc wrappers; i_* and pvm_* blocks mix freely.  The
 * allocators return the block or NULL; the others 0. */
char *i_malloc(unsigned n);
int i_free(char *p);
char *i_realloc(char *p, unsigned n);
int i_dump(int how);
void i_choke(void);
char *pvm_alloc(unsigned n);
char *pvm_realloc(char *p, unsigned n);
int pvm_free(char *p);

/* paths.c: installation paths, static strings the caller must not free
 * (pvmgettmp, pvmgetrsh and pvmtmpnam are in pvm3.h). */
char *pvmgetroot(void);
char *pvmgethome(void);
char *pvmgetpvmd(void);
char *pvmdsockfile(void);
/* paths.c: this host's data signature, as pvm_config() reports it. */
int pvmgetdsig(void);

/* env.c: exits when `uid' is root without $PVM_ALLOW_ROOT. */
void pvmchkuid(int uid);
/* env.c: environment lists.  0 or -1 (pvmcopyenv: the list or NULL). */
int pvmputenv(char *s);
char **pvmcopyenv(char **ep);
int pvmenvinsert(char ***anep, char *s);
int pvmfreeenv(char **ep);
/* env.c: gettimeofday() and sleep() as stock calls them. */
int pvmgetclock(struct timeval *tm);
int pvmsleep(int secs);

/* text.c: numbers, patterns, tag and debug names, addresses as text. */
int pvmxtoi(char *p);
int pvmstrtoi(char *p);
int pvmmatchstring(char *str, char *pattern);
char *pvmnametag(int tag, int *found);
char *debug_flags(int mask);
void hex_inadport(char *s, struct sockaddr_in *sad);
char *inadport_hex(struct sockaddr_in *sad);
char *inadport_decimal(struct sockaddr_in *sad);

/* bytes.c: big-endian stores (return 0) and loads, and CRC-32. */
int pvmput32(char *p, int n);
int pvmput16(char *p, int n);
int pvmput8(char *p, int n);
int pvmget32(char *p);
int pvmget16(char *p);
int pvmget8(char *p);
unsigned int pvmcrcappend(char *buf, int len, unsigned int crc);

/* tasks.c: enrol and leave with stock's globals kept, name the task,
 * the console's reset.  0 or a negative error code. */
int pvmbeatask(void);
int pvmendtask(void);
int pvmsettaskname(char *name);
int pvmreset(int mytid, int killtasks, char *class, int index);

/* messages.c: stock's message helpers.  0 (mroute: 1 on input) or a
 * negative error code; msendrecv returns the reply's buffer id. */
int pvmupkstralloc(char **ss);
int pvmmcast(int mid, int *tids, int count, int tag);
int mroute(int mid, int dtid, int code, struct timeval *tmout);
int msendrecv(int other, int code, int context);

#endif /* COPVM_COMPAT_H */

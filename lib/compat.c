/*
 * compat.c - the helper functions stock libpvm3 exports besides the
 * documented pvm_* API: allocation wrappers, installation paths and
 * environment lists, number and address text, big-endian byte access,
 * CRC-32, and a few task-level entry points that
 * stock programs (the console, libgpvm3, resource managers) call by name.
 *
 * Everything here is built on copvm's own internals; where stock behaviour
 * depends on machinery copvm does not have (pvmd-side hosters, taskers,
 * tracers and the pvmd "tickle" debug call) the function says so by
 * returning PvmNotImpl.  The exported data symbols live in compat_data.c;
 * the stubs for stock's private structures in compat_trace.c.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

#include "compat/log.h"
#include "conn.h"
#include "msg.h"
#include "proto.h"
#include "pvmi.h"
#include "task.h"
#include "transport/transport.h"

#ifndef COPVM_PVM_ROOT
#define COPVM_PVM_ROOT		"/usr/local/lib/copvm"
#endif
#ifndef COPVM_BINDIR
#define COPVM_BINDIR		"/usr/local/bin"
#endif

/* Defined in compat_data.c: stock's global of the same name, and the
 * function that copies the task's state into stock's globals. */


/* The extra descriptors registered with pvm_fd_add(); *fds points at
 * them, the count is returned.  pvm_getfds() should report them too. */

/*
 * Allocation.  Stock routes its allocations through a checking allocator
 * (i_malloc and friends); copvm's are plain malloc wrappers, so memory
 * from either family may be released by the other.
 */

/* Allocates `n' bytes (at least one, so NULL always means failure).
 * Returns the block or NULL. */
PVMI_EXPORT char *i_malloc(unsigned n)
{
	return malloc(n ? n : 1);
}

/* Frees a block from i_malloc()/i_realloc(); NULL is ignored.
 * Always returns 0. */
PVMI_EXPORT int i_free(char *p)
{
	free(p);
	return 0;
}

/* Resizes block `p' (NULL: a new block) to `n' bytes.
 * Returns the block or NULL, leaving `p' intact on failure. */
PVMI_EXPORT char *i_realloc(char *p, unsigned n)
{
	if (!p)
		return i_malloc(n);
	return realloc(p, n ? n : 1);
}

/* Would print the checking allocator's heap; copvm keeps no such heap.
 * Prints nothing and returns 0. */
PVMI_EXPORT int i_dump(int how)
{
	return 0;
}

/* Called by stock's allocator on a corrupt heap: reports and aborts.
 * Does not return. */
PVMI_EXPORT void i_choke(void)
{
	fputs("libpvm: heap corruption detected, aborting\n", stderr);
	abort();
}

/* Allocates `n' bytes, logging a line when memory is exhausted.
 * Returns the block or NULL. */
PVMI_EXPORT char *pvm_alloc(unsigned n)
{
	char *p = i_malloc(n);

	if (!p)
		pvmlogprintf("pvm_alloc(): no memory for %u bytes\n", n);
	return p;
}

/* Resizes a pvm_alloc() block, logging a line on failure.
 * Returns the block or NULL (the old block then stays valid). */
PVMI_EXPORT char *pvm_realloc(char *p, unsigned n)
{
	char *q = i_realloc(p, n);

	if (!q)
		pvmlogprintf("pvm_realloc(): no memory for %u bytes\n", n);
	return q;
}

/* Releases a pvm_alloc() block.
 * Always returns 0. */
PVMI_EXPORT int pvm_free(char *p)
{
	return i_free(p);
}

/*
 * Installation paths and the task environment.
 */

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

/* The top of the PVM installation: $PVM_ROOT, else the configured one.
 * Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgetroot(void)
{
	return (char *)env_or("PVM_ROOT", COPVM_PVM_ROOT);
}

/* The directory for PVM's temporary files: $PVM_TMP, else /tmp.
 * Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgettmp(void)
{
	return (char *)env_or("PVM_TMP", "/tmp");
}

/* The remote shell used to start pvmds on other hosts: $PVM_RSH, else
 * "ssh".  Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgetrsh(void)
{
	return (char *)env_or("PVM_RSH", "ssh");
}

/* The user's home directory: $HOME, the password entry, or "/".
 * Returns a string the caller must not free. */
PVMI_EXPORT char *pvmgethome(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h)
		return (char *)h;
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir)
		return pw->pw_dir;
	return "/";
}

/* The pvmd program the library starts: $COPVM_PVMD, else copvm's
 * pvmd at $PVM_ROOT/lib/pvmd or in bindir (pvmd_start.c).  Returns a
 * static string. */
PVMI_EXPORT char *pvmgetpvmd(void)
{
	static char path[PATH_MAX];

	pvmi_pvmd_path(path, sizeof(path));
	return path;
}

/* Where the local pvmd listens for its tasks (a socket, not a file with
 * an address as in stock).  Returns a static string. */
PVMI_EXPORT char *pvmdsockfile(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", pvmi_rundir(), PVMI_DAEMON_SOCK);
	return path;
}

/* Builds a fresh file name under pvmgettmp() in `buf' (PVMTMPNAMLEN
 * bytes; NULL: a static buffer).  Returns it, or NULL if it cannot fit. */
PVMI_EXPORT char *pvmtmpnam(char *buf)
{
	static char scratch[PVMTMPNAMLEN];
	static unsigned serial;
	int n;

	if (!buf)
		buf = scratch;
	n = snprintf(buf, PVMTMPNAMLEN, "%s/pvmtmp%d.%u", pvmgettmp(),
		     (int)getpid(), serial++);
	if (n < 0 || n >= PVMTMPNAMLEN) {
		pvmlogprintf("pvmtmpnam(): PVM_TMP too long for %d bytes\n",
			     PVMTMPNAMLEN);
		buf[0] = '\0';
		return NULL;
	}
	return buf;
}

/* The data signature of this host's native data format (the value
 * pvm_config() reports as hi_dsig).  Returns it. */
PVMI_EXPORT int pvmgetdsig(void)
{
	return PVMI_DSIG;
}

/* Refuses to run PVM as root, as stock does, unless $PVM_ALLOW_ROOT is
 * set: for uid 0 it prints why and exits with status 1. */
PVMI_EXPORT void pvmchkuid(int uid)
{
	if (uid != 0 || getenv("PVM_ALLOW_ROOT"))
		return;
	fputs("libpvm: refusing to run PVM as root: remote hosts usually "
	      "cannot be added and\nthe daemon's files become root's.  Run "
	      "as a regular user, or set PVM_ALLOW_ROOT\nif you accept the "
	      "risks.\n", stderr);
	exit(1);
}

/* Adds or replaces "NAME=value" string `s' in the process environment;
 * `s' becomes part of it and must stay valid.  Returns 0 or -1. */
PVMI_EXPORT int pvmputenv(char *s)
{
	const char *eq = s ? strchr(s, '=') : NULL;

	if (!eq || eq == s)
		return -1;
	return putenv(s) ? -1 : 0;
}

/* Copies environment list `ep' (NULL: an empty list), strings included.
 * Returns the new NULL-terminated list or NULL when out of memory. */
PVMI_EXPORT char **pvmcopyenv(char **ep)
{
	size_t n = 0, i;
	char **out;

	while (ep && ep[n])
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		out[i] = strdup(ep[i]);
		if (!out[i]) {
			while (i-- > 0)
				free(out[i]);
			free(out);
			return NULL;
		}
	}
	return out;
}

/* Puts a copy of "NAME=value" `s' into pvmcopyenv() list *anep, replacing
 * NAME or appending (*anep may move).  Returns 0, or -1 (bad `s', no mem). */
PVMI_EXPORT int pvmenvinsert(char ***anep, char *s)
{
	const char *eq = s ? strchr(s, '=') : NULL;
	size_t name = eq ? (size_t)(eq - s) + 1 : 0, n;
	char **ep, **grown, *copy;

	if (!anep || !*anep || !eq)
		return -1;
	ep = *anep;
	copy = strdup(s);
	if (!copy)
		return -1;
	for (n = 0; ep[n]; n++) {
		if (!strncmp(ep[n], s, name)) {
			free(ep[n]);
			ep[n] = copy;
			return 0;
		}
	}
	grown = realloc(ep, (n + 2) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return -1;
	}
	grown[n] = copy;
	grown[n + 1] = NULL;
	*anep = grown;
	return 0;
}

/* Frees a list made by pvmcopyenv()/pvmenvinsert() and its strings.
 * Always returns 0. */
PVMI_EXPORT int pvmfreeenv(char **ep)
{
	size_t i;

	for (i = 0; ep && ep[i]; i++)
		free(ep[i]);
	free(ep);
	return 0;
}

/*
 * Numbers, patterns and names as text.
 */

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Reads hexadecimal digits (an optional 0x/0X first) up to the first
 * other character.  Returns the value, 0 when there are no digits. */
PVMI_EXPORT int pvmxtoi(char *p)
{
	unsigned v = 0;
	int d;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; (d = hex_digit((unsigned char)*p)) >= 0; p++)
		v = v << 4 | (unsigned)d;
	return (int)v;
}

/* Reads an integer the C way: 0x... hexadecimal, 0... octal, otherwise
 * decimal with optional blanks and sign.  Returns the value. */
PVMI_EXPORT int pvmstrtoi(char *p)
{
	unsigned v = 0;

	if (p[0] != '0')
		return (int)strtol(p, NULL, 10);
	if (p[1] == 'x' || p[1] == 'X')
		return pvmxtoi(p);
	for (p++; *p >= '0' && *p <= '7'; p++)
		v = v << 3 | (unsigned)(*p - '0');
	return (int)v;
}

/* Does `p' match at the very start of `s'?  '*' stands for any run of
 * characters and "\*" for a star; the pattern need not reach the end. */
static int match_here(const char *s, const char *p)
{
	for (;;) {
		if (!*p)
			return 1;
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return 1;
			for (; *s; s++)
				if (match_here(s, p))
					return 1;
			return 0;
		}
		if (p[0] == '\\' && p[1] == '*')
			p++;
		if (*s != *p)
			return 0;
		s++;
		p++;
	}
}

/* Looks for `pattern' anywhere in `str'; '*' in the pattern matches any
 * run of characters, "\*" a literal star.  Returns 1 if found, else 0. */
PVMI_EXPORT int pvmmatchstring(char *str, char *pattern)
{
	const char *s;

	if (!str || !pattern)
		return 0;
	for (s = str;; s++) {
		if (match_here(s, pattern))
			return 1;
		if (!*s)
			return 0;
	}
}

/* Reserved message tags, by protocol: daemon requests of tasks (TM),
 * between daemons (DM), between tasks (TC) and scheduler traffic (SM). */
static const char *const tags_tm[] = {
	"TM_CONNECT", "TM_CONN2", "TM_EXIT", "TM_ADDHOST", "TM_DELHOST",
	"TM_CONFIG", "TM_MSTAT", "TM_HALT", "TM_TICKLE", "TM_SPAWN",
	"TM_PSTAT", "TM_SENDSIG", "TM_TASK", "TM_MCA", "TM_NOTIFY", "TM_DB",
	"TM_SCHED", "TM_TASKER", "TM_HOSTER", "TM_TRACER", "TM_HOSTSYNC",
	"TM_SETOPT", "TM_GETOPT", "TM_CONTEXT", "TM_SHMCONN",
};
static const char *const tags_dm[] = {
	"DM_ADD", "DM_ADDACK", "DM_EXEC", "DM_EXECACK", "DM_SENDSIG",
	"DM_HTUPD", "DM_HTUPDACK", "DM_HTCOMMIT", "DM_SLCONF", "DM_STARTACK",
	"DM_TASK", "DM_TASKACK", "DM_DELHOST", "DM_DELHOSTACK", "DM_NULL",
	"DM_TASKOUT", "DM_PSTAT", "DM_PSTATACK", "DM_HALT", "DM_MCA",
	"DM_NOTIFY", "DM_NOTIFYACK", "DM_DB", "DM_DBACK", "DM_RESET",
	"DM_RESETACK", "DM_HTDEL", "DM_HOSTSYNC", "DM_HOSTSYNCACK",
};
static const char *const tags_tc[] = {
	"TC_CONREQ", "TC_CONACK", "TC_TASKEXIT", "TC_NOOP", "TC_OUTPUT",
	"TC_SETTRACE", "TC_SETTMASK", "TC_SETTRCBUF", "TC_SETTRCOPT",
	"TC_SHMAT", "TC_OUTPUTX", "TC_SIBLINGS",
};
static const char *const tags_sm[] = {
	"SM_SPAWN", "SM_EXEC", "SM_EXECACK", "SM_TASK", "SM_CONFIG",
	"SM_ADDHOST", "SM_DELHOST", "SM_ADD", "SM_ADDACK", "SM_NOTIFY",
	"SM_TASKX", "SM_HOSTX", "SM_HANDOFF", "SM_SCHED", "SM_STHOST",
	"SM_STHOSTACK", "SM_STTASK",
};

#define TAGS(first, tab)	{ first, tab, sizeof(tab) / sizeof(tab[0]) }

static const struct tag_range {
	uint32_t first;		/* tag of tab[0] */
	const char *const *tab;
	uint32_t n;
} tag_ranges[] = {
	TAGS(0x80010001u, tags_tm),
	TAGS(0x80020001u, tags_dm),
	TAGS(0x80030001u, tags_tc),
	TAGS(0x80040001u, tags_sm),
};

/* Names reserved message tag `tag' ("TM_SPAWN"); other tags come back in
 * decimal in a static buffer.  Sets *found (if given) to 1 or 0. */
PVMI_EXPORT char *pvmnametag(int tag, int *found)
{
	static char buf[16];
	uint32_t t = (uint32_t)tag;
	size_t i;

	for (i = 0; i < sizeof(tag_ranges) / sizeof(tag_ranges[0]); i++) {
		const struct tag_range *r = &tag_ranges[i];

		if (t >= r->first && t - r->first < r->n) {
			if (found)
				*found = 1;
			return (char *)r->tab[t - r->first];
		}
	}
	if (found)
		*found = 0;
	snprintf(buf, sizeof(buf), "%d", tag);
	return buf;
}

/* Bits of the PvmDebugMask option, lowest first. */
static const char *const debug_names[] = {
	"pkt", "msg", "tsk", "slv", "hst", "sel", "net", "mpp",
	"sch", "app", "wai", "mem", "sem", "lck", "rtg", "mbx",
};

/* Spells debug mask `mask' as a comma-separated list of flag names.
 * Returns a static string ("" for no known bit). */
PVMI_EXPORT char *debug_flags(int mask)
{
	static char buf[sizeof(debug_names) / sizeof(debug_names[0]) * 4];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(debug_names) / sizeof(debug_names[0]); i++) {
		if (!(mask & (1 << i)))
			continue;
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				len ? "," : "", debug_names[i]);
	}
	return buf;
}

/* Parses "aaaaaaaa:pppp" (hex IPv4 address and port; no port: 0) into the
 * address and port of `sad', leaving its other fields alone. */
PVMI_EXPORT void hex_inadport(char *s, struct sockaddr_in *sad)
{
	const char *colon = strchr(s, ':');

	sad->sin_addr.s_addr = htonl((uint32_t)pvmxtoi(s));
	sad->sin_port = htons(colon ? (uint16_t)pvmxtoi((char *)colon + 1) : 0);
}

/* Formats the address and port of `sad' as "aaaaaaaa:pppp" in hex, the
 * form hex_inadport() reads.  Returns a static string. */
PVMI_EXPORT char *inadport_hex(struct sockaddr_in *sad)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "%08x:%04x",
		 (unsigned)ntohl(sad->sin_addr.s_addr),
		 (unsigned)ntohs(sad->sin_port));
	return buf;
}

/* Formats the address and port of `sad' as "a.b.c.d:port".
 * Returns a static string. */
PVMI_EXPORT char *inadport_decimal(struct sockaddr_in *sad)
{
	static char buf[24];
	uint32_t a = ntohl(sad->sin_addr.s_addr);

	snprintf(buf, sizeof(buf), "%u.%u.%u.%u:%u", a >> 24, a >> 16 & 0xff,
		 a >> 8 & 0xff, a & 0xff, (unsigned)ntohs(sad->sin_port));
	return buf;
}

/*
 * Big-endian byte access and checksums.
 */

/* Stores the low 32 bits of `n' at `p', most significant byte first.
 * Returns 0. */
PVMI_EXPORT int pvmput32(char *p, int n)
{
	uint32_t v = htobe32((uint32_t)n);

	memcpy(p, &v, 4);
	return 0;
}

/* Stores the low 16 bits of `n' at `p', most significant byte first.
 * Returns 0. */
PVMI_EXPORT int pvmput16(char *p, int n)
{
	uint16_t v = htobe16((uint16_t)n);

	memcpy(p, &v, 2);
	return 0;
}

/* Stores the low 8 bits of `n' at `p'.
 * Returns 0. */
PVMI_EXPORT int pvmput8(char *p, int n)
{
	*p = (char)n;
	return 0;
}

/* Reads a big-endian 32-bit value at `p'.
 * Returns it as a (possibly negative) int. */
PVMI_EXPORT int pvmget32(char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (int)be32toh(v);
}

/* Reads a big-endian 16-bit value at `p'.
 * Returns it, 0..65535. */
PVMI_EXPORT int pvmget16(char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

/* Reads the byte at `p'.
 * Returns it, 0..255. */
PVMI_EXPORT int pvmget8(char *p)
{
	return (unsigned char)*p;
}

/* Feeds `len' bytes at `buf' into running CRC-32 value `crc' (no pre- or
 * post-inversion).  Returns the new running value. */
PVMI_EXPORT unsigned int pvmcrcappend(char *buf, int len, unsigned int crc)
{
	/* The IEEE 802.3 polynomial, bit-reflected: the usual CRC-32 of a
	 * buffer is ~pvmcrcappend(buf, len, ~0u). */
	static uint32_t table[256];
	const unsigned char *p = (const unsigned char *)buf;
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = (uint32_t)i;
			for (k = 0; k < 8; k++)
				c = (c >> 1) ^ (0xedb88320u & -(c & 1));
			table[i] = c;
		}
	}
	c = crc;
	while (len-- > 0)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

/* Reads the clock the library uses for time stamps into *tm.
 * Returns 0, or -1 with errno set. */
PVMI_EXPORT int pvmgetclock(struct timeval *tm)
{
	return gettimeofday(tm, NULL);
}

/* Sleeps `secs' seconds.
 * Returns the seconds left when a signal cut the sleep short, else 0. */
PVMI_EXPORT int pvmsleep(int secs)
{
	return secs > 0 ? (int)sleep((unsigned)secs) : 0;
}

/*
 * Task-level entry points.
 */

/* Enrols the caller if it is not yet (as any PVM call does) and publishes
 * its identity in stock's globals.  Returns 0 or a negative error code. */
PVMI_EXPORT int pvmbeatask(void)
{
	int rc = pvmi_attach();

	pvmi_compat_sync();
	return rc;
}

/* Leaves the virtual machine as pvm_exit() does and resets stock's
 * globals.  Returns 0. */
PVMI_EXPORT int pvmendtask(void)
{
	pvm_exit();
	pvmi_compat_sync();
	return 0;
}

/* Names the task before it enrols (in pvmmytaskname).  Returns 0, or
 * PvmBadParam (NULL), PvmExists (already enrolled) or PvmNoMem. */
PVMI_EXPORT int pvmsettaskname(char *name)
{
	char *copy;

	if (!name)
		return pvmi_error("pvmsettaskname", PvmBadParam);
	if (pvmi_attached())
		return pvmi_error("pvmsettaskname", PvmExists);
	copy = strdup(name);
	if (!copy)
		return pvmi_error("pvmsettaskname", PvmNoMem);
	free(pvmmytaskname);
	pvmmytaskname = copy;
	return 0;
}

/* Points *tids (valid until the next call) at the *ntids tasks that asked
 * to survive a reset.  Returns PvmOk or a negative error code. */
PVMI_EXPORT int pvm_getnoresets(int **tids, int *ntids)
{
	/* They are the owners of entries in mailbox class PVMNORESETCLASS,
	 * which is how pvm_setopt(PvmNoReset) registers a task. */
	static int *list;
	static int cap;
	struct pvmmboxinfo *cl;
	int ncl, i, j, k, n = 0, rc;

	rc = pvm_getmboxinfo(PVMNORESETCLASS, &ncl, &cl);
	if (rc < 0)
		return rc;
	for (i = 0; i < ncl; i++) {
		if (strcmp(cl[i].mi_name, PVMNORESETCLASS))
			continue;
		if (n + cl[i].mi_nentries > cap) {
			int *grown = realloc(list, (n + cl[i].mi_nentries) *
						   sizeof(*list));

			if (!grown)
				return pvmi_error("pvm_getnoresets", PvmNoMem);
			list = grown;
			cap = n + cl[i].mi_nentries;
		}
		for (j = 0; j < cl[i].mi_nentries; j++) {
			int tid = cl[i].mi_owners[j];

			for (k = 0; k < n && list[k] != tid; k++)
				;
			if (tid > 0 && k == n)
				list[n++] = tid;
		}
	}
	if (tids)
		*tids = list;
	if (ntids)
		*ntids = n;
	return PvmOk;
}

/* The console's "reset": with `killtasks', kills all tasks but `mytid', the
 * caller and pvm_getnoresets()'s.  Returns 0 or pvm_tasks()' error. */
PVMI_EXPORT int pvmreset(int mytid, int killtasks, char *class, int index)
{
	/* Stock also has the pvmd wipe mailbox class `class' from `index'
	 * on; copvm's pvmd has no such request, so the mailbox stays. */
	struct pvmtaskinfo *ti;
	int *keep = NULL, nkeep = 0, ntask, i, k, rc;

	if (!killtasks)
		return 0;
	rc = pvm_tasks(0, &ntask, &ti);
	if (rc < 0)
		return rc;
	if (pvm_getnoresets(&keep, &nkeep) < 0)
		nkeep = 0;
	for (i = 0; i < ntask; i++) {
		int tid = ti[i].ti_tid;

		if (tid <= 0 || !PVMI_TID_LOCAL(tid) || tid == mytid ||
		    tid == pvmi.mytid)
			continue;
		for (k = 0; k < nkeep && keep[k] != tid; k++)
			;
		if (k == nkeep)
			pvm_kill(tid);
	}
	return 0;
}

/* Descriptors added with pvm_fd_add(), in the order added. */
static int *extra_fds;
static int n_extra_fds;
static int cap_extra_fds;

/* Adds `fd' to the descriptors watched for input if bit 1 of `sets' is
 * set (other bits ignored, as stock).  Returns 0, PvmBadParam or PvmNoMem. */
PVMI_EXPORT int pvm_fd_add(int fd, int sets)
{
	int i;

	if (fd < 0)
		return PvmBadParam;
	if (!(sets & 1))
		return 0;
	for (i = 0; i < n_extra_fds; i++)
		if (extra_fds[i] == fd)
			return 0;
	if (n_extra_fds == cap_extra_fds) {
		int cap = cap_extra_fds ? 2 * cap_extra_fds : 8;
		int *grown = realloc(extra_fds, cap * sizeof(*grown));

		if (!grown)
			return PvmNoMem;
		extra_fds = grown;
		cap_extra_fds = cap;
	}
	extra_fds[n_extra_fds++] = fd;
	return 0;
}

/* Removes `fd' from the watched descriptors when bit 1 of `sets' is
 * set; an fd never added is ignored.  Returns 0 or PvmBadParam. */
PVMI_EXPORT int pvm_fd_delete(int fd, int sets)
{
	int i;

	if (fd < 0)
		return PvmBadParam;
	if (!(sets & 1))
		return 0;
	for (i = 0; i < n_extra_fds; i++) {
		if (extra_fds[i] == fd) {
			memmove(extra_fds + i, extra_fds + i + 1,
				(n_extra_fds - i - 1) * sizeof(*extra_fds));
			n_extra_fds--;
			break;
		}
	}
	return 0;
}

/* Points *fds at the descriptors pvm_fd_add() registered (not a copy).
 * Returns their count. */
int pvmi_compat_fds(int **fds)
{
	*fds = extra_fds;
	return n_extra_fds;
}

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

/*
 * System services.  Stock's pvmd hands work to a registered hoster
 * (starting remote pvmds), tasker (starting tasks), resource manager
 * (scheduling) or tracer (collecting trace events).  copvm's pvmd does
 * all of this itself and never delegates, so registering would succeed
 * without the registrant ever receiving a request: these calls say so.
 */

/* Would make the caller the machine's slave-pvmd starter.
 * Returns PvmNotImpl: copvm's pvmd starts its slaves itself. */
PVMI_EXPORT int pvm_reg_hoster(void)
{
	return pvmi_error("pvm_reg_hoster", PvmNotImpl);
}

/* Would make the caller this host's task starter.
 * Returns PvmNotImpl: copvm's pvmd starts tasks itself. */
PVMI_EXPORT int pvm_reg_tasker(void)
{
	return pvmi_error("pvm_reg_tasker", PvmNotImpl);
}

/* Would make the caller the machine's resource manager (*hip: master
 * host).  Returns PvmNotImpl: copvm's pvmd schedules tasks itself. */
PVMI_EXPORT int pvm_reg_rm(struct pvmhostinfo **hip)
{
	return pvmi_error("pvm_reg_rm", PvmNotImpl);
}

/* Would make the caller the default tracer of new tasks.
 * Returns PvmNotImpl: copvm tasks do not generate trace events. */
PVMI_EXPORT int pvm_reg_tracer(int tctx, int ttag, int octx, int otag,
			       char *tmask, int tbuf, int topt)
{
	return pvmi_error("pvm_reg_tracer", PvmNotImpl);
}

/* The console's "tickle": asks the pvmd to dump tables or set debug masks.
 * Returns PvmNotImpl: copvm's pvmd has no such request (see pvmd.log). */
PVMI_EXPORT int pvm_tickle(int narg, int *argp, int *nresp, int *resp)
{
	if (nresp)
		*nresp = 0;
	return pvmi_error("pvm_tickle", PvmNotImpl);
}

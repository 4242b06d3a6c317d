/*
 * text.c - numbers, patterns and names as text: hexadecimal and C-style
 * integers, the '*' patterns of pvmmatchstring, the names of reserved
 * message tags and of debug-mask bits, and socket addresses in stock's
 * hex and dotted forms.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/compat.h"
#include "pvmi.h"

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

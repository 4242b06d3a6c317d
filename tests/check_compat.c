/*
 * check_compat.c - the stock-compatibility exports of libpvm3
 * (lib/compat/, one file per concern) as a program linked against the
 * library sees them.
 *
 * The "helpers" case needs no daemon: number and address text, byte order,
 * CRC-32, environment lists, patterns, paths, logging, string unpacking,
 * the data symbols' sizes and initial values and the stand-ins that must
 * fail.  The "task" case runs against a private pvmd (vm_fixture.c):
 * enrolment through pvmbeatask(), the no-reset list, the console's reset,
 * msendrecv(), pvmmcast() and mroute().
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/compat.h"
#include "proto.h"
#include "pvm3.h"
#include "vm_fixture.h"

/* Stock exports that pvm3.h does not declare, with stock's shapes, as a
 * program declares them: lib/compat/compat.h, included above, must
 * declare each the same way, or this does not compile. */
char *i_malloc(unsigned n);
int i_free(char *p);
char *i_realloc(char *p, unsigned n);
int i_dump(int how);
char *pvm_alloc(unsigned n);
char *pvm_realloc(char *p, unsigned n);
int pvm_free(char *p);
char *pvmgetroot(void);
char *pvmgethome(void);
char *pvmgetpvmd(void);
char *pvmdsockfile(void);
int pvmgetdsig(void);
void pvmchkuid(int uid);
int pvmputenv(char *s);
char **pvmcopyenv(char **ep);
int pvmenvinsert(char ***anep, char *s);
int pvmfreeenv(char **ep);
int pvmstrtoi(char *p);
int pvmxtoi(char *p);
int pvmmatchstring(char *str, char *pattern);
char *pvmnametag(int tag, int *found);
char *debug_flags(int mask);
void hex_inadport(char *s, struct sockaddr_in *sad);
char *inadport_hex(struct sockaddr_in *sad);
char *inadport_decimal(struct sockaddr_in *sad);
int pvmput32(char *p, int n);
int pvmput16(char *p, int n);
int pvmput8(char *p, int n);
int pvmget32(char *p);
int pvmget16(char *p);
int pvmget8(char *p);
unsigned int pvmcrcappend(char *buf, int len, unsigned int crc);
int pvmlogprintf(const char *fmt, ...);
int pvmlogerror(char *s);
int pvmlogperror(char *s);
int pvmhdump(char *cp, int n, char *pad);
int print_fdset(char *pad, int n, fd_set *f);
int pvmgetclock(struct timeval *tm);
int pvmbeatask(void);
int pvmendtask(void);
int pvmsettaskname(char *name);
int pvmreset(int mytid, int killtasks, char *class, int index);
int pvm_fd_add(int fd, int sets);
int pvm_fd_delete(int fd, int sets);
int pvmupkstralloc(char **ss);
int pvmmcast(int mid, int *tids, int count, int tag);
int mroute(int mid, int dtid, int code, struct timeval *tmout);
int msendrecv(int other, int code, int context);
void *pmsg_new(int master);
void *midtobuf(int mid);
void *umbuf_new(void);
void *fr_new(int len);
char *da_new(int len);
void da_ref(char *p);
void da_unref(char *p);
void *ttpcb_find(int tid);
void *wait_find(int wid);
void wait_delete(void *wp);
int mesg_input(void *up);
int ogm_complete(void *mp);
int tev_begin(int kind, int entry_exit);
int tev_do_trace(int kind, int entry_exit);
int pvm_tc_noop(int mid);
int pvm_tc_siblings(int mid);

extern int pvmmytid, pvmmyupid, pvm_useruid, pvmautoerr, pvmtoplvl;
extern int pvmfrgsiz, pvmudpmtu, pvmrouteopt, pvmshowtaskid, pvmnsibs;
extern int pvmnoresetindex, pvmmyptid;
extern char *pvmmytaskname;

/* The layouts of stock's trace tables (pvmtev.h). */
struct tevinfo {
	char *name;
	int desc_status;
	struct timeval mark, total;
	int count;
};
struct tevdid {
	char *did;
	char *desc;
};

/* A CRC-32 computed bit by bit, independently of the library's table. */
static unsigned crc32_bitwise(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	unsigned c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

START_TEST(strtoi_reads_c_notation)
{
	ck_assert_int_eq(pvmstrtoi("123"), 123);
	ck_assert_int_eq(pvmstrtoi("-45"), -45);
	ck_assert_int_eq(pvmstrtoi("  42"), 42);
	ck_assert_int_eq(pvmstrtoi("0x1f"), 31);
	ck_assert_int_eq(pvmstrtoi("0X1F"), 31);
	ck_assert_int_eq(pvmstrtoi("017"), 15);
	ck_assert_int_eq(pvmstrtoi("0"), 0);
	ck_assert_int_eq(pvmstrtoi("08"), 0);	/* 8 is no octal digit */
	ck_assert_int_eq(pvmstrtoi("0779"), 63);
	ck_assert_int_eq(pvmstrtoi("0xffffffff"), -1);
}
END_TEST

START_TEST(xtoi_reads_hex)
{
	ck_assert_int_eq(pvmxtoi("ff"), 255);
	ck_assert_int_eq(pvmxtoi("0xFF"), 255);
	ck_assert_int_eq(pvmxtoi("1a2B"), 0x1a2b);
	ck_assert_int_eq(pvmxtoi("12g4"), 0x12);
	ck_assert_int_eq(pvmxtoi("xyz"), 0);
	ck_assert_int_eq(pvmxtoi(""), 0);
	ck_assert_int_eq(pvmxtoi("40000"), 0x40000);
}
END_TEST

START_TEST(put_get_are_big_endian)
{
	char b[4];

	ck_assert_int_eq(pvmput32(b, 0x12345678), 0);
	ck_assert(!memcmp(b, "\x12\x34\x56\x78", 4));
	ck_assert_int_eq(pvmget32(b), 0x12345678);
	ck_assert_int_eq(pvmget16(b), 0x1234);
	ck_assert_int_eq(pvmget8(b + 3), 0x78);
	pvmput32(b, -2);
	ck_assert(!memcmp(b, "\xff\xff\xff\xfe", 4));
	ck_assert_int_eq(pvmget32(b), -2);
	ck_assert_int_eq(pvmget16(b + 2), 0xfffe);
	ck_assert_int_eq(pvmget8(b), 255);
	memset(b, 0, 4);
	ck_assert_int_eq(pvmput16(b, 0x1abcd), 0);	/* low 16 bits only */
	ck_assert(!memcmp(b, "\xab\xcd\0\0", 4));
	ck_assert_int_eq(pvmput8(b + 2, 0x1ff), 0);
	ck_assert(!memcmp(b, "\xab\xcd\xff\0", 4));
}
END_TEST

START_TEST(crc_is_crc32_without_conditioning)
{
	char buf[3000];
	unsigned s = 7, c;
	int i;

	/* The published check value of CRC-32, and zlib's value for the
	 * pangram. */
	ck_assert_uint_eq(~pvmcrcappend("123456789", 9, ~0u), 0xcbf43926u);
	ck_assert_uint_eq(~pvmcrcappend("The quick brown fox jumps over the "
					"lazy dog", 43, ~0u), 0x414fa339u);
	ck_assert_uint_eq(pvmcrcappend("", 0, 0x1234u), 0x1234u);
	ck_assert_uint_eq(pvmcrcappend("abc", -1, 0x55u), 0x55u);
	for (i = 0; i < (int)sizeof(buf); i++) {
		s = s * 1103515245u + 12345u;
		buf[i] = (char)(s >> 16);
	}
	for (i = 0; i <= (int)sizeof(buf); i += 97)
		ck_assert_uint_eq(~pvmcrcappend(buf, i, ~0u),
				  crc32_bitwise(buf, i));
	/* Appending in pieces gives the same value. */
	c = pvmcrcappend(buf, 1000, ~0u);
	c = pvmcrcappend(buf + 1000, 2000, c);
	ck_assert_uint_eq(~c, crc32_bitwise(buf, 3000));
}
END_TEST

START_TEST(inadport_round_trip)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	hex_inadport("7f000001:1f90", &sa);
	ck_assert_uint_eq(ntohl(sa.sin_addr.s_addr), 0x7f000001u);
	ck_assert_uint_eq(ntohs(sa.sin_port), 8080);
	ck_assert_str_eq(inadport_hex(&sa), "7f000001:1f90");
	ck_assert_str_eq(inadport_decimal(&sa), "127.0.0.1:8080");

	hex_inadport("C0A80A02", &sa);
	ck_assert_uint_eq(ntohl(sa.sin_addr.s_addr), 0xc0a80a02u);
	ck_assert_uint_eq(sa.sin_port, 0);
	ck_assert_str_eq(inadport_decimal(&sa), "192.168.10.2:0");

	sa.sin_addr.s_addr = htonl(0xffffffffu);
	sa.sin_port = htons(65535);
	ck_assert_str_eq(inadport_hex(&sa), "ffffffff:ffff");
	ck_assert_str_eq(inadport_decimal(&sa), "255.255.255.255:65535");
	memset(&sa, 0, sizeof(sa));
	hex_inadport("ffffffff:ffff", &sa);
	ck_assert_uint_eq(ntohs(sa.sin_port), 65535);
}
END_TEST

START_TEST(env_lists)
{
	char *init[] = { "A=1", "B=2", NULL };
	char **ep = pvmcopyenv(init), **empty = pvmcopyenv(NULL);

	ck_assert_ptr_nonnull(ep);
	ck_assert_ptr_ne(ep[0], init[0]);
	ck_assert_str_eq(ep[0], "A=1");
	ck_assert_str_eq(ep[1], "B=2");
	ck_assert_ptr_null(ep[2]);
	ck_assert_ptr_nonnull(empty);
	ck_assert_ptr_null(empty[0]);

	ck_assert_int_eq(pvmenvinsert(&ep, "A=3"), 0);	/* replaces */
	ck_assert_int_eq(pvmenvinsert(&ep, "AB=4"), 0);	/* not "A=" */
	ck_assert_int_eq(pvmenvinsert(&ep, "C="), 0);
	ck_assert_int_eq(pvmenvinsert(&ep, "noequals"), -1);
	ck_assert_int_eq(pvmenvinsert(&empty, "X=y"), 0);
	ck_assert_str_eq(ep[0], "A=3");
	ck_assert_str_eq(ep[1], "B=2");
	ck_assert_str_eq(ep[2], "AB=4");
	ck_assert_str_eq(ep[3], "C=");
	ck_assert_ptr_null(ep[4]);
	ck_assert_str_eq(empty[0], "X=y");
	ck_assert_ptr_null(empty[1]);
	ck_assert_int_eq(pvmfreeenv(ep), 0);
	ck_assert_int_eq(pvmfreeenv(empty), 0);
}
END_TEST

START_TEST(putenv_sets_process_environment)
{
	static char good[] = "COMPAT_TEST_VAR=hello";
	static char noeq[] = "COMPAT_TEST_VAR";
	static char noname[] = "=x";

	ck_assert_int_eq(pvmputenv(good), 0);
	ck_assert_str_eq(getenv("COMPAT_TEST_VAR"), "hello");
	ck_assert_int_eq(pvmputenv(noeq), -1);
	ck_assert_int_eq(pvmputenv(noname), -1);
	ck_assert_int_eq(pvmputenv(NULL), -1);
	ck_assert_str_eq(getenv("COMPAT_TEST_VAR"), "hello");
}
END_TEST

START_TEST(matchstring_finds_patterns)
{
	ck_assert_int_eq(pvmmatchstring("hello world", "world"), 1);
	ck_assert_int_eq(pvmmatchstring("hello world", "lo w"), 1);
	ck_assert_int_eq(pvmmatchstring("hello", "*ell*"), 1);
	ck_assert_int_eq(pvmmatchstring("hello", "h*o"), 1);
	ck_assert_int_eq(pvmmatchstring("xaxbxc", "a*b*c"), 1);
	ck_assert_int_eq(pvmmatchstring("hello", "ho"), 0);
	ck_assert_int_eq(pvmmatchstring("hello", "xyz"), 0);
	ck_assert_int_eq(pvmmatchstring("ab", "abc"), 0);
	ck_assert_int_eq(pvmmatchstring("abc", ""), 1);
	ck_assert_int_eq(pvmmatchstring("", "*"), 1);
	ck_assert_int_eq(pvmmatchstring("", "a"), 0);
	ck_assert_int_eq(pvmmatchstring("a*b", "a\\*b"), 1);
	ck_assert_int_eq(pvmmatchstring("axb", "a\\*b"), 0);
	ck_assert_int_eq(pvmmatchstring("aab", "ab"), 1);
	ck_assert_int_eq(pvmmatchstring("mississippi", "iss*ss"), 1);
}
END_TEST

START_TEST(nametag_and_debug_flags)
{
	int found = -1;

	ck_assert_str_eq(pvmnametag((int)0x80010001u, &found), "TM_CONNECT");
	ck_assert_int_eq(found, 1);
	ck_assert_str_eq(pvmnametag((int)0x80010019u, NULL), "TM_SHMCONN");
	ck_assert_str_eq(pvmnametag((int)0x8002001du, NULL), "DM_HOSTSYNCACK");
	ck_assert_str_eq(pvmnametag((int)0x8003000cu, NULL), "TC_SIBLINGS");
	ck_assert_str_eq(pvmnametag((int)0x8004000au, NULL), "SM_NOTIFY");
	ck_assert_str_eq(pvmnametag(5, &found), "5");
	ck_assert_int_eq(found, 0);
	found = -1;
	ck_assert_str_eq(pvmnametag((int)0x80030000u, &found), "-2147287040");
	ck_assert_int_eq(found, 0);
	ck_assert_str_eq(pvmnametag((int)0x8001001au, NULL), "-2147418086");

	ck_assert_str_eq(debug_flags(0), "");
	ck_assert_str_eq(debug_flags(3), "pkt,msg");
	ck_assert_str_eq(debug_flags(0x8000), "mbx");
	ck_assert_str_eq(debug_flags(0x10000), "");
	ck_assert_str_eq(debug_flags(0xffff),
			 "pkt,msg,tsk,slv,hst,sel,net,mpp,sch,app,wai,mem,"
			 "sem,lck,rtg,mbx");
}
END_TEST

START_TEST(paths_follow_environment)
{
	char dir[] = "/tmp/compat-root-XXXXXX", path[300], expect[300];
	int fd;

	unsetenv("PVM_TMP");
	ck_assert_str_eq(pvmgettmp(), "/tmp");
	setenv("PVM_TMP", "/var/tmp/x", 1);
	ck_assert_str_eq(pvmgettmp(), "/var/tmp/x");

	unsetenv("PVM_RSH");
	ck_assert_str_eq(pvmgetrsh(), "ssh");
	setenv("PVM_RSH", "/usr/bin/rsh", 1);
	ck_assert_str_eq(pvmgetrsh(), "/usr/bin/rsh");

	unsetenv("PVM_ROOT");
	ck_assert_str_eq(pvmgetroot(), COPVM_PVM_ROOT);
	setenv("PVM_ROOT", "/opt/pvm3", 1);
	ck_assert_str_eq(pvmgetroot(), "/opt/pvm3");

	setenv("HOME", "/home/someone", 1);
	ck_assert_str_eq(pvmgethome(), "/home/someone");
	unsetenv("HOME");
	ck_assert_ptr_nonnull(pvmgethome());

	/* pvmd: $COPVM_PVMD, $PVM_ROOT/lib/pvmd if it is copvm's (carries
	 * the marker), bindir; another PVM's pvmd is never chosen. */
	unsetenv("COPVM_PVMD");
	snprintf(expect, sizeof(expect), "%s/pvmd", COPVM_BINDIR);
	ck_assert_str_eq(pvmgetpvmd(), expect);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("PVM_ROOT", dir, 1);
	snprintf(path, sizeof(path), "%s/lib", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/lib/pvmd", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0700);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#!/bin/sh\n", 10), 10);
	ck_assert_str_eq(pvmgetpvmd(), expect);	/* not copvm's */
	ck_assert_int_eq(write(fd, PVMI_PVMD_MARKER,
			       sizeof(PVMI_PVMD_MARKER)),
			 (ssize_t)sizeof(PVMI_PVMD_MARKER));
	close(fd);
	ck_assert_str_eq(pvmgetpvmd(), path);
	setenv("COPVM_PVMD", "/somewhere/pvmd", 1);
	ck_assert_str_eq(pvmgetpvmd(), "/somewhere/pvmd");
	unlink(path);
	snprintf(path, sizeof(path), "%s/lib", dir);
	rmdir(path);
	rmdir(dir);
}
END_TEST

START_TEST(dsockfile_names_daemon_socket)
{
	char expect[300];

	setenv("PVM_TMP", "/tmp/compat-sock", 1);
	snprintf(expect, sizeof(expect), "/tmp/compat-sock/copvm-%u/pvmd.sock",
		 (unsigned)getuid());
	ck_assert_str_eq(pvmdsockfile(), expect);
	ck_assert_int_eq(pvmgetdsig(), PVMI_DSIG);
}
END_TEST

static char *capture_stderr(void (*fn)(void));

static void tmpnam_too_long(void)
{
	char buf[PVMTMPNAMLEN];

	ck_assert_ptr_null(pvmtmpnam(buf));
}

START_TEST(tmpnam_makes_fresh_names)
{
	char a[PVMTMPNAMLEN], b[PVMTMPNAMLEN], c[PVMTMPNAMLEN], *s;
	char longdir[200];

	setenv("PVM_TMP", "/tmp/compat-tmp", 1);
	ck_assert_ptr_eq(pvmtmpnam(a), a);
	ck_assert_ptr_eq(pvmtmpnam(b), b);
	ck_assert_str_ne(a, b);
	ck_assert(!strncmp(a, "/tmp/compat-tmp/", 16));
	ck_assert(!strchr(a + 16, '/'));
	s = pvmtmpnam(NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_lt(strlen(s), PVMTMPNAMLEN);
	strcpy(c, s);
	ck_assert_str_ne(c, a);
	ck_assert_str_ne(c, b);

	/* A name that cannot fit is refused (and logged) rather than cut
	 * short. */
	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	setenv("PVM_TMP", longdir, 1);
	ck_assert(strstr(capture_stderr(tmpnam_too_long), "pvmtmpnam"));
}
END_TEST

START_TEST(chkuid_lets_users_and_allowed_root_pass)
{
	pvmchkuid(1000);
	setenv("PVM_ALLOW_ROOT", "yes", 1);
	pvmchkuid(0);
}
END_TEST

START_TEST(chkuid_stops_root)
{
	int devnull = open("/dev/null", O_WRONLY);

	dup2(devnull, 2);
	unsetenv("PVM_ALLOW_ROOT");
	pvmchkuid(0);
}
END_TEST

START_TEST(allocation_wrappers)
{
	char *p = i_malloc(10), *q;

	ck_assert_ptr_nonnull(p);
	memcpy(p, "123456789", 10);
	p = i_realloc(p, 100000);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, "123456789");
	ck_assert_int_eq(i_free(p), 0);
	p = i_malloc(0);
	ck_assert_ptr_nonnull(p);
	i_free(p);
	q = i_realloc(NULL, 5);
	ck_assert_ptr_nonnull(q);
	i_free(q);
	ck_assert_int_eq(i_dump(1), 0);

	p = pvm_alloc(16);
	ck_assert_ptr_nonnull(p);
	strcpy(p, "abc");
	p = pvm_realloc(p, 64);
	ck_assert_str_eq(p, "abc");
	ck_assert_int_eq(pvm_free(p), 0);
}
END_TEST

/* Runs `fn' with stderr going to a file; returns what it wrote. */
static char *capture_stderr(void (*fn)(void))
{
	static char out[4096];
	char path[] = "/tmp/compat-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, out, sizeof(out) - 1);
	close(fd);
	out[n > 0 ? n : 0] = '\0';
	return out;
}

static void log_some(void)
{
	fd_set f;

	pvmlogprintf("a %d\n", 1);
	pvmlogprintf("b");
	pvmlogprintf("c\nd\n");
	pvmlogerror("plain\n");
	errno = ENOENT;
	pvmlogperror("open x");
	pvmhdump("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e"
		 "\x0f\x10\xfe\xff", 18, "p ");
	FD_ZERO(&f);
	FD_SET(0, &f);
	FD_SET(4, &f);
	FD_SET(9, &f);
	print_fdset("fds ", 10, &f);
}

START_TEST(log_lines_carry_the_task_prefix)
{
	char expect[2048], pre[40];

	snprintf(pre, sizeof(pre), "libpvm [pid%d]: ", (int)getpid());
	snprintf(expect, sizeof(expect),
		 "%sa 1\n%sbc\n%sd\n%splain\n%sopen x: %s\n"
		 "%sp 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10\n"
		 "%sp fe ff\n%sfds 0,4,9\n",
		 pre, pre, pre, pre, pre, strerror(ENOENT), pre, pre, pre);
	ck_assert_str_eq(capture_stderr(log_some), expect);
}
END_TEST

START_TEST(clock_ticks)
{
	struct timeval a, b;

	ck_assert_int_eq(pvmgetclock(&a), 0);
	usleep(2000);
	ck_assert_int_eq(pvmgetclock(&b), 0);
	ck_assert(b.tv_sec > a.tv_sec ||
		  (b.tv_sec == a.tv_sec && b.tv_usec > a.tv_usec));
}
END_TEST

START_TEST(upkstralloc_unpacks_whole_strings)
{
	static const int encs[] = { PvmDataDefault, PvmDataRaw };
	char big[10000], *s = NULL;
	int i, v = 7, b;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pvm_setopt(PvmAutoErr, 0);
	for (i = 0; i < 2; i++) {
		b = pvm_initsend(encs[i]);
		ck_assert_int_gt(b, 0);
		pvm_pkstr("hello");
		pvm_pkstr("");
		pvm_pkint(&v, 1, 1);
		pvm_pkstr(big);
		pvm_setrbuf(b);

		ck_assert_int_eq(pvmupkstralloc(&s), 0);
		ck_assert_str_eq(s, "hello");
		free(s);
		ck_assert_int_eq(pvmupkstralloc(&s), 0);
		ck_assert_str_eq(s, "");
		free(s);
		s = NULL;
		ck_assert_int_eq(pvmupkstralloc(&s), PvmBadMsg);
		ck_assert_ptr_null(s);
		v = 0;
		ck_assert_int_eq(pvm_upkint(&v, 1, 1), 0);
		ck_assert_int_eq(v, 7);
		ck_assert_int_eq(pvmupkstralloc(&s), 0);
		ck_assert_str_eq(s, big);
		free(s);
		s = NULL;
		ck_assert_int_eq(pvmupkstralloc(&s), PvmNoData);
		ck_assert_ptr_null(s);
	}
	pvm_setrbuf(0);
	ck_assert_int_eq(pvmupkstralloc(&s), PvmNoBuf);
}
END_TEST

START_TEST(calls_needing_a_buffer_check_it_first)
{
	int tids[1] = { 0x40001 };

	pvm_setopt(PvmAutoErr, 0);
	pvm_setsbuf(0);
	ck_assert_int_eq(msendrecv(0x40001, 1, 0), PvmNoBuf);
	ck_assert_int_eq(pvmmcast(12345, tids, 1, 1), PvmNoSuchBuf);
	ck_assert_int_eq(pvmmcast(pvm_mkbuf(0), tids, -1, 1), PvmBadParam);
	ck_assert_int_eq(pvm_fd_add(-1, 1), PvmBadParam);
	ck_assert_int_eq(pvm_fd_add(5, 1), 0);
	ck_assert_int_eq(pvm_fd_add(5, 1), 0);
	ck_assert_int_eq(pvm_fd_delete(5, 1), 0);
	ck_assert_int_eq(pvm_fd_delete(77, 1), 0);
	ck_assert_int_eq(pvm_fd_delete(-3, 1), PvmBadParam);
}
END_TEST

START_TEST(services_copvm_lacks_say_so)
{
	struct pvmhostinfo *hi = NULL;
	int n = -1;

	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_reg_hoster(), PvmNotImpl);
	ck_assert_int_eq(pvm_errno, PvmNotImpl);
	ck_assert_int_eq(pvm_reg_tasker(), PvmNotImpl);
	ck_assert_int_eq(pvm_reg_rm(&hi), PvmNotImpl);
	ck_assert_int_eq(pvm_reg_tracer(0, 1, 0, 2, "@@@", 0, 0), PvmNotImpl);
	ck_assert_int_eq(pvm_tickle(0, NULL, &n, NULL), PvmNotImpl);
	ck_assert_int_eq(n, 0);
}
END_TEST

START_TEST(stock_internals_fail_cleanly)
{
	ck_assert_ptr_null(pmsg_new(1));
	ck_assert_ptr_null(midtobuf(1));
	ck_assert_ptr_null(umbuf_new());
	ck_assert_ptr_null(fr_new(64));
	ck_assert_ptr_null(da_new(64));
	ck_assert_ptr_null(ttpcb_find(0x40001));
	ck_assert_ptr_null(wait_find(1));
	da_ref(NULL);
	da_unref(NULL);
	wait_delete(NULL);
	ck_assert_int_eq(mesg_input(NULL), PvmNotImpl);
	ck_assert_int_eq(pvm_tc_noop(1), PvmNotImpl);
	ck_assert_int_eq(pvm_tc_siblings(1), PvmNotImpl);
	ck_assert_int_eq(ogm_complete(NULL), 1);
	ck_assert_int_eq(tev_begin(47, 0x4000), 0);
	ck_assert_int_eq(tev_do_trace(47, 0x4000), 0);
}
END_TEST

/* Size in the dynamic symbol table of data symbol `name'. */
static size_t dyn_size(const char *name)
{
	const ElfW(Sym) *sym = NULL;
	void *addr = dlsym(RTLD_DEFAULT, name);
	Dl_info info;

	ck_assert_msg(addr != NULL, "%s is not exported", name);
	ck_assert(dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT));
	ck_assert_ptr_nonnull(sym);
	return sym->st_size;
}

START_TEST(data_symbols_have_stock_sizes)
{
	/* nm -S of Debian's libpvm3.so.3 */
	static const struct {
		const char *name;
		size_t size;
	} syms[] = {
		{ "pvm_inprecv", 8 }, { "pvm_useruid", 4 }, { "pvmautoerr", 4 },
		{ "pvmctrc", 0x44 }, { "pvmdebmask", 4 }, { "pvmfrgsiz", 4 },
		{ "pvmmboxclasses", 8 }, { "pvmmidh", 8 }, { "pvmmidhsiz", 4 },
		{ "pvmmyctx", 4 }, { "pvmmydsig", 4 }, { "pvmmyptid", 4 },
		{ "pvmmytaskname", 8 }, { "pvmmytid", 4 }, { "pvmmyupid", 4 },
		{ "pvmnoreset", 4 }, { "pvmnoresetindex", 4 },
		{ "pvmnsibs", 4 },
		{ "pvmrbuf", 8 }, { "pvmrescode", 4 }, { "pvmrouteopt", 4 },
		{ "pvmrxlist", 8 }, { "pvmsbuf", 8 }, { "pvmschedtid", 4 },
		{ "pvmshowtaskid", 4 }, { "pvmsibtids", 8 },
		{ "pvmtevdidlist", 0x7b0 }, { "pvmtevinfo", 0x17d8 },
		{ "pvmtoplvl", 4 }, { "pvmtrc", 0x44 }, { "pvmtrccodef", 8 },
		{ "pvmtrcdesc", 4 }, { "pvmtrcmp", 8 }, { "pvmtrcsavekind", 4 },
		{ "pvmtrcsbf", 4 }, { "pvmtrcsbfsave", 4 }, { "pvmtrctmp", 4 },
		{ "pvmtrcztv", 16 }, { "pvmudpmtu", 4 }, { "waitlist", 8 },
		{ "pvm_errno", 4 }, { "pvm_nerr", 4 }, { "pvm_errlist", 0x128 },
	};
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		ck_assert_msg(dyn_size(syms[i].name) == syms[i].size,
			      "%s: %zu bytes, stock has %zu", syms[i].name,
			      dyn_size(syms[i].name), syms[i].size);
}
END_TEST

START_TEST(data_symbols_start_as_stock)
{
	ck_assert_int_eq(pvmmytid, -1);
	ck_assert_int_eq(pvmmyptid, -1);
	ck_assert_int_eq(pvmmyupid, -1);
	ck_assert_int_eq(pvm_useruid, -1);
	ck_assert_int_eq(pvmautoerr, 1);
	ck_assert_int_eq(pvmtoplvl, 1);
	ck_assert_int_eq(pvmfrgsiz, 4080);
	ck_assert_int_eq(pvmudpmtu, 4080);
	ck_assert_int_eq(pvmrouteopt, PvmAllowDirect);
	ck_assert_int_eq(pvmshowtaskid, 1);
	ck_assert_int_eq(pvmnsibs, -1);
	ck_assert_int_eq(pvmnoresetindex, -1);
	ck_assert_ptr_null(pvmmytaskname);
}
END_TEST

START_TEST(trace_tables_name_events_and_data)
{
	const struct tevinfo *ev = dlsym(RTLD_DEFAULT, "pvmtevinfo");
	const struct tevdid *did = dlsym(RTLD_DEFAULT, "pvmtevdidlist");
	int i;

	ck_assert_ptr_nonnull(ev);
	ck_assert_ptr_nonnull(did);
	for (i = 0; i < 109; i++) {
		ck_assert_ptr_nonnull(ev[i].name);
		ck_assert_int_eq(ev[i].count, 0);
	}
	ck_assert_str_eq(ev[0].name, "addhosts");
	ck_assert_str_eq(ev[47].name, "send");
	ck_assert_str_eq(ev[53].name, "start_pvmd");
	ck_assert_str_eq(ev[69].name, "upkstr");
	ck_assert_str_eq(ev[95].name, "getmboxinfo");
	ck_assert_str_eq(ev[108].name, "user_defined");
	for (i = 0; i < 123; i++) {
		ck_assert_ptr_nonnull(did[i].did);
		ck_assert_ptr_nonnull(did[i].desc);
		ck_assert_uint_ge(strlen(did[i].did), 2);
	}
	ck_assert_str_eq(did[0].did, "AN");
	ck_assert_str_eq(did[46].did, "MCX");
	ck_assert_str_eq(did[80].did, "RCX");
	ck_assert_str_eq(did[88].did, "TID");
	ck_assert_str_eq(did[122].did, "WID");
}
END_TEST

START_TEST(settaskname_before_enrolling)
{
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvmsettaskname(NULL), PvmBadParam);
	ck_assert_int_eq(pvmsettaskname("first"), 0);
	ck_assert_int_eq(pvmsettaskname("worker"), 0);
	ck_assert_str_eq(pvmmytaskname, "worker");
}
END_TEST

/*
 * With a daemon.
 */

START_TEST(beatask_enrols_and_publishes_identity)
{
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvmbeatask(), 0);
	ck_assert_int_gt(pvmmytid, 0);
	ck_assert_int_eq(pvmmytid, pvm_mytid());
	ck_assert_int_eq(pvmmyupid, (int)getpid());
	ck_assert_int_eq(pvm_useruid, (int)getuid());
	ck_assert_int_eq(pvmmyptid, 0);		/* started by hand */
	ck_assert_int_eq(pvmbeatask(), 0);	/* already enrolled */
	ck_assert_int_eq(pvmsettaskname("late"), PvmExists);
	ck_assert_int_eq(pvmendtask(), 0);
	ck_assert_int_eq(pvmmytid, -1);
}
END_TEST

/* The plain API keeps stock's globals too: compat/data.c's enrolment
 * hooks (task_hooks.h) copy the state when the task joins and leaves. */
START_TEST(globals_follow_mytid_and_exit)
{
	int me;

	pvm_setopt(PvmAutoErr, 0);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	ck_assert_int_eq(pvmmytid, me);
	ck_assert_int_eq(pvmmyupid, (int)getpid());
	ck_assert_int_eq(pvm_exit(), PvmOk);
	ck_assert_int_eq(pvmmytid, -1);
	ck_assert_int_eq(pvmmyupid, -1);
}
END_TEST

START_TEST(noresets_lists_registered_tasks)
{
	int *tids = NULL, n = -1, me, b, i, seen;

	pvm_setopt(PvmAutoErr, 0);
	me = pvm_mytid();
	ck_assert_int_gt(me, 0);
	ck_assert_int_eq(pvm_getnoresets(&tids, &n), PvmOk);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_ne(tids[i], me);
	b = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(b);
	pvm_pkint(&me, 1, 1);
	/* Two entries of ours: listed once. */
	ck_assert_int_ge(pvm_putinfo(PVMNORESETCLASS, b,
				     PvmMboxMultiInstance), 0);
	ck_assert_int_ge(pvm_putinfo(PVMNORESETCLASS, b,
				     PvmMboxMultiInstance), 0);
	ck_assert_int_eq(pvm_getnoresets(&tids, &n), PvmOk);
	for (i = seen = 0; i < n; i++)
		seen += tids[i] == me;
	ck_assert_int_eq(seen, 1);
	pvm_exit();
}
END_TEST

/* pvm_pstat() until `tid' is gone or about five seconds pass. */
static int wait_gone(int tid)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 250; i++) {
		if (pvm_pstat(tid) == PvmNoTask)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

START_TEST(reset_kills_all_but_caller_and_noresets)
{
	int pfd[2], kept = 0, victim = 0, me, b;
	pid_t pid;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* A task that asks to survive resets, then waits. */
		int tid = pvm_mytid();

		b = pvm_mkbuf(PvmDataDefault);
		pvm_setsbuf(b);
		pvm_pkint(&tid, 1, 1);
		pvm_putinfo(PVMNORESETCLASS, b, PvmMboxMultiInstance);
		if (write(pfd[1], &tid, sizeof(tid)) != sizeof(tid))
			_exit(1);
		pvm_recv(-1, 999);
		_exit(0);
	}
	ck_assert_int_eq(read(pfd[0], &kept, sizeof(kept)), sizeof(kept));
	ck_assert_int_gt(kept, 0);

	pvm_setopt(PvmAutoErr, 0);
	me = pvm_mytid();
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, (char *[]){ "wait", NULL },
				   PvmTaskDefault, "", 1, &victim), 1);
	ck_assert_int_gt(victim, 0);

	ck_assert_int_eq(pvmreset(me, 1, "", 0), 0);
	ck_assert(wait_gone(victim));
	ck_assert_int_eq(pvm_pstat(kept), PvmOk);
	ck_assert_int_eq(pvm_pstat(me), PvmOk);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pvm_exit();
}
END_TEST

START_TEST(msendrecv_gets_the_reply)
{
	int me, b, v = 41, src = 0, tag = 0, len;

	pvm_setopt(PvmAutoErr, 0);
	me = pvm_mytid();
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	/* To ourselves: the request is its own reply. */
	b = msendrecv(me, 77, pvm_getcontext());
	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(pvm_getrbuf(), b);
	ck_assert_int_eq(pvm_bufinfo(b, &len, &tag, &src), 0);
	ck_assert_int_eq(tag, 77);
	ck_assert_int_eq(src, me);
	v = 0;
	pvm_upkint(&v, 1, 1);
	ck_assert_int_eq(v, 41);
	pvm_exit();
}
END_TEST

START_TEST(mcast_sends_once_to_each_other_task)
{
	int me, child = 0, b, v = 10, tids[3];

	pvm_setopt(PvmAutoErr, 0);
	me = pvm_mytid();
	ck_assert_int_eq(pvm_spawn(TASK_CHILD, (char *[]){ "echo", NULL },
				   PvmTaskDefault, "", 1, &child), 1);
	b = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(b);
	pvm_pkint(&v, 1, 1);
	pvm_setsbuf(0);		/* pvmmcast() takes the buffer by id */
	tids[0] = child;
	tids[1] = me;
	tids[2] = child;
	ck_assert_int_eq(pvmmcast(b, tids, 3, 1), PvmOk);
	ck_assert_int_gt(pvm_recv(child, 2), 0);
	pvm_upkint(&v, 1, 1);
	ck_assert_int_eq(v, 11);
	ck_assert_int_eq(pvm_nrecv(-1, 1), 0);	/* not sent to ourselves */
	pvm_exit();
}
END_TEST

START_TEST(mroute_sends_and_polls)
{
	struct timeval zero = { 0, 0 }, ms = { 0, 1000 };
	int me, b, v = 5;

	pvm_setopt(PvmAutoErr, 0);
	me = pvm_mytid();
	b = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(b);
	pvm_pkint(&v, 1, 1);
	ck_assert_int_ge(mroute(b, me, 9, &zero), 0);
	ck_assert_int_gt(pvm_nrecv(me, 9), 0);
	ck_assert_int_ge(mroute(0, 0, 0, &ms), 0);
	ck_assert_int_eq(mroute(4242, me, 9, &zero), PvmNoSuchBuf);
	pvm_exit();
}
END_TEST

static Suite *compat_suite(void)
{
	Suite *s = suite_create("compat");
	TCase *h = tcase_create("helpers"), *t = tcase_create("task");

	tcase_add_test(h, strtoi_reads_c_notation);
	tcase_add_test(h, xtoi_reads_hex);
	tcase_add_test(h, put_get_are_big_endian);
	tcase_add_test(h, crc_is_crc32_without_conditioning);
	tcase_add_test(h, inadport_round_trip);
	tcase_add_test(h, env_lists);
	tcase_add_test(h, putenv_sets_process_environment);
	tcase_add_test(h, matchstring_finds_patterns);
	tcase_add_test(h, nametag_and_debug_flags);
	tcase_add_test(h, paths_follow_environment);
	tcase_add_test(h, dsockfile_names_daemon_socket);
	tcase_add_test(h, tmpnam_makes_fresh_names);
	tcase_add_test(h, chkuid_lets_users_and_allowed_root_pass);
	tcase_add_exit_test(h, chkuid_stops_root, 1);
	tcase_add_test(h, allocation_wrappers);
	tcase_add_test(h, log_lines_carry_the_task_prefix);
	tcase_add_test(h, clock_ticks);
	tcase_add_test(h, upkstralloc_unpacks_whole_strings);
	tcase_add_test(h, calls_needing_a_buffer_check_it_first);
	tcase_add_test(h, services_copvm_lacks_say_so);
	tcase_add_test(h, stock_internals_fail_cleanly);
	tcase_add_test(h, data_symbols_have_stock_sizes);
	tcase_add_test(h, data_symbols_start_as_stock);
	tcase_add_test(h, trace_tables_name_events_and_data);
	tcase_add_test(h, settaskname_before_enrolling);
	suite_add_tcase(s, h);

	tcase_add_unchecked_fixture(t, vm_fixture_setup, vm_fixture_teardown);
	tcase_set_timeout(t, 30);
	tcase_add_test(t, beatask_enrols_and_publishes_identity);
	tcase_add_test(t, globals_follow_mytid_and_exit);
	tcase_add_test(t, noresets_lists_registered_tasks);
	tcase_add_test(t, reset_kills_all_but_caller_and_noresets);
	tcase_add_test(t, msendrecv_gets_the_reply);
	tcase_add_test(t, mcast_sends_once_to_each_other_task);
	tcase_add_test(t, mroute_sends_and_polls);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(compat_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

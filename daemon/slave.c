/*
 * slave.c - a pvmd started by a master (-s) joins the machine.
 *
 * The master's remote shell runs `pvmd -s -dMASK -nNAME' and writes the
 * instructions of proto.h on its standard input: the host index, where
 * the master listens, this host's address, the machine's secret, the
 * host's options and the master's coscheduling settings (`env' lines,
 * which become this daemon's environment and so its tasks').  Before
 * detaching, the slave reads them (SLAVE_IN_MS at most), prepares its
 * directory like any pvmd, listens on TCP, connects to the master, runs
 * the handshake (auth.h) as that index, checks that the other end is
 * host 1, and says DD_HELLO with its address and port.
 * Only then does it detach, so the shell's exit status says whether the
 * slave made it; what went wrong before is on its stderr, which the
 * master writes to its log.  Everything blocks here, with time limits:
 * the event loop does not run yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd.h"

#define SLAVE_IN_MS		30000
#define SLAVE_CONNECT_MS	10000

static int master_fd = -1;
static char master_addr[64];
static int master_port;

static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pvmd (slave %s): ", pvmd.hostname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Waits until `fd' is ready for `ev' or `deadline' passes; 0 or -1. */
static int wait_fd(int fd, short ev, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	long long left;
	int n;

	for (;;) {
		left = deadline - pvmd_now_ms();
		if (left <= 0)
			return -1;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

/* Reads one line of stdin into `buf'; 0, or -1 at end of input. */
static int read_line(char *buf, size_t size, long long deadline)
{
	size_t n = 0;
	ssize_t k;
	char c;

	for (;;) {
		if (wait_fd(STDIN_FILENO, POLLIN, deadline) < 0)
			fail("no instructions from the master in time");
		k = read(STDIN_FILENO, &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

static char *dup_value(const char *v)
{
	char *s = strdup(v);

	if (!s)
		fail("out of memory");
	return s;
}

/* Reads the master's instructions (proto.h) from stdin. */
void pvmd_slave_read_config(void)
{
	long long deadline = pvmd_now_ms() + SLAVE_IN_MS;
	char line[4200], *val;
	int have = 0;

	if (read_line(line, sizeof(line), deadline) < 0 ||
	    strcmp(line, PVMI_SLAVE_MAGIC))
		fail("standard input does not come from a copvm master");
	while (read_line(line, sizeof(line), deadline) == 0) {
		if (!strcmp(line, "end")) {
			have |= 0x100;
			break;
		}
		val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "index")) {
			pvmd.index = atoi(val);
			have |= 1;
		} else if (!strcmp(line, "master")) {
			if (sscanf(val, "%63s %d", master_addr,
				   &master_port) == 2)
				have |= 2;
		} else if (!strcmp(line, "address")) {
			snprintf(pvmd.addr, sizeof(pvmd.addr), "%s", val);
			have |= 4;
		} else if (!strcmp(line, "secret")) {
			if (pvmi_secret_from_hex(val, pvmd.secret) == 0)
				have |= 8;
			memset(val, 0, strlen(val));
		} else if (!strcmp(line, "ep")) {
			pvmd.opts.ep = dup_value(val);
		} else if (!strcmp(line, "wd")) {
			pvmd.opts.wd = dup_value(val);
		} else if (!strcmp(line, "bx")) {
			pvmd.opts.bx = dup_value(val);
		} else if (!strcmp(line, "env")) {
			pvmd_cosched_env_set(val);
		} else if (!strcmp(line, "sp")) {
			if (atoi(val) > 0)
				pvmd.opts.speed = atoi(val);
		}
	}
	if (have != 0x10f || pvmd.index <= PVMI_MASTER_INDEX ||
	    pvmd.index >= PVMI_MAX_HOSTS || master_port <= 0 ||
	    master_port > 65535)
		fail("incomplete instructions from the master");
	pvmd.dtid = PVMI_DAEMON_TID(pvmd.index);
}

static void write_all(int fd, const void *p, size_t n, long long deadline)
{
	const unsigned char *c = p;
	ssize_t k;

	while (n > 0) {
		if (wait_fd(fd, POLLOUT, deadline) < 0)
			fail("the master does not read");
		k = write(fd, c, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			fail("writing to the master: %s", strerror(errno));
		c += k;
		n -= (size_t)k;
	}
}

static void read_all(int fd, void *p, size_t n, long long deadline)
{
	unsigned char *c = p;
	ssize_t k;

	while (n > 0) {
		if (wait_fd(fd, POLLIN, deadline) < 0)
			fail("the master does not answer");
		k = read(fd, c, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			fail("the master closed the connection");
		c += k;
		n -= (size_t)k;
	}
}

/* The handshake with the master, as host pvmd.index. */
static void handshake(int fd, long long deadline)
{
	unsigned char msg[PVMI_AUTH_HELLO_LEN];
	struct pvmi_auth a;
	int st = PVMI_AUTH_MORE;

	if (pvmi_auth_init(&a, pvmd.secret, PVMI_AUTH_INITIATOR,
			   PVMI_AUTH_DAEMON, pvmd.index) < 0)
		fail("no randomness for the handshake");
	while (st == PVMI_AUTH_MORE) {
		if (a.outlen) {
			write_all(fd, a.out, a.outlen, deadline);
			a.outlen = 0;
		}
		read_all(fd, msg, pvmi_auth_want(&a), deadline);
		st = pvmi_auth_feed(&a, msg);
	}
	if (st != PVMI_AUTH_DONE || a.peer_kind != PVMI_AUTH_DAEMON ||
	    a.peer_id != PVMI_MASTER_INDEX)
		fail("the master at %s:%d failed the handshake", master_addr,
		     master_port);
	pvmi_auth_clear(&a);
}

static void send_hello(int fd, long long deadline)
{
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	struct pvmi_wbuf w = { 0 };
	struct pvmi_frame f;

	pvmi_w_int(&w, pvmd.index);
	pvmi_w_str(&w, pvmd.hostname);
	pvmi_w_str(&w, PVMI_ARCH_NAME);
	pvmi_w_int(&w, pvmd.opts.speed);
	pvmi_w_int(&w, PVMI_DSIG);
	pvmi_w_str(&w, pvmd.addr);
	pvmi_w_int(&w, pvmd.tcp_port);
	pvmi_w_int(&w, (int32_t)getpid());
	if (w.failed)
		fail("out of memory");
	memset(&f, 0, sizeof(f));
	f.magic = PVMI_FRAME_MAGIC;
	f.len = (uint32_t)w.len;
	f.src = pvmd.dtid;
	f.dst = PVMI_DAEMON_TID(PVMI_MASTER_INDEX);
	f.tag = PVMI_DD_HELLO;
	f.kind = PVMI_KIND_DAEMON;
	pvmi_frame_encode(&f, hdr);
	write_all(fd, hdr, sizeof(hdr), deadline);
	write_all(fd, w.data, w.len, deadline);
	pvmi_w_free(&w);
}

/* Listens, connects to the master, authenticates, says DD_HELLO. */
void pvmd_slave_connect(void)
{
	long long deadline = pvmd_now_ms() + SLAVE_CONNECT_MS;
	struct sockaddr_in sa;
	int fd, err = 0;
	socklen_t len = sizeof(err);

	if (pvmd_peer_listen(pvmd.addr) < 0)
		fail("cannot listen on TCP: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)master_port);
	if (inet_pton(AF_INET, master_addr, &sa.sin_addr) != 1)
		fail("bad master address \"%s\"", master_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EINPROGRESS)
			fail("cannot connect to the master at %s:%d: %s",
			     master_addr, master_port, strerror(errno));
		if (wait_fd(fd, POLLOUT, deadline) < 0)
			fail("the master at %s:%d does not answer",
			     master_addr, master_port);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ||
		    err)
			fail("cannot connect to the master at %s:%d: %s",
			     master_addr, master_port, strerror(err));
	}
	handshake(fd, deadline);
	send_hello(fd, deadline);
	master_fd = fd;
}

/* Once the loop runs: adopts the link to the master. */
void pvmd_slave_start(void)
{
	pvmd_host_add(PVMI_MASTER_INDEX, "", PVMI_ARCH_NAME,
		      PVMD_SPEED_DEFAULT, PVMI_DSIG, master_addr, master_port);
	if (!pvmd_peer_adopt(master_fd, PVMI_MASTER_INDEX)) {
		pvmd_log("cannot keep the link to the master: halting");
		pvmd_halt(NULL);
	}
	master_fd = -1;
}

/*
 * check_pvmd_net.c - pvmd's TCP side, on loopback, with common/ only.
 *
 * The test plays the other daemons itself.  As a master, it starts
 * `pvmd -s -f' with the instructions on its stdin, takes the handshake
 * and DD_HELLO and sends it a host table; as a slave, it lets the
 * fixture's master start it through a PVM_RSH script that only saves its
 * arguments and stdin, then connects with what it read there.  Strangers
 * then hit the daemons' ports: garbage, a wrong secret, a stolen proof of
 * the wrong kind, a handshake left half-way, a flood of idle
 * connections, frames of the wrong kind after a good handshake.  None of
 * them gets an answer or changes anything; a real daemon still gets
 * through right after.  And the secret never appears on a command line.
 * Last, silence (a host timeout of about a second): a slave beats while
 * its master beats, and halts when the master falls silent; a master
 * declares a silent slave dead, tells its task, and hands a host's ht=
 * to that slave.
 * EXP's clock exchange: a slave whose clock is 700 ms ahead (the test
 * hook COPVM_TEST_CLOCK_SKEW_MS) probes its master, the test, finds the
 * offset, takes the master's schedule, probes again when a new host
 * table comes, and stops its spinning task at the master's PS
 * boundaries; with the exchange off (COPVM_EXP_SYNC=clocks) it stops the
 * task half a period away from them.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "pvmd_fixture.h"

#define SLAVE_DTID	0x80000		/* host 2 */

static unsigned char key[PVMI_SECRET_LEN];
static int slave_tmo;			/* the slave's host timeout, 0: none */
static const char *const *slave_env;	/* NAME=VALUE set in the slave */
static int master_lfd = -1, slave_link = -1, slave_port;
static int test_port;			/* our listener as a master */
static pid_t spid;
static char sdir[700];

/* Reads exactly `n' bytes within `ms'; 1, 0 at EOF, -1 on timeout. */
static int read_n(int fd, void *p, size_t n, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long long end = now_ms() + ms;
	unsigned char *c = p;
	ssize_t k;

	while (n > 0) {
		if (end <= now_ms() || poll(&pfd, 1, (int)(end - now_ms())) <= 0)
			return -1;
		k = read(fd, c, n);
		if (k == 0 || (k < 0 && errno == ECONNRESET))
			return 0;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 1;
}

/* True for what a daemon sends unasked: heartbeats on its links, and
 * news of hosts to its tasks (in the library's context). */
static int unasked(const struct pvmi_frame *f)
{
	return (f->kind == PVMI_KIND_DAEMON && f->tag == PVMI_DD_BEAT) ||
	       (f->kind == PVMI_KIND_USER && f->ctx == PVMI_SYS_CTX);
}

/* read_frame() past what a daemon sends unasked. */
static int next_frame(int fd, int ms, struct pvmi_frame *f,
		      unsigned char **body)
{
	long long end = now_ms() + ms;
	int rc;

	while ((rc = read_frame(fd, (int)(end - now_ms()), f, body)) == 1 &&
	       unasked(f))
		free(*body);
	return rc;
}

/* True when the peer closes `fd' within `ms' having sent nothing (but
 * heartbeats, after a handshake). */
static int closed_silently(int fd, int ms)
{
	struct pvmi_frame f;
	unsigned char *body = NULL;
	int rc = next_frame(fd, ms, &f, &body);

	free(body);
	return rc == 0;
}

static int tcp_connect(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(fd, 0);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		      "connect to port %d: %s", port, strerror(errno));
	return fd;
}

/* Runs a whole handshake on `fd' as `role'; returns the final status and
 * the peer's kind and id. */
static int handshake(int fd, const unsigned char *k, int role, int kind,
		     int id, int *peer_kind, int *peer_id)
{
	unsigned char msg[PVMI_AUTH_HELLO_LEN];
	struct pvmi_auth a;
	int st = PVMI_AUTH_MORE;

	ck_assert_int_eq(pvmi_auth_init(&a, k, role, kind, id), 0);
	for (;;) {
		if (a.outlen) {
			xwrite(fd, a.out, a.outlen);
			a.outlen = 0;
		}
		if (st != PVMI_AUTH_MORE)
			break;
		if (read_n(fd, msg, pvmi_auth_want(&a), 3000) != 1)
			return PVMI_AUTH_FAIL;
		st = pvmi_auth_feed(&a, msg);
	}
	if (peer_kind)
		*peer_kind = a.peer_kind;
	if (peer_id)
		*peer_id = a.peer_id;
	return st;
}

static void send_frame(int fd, int kind, int src, int dst, int tag,
		       const struct pvmi_wbuf *w)
{
	struct pvmi_frame f = {
		.magic = PVMI_FRAME_MAGIC, .len = w ? (uint32_t)w->len : 0,
		.src = src, .dst = dst, .tag = tag, .kind = (uint32_t)kind,
	};
	unsigned char hdr[PVMI_FRAME_HDR_LEN];

	pvmi_frame_encode(&f, hdr);
	xwrite(fd, hdr, sizeof(hdr));
	if (w && w->len)
		xwrite(fd, w->data, w->len);
}

/* As host `id', asks the daemon at `port' (index `index') for its tasks:
 * proof that it still serves daemons.  Returns the task count. */
static int remote_tasks(int port, int id, int index)
{
	struct pvmi_wbuf q = { 0 }, w = { 0 };
	struct pvmi_frame f;
	struct pvmi_rbuf r, ir;
	unsigned char *body;
	const void *p;
	size_t n = 0;
	int fd, kind, pid, n_tasks;

	fd = tcp_connect(port);
	ck_assert_int_eq(handshake(fd, key, PVMI_AUTH_INITIATOR,
				   PVMI_AUTH_DAEMON, id, &kind, &pid),
			 PVMI_AUTH_DONE);
	ck_assert_int_eq(kind, PVMI_AUTH_DAEMON);
	ck_assert_int_eq(pid, index);
	pvmi_w_int(&q, PVMI_DAEMON_TID(index));
	pvmi_w_int(&w, 77);			/* reqid */
	pvmi_w_int(&w, PVMI_DAEMON_TID(id) | 1);
	pvmi_w_int(&w, PVMI_OP_TASKS);
	pvmi_w_bytes(&w, q.data, q.len);
	send_frame(fd, PVMI_KIND_DAEMON, PVMI_DAEMON_TID(id),
		   PVMI_DAEMON_TID(index), PVMI_DD_REQUEST, &w);
	ck_assert_int_eq(next_frame(fd, 3000, &f, &body), 1);
	ck_assert_uint_eq(f.kind, PVMI_KIND_DAEMON);
	ck_assert_int_eq(f.tag, PVMI_DD_REPLY);
	pvmi_r_init(&r, body, f.len);
	ck_assert_int_eq(pvmi_r_int(&r), 77);
	p = pvmi_r_bytes(&r, &n);
	ck_assert_ptr_ne(p, NULL);
	pvmi_r_init(&ir, p, n);
	n_tasks = pvmi_r_int(&ir);
	ck_assert_int_eq(ir.failed, 0);
	free(body);
	pvmi_w_free(&q);
	pvmi_w_free(&w);
	close(fd);
	return n_tasks;
}

/* The attacks of the file's comment on the daemon at `port', which
 * takes daemon connections; none may get an answer. */
static void strangers(int port)
{
	unsigned char junk[200], wrong[PVMI_SECRET_LEN], hello[48];
	struct pvmi_auth a;
	int fd, i, flood[40];

	/* garbage */
	fd = tcp_connect(port);
	memset(junk, 'A', sizeof(junk));
	memcpy(junk, "GET / HTTP/1.0\r\n\r\n", 18);
	xwrite(fd, junk, sizeof(junk));
	ck_assert(closed_silently(fd, 3000));
	close(fd);

	/* a frame header instead of a handshake */
	fd = tcp_connect(port);
	send_frame(fd, PVMI_KIND_DAEMON, 0, 0, PVMI_DD_HALT, NULL);
	xwrite(fd, junk, 16);
	ck_assert(closed_silently(fd, 3000));
	close(fd);

	/* the wrong secret: the daemon sends its HELLO, never its PROOF */
	memcpy(wrong, key, sizeof(wrong));
	wrong[0] ^= 1;
	fd = tcp_connect(port);
	ck_assert_int_eq(handshake(fd, wrong, PVMI_AUTH_INITIATOR,
				   PVMI_AUTH_DAEMON, 3, NULL, NULL),
			 PVMI_AUTH_FAIL);
	close(fd);

	/* the right secret but a task's identity: no task may be a daemon */
	fd = tcp_connect(port);
	i = handshake(fd, key, PVMI_AUTH_INITIATOR, PVMI_AUTH_TASK, 0xc0001,
		      NULL, NULL);
	ck_assert(i == PVMI_AUTH_FAIL || closed_silently(fd, 3000));
	close(fd);

	/* half a handshake, then gone */
	fd = tcp_connect(port);
	pvmi_auth_init(&a, key, PVMI_AUTH_INITIATOR, PVMI_AUTH_DAEMON, 3);
	xwrite(fd, a.out, a.outlen);
	ck_assert_int_eq(read_n(fd, hello, sizeof(hello), 3000), 1);
	close(fd);

	/* a flood of connections that say nothing: the oldest are dropped
	 * so that a real daemon still gets in */
	for (i = 0; i < 40; i++)
		flood[i] = tcp_connect(port);
	msleep(100);
	ck_assert(closed_silently(flood[0], 3000));
	for (i = 0; i < 40; i++)
		close(flood[i]);
}

/* ---- a slave, with the test as its master ---- */

static void write_config(int fd, int port)
{
	char hex[2 * PVMI_SECRET_LEN + 1], buf[512], env[64] = "";
	int n;

	pvmi_secret_to_hex(key, hex);
	if (slave_tmo)
		snprintf(env, sizeof(env), "env COPVM_HOST_TIMEOUT_MS %d\n",
			 slave_tmo);
	n = snprintf(buf, sizeof(buf), "%s\nindex 2\nmaster 127.0.0.1 %d\n"
		     "address 127.0.0.1\nsecret %s\nsp 1234\n%send\n",
		     PVMI_SLAVE_MAGIC, port, hex, env);
	xwrite(fd, buf, (size_t)n);
}

/* Sends the slave the host table: us (the master) and it. */
static void send_table(void)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, 2);
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "testmaster");
	pvmi_w_str(&w, PVMI_ARCH_NAME);
	pvmi_w_int(&w, 1000);
	pvmi_w_int(&w, PVMI_DSIG);
	pvmi_w_str(&w, "");
	pvmi_w_int(&w, test_port);
	pvmi_w_int(&w, 2);
	pvmi_w_str(&w, "slavehost");
	pvmi_w_str(&w, PVMI_ARCH_NAME);
	pvmi_w_int(&w, 1234);
	pvmi_w_int(&w, PVMI_DSIG);
	pvmi_w_str(&w, "127.0.0.1");
	pvmi_w_int(&w, slave_port);
	send_frame(slave_link, PVMI_KIND_DAEMON, 0x40000, SLAVE_DTID,
		   PVMI_DD_HOSTS, &w);
	pvmi_w_free(&w);
}

static void start_slave(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct pvmi_frame f;
	struct pvmi_rbuf r;
	unsigned char *body;
	int in[2], kind, id, i;
	char *s, path[800];

	start_daemon();		/* the fixture's dir, env and cleanup */
	ck_assert_int_eq(pvmi_random(key, sizeof(key)), 0);
	master_lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(master_lfd, (struct sockaddr *)&sa,
			      sizeof(sa)), 0);
	ck_assert_int_eq(listen(master_lfd, 8), 0);
	ck_assert_int_eq(getsockname(master_lfd, (struct sockaddr *)&sa,
				     &len), 0);
	snprintf(sdir, sizeof(sdir), "%s/slave", base);
	mkdir(sdir, 0700);
	ck_assert_int_eq(pipe(in), 0);
	snprintf(path, sizeof(path), "%s/slave.out", base);
	spid = fork();
	ck_assert_int_ge(spid, 0);
	if (spid == 0) {
		signal(SIGTERM, SIG_DFL);
		setenv("PVM_TMP", sdir, 1);
		for (i = 0; slave_env && slave_env[i]; i++)
			putenv((char *)slave_env[i]);
		dup2(in[0], 0);
		close(in[1]);
		dup2(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), 1);
		dup2(1, 2);
		execl(PVMD_PATH, "pvmd", "-s", "-f", "-nslavehost", (char *)0);
		_exit(127);
	}
	close(in[0]);
	write_config(in[1], ntohs(sa.sin_port));
	close(in[1]);
	slave_link = accept4(master_lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(slave_link, 0);
	ck_assert_int_eq(handshake(slave_link, key, PVMI_AUTH_ACCEPTOR,
				   PVMI_AUTH_DAEMON, 1, &kind, &id),
			 PVMI_AUTH_DONE);
	ck_assert_int_eq(kind, PVMI_AUTH_DAEMON);
	ck_assert_int_eq(id, 2);
	ck_assert_int_eq(next_frame(slave_link, 3000, &f, &body), 1);
	ck_assert_int_eq(f.tag, PVMI_DD_HELLO);
	ck_assert_int_eq(f.src, SLAVE_DTID);
	pvmi_r_init(&r, body, f.len);
	ck_assert_int_eq(pvmi_r_int(&r), 2);
	ck_assert(str_item_eq(&r, "slavehost"));
	ck_assert(str_item_eq(&r, PVMI_ARCH_NAME));
	ck_assert_int_eq(pvmi_r_int(&r), 1234);
	ck_assert_int_eq(pvmi_r_int(&r), PVMI_DSIG);
	s = pvmi_r_str(&r);
	ck_assert_str_eq(s, "127.0.0.1");
	free(s);
	slave_port = pvmi_r_int(&r);
	ck_assert_int_gt(slave_port, 0);
	free(body);
	test_port = ntohs(sa.sin_port);
	send_table();
}

static void stop_slave(void)
{
	if (slave_link >= 0)
		close(slave_link);
	slave_link = -1;
	if (master_lfd >= 0)
		close(master_lfd);
	master_lfd = -1;
	if (spid > 0) {
		kill(spid, SIGKILL);
		waitpid(spid, NULL, 0);
		spid = 0;
	}
	stop_daemon();
}

/* A task of the slave sees the table the test sent. */
static int slave_task(void)
{
	char save[800];
	int fd, tid;

	snprintf(save, sizeof(save), "%s", sockpath);
	snprintf(sockpath, sizeof(sockpath), PVMI_DIR_FMT "/" PVMI_DAEMON_SOCK,
		 sdir, (unsigned)getuid());
	fd = task_connect(&tid);
	snprintf(sockpath, sizeof(sockpath), "%s", save);
	ck_assert_int_eq(tid, SLAVE_DTID | 1);
	ck_assert_int_eq(fixture_regflags & PVMI_REG_NET, PVMI_REG_NET);
	ck_assert(memcmp(fixture_secret, key, sizeof(key)) == 0);
	return fd;
}

START_TEST(slave_joins_and_serves)
{
	struct pvmi_rbuf r;
	unsigned char *body;
	int fd, tries, named;

	fd = slave_task();
	for (tries = 0;; tries++) {
		/* the table the test sent may still be on its way */
		body = call(fd, PVMI_OP_CONFIG, NULL, &r);
		ck_assert_int_eq(pvmi_r_int(&r), 2);
		ck_assert_int_eq(pvmi_r_int(&r), 1);
		ck_assert_int_eq(pvmi_r_int(&r), 0x40000);
		named = str_item_eq(&r, "testmaster");
		free(body);
		if (named)
			break;
		ck_assert_int_lt(tries, 100);
		msleep(20);
	}
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "testmaster"), PvmOk);
	ck_assert_int_eq(remote_tasks(slave_port, 3, 2), 1);
	close(fd);
}
END_TEST

START_TEST(slave_port_strangers)
{
	int fd;

	strangers(slave_port);
	/* a good daemon frame of the wrong kind after the handshake */
	fd = tcp_connect(slave_port);
	ck_assert_int_eq(handshake(fd, key, PVMI_AUTH_INITIATOR,
				   PVMI_AUTH_DAEMON, 3, NULL, NULL),
			 PVMI_AUTH_DONE);
	send_frame(fd, PVMI_KIND_REQUEST, 0xc0000, SLAVE_DTID, PVMI_OP_HALT,
		   NULL);
	ck_assert(closed_silently(fd, 3000));
	close(fd);
	/* nothing changed, and daemons still get through */
	ck_assert_int_eq(remote_tasks(slave_port, 3, 2), 0);
	ck_assert_int_eq(waitpid(spid, NULL, WNOHANG), 0);
	fd = slave_task();
	close(fd);
}
END_TEST

START_TEST(slave_halts_without_master)
{
	int st;
	long long end = now_ms() + 5000;

	close(slave_link);
	slave_link = -1;
	while (waitpid(spid, &st, WNOHANG) == 0 && now_ms() < end)
		msleep(10);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	spid = 0;
}
END_TEST

/* ---- silence ---- */

#define TMO_MS		1000	/* the host timeout of these tests */

static void start_slave_tmo(void)
{
	slave_tmo = TMO_MS;
	start_slave();
}

static void stop_slave_tmo(void)
{
	slave_tmo = 0;
	stop_slave();
}

START_TEST(slave_beats_while_heard)
{
	struct pvmi_frame f;
	unsigned char *body;
	long long t0 = now_ms(), end = t0 + 3 * TMO_MS, next = 0, last = t0;
	long long gap = 0;
	int beats = 0;

	/* we beat as a master would; the slave must beat back and stay,
	 * three timeouts long */
	while (now_ms() < end) {
		if (now_ms() >= next) {
			send_frame(slave_link, PVMI_KIND_DAEMON, 0x40000,
				   SLAVE_DTID, PVMI_DD_BEAT, NULL);
			next = now_ms() + TMO_MS / 5;
		}
		if (read_frame(slave_link, 50, &f, &body) == 1) {
			if (f.kind == PVMI_KIND_DAEMON &&
			    f.tag == PVMI_DD_BEAT && f.src == SLAVE_DTID &&
			    f.len == 0) {
				beats++;
				if (now_ms() - last > gap)
					gap = now_ms() - last;
				last = now_ms();
			}
			free(body);
		}
	}
	if (end - last > gap)
		gap = end - last;
	/* a fifth of the timeout apart, about 15 in three timeouts; what
	 * the master needs is that no gap reaches the timeout (a loaded
	 * machine delays some beats: 8 were seen at load 7) */
	ck_assert_msg(gap < TMO_MS, "no beat for %lld ms (timeout %d ms)",
		      gap, TMO_MS);
	ck_assert_int_ge(beats, 4);
	ck_assert_int_le(beats, 20);
	ck_assert_int_eq(waitpid(spid, NULL, WNOHANG), 0);
}
END_TEST

START_TEST(slave_halts_when_master_silent)
{
	long long t0 = now_ms(), end = t0 + 3 * TMO_MS, t;
	char path[800];
	int st = 0;

	/* the link stays open, nothing comes on it: not a close */
	while (waitpid(spid, &st, WNOHANG) == 0 && now_ms() < end)
		msleep(10);
	t = now_ms() - t0;
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "the slave still runs %lld ms after the master fell "
		      "silent", t);
	spid = 0;
	ck_assert_msg(t >= TMO_MS * 8 / 10, "halted after %lld ms", t);
	snprintf(path, sizeof(path), PVMI_DIR_FMT, sdir, (unsigned)getuid());
	ck_assert(log_has_in(path, "host 1 silent for"));
	ck_assert(log_has_in(path, "lost the link to the master"));
}
END_TEST

/* ---- the fixture's daemon as a master ---- */

static char rsh_dir[700];

static void start_master(void)
{
	char path[800];

	snprintf(rsh_dir, sizeof(rsh_dir), "/tmp/check_pvmd_net-rsh-%d",
		 (int)getpid());
	mkdir(rsh_dir, 0700);
	snprintf(path, sizeof(path), "%s/rsh", rsh_dir);
	/* a remote shell that only keeps what it was given, and exits 0:
	 * the master then waits for the slave, which is the test */
	unlink(path);
	write_file(path, "#!/bin/sh\necho \"$@\" > \"$0.args\"\n"
		   "cat > \"$0.stdin\"\nexit 0\n", 0700);
	setenv("PVM_RSH", path, 1);
	start_daemon();
}

static void stop_master(void)
{
	char cmd[800];

	stop_daemon();
	unsetenv("PVM_RSH");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rsh_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", rsh_dir);
}

/* The master with the host timeout of the silence tests. */
static void start_master_tmo(void)
{
	setenv("COPVM_HOST_TIMEOUT_MS", "5000", 1);
	start_master();
}

static void stop_master_tmo(void)
{
	unsetenv("COPVM_HOST_TIMEOUT_MS");
	stop_master();
}

/* Every setting a slave must get from its master, and a value of each. */
static const char *const forwarded[][2] = {
	{ "COPVM_MODEL", "dcs" }, { "COPVM_P", "0.25" },
	{ "COPVM_INTERVAL_MS", "7" }, { "COPVM_BACKEND", "self" },
	{ "COPVM_SHARE", "0.02" }, { "COPVM_F_RT", "3" },
	{ "COPVM_DCS_E", "2" }, { "COPVM_DCS_C_US", "5" },
	{ "COPVM_DCS_TQ_US", "700" }, { "COPVM_SHM", "0" },
	{ "COPVM_URING", "0" }, { "COPVM_EXP_SYNC", "clocks" },
	{ "COPVM_QUIET", "1" },
};

/* The master with every coscheduling setting in its environment. */
static void start_master_env(void)
{
	size_t i;

	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		setenv(forwarded[i][0], forwarded[i][1], 1);
	start_master();
}

static void stop_master_env(void)
{
	size_t i;

	stop_master();
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		unsetenv(forwarded[i][0]);
}

/* The master's TCP port, from its log. */
static int master_port(void)
{
	char path[800], line[512], *p;
	int port = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" PVMI_DAEMON_LOG, dir);
	f = fopen(path, "r");
	ck_assert_ptr_ne(f, NULL);
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, "for daemons on TCP port ")))
			port = atoi(p + 24);
	fclose(f);
	ck_assert_int_gt(port, 0);
	return port;
}

/* Waits for the fake remote shell's stdin copy; returns it (static). */
static const char *shell_stdin(void)
{
	static char buf[4096];
	char path[800];
	long long end = now_ms() + 5000;
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/rsh.stdin", rsh_dir);
	while (now_ms() < end) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0 && strstr(buf, "\nend\n"))
				break;
		}
		msleep(20);
	}
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	return buf;
}

/* The next REPLY frame on task connection `fd' (USER frames skipped). */
static unsigned char *next_reply(int fd, struct pvmi_frame *f)
{
	unsigned char *body;

	for (;;) {
		ck_assert_int_eq(next_frame(fd, REPLY_MS, f, &body), 1);
		if (f->kind == PVMI_KIND_REPLY)
			return body;
		free(body);
	}
}

/* COSCHED of the machine asked by task `fd' of the master, while the
 * test's "slave" on `link' (host `index') answers `mode': 0 nothing, 1
 * a malformed record, 2 a good one.  Checks the master's own record is
 * whole; returns the slave's record status, and the wait in *ms. */
static int cosched_via_fake(int fd, int link, int index, int mode, int *ms)
{
	struct pvmi_wbuf w = { 0 }, rec = { 0 };
	struct pvmi_rbuf r, ir;
	struct pvmi_frame f;
	unsigned char *body;
	const void *q;
	size_t n = 0;
	int32_t reqid;
	long long t0;
	int st;

	pvmi_w_int(&w, 0);
	send_raw(fd, PVMI_KIND_REQUEST, PVMI_OP_COSCHED, w.data, w.len);
	pvmi_w_free(&w);
	for (;;) {		/* beats may come first */
		ck_assert_int_eq(next_frame(link, 3000, &f, &body), 1);
		if (f.tag == PVMI_DD_REQUEST)
			break;
		free(body);
	}
	pvmi_r_init(&r, body, f.len);
	reqid = pvmi_r_int(&r);
	pvmi_r_int(&r);
	ck_assert_int_eq(pvmi_r_int(&r), PVMI_OP_COSCHED);
	q = pvmi_r_bytes(&r, &n);
	ck_assert_ptr_ne(q, NULL);
	pvmi_r_init(&ir, q, n);
	ck_assert_int_eq(pvmi_r_int(&ir), PVMI_DAEMON_TID(index));
	free(body);
	t0 = now_ms();
	if (mode) {
		pvmi_w_int(&rec, 1);
		pvmi_w_int(&rec, PVMI_DAEMON_TID(index));
		pvmi_w_int(&rec, PvmOk);
		pvmi_w_str(&rec, "fakehost");
		if (mode == 2) {
			pvmi_w_int(&rec, 0);
			pvmi_w_int(&rec, 42);
			pvmi_w_str(&rec, "node=fakehost tasks=0\n");
		}		/* mode 1: the record stops short */
		pvmi_w_int(&w, reqid);
		pvmi_w_bytes(&w, rec.data, rec.len);
		send_frame(link, PVMI_KIND_DAEMON, PVMI_DAEMON_TID(index),
			   DTID, PVMI_DD_REPLY, &w);
		pvmi_w_free(&w);
		pvmi_w_free(&rec);
	}
	body = next_reply(fd, &f);
	*ms = (int)(now_ms() - t0);
	ck_assert_int_eq(f.tag, PVMI_OP_COSCHED);
	pvmi_r_init(&r, body, f.len);
	ck_assert_int_eq(pvmi_r_int(&r), 2);
	ck_assert_int_eq(pvmi_r_int(&r), DTID);
	ck_assert_int_eq(pvmi_r_int(&r), PvmOk);
	free(pvmi_r_str(&r));
	pvmi_r_int(&r);
	pvmi_r_int(&r);
	free(pvmi_r_str(&r));
	ck_assert_int_eq(pvmi_r_int(&r), PVMI_DAEMON_TID(index));
	st = pvmi_r_int(&r);
	ck_assert(str_item_eq(&r, "fakehost"));
	pvmi_r_int(&r);
	ck_assert_int_eq(pvmi_r_int(&r), st == PvmOk ? 42 : 0);
	ck_assert(str_item_eq(&r, st == PvmOk ? "node=fakehost tasks=0\n" : ""));
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);
	return st;
}

START_TEST(master_starts_a_slave)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_frame f;
	struct pvmi_rbuf r;
	unsigned char *body, hexkey[PVMI_SECRET_LEN];
	char args[800], hex[80], path[800];
	const char *in, *p;
	int fd, me, link, port, index = 0, kind, id;
	int32_t v;
	FILE *af;

	fd = task_connect(&me);
	/* the host name is looked up: use a numeric ip= for it */
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "fakehost ip=127.0.0.1 sp=42");
	send_raw(fd, PVMI_KIND_REQUEST, PVMI_OP_ADDHOSTS, w.data, w.len);
	pvmi_w_free(&w);
	in = shell_stdin();
	/* the command line has no secret; stdin has it */
	snprintf(path, sizeof(path), "%s/rsh.args", rsh_dir);
	af = fopen(path, "r");
	ck_assert_ptr_ne(af, NULL);
	ck_assert_ptr_ne(fgets(args, sizeof(args), af), NULL);
	fclose(af);
	ck_assert_msg(strstr(args, "127.0.0.1 ") == args, "args: %s", args);
	ck_assert_ptr_ne(strstr(args, " -s "), NULL);
	ck_assert_ptr_ne(strstr(args, " -nfakehost"), NULL);
	ck_assert(strncmp(in, PVMI_SLAVE_MAGIC "\n", 14) == 0);
	p = strstr(in, "\nindex ");
	ck_assert_ptr_ne(p, NULL);
	index = atoi(p + 7);
	ck_assert_int_eq(index, 2);
	p = strstr(in, "\nsecret ");
	ck_assert_ptr_ne(p, NULL);
	snprintf(hex, sizeof(hex), "%.64s", p + 8);
	ck_assert_int_eq(pvmi_secret_from_hex(hex, hexkey), 0);
	ck_assert(memcmp(hexkey, fixture_secret, sizeof(hexkey)) == 0);
	ck_assert_ptr_eq(strstr(args, hex), NULL);
	ck_assert_ptr_ne(strstr(in, "\nsp 42\n"), NULL);
	memcpy(key, hexkey, sizeof(key));
	port = master_port();

	/* strangers first: the master is waiting for host 2 */
	strangers(port);
	/* a good handshake as a host nobody is starting */
	link = tcp_connect(port);
	ck_assert_int_eq(handshake(link, key, PVMI_AUTH_INITIATOR,
				   PVMI_AUTH_DAEMON, 9, NULL, NULL),
			 PVMI_AUTH_DONE);
	ck_assert(closed_silently(link, 3000));
	close(link);

	/* now the slave it expects: handshake, DD_HELLO */
	link = tcp_connect(port);
	ck_assert_int_eq(handshake(link, key, PVMI_AUTH_INITIATOR,
				   PVMI_AUTH_DAEMON, index, &kind, &id),
			 PVMI_AUTH_DONE);
	ck_assert_int_eq(id, 1);
	pvmi_w_int(&w, index);
	pvmi_w_str(&w, "whatever");
	pvmi_w_str(&w, PVMI_ARCH_NAME);
	pvmi_w_int(&w, 42);
	pvmi_w_int(&w, PVMI_DSIG);
	pvmi_w_str(&w, "127.0.0.1");
	pvmi_w_int(&w, 1);		/* a port nobody listens on */
	pvmi_w_int(&w, 4242);
	send_frame(link, PVMI_KIND_DAEMON, PVMI_DAEMON_TID(index), DTID,
		   PVMI_DD_HELLO, &w);
	pvmi_w_free(&w);
	/* the asking task gets the new host's dtid */
	ck_assert_int_eq(next_frame(fd, REPLY_MS, &f, &body), 1);
	ck_assert_int_eq(f.tag, PVMI_OP_ADDHOSTS);
	pvmi_r_init(&r, body, f.len);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	ck_assert_int_eq(pvmi_r_ints(&r, &v, 1), 0);
	ck_assert_int_eq(v, SLAVE_DTID);
	free(body);
	/* the new "slave" gets the table, with the name the master knows */
	ck_assert_int_eq(next_frame(link, 3000, &f, &body), 1);
	ck_assert_int_eq(f.tag, PVMI_DD_HOSTS);
	pvmi_r_init(&r, body, f.len);
	ck_assert_int_eq(pvmi_r_int(&r), 2);
	free(body);
	body = call(fd, PVMI_OP_CONFIG, NULL, &r);
	ck_assert_int_eq(pvmi_r_int(&r), 2);
	free(body);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "fakehost"), PvmOk);
	/* COSCHED (daemon/costat.c) gathers the slave's record: as it came;
	 * a malformed one spoils that host's only; silence is PvmHostFail
	 * once the 1.5 s wait is over, and the master serves on */
	ck_assert_int_eq(cosched_via_fake(fd, link, index, 2, &v), PvmOk);
	ck_assert_int_eq(cosched_via_fake(fd, link, index, 1, &v), PvmBadMsg);
	ck_assert_int_eq(cosched_via_fake(fd, link, index, 0, &v), PvmHostFail);
	ck_assert_int_ge(v, 1300);
	ck_assert_int_lt(v, 4000);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "fakehost"), PvmOk);
	/* and after more strangers, deleting it halts it */
	strangers(port);
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "fakehost");
	body = call(fd, PVMI_OP_DELHOSTS, &w, &r);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	free(body);
	ck_assert_int_eq(next_frame(link, 3000, &f, &body), 1);
	ck_assert_int_eq(f.tag, PVMI_DD_HALT);
	free(body);
	ck_assert(closed_silently(link, 3000));
	close(link);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "fakehost"), PvmNoHost);
	close(fd);
	assert_alive();
}
END_TEST

/* The settings reach the slave on its standard input, whatever the
 * remote shell does with the environment (ssh starts a clean one). */
START_TEST(master_forwards_every_cosched_setting)
{
	struct pvmi_wbuf w = { 0 };
	char line[128];
	const char *in;
	size_t i;
	int fd, me;

	fd = task_connect(&me);
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "fakehost ip=127.0.0.1");
	send_raw(fd, PVMI_KIND_REQUEST, PVMI_OP_ADDHOSTS, w.data, w.len);
	pvmi_w_free(&w);
	in = shell_stdin();
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		snprintf(line, sizeof(line), "\nenv %s %s\n", forwarded[i][0],
			 forwarded[i][1]);
		ck_assert_msg(strstr(in, line) != NULL, "no%s in: %s", line, in);
	}
	/* paths of the master's host stay there */
	ck_assert_ptr_eq(strstr(in, "COPVM_AGENT_SOCK"), NULL);
	close(fd);
}
END_TEST

START_TEST(master_declares_silent_slave_dead)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_frame f;
	struct pvmi_rbuf r;
	unsigned char *body;
	const char *in, *p;
	char hex[80];
	int fd, me, link, kind, id, up = -1, gone = -1, beats = 0;
	long long t0, end;

	fd = task_connect(&me);
	/* ht= of the line beats the daemon's 5 s, and goes to the slave */
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "fakehost ip=127.0.0.1 ht=1000");
	send_raw(fd, PVMI_KIND_REQUEST, PVMI_OP_ADDHOSTS, w.data, w.len);
	pvmi_w_free(&w);
	in = shell_stdin();
	ck_assert_msg(strstr(in, "\nenv COPVM_HOST_TIMEOUT_MS 1000\n") != NULL,
		      "stdin: %s", in);
	p = strstr(in, "\nsecret ");
	ck_assert_ptr_ne(p, NULL);
	snprintf(hex, sizeof(hex), "%.64s", p + 8);
	ck_assert_int_eq(pvmi_secret_from_hex(hex, key), 0);
	link = tcp_connect(master_port());
	ck_assert_int_eq(handshake(link, key, PVMI_AUTH_INITIATOR,
				   PVMI_AUTH_DAEMON, 2, &kind, &id),
			 PVMI_AUTH_DONE);
	pvmi_w_int(&w, 2);
	pvmi_w_str(&w, "whatever");
	pvmi_w_str(&w, PVMI_ARCH_NAME);
	pvmi_w_int(&w, 42);
	pvmi_w_int(&w, PVMI_DSIG);
	pvmi_w_str(&w, "127.0.0.1");
	pvmi_w_int(&w, 1);
	pvmi_w_int(&w, 4242);
	send_frame(link, PVMI_KIND_DAEMON, SLAVE_DTID, DTID, PVMI_DD_HELLO,
		   &w);
	pvmi_w_free(&w);
	t0 = now_ms();
	/* the task: HOSTSTATE "joined", then the reply; then, the slave
	 * silent, HOSTSTATE "left" after about the host's timeout */
	end = t0 + 4000;
	while (gone < 0 && now_ms() < end &&
	       read_frame(fd, (int)(end - now_ms()), &f, &body) == 1) {
		if (f.kind == PVMI_KIND_USER && f.ctx == PVMI_SYS_CTX &&
		    f.tag == PVMI_TAG_HOSTSTATE) {
			pvmi_r_init(&r, body, f.len);
			ck_assert_int_eq(pvmi_r_int(&r), SLAVE_DTID);
			if (pvmi_r_int(&r))
				up = (int)(now_ms() - t0);
			else
				gone = (int)(now_ms() - t0);
		}
		free(body);
	}
	ck_assert_int_ge(up, 0);
	ck_assert_int_lt(up, gone);
	ck_assert_msg(gone >= 800 && gone <= 2500, "declared dead after %d ms",
		      gone);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "fakehost"), PvmNoHost);
	/* meanwhile the master beat on the link, then closed it */
	while (read_frame(link, 1000, &f, &body) == 1) {
		beats += f.kind == PVMI_KIND_DAEMON && f.tag == PVMI_DD_BEAT;
		free(body);
	}
	ck_assert_int_ge(beats, 3);
	close(link);
	ck_assert(log_has("host 2 silent for"));
	close(fd);
	assert_alive();
}
END_TEST

/* ---- EXP's clock exchange, the test as the master ---- */

#define SKEW_MS		700	/* the slave's clock ahead of ours */
#define M_IP_MS		200	/* the master's schedule */
#define M_PS_MS		100

static const char *const exp_sync_env[] = {
	"COPVM_MODEL=exp", "COPVM_EXP_IP_MS=100", "COPVM_EXP_PS_MS=50",
	"COPVM_TEST_CLOCK_SKEW_MS=700", NULL
};
/* The same slave, its own schedule the master's, no exchange. */
static const char *const exp_nosync_env[] = {
	"COPVM_MODEL=exp", "COPVM_EXP_IP_MS=200", "COPVM_EXP_PS_MS=100",
	"COPVM_TEST_CLOCK_SKEW_MS=700", "COPVM_EXP_SYNC=clocks", NULL
};

static void start_slave_exp(void)
{
	slave_env = exp_sync_env;
	start_slave();
}

static void start_slave_exp_nosync(void)
{
	slave_env = exp_nosync_env;
	start_slave();
}

static void stop_slave_exp(void)
{
	slave_env = NULL;
	stop_slave();
}

static uint64_t rt_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t r_u64(struct pvmi_rbuf *r)
{
	uint64_t hi = (uint32_t)pvmi_r_int(r);

	return hi << 32 | (uint32_t)pvmi_r_int(r);
}

static void w_u64(struct pvmi_wbuf *w, uint64_t v)
{
	pvmi_w_int(w, (int32_t)(uint32_t)(v >> 32));
	pvmi_w_int(w, (int32_t)(uint32_t)v);
}

/* Plays the master for `ms': answers every DD_CLOCK as the master does
 * (our CLOCK_REALTIME, the schedule STATIC M_IP_MS/M_PS_MS).  Returns
 * the probes answered; *ahead_ms (may be NULL) gets the largest gap
 * seen between a probe's t0 and our clock when it came, in ms. */
static int serve_clock(int ms, double *ahead_ms)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_frame f;
	struct pvmi_rbuf r;
	unsigned char *body;
	long long end = now_ms() + ms;
	uint64_t t0, t1;
	int32_t seq;
	int n = 0, on = 1;
	double a;

	/* as the daemons' links: a frame's header and body leave at once */
	setsockopt(slave_link, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	while (now_ms() < end) {
		if (read_frame(slave_link, (int)(end - now_ms()), &f,
			       &body) != 1)
			continue;
		t1 = rt_ns();
		if (f.kind == PVMI_KIND_DAEMON && f.tag == PVMI_DD_CLOCK) {
			pvmi_r_init(&r, body, f.len);
			seq = pvmi_r_int(&r);
			t0 = r_u64(&r);
			ck_assert_int_eq(r.failed, 0);
			a = ((double)t0 - (double)t1) / 1e6;
			if (ahead_ms && (n == 0 || a > *ahead_ms))
				*ahead_ms = a;
			pvmi_w_int(&w, seq);
			w_u64(&w, t0);
			w_u64(&w, t1);
			w_u64(&w, rt_ns());
			pvmi_w_int(&w, 0);		/* EXP_STATIC */
			pvmi_w_int(&w, M_IP_MS * 1000);
			pvmi_w_int(&w, M_PS_MS * 1000);
			send_frame(slave_link, PVMI_KIND_DAEMON, 0x40000,
				   SLAVE_DTID, PVMI_DD_CLOCK_ACK, &w);
			pvmi_w_free(&w);
			n++;
		}
		free(body);
	}
	return n;
}

/* The slave's log, up to `size' bytes, into `buf'. */
static void slave_log(char *buf, size_t size)
{
	char path[900];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), PVMI_DIR_FMT "/" PVMI_DAEMON_LOG, sdir,
		 (unsigned)getuid());
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Spawns a spinner on the slave, leaves the table (so that we are not
 * stopped with it) and watches it for `ms': the phase in the master's
 * period (our CLOCK_REALTIME modulo M_IP_MS) at which each stop was
 * seen, into phase[]; returns how many. */
static int stop_phases(int ms, int *phase, int max)
{
	static const char *const spin[] = { "-c", "while :; do :; done",
					    NULL };
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	int32_t tid, v[5];
	int fd = slave_task(), n, i, k, np = 0;
	long long end;
	char last, st;
	pid_t p = 0;

	ck_assert_int_eq(spawn(fd, "/bin/sh", PvmTaskHost, "slavehost", 1,
			       spin, NULL, 0, 0, &tid), 1);
	/* TASKS of this host: tid, ptid, host, flag, pid, a.out each */
	pvmi_w_int(&w, SLAVE_DTID);
	body = call(fd, PVMI_OP_TASKS, &w, &r);
	n = pvmi_r_int(&r);
	for (i = 0; i < n && !r.failed; i++) {
		for (k = 0; k < 5; k++)
			v[k] = pvmi_r_int(&r);
		free(pvmi_r_str(&r));
		if (v[0] == tid)
			p = v[4];
	}
	free(body);
	ck_assert_int_gt(p, 1);
	close(fd);
	msleep(300);
	last = state_of(p);	/* a task already stopped is no stop seen */
	for (end = now_ms() + ms; now_ms() < end; usleep(300)) {
		st = state_of(p);
		if (st == 'T' && last != 'T' && np < max)
			phase[np++] = (int)(rt_ns() / 1000000 % M_IP_MS);
		last = st;
	}
	kill(p, SIGKILL);
	return np;
}

/* How many of `phase[n]' fall within `slack' ms after `at'. */
static int near(const int *phase, int n, int at, int slack)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += (phase[i] - at + M_IP_MS) % M_IP_MS < slack;
	return k;
}

START_TEST(skewed_slave_keeps_in_step_by_messages)
{
	char *buf = malloc(1 << 16), *p;
	double ahead = 0, off_ms = 0, rtt_ms = 0;
	int phase[32], np, probes, aligned, k;

	ck_assert_ptr_ne(buf, NULL);
	/* the slave probes as soon as it has the host table; its clock
	 * reads SKEW_MS ahead of ours */
	probes = serve_clock(1500, &ahead);
	ck_assert_int_ge(probes, 4);
	ck_assert_msg(ahead > SKEW_MS - 50 && ahead < SKEW_MS + 50,
		      "probes stamped %.1f ms ahead", ahead);
	slave_log(buf, 1 << 16);
	p = strstr(buf, "EXP: clock offset to the master ");
	ck_assert_msg(p != NULL, "no offset in the slave's log:\n%s", buf);
	ck_assert_int_eq(sscanf(p, "EXP: clock offset to the master %lf ms "
				"(round trip %lf", &off_ms, &rtt_ms), 2);
	fprintf(stderr, "exp sync: skew +%d ms, offset estimated %+.3f ms, "
		"round trip %.3f ms\n", SKEW_MS, off_ms, rtt_ms);
	/* -skew within a few ms (the bound is half the round trip) */
	ck_assert_msg(off_ms > -SKEW_MS - 3 && off_ms < -SKEW_MS + 3,
		      "offset %.3f ms", off_ms);
	ck_assert(strstr(buf, "EXP: schedule from the master: mode static, "
			 "IP 200.000 ms, PS 100.000 ms") != NULL);
	/* a new host table (a host added) brings a round at once, long
	 * before the next one due (EXP_SYNC_PERIOD_MS, 5 s) */
	send_table();
	probes = serve_clock(1000, NULL);
	ck_assert_int_ge(probes, 4);
	/* its task stops where our PS ends, 100 ms into our periods */
	np = stop_phases(1400, phase, 32);
	ck_assert_int_ge(np, 4);
	aligned = near(phase, np, M_PS_MS, 20);
	fprintf(stderr, "exp sync: %d of %d stops within 20 ms after the "
		"master's PS end; phases (ms):", aligned, np);
	for (k = 0; k < np; k++)
		fprintf(stderr, " %d", phase[k]);
	fputc('\n', stderr);
	ck_assert_msg(aligned * 4 >= np * 3, "%d of %d stops in step",
		      aligned, np);
	free(buf);
}
END_TEST

START_TEST(skewed_slave_without_the_exchange_is_out_of_step)
{
	int phase[32], np, off, k;

	/* no probe comes */
	ck_assert_int_eq(serve_clock(800, NULL), 0);
	/* the same task stops SKEW_MS early: half a period away from our
	 * PS end, where our tasks are continued */
	np = stop_phases(1400, phase, 32);
	ck_assert_int_ge(np, 4);
	off = (M_PS_MS - SKEW_MS % M_IP_MS + M_IP_MS) % M_IP_MS;
	fprintf(stderr, "exp nosync: %d of %d stops at the master's PS end, "
		"%d within 50 ms after %d ms; phases (ms):",
		near(phase, np, M_PS_MS, 15), np, near(phase, np, off, 50),
		off);
	for (k = 0; k < np; k++)
		fprintf(stderr, " %d", phase[k]);
	fputc('\n', stderr);
	ck_assert_int_eq(near(phase, np, M_PS_MS, 15), 0);
	ck_assert_msg(near(phase, np, off, 50) * 4 >= np * 3,
		      "stops not at %d ms", off);
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("pvmd_net");
	TCase *tc;

	tc = tcase_create("slave");
	tcase_add_checked_fixture(tc, start_slave, stop_slave);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, slave_joins_and_serves);
	tcase_add_test(tc, slave_port_strangers);
	tcase_add_test(tc, slave_halts_without_master);
	suite_add_tcase(s, tc);
	tc = tcase_create("master");
	tcase_add_checked_fixture(tc, start_master, stop_master);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, master_starts_a_slave);
	suite_add_tcase(s, tc);
	tc = tcase_create("silence");
	tcase_add_checked_fixture(tc, start_slave_tmo, stop_slave_tmo);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, slave_beats_while_heard);
	tcase_add_test(tc, slave_halts_when_master_silent);
	suite_add_tcase(s, tc);
	tc = tcase_create("master_env");
	tcase_add_checked_fixture(tc, start_master_env, stop_master_env);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, master_forwards_every_cosched_setting);
	suite_add_tcase(s, tc);

	tc = tcase_create("master_silence");
	tcase_add_checked_fixture(tc, start_master_tmo, stop_master_tmo);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, master_declares_silent_slave_dead);
	suite_add_tcase(s, tc);
	tc = tcase_create("exp_sync");
	tcase_add_checked_fixture(tc, start_slave_exp, stop_slave_exp);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, skewed_slave_keeps_in_step_by_messages);
	suite_add_tcase(s, tc);
	tc = tcase_create("exp_nosync");
	tcase_add_checked_fixture(tc, start_slave_exp_nosync, stop_slave_exp);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, skewed_slave_without_the_exchange_is_out_of_step);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(net_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * pvmd_fixture.c - see pvmd_fixture.h.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvmd_fixture.h"

#ifndef PVMD_PATH
#error "PVMD_PATH must name the built daemon"
#endif

char base[256], dir[512], sockpath[800], home[300];
pid_t dpid;
unsigned char fixture_secret[32];
int fixture_regflags;

/* ---- the daemon ---- */

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_ne(f, NULL);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

int try_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, sockpath);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits up to `ms' for the daemon to exit; returns its wait status or
 * -1 if it is still running. */
int wait_daemon(int ms)
{
	long long end = now_ms() + ms;
	int st;

	while (dpid > 0) {
		if (waitpid(dpid, &st, WNOHANG) == dpid) {
			dpid = 0;
			return st;
		}
		if (now_ms() > end)
			return -1;
		msleep(5);
	}
	return -1;
}

void stop_daemon(void)
{
	char cmd[400];

	if (dpid > 0) {
		kill(dpid, SIGTERM);
		if (wait_daemon(3000) < 0) {
			kill(dpid, SIGKILL);
			waitpid(dpid, NULL, 0);
			dpid = 0;
		}
	}
	if (base[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", base);
		base[0] = '\0';
	}
}

/* Starts pvmd with up to two arguments (a2 may be NULL), its stdout and
 * stderr going to `out'. */
pid_t run_pvmd(const char *a1, const char *a2, const char *out)
{
	pid_t pid = fork();
	int fd;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(PVMD_PATH, "pvmd", a1, a2, (char *)NULL);
		_exit(127);
	}
	return pid;
}

void start_daemon(void)
{
	char path[700];
	long long end;
	int fd;

	snprintf(base, sizeof(base), "/tmp/check_pvmd-XXXXXX");
	ck_assert_ptr_ne(mkdtemp(base), NULL);
	snprintf(home, sizeof(home), "%s/home", base);
	ck_assert_int_eq(mkdir(home, 0700), 0);
	snprintf(dir, sizeof(dir), PVMI_DIR_FMT, base, (unsigned)getuid());
	snprintf(sockpath, sizeof(sockpath), "%s/" PVMI_DAEMON_SOCK, dir);
	setenv("PVM_TMP", base, 1);
	setenv("HOME", home, 1);
	unsetenv("PVM_ROOT");
	unsetenv("PVM_ARCH");
	snprintf(path, sizeof(path), "%s/dbg.sh", base);
	write_file(path, "#!/bin/sh\necho \"dbg: $*\"\nexec \"$@\"\n", 0755);
	setenv("PVM_DEBUGGER", path, 1);
	atexit(stop_daemon);
	/* our connections are tasks: a halting daemon sends us SIGTERM */
	signal(SIGTERM, SIG_IGN);

	snprintf(path, sizeof(path), "%s/pvmd.out", base);
	dpid = run_pvmd("-f", NULL, path);
	for (end = now_ms() + 5000; now_ms() < end; msleep(10)) {
		fd = try_connect();
		if (fd >= 0) {
			close(fd);
			return;
		}
	}
	ck_abort_msg("pvmd did not start");
}

/* ---- frames ---- */

struct ustash {
	int fd;
	struct pvmi_frame f;
	unsigned char *body;
};

static struct ustash stash[512];
int nstash;

void xwrite(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t k;

	while (n > 0) {
		k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		ck_assert_msg(k > 0, "write: %s", strerror(errno));
		c += k;
		n -= (size_t)k;
	}
}

void send_raw(int fd, int kind, int tag, const void *body,
		     size_t len)
{
	struct pvmi_frame f = {
		.magic = PVMI_FRAME_MAGIC, .len = (uint32_t)len, .src = 0,
		.dst = DTID, .tag = tag, .kind = (uint32_t)kind,
	};
	unsigned char hdr[PVMI_FRAME_HDR_LEN];

	pvmi_frame_encode(&f, hdr);
	xwrite(fd, hdr, sizeof(hdr));
	if (len)
		xwrite(fd, body, len);
}

/* Reads exactly n bytes before `end'; 1, 0 on EOF, -1 timeout/error. */
static int read_full(int fd, void *p, size_t n, long long end)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char *c = p;
	ssize_t k;
	long long left;

	while (n > 0) {
		left = end - now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -1;
		k = read(fd, c, n);
		if (k == 0)
			return 0;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == ECONNRESET ? 0 : -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 1;
}

/* Reads one frame; 1, 0 on EOF, -1 on timeout or a bad frame. */
int read_frame(int fd, int ms, struct pvmi_frame *f,
		      unsigned char **body)
{
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	long long end = now_ms() + ms;
	int rc;

	*body = NULL;
	rc = read_full(fd, hdr, sizeof(hdr), end);
	if (rc <= 0)
		return rc;
	if (pvmi_frame_decode(hdr, f) < 0)
		return -1;
	*body = malloc(f->len + 1);
	ck_assert_ptr_ne(*body, NULL);
	rc = read_full(fd, *body, f->len, end);
	if (rc <= 0) {
		free(*body);
		*body = NULL;
		return -1;
	}
	return 1;
}

/* Sends a request and returns its reply body (caller frees), reader in
 * *r; USER frames that arrive first are stashed. */
unsigned char *call(int fd, int op, struct pvmi_wbuf *w,
			   struct pvmi_rbuf *r)
{
	struct pvmi_frame f;
	unsigned char *body;

	send_raw(fd, PVMI_KIND_REQUEST, op, w ? w->data : NULL,
		 w ? w->len : 0);
	if (w)
		pvmi_w_free(w);
	for (;;) {
		ck_assert_int_eq(read_frame(fd, REPLY_MS, &f, &body), 1);
		ck_assert_int_eq(PVMI_TID_LOCAL(f.src), 0);	/* a daemon */
		if (f.kind == PVMI_KIND_REPLY)
			break;
		ck_assert_uint_eq(f.kind, PVMI_KIND_USER);
		ck_assert_int_lt(nstash, 512);
		stash[nstash].fd = fd;
		stash[nstash].f = f;
		stash[nstash++].body = body;
	}
	ck_assert_int_eq(f.tag, op);
	pvmi_r_init(r, body, f.len);
	return body;
}

/* Sends a request; returns the status (first int) of the reply. */
int call_status(int fd, int op, struct pvmi_wbuf *w)
{
	struct pvmi_rbuf r;
	unsigned char *body = call(fd, op, w, &r);
	int st = pvmi_r_int(&r);

	ck_assert_int_eq(r.failed, 0);
	free(body);
	return st;
}

/* The next USER frame for `fd' (stashed or new); 0 on timeout. */
int next_user(int fd, int ms, struct pvmi_frame *f,
		     unsigned char **body)
{
	int i;

	for (i = 0; i < nstash; i++) {
		if (stash[i].fd != fd)
			continue;
		*f = stash[i].f;
		*body = stash[i].body;
		memmove(&stash[i], &stash[i + 1],
			(size_t)(nstash - i - 1) * sizeof(stash[0]));
		nstash--;
		return 1;
	}
	if (read_frame(fd, ms, f, body) != 1)
		return 0;
	ck_assert_uint_eq(f->kind, PVMI_KIND_USER);
	return 1;
}

/* ---- requests ---- */

int reg_full(int fd, int claimed, int *ptid, int *nsib, int32_t *sib)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	const void *key;
	size_t keylen = 0;
	int32_t v[9], sibs[64];
	int n, i;

	pvmi_w_int(&w, getpid());
	pvmi_w_int(&w, claimed);
	pvmi_w_str(&w, "check_pvmd");
	body = call(fd, PVMI_OP_REGISTER, &w, &r);
	for (i = 0; i < 9; i++)
		v[i] = pvmi_r_int(&r);
	if (v[0] < 0) {
		free(body);
		return v[0];
	}
	n = pvmi_r_int(&r);
	ck_assert_int_ge(n, 1);
	ck_assert_int_le(n, 64);
	ck_assert_int_eq(pvmi_r_ints(&r, sibs, (size_t)n), 0);
	if (sib)
		memcpy(sib, sibs, (size_t)n * sizeof(*sib));
	key = pvmi_r_bytes(&r, &keylen);
	ck_assert_ptr_ne(key, NULL);
	ck_assert_uint_eq(keylen, sizeof(fixture_secret));
	memcpy(fixture_secret, key, sizeof(fixture_secret));
	fixture_regflags = pvmi_r_int(&r);
	/* the session id: 8 bytes, the name of the sockets' directory */
	key = pvmi_r_bytes(&r, &keylen);
	ck_assert_ptr_ne(key, NULL);
	ck_assert_uint_eq(keylen, PVMI_SESSION_LEN);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	if (ptid)
		*ptid = v[1];
	if (nsib)
		*nsib = n;
	free(body);
	return v[0];
}

int task_connect(int *tid)
{
	int fd = try_connect();

	ck_assert_int_ge(fd, 0);
	*tid = reg_full(fd, 0, NULL, NULL, NULL);
	ck_assert_int_gt(*tid, DTID);
	return fd;
}

/* A fresh connection still gets registered and a CONFIG answer. */
void assert_alive(void)
{
	struct pvmi_rbuf r;
	unsigned char *body;
	int tid, fd = task_connect(&tid);

	body = call(fd, PVMI_OP_CONFIG, NULL, &r);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	free(body);
	close(fd);
}

int spawn(int fd, const char *file, int flags, const char *where,
		 int count, const char *const *argv, const char *const *env,
		 int outtid, int outcode, int32_t *tids)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	int n, st;

	pvmi_w_str(&w, file);
	pvmi_w_int(&w, flags);
	pvmi_w_str(&w, where);
	pvmi_w_int(&w, count);
	for (n = 0; argv && argv[n]; n++)
		;
	pvmi_w_int(&w, n);
	for (n = 0; argv && argv[n]; n++)
		pvmi_w_str(&w, argv[n]);
	for (n = 0; env && env[n]; n++)
		;
	pvmi_w_int(&w, n);
	for (n = 0; env && env[n]; n++)
		pvmi_w_str(&w, env[n]);
	pvmi_w_int(&w, 0);		/* ctx */
	pvmi_w_int(&w, outtid);
	pvmi_w_int(&w, outcode);
	pvmi_w_int(&w, 0);		/* outctx */
	pvmi_w_int(&w, 0);
	pvmi_w_int(&w, 0);
	pvmi_w_int(&w, 0);
	body = call(fd, PVMI_OP_SPAWN, &w, &r);
	st = pvmi_r_int(&r);
	if (st >= 0)
		ck_assert_int_eq(pvmi_r_ints(&r, tids, (size_t)count), 0);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);
	return st;
}

int op_int(int fd, int op, int v)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, v);
	return call_status(fd, op, &w);
}

int op_str(int fd, int op, const char *s)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_str(&w, s);
	return call_status(fd, op, &w);
}

/* TASKS: returns n and fills up to `max' tids/ptids/flags/pids. */
int tasks(int fd, int which, int max, int32_t *tid, int32_t *ptid,
		 int32_t *flag, int32_t *pid)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	int n, i;
	char *aout;

	pvmi_w_int(&w, which);
	body = call(fd, PVMI_OP_TASKS, &w, &r);
	n = pvmi_r_int(&r);
	for (i = 0; i < n; i++) {
		int32_t v[5];
		int k;

		for (k = 0; k < 5; k++)
			v[k] = pvmi_r_int(&r);
		aout = pvmi_r_str(&r);
		ck_assert_ptr_ne(aout, NULL);
		free(aout);
		ck_assert_int_eq(v[2], DTID);
		if (i < max) {
			tid[i] = v[0];
			if (ptid)
				ptid[i] = v[1];
			if (flag)
				flag[i] = v[3];
			if (pid)
				pid[i] = v[4];
		}
	}
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);
	return n;
}

int task_listed(int fd, int tid)
{
	int32_t t[256];
	int n = tasks(fd, 0, 256, t, NULL, NULL, NULL), i;

	for (i = 0; i < n && i < 256; i++)
		if (t[i] == tid)
			return 1;
	return 0;
}

/* Polls until `tid' leaves the task table; fails after 3 s. */
void wait_task_gone(int fd, int tid)
{
	long long end = now_ms() + 3000;

	while (task_listed(fd, tid)) {
		ck_assert_msg(now_ms() < end, "t%x still listed", tid);
		msleep(20);
	}
}

const char *const no_args[] = { NULL };

int str_item_eq(struct pvmi_rbuf *r, const char *want)
{
	char *s = pvmi_r_str(r);
	int eq = s && !strcmp(s, want);

	free(s);
	return eq;
}

int log_has_in(const char *d, const char *text)
{
	char path[900], *buf;
	FILE *f;
	long n;
	int found;

	snprintf(path, sizeof(path), "%s/" PVMI_DAEMON_LOG, d);
	f = fopen(path, "r");
	if (!f)
		return 0;
	buf = calloc(1, 1 << 20);
	n = (long)fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	found = n > 0 && strstr(buf, text) != NULL;
	free(buf);
	return found;
}

int log_has(const char *text)
{
	return log_has_in(dir, text);
}

/* The field after the command name in /proc/<pid>/stat; the name is in
 * parentheses and may itself hold ") ", hence the last ')'. */
char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Writes the path of task `tid''s socket (pvmd_fixture.h). */
void task_sock_path(char *buf, size_t len, int tid)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	char sess[64] = "";

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] == 's' && strlen(e->d_name) == 17)
			snprintf(sess, sizeof(sess), "%s", e->d_name);
	closedir(d);
	ck_assert_str_ne(sess, "");
	snprintf(buf, len, "%s/%s/" PVMI_TASK_SOCK_FMT, dir, sess,
		 (unsigned)tid);
}

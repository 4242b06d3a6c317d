/*
 * check_pvmd.c - tests of pvmd through its socket, with common/wire and
 * common/codec only (no libpvm3): registration and the small requests,
 * spawn, task output, notifies, hostile and broken clients, halting and
 * start-up.  The mailbox has its own program, check_pvmd_mbox.c; both
 * use the private daemon of pvmd_fixture.c.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "copvm.h"
#include "cosched_page.h"
#include "pvmd_fixture.h"

/* ---- registration and the small requests ---- */

START_TEST(register_and_config)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	char host[256] = "";
	int32_t sib[4], v[2];
	int ptid = -1, nsib = 0, fd, fd2, tid2, c1, c2;

	fd = try_connect();
	ck_assert_int_ge(fd, 0);
	/* nothing but REGISTER before registering */
	ck_assert_int_eq(call_status(fd, PVMI_OP_CONFIG, NULL), PvmSysErr);
	ck_assert_int_eq(reg_full(fd, 0, &ptid, &nsib, sib), 0x40001);
	ck_assert_int_eq(ptid, 0);
	ck_assert_int_eq(nsib, 1);
	ck_assert_int_eq(sib[0], 0x40001);
	ck_assert_int_eq(reg_full(fd, 0, NULL, NULL, NULL), PvmExists);
	fd2 = task_connect(&tid2);
	ck_assert_int_eq(tid2, 0x40002);

	body = call(fd, PVMI_OP_CONFIG, NULL, &r);
	gethostname(host, sizeof(host) - 1);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	ck_assert_int_eq(pvmi_r_int(&r), DTID);
	ck_assert(str_item_eq(&r, host));
	ck_assert(str_item_eq(&r, PVMI_ARCH_NAME));
	ck_assert_int_eq(pvmi_r_int(&r), 1000);
	ck_assert_int_eq(pvmi_r_int(&r), PVMI_DSIG);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);

	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, host), PvmOk);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "localhost"), PvmOk);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "."), PvmOk);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "no-such-host"), PvmNoHost);
	ck_assert_int_eq(op_int(fd, PVMI_OP_PSTAT, tid2), PvmOk);
	ck_assert_int_eq(op_int(fd, PVMI_OP_PSTAT, DTID), PvmOk);
	ck_assert_int_eq(op_int(fd, PVMI_OP_PSTAT, 0x40099), PvmNoTask);
	ck_assert_int_eq(op_int(fd, PVMI_OP_TIDTOHOST, tid2), DTID);
	ck_assert_int_eq(op_int(fd, PVMI_OP_TIDTOHOST, 0x40099), PvmNoTask);

	pvmi_w_int(&w, DTID);
	body = call(fd, PVMI_OP_HOSTSYNC, &w, &r);
	ck_assert_int_eq(pvmi_r_int(&r), PvmOk);
	v[0] = pvmi_r_int(&r);
	v[1] = pvmi_r_int(&r);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_int_lt(labs((long)v[0] - (long)time(NULL)), 5);
	ck_assert_int_lt(v[1], 1000000);
	free(body);
	ck_assert_int_eq(op_int(fd, PVMI_OP_HOSTSYNC, 0x80000), PvmNoHost);

	c1 = call_status(fd, PVMI_OP_NEWCTX, NULL);
	c2 = call_status(fd, PVMI_OP_NEWCTX, NULL);
	ck_assert_int_gt(c1, 0);
	ck_assert_int_gt(c2, 0);
	ck_assert_int_ne(c1, c2);
	ck_assert_int_eq(op_int(fd, PVMI_OP_FREECTX, c1), PvmOk);
	ck_assert_int_eq(op_int(fd, PVMI_OP_FREECTX, c1), PvmNotFound);

	/* a host name that could not go to a remote shell */
	pvmi_w_int(&w, 2);
	pvmi_w_str(&w, "localhost");
	pvmi_w_str(&w, "else;where");
	body = call(fd, PVMI_OP_ADDHOSTS, &w, &r);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(pvmi_r_ints(&r, v, 2), 0);
	ck_assert_int_eq(v[0], PvmDupHost);
	ck_assert_int_eq(v[1], PvmBadParam);
	free(body);
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "elsewhere");
	body = call(fd, PVMI_OP_DELHOSTS, &w, &r);
	ck_assert_int_eq(pvmi_r_int(&r), 0);
	ck_assert_int_eq(pvmi_r_ints(&r, v, 1), 0);
	ck_assert_int_eq(v[0], PvmNoHost);
	free(body);

	/* EXIT: the connection stays but is no longer a task */
	ck_assert_int_eq(call_status(fd2, PVMI_OP_EXIT, NULL), PvmOk);
	ck_assert_int_eq(call_status(fd2, PVMI_OP_CONFIG, NULL), PvmSysErr);
	ck_assert_int_eq(op_int(fd, PVMI_OP_PSTAT, tid2), PvmNoTask);
	close(fd2);
	close(fd);
}
END_TEST

/* ---- spawn ---- */

/* Contexts: thousands stay distinct, look like tids of this host, are
 * freed once, and go with their owner (daemon/contexts.c). */
START_TEST(contexts_stay_unique_and_go_with_their_owner)
{
	enum { N = 5000 };
	static int32_t mine[N];
	int fd, fd2, tid2, i, j, c;

	fd = try_connect();
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(reg_full(fd, 0, NULL, NULL, NULL), 0x40001);
	fd2 = task_connect(&tid2);
	for (i = 0; i < N; i++) {
		mine[i] = call_status(fd, PVMI_OP_NEWCTX, NULL);
		ck_assert_int_gt(mine[i], 0);
		ck_assert_int_eq(mine[i] & ~PVMI_TID_LOCAL_MASK, DTID);
	}
	/* distinct: sorted, no two equal (insertion sort of a copy) */
	for (i = 1; i < N; i++)
		for (j = i; j > 0 && mine[j - 1] > mine[j]; j--) {
			c = mine[j];
			mine[j] = mine[j - 1];
			mine[j - 1] = c;
		}
	for (i = 1; i < N; i++)
		ck_assert_int_ne(mine[i - 1], mine[i]);
	for (i = 0; i < N; i += 2)
		ck_assert_int_eq(op_int(fd, PVMI_OP_FREECTX, mine[i]), PvmOk);
	ck_assert_int_eq(op_int(fd, PVMI_OP_FREECTX, mine[0]), PvmNotFound);
	/* another task's new contexts are none of those still in use */
	for (i = 0; i < 100; i++) {
		c = call_status(fd2, PVMI_OP_NEWCTX, NULL);
		ck_assert_int_gt(c, 0);
		for (j = 1; j < N; j += 2)
			ck_assert_int_ne(c, mine[j]);
	}
	/* the owner leaves: its contexts go with it */
	ck_assert_int_eq(call_status(fd, PVMI_OP_EXIT, NULL), PvmOk);
	ck_assert_int_eq(op_int(fd2, PVMI_OP_FREECTX, mine[1]), PvmNotFound);
	ck_assert_int_eq(op_int(fd2, PVMI_OP_FREECTX, mine[N - 1]), PvmNotFound);
	close(fd);
	close(fd2);
}
END_TEST

static int count_aout(int fd, const char *name)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	int n, i, k, found = 0;

	pvmi_w_int(&w, 0);
	body = call(fd, PVMI_OP_TASKS, &w, &r);
	n = pvmi_r_int(&r);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 5; k++)
			pvmi_r_int(&r);
		found += str_item_eq(&r, name);
	}
	ck_assert_int_eq(r.failed, 0);
	free(body);
	return found;
}

static void make_bindir(void)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/pvm3", home);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/pvm3/bin", home);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/pvm3/bin/" PVMI_ARCH_NAME, home);
	mkdir(path, 0755);
}

START_TEST(spawn_files_and_hosts)
{
	char path[700];
	int32_t tids[3];
	int me, fd = task_connect(&me);

	ck_assert_int_eq(spawn(fd, "/bin/true", 0, "", 2, no_args, NULL, 0, 0,
			       tids), 2);
	ck_assert_int_gt(tids[0], DTID);
	ck_assert_int_gt(tids[1], DTID);
	ck_assert_int_ne(tids[0], tids[1]);

	ck_assert_int_eq(spawn(fd, "no_such_program", 0, "", 3, no_args, NULL,
			       0, 0, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoFile);
	ck_assert_int_eq(tids[1], PvmNoFile);
	ck_assert_int_eq(tids[2], PvmNoFile);
	ck_assert_int_eq(spawn(fd, "/etc/passwd", 0, "", 1, no_args, NULL, 0,
			       0, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoFile);

	/* executable bits but not a program: exec fails, no task is left */
	snprintf(path, sizeof(path), "%s/junk.bin", home);
	write_file(path, "\x01\x02\x03 not an executable\n", 0755);
	ck_assert_int_eq(spawn(fd, path, 0, "", 2, no_args, NULL, 0, 0, tids),
			 0);
	ck_assert_int_eq(tids[0], PvmNoFile);
	ck_assert_int_eq(tids[1], PvmNoFile);
	ck_assert_int_eq(count_aout(fd, path), 0);

	/* the default search path: $HOME/pvm3/bin/$PVM_ARCH */
	make_bindir();
	snprintf(path, sizeof(path), "%s/pvm3/bin/" PVMI_ARCH_NAME "/ptask",
		 home);
	write_file(path, "#!/bin/sh\nexit 0\n", 0755);
	ck_assert_int_eq(spawn(fd, "ptask", 0, "", 1, no_args, NULL, 0, 0,
			       tids), 1);

	ck_assert_int_eq(spawn(fd, "/bin/true", PvmTaskHost, "elsewhere", 2,
			       no_args, NULL, 0, 0, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoHost);
	ck_assert_int_eq(tids[1], PvmNoHost);
	ck_assert_int_eq(spawn(fd, "/bin/true", PvmTaskHost, ".", 1, no_args,
			       NULL, 0, 0, tids), 1);
	ck_assert_int_eq(spawn(fd, "/bin/true", PvmTaskHost | PvmHostCompl,
			       ".", 1, no_args, NULL, 0, 0, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoHost);
	ck_assert_int_eq(spawn(fd, "/bin/true", PvmTaskArch, "SUN4", 1,
			       no_args, NULL, 0, 0, tids), 0);
	ck_assert_int_eq(tids[0], PvmNoHost);
	ck_assert_int_eq(spawn(fd, "/bin/true", PvmTaskArch, PVMI_ARCH_NAME,
			       1, no_args, NULL, 0, 0, tids), 1);
	ck_assert_int_eq(spawn(fd, "/bin/true", 0, "", 0, no_args, NULL, 0, 0,
			       tids), PvmBadParam);
	close(fd);
}
END_TEST

static int sendsig(int fd, int tid, int sig)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, tid);
	pvmi_w_int(&w, sig);
	return call_status(fd, PVMI_OP_SENDSIG, &w);
}

/* REGISTER claiming `claimed' and presenting session name `sess' (NULL:
 * none); the tid given, or the error status. */
static int reg_session(int fd, int claimed, const char *sess)
{
	struct pvmi_wbuf w = { 0 };
	struct pvmi_rbuf r;
	unsigned char *body;
	int tid;

	pvmi_w_int(&w, getpid());
	pvmi_w_int(&w, claimed);
	pvmi_w_str(&w, "check_pvmd");
	if (sess)
		pvmi_w_str(&w, sess);
	body = call(fd, PVMI_OP_REGISTER, &w, &r);
	tid = pvmi_r_int(&r);
	free(body);
	return tid;
}

/* A spawned tid is given only to a claim of this daemon run's session
 * (the one in the task's environment): a task spawned by an earlier run,
 * enrolling late, gets a fresh tid. */
START_TEST(claim_needs_this_session)
{
	static const char *const args[] = { "30", NULL };
	int32_t tids[2];
	char path[700], *sess;
	int me, fd = task_connect(&me), fc, n;

	ck_assert_int_eq(spawn(fd, "/bin/sleep", 0, "", 2, args, NULL, 0, 0,
			       tids), 2);
	task_sock_path(path, sizeof(path), tids[0]);
	*strrchr(path, '/') = '\0';
	sess = strrchr(path, '/') + 1;	/* "s<16 hex>" */

	fc = try_connect();
	n = reg_session(fc, tids[0], "s0123456789abcdef");
	ck_assert_int_gt(n, DTID);
	ck_assert_int_ne(n, tids[0]);
	ck_assert(log_has("of an earlier daemon run"));
	close(fc);
	fc = try_connect();
	ck_assert_int_eq(reg_session(fc, tids[0], sess), tids[0]);
	close(fc);
	fc = try_connect();	/* no session: as before, by the tid alone */
	ck_assert_int_eq(reg_session(fc, tids[1], NULL), tids[1]);
	close(fc);
	close(fd);
}
END_TEST

START_TEST(spawn_sockets_tasks_claims)
{
	static const char *const args[] = { "30", NULL };
	int32_t tids[2], t[16], pt[16], fl[16], pid[16], sib[4];
	char path[700];
	struct stat st;
	int me, fd = task_connect(&me), fc, fc2, n, i, ptid, nsib, seen = 0;
	int sfd;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	ck_assert_int_eq(spawn(fd, "/bin/sleep", 0, "", 2, args, NULL, 0, 0,
			       tids), 2);
	for (i = 0; i < 2; i++) {
		/* the task's socket exists, listening, as soon as we know
		 * its tid */
		task_sock_path(path, sizeof(path), tids[i]);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert(S_ISSOCK(st.st_mode));
		sfd = socket(AF_UNIX, SOCK_STREAM, 0);
		strcpy(sa.sun_path, path);
		ck_assert_int_eq(connect(sfd, (struct sockaddr *)&sa,
					 sizeof(sa)), 0);
		close(sfd);
	}

	n = tasks(fd, 0, 16, t, pt, fl, pid);
	ck_assert_int_eq(n, 3);
	for (i = 0; i < n; i++) {
		if (t[i] == me) {
			ck_assert_int_eq(fl[i] & 4, 4);
			ck_assert_int_eq(pt[i], 0);
			continue;
		}
		ck_assert(t[i] == tids[0] || t[i] == tids[1]);
		ck_assert_int_eq(pt[i], me);
		ck_assert_int_eq(fl[i] & 2, 2);
		ck_assert_int_gt(pid[i], 1);
		seen++;
	}
	ck_assert_int_eq(seen, 2);
	ck_assert_int_eq(tasks(fd, tids[1], 16, t, NULL, NULL, NULL), 1);
	ck_assert_int_eq(t[0], tids[1]);
	ck_assert_int_eq(tasks(fd, DTID, 16, t, NULL, NULL, NULL), 3);
	ck_assert_int_eq(tasks(fd, 0x40999, 16, t, NULL, NULL, NULL), 0);
	ck_assert_int_eq(op_int(fd, PVMI_OP_TASKS, 0x80001), PvmNoHost);

	/* the reserved tid is given to the first claim only */
	fc = try_connect();
	ck_assert_int_eq(reg_full(fc, tids[0], &ptid, &nsib, sib), tids[0]);
	ck_assert_int_eq(ptid, me);
	ck_assert_int_eq(nsib, 2);
	ck_assert_int_eq(sib[0], tids[0]);
	ck_assert_int_eq(sib[1], tids[1]);
	fc2 = try_connect();
	n = reg_full(fc2, tids[0], &ptid, NULL, NULL);
	ck_assert_int_gt(n, DTID);
	ck_assert_int_ne(n, tids[0]);
	ck_assert_int_ne(n, tids[1]);
	ck_assert_int_eq(ptid, 0);
	close(fc2);
	fc2 = try_connect();
	n = reg_full(fc2, 0x40777, &ptid, NULL, NULL);
	ck_assert_int_ne(n, 0x40777);
	close(fc2);

	/* KILL: SIGTERM only (as stock); the task is gone once its process
	 * has ended and been reaped, its socket removed */
	ck_assert_int_eq(op_int(fd, PVMI_OP_KILL, tids[1]), PvmOk);
	wait_task_gone(fd, tids[1]);
	ck_assert(!task_listed(fd, tids[1]));
	task_sock_path(path, sizeof(path), tids[1]);
	ck_assert_int_eq(stat(path, &st), -1);
	ck_assert_int_eq(op_int(fd, PVMI_OP_KILL, 0x40999), PvmNoTask);
	ck_assert_int_eq(op_int(fd, PVMI_OP_KILL, DTID), PvmBadParam);

	/* SENDSIG reaches the spawned process even though another
	 * connection registered its tid; its death ends the task */
	ck_assert_int_eq(sendsig(fd, tids[0], SIGTERM), PvmOk);
	ck_assert_int_eq(sendsig(fd, 0x40999, SIGTERM), PvmNoTask);
	ck_assert_int_eq(sendsig(fd, tids[0], 1000), PvmBadParam);
	wait_task_gone(fd, tids[0]);
	/* the connection that had claimed it is no longer a task */
	ck_assert_int_eq(call_status(fc, PVMI_OP_CONFIG, NULL), PvmSysErr);
	close(fc);
	close(fd);
}
END_TEST

/* Collects a task's output sent to `fd' with `code' until its EOF
 * message; checks the "spawned" (-2) then "started" (-1) messages on the
 * way, as stock sends them. */
static void collect_output(int fd, int code, int tid, int ptid, char *out,
			   size_t size)
{
	struct pvmi_frame f;
	struct pvmi_rbuf r;
	unsigned char *body;
	const void *p;
	size_t len = 0, n;
	int k, spawned = 0, started = 0;

	for (;;) {
		ck_assert_msg(next_user(fd, 5000, &f, &body),
			      "no output message");
		ck_assert_int_eq(f.tag, code);
		pvmi_r_init(&r, body, f.len);
		ck_assert_int_eq(pvmi_r_int(&r), tid);
		k = pvmi_r_int(&r);
		if (k == -2) {
			ck_assert(!spawned && !started);
			ck_assert_int_eq(pvmi_r_int(&r), ptid);
			spawned = 1;
		} else if (k == -1) {
			ck_assert(spawned && !started);
			ck_assert_int_eq(pvmi_r_int(&r), ptid);
			started = 1;
		} else if (k > 0) {
			ck_assert(started);
			p = pvmi_r_bytes(&r, &n);
			ck_assert_uint_eq(n, (size_t)k);
			ck_assert_uint_lt(len + n, size);
			memcpy(out + len, p, n);
			len += n;
		}
		ck_assert_int_eq(r.failed, 0);
		ck_assert_uint_eq(r.pos, r.len);
		free(body);
		if (k == 0)
			break;
	}
	ck_assert(started);
	out[len] = '\0';
}

START_TEST(spawn_output_env_debug)
{
	static const char *const env[] = { "FOO=bar", NULL };
	char path[700], out[8192], want[700];
	long long end;
	int32_t tid;
	int me, fd = task_connect(&me);

	make_bindir();
	snprintf(path, sizeof(path), "%s/pvm3/bin/" PVMI_ARCH_NAME "/envtask",
		 home);
	write_file(path,
		   "#!/bin/sh\n"
		   "echo \"tid=$COPVM_TID\"\n"
		   "if [ -S /proc/$$/fd/$COPVM_LISTEN_FD ]; then "
		   "echo lfd-ok; fi\n"
		   "echo \"foo=$FOO\"\n"
		   "echo \"pwd=$(pwd)\"\n"
		   "echo oops >&2\n", 0755);

	ck_assert_int_eq(spawn(fd, "envtask", 0, "", 1, no_args, env, me, 55,
			       &tid), 1);
	/* the reply came before the task's first output message */
	ck_assert_int_eq(nstash, 0);
	collect_output(fd, 55, tid, me, out, sizeof(out));
	snprintf(want, sizeof(want), "tid=%d\n", tid);
	ck_assert_msg(strstr(out, want), "output: %s", out);
	ck_assert_msg(strstr(out, "lfd-ok\n"), "output: %s", out);
	ck_assert_msg(strstr(out, "foo=bar\n"), "output: %s", out);
	snprintf(want, sizeof(want), "pwd=%s\n", home);
	ck_assert_msg(strstr(out, want), "output: %s", out);
	ck_assert_msg(strstr(out, "oops\n"), "output: %s", out);

	/* under the debugger ($PVM_DEBUGGER file args) */
	ck_assert_int_eq(spawn(fd, "envtask", PvmTaskDebug, "", 1, no_args,
			       env, me, 56, &tid), 1);
	collect_output(fd, 56, tid, me, out, sizeof(out));
	ck_assert_msg(strstr(out, "dbg: "), "output: %s", out);
	ck_assert_msg(strstr(out, "foo=bar\n"), "output: %s", out);

	/* no output tid: into the log */
	ck_assert_int_eq(spawn(fd, "envtask", 0, "", 1, no_args, env, 0, 0,
			       &tid), 1);
	snprintf(want, sizeof(want), "[t%x] foo=bar\n", (unsigned)tid);
	for (end = now_ms() + 3000; !log_has(want); msleep(20))
		ck_assert_msg(now_ms() < end, "\"%s\" not in the log", want);
	close(fd);
}
END_TEST

/* ---- notify ---- */

static int notify(int fd, int what, int tag, int cnt, const int32_t *tids)
{
	struct pvmi_wbuf w = { 0 };

	pvmi_w_int(&w, what);
	pvmi_w_int(&w, tag);
	pvmi_w_int(&w, 0);
	pvmi_w_int(&w, cnt);
	if (tids)
		pvmi_w_ints(&w, tids, (size_t)cnt);
	return call_status(fd, PVMI_OP_NOTIFY, &w);
}

/* Expects a notify message with `tag' whose body is the int `val'. */
static void expect_notify(int fd, int tag, int val, int ms)
{
	struct pvmi_frame f;
	struct pvmi_rbuf r;
	unsigned char *body;

	ck_assert_msg(next_user(fd, ms, &f, &body), "no notify %d", tag);
	ck_assert_int_eq(f.tag, tag);
	ck_assert_int_eq(f.src, DTID);
	ck_assert_int_eq(f.enc, PvmDataDefault);
	pvmi_r_init(&r, body, f.len);
	ck_assert_int_eq(pvmi_r_int(&r), val);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_uint_eq(r.pos, r.len);
	free(body);
}

static void expect_nothing(int fd, int ms)
{
	struct pvmi_frame f;
	unsigned char *body;

	ck_assert_msg(!next_user(fd, ms, &f, &body), "unexpected message");
}

START_TEST(notify_task_exit)
{
	static const char *const shortsleep[] = { "0.3", NULL };
	static const char *const longsleep[] = { "30", NULL };
	int32_t t1, t4, other = 0x40999, dother = 0x80000;
	int me, fd = task_connect(&me), fd2, t2, fd3, t3;

	ck_assert_int_eq(spawn(fd, "/bin/sleep", 0, "", 1, shortsleep, NULL,
			       0, 0, &t1), 1);
	ck_assert_int_eq(notify(fd, PvmTaskExit, 77, 1, &t1), PvmOk);
	expect_notify(fd, 77, t1, 5000);

	/* a tid that does not exist fires at once */
	ck_assert_int_eq(notify(fd, PvmTaskExit, 78, 1, &other), PvmOk);
	expect_notify(fd, 78, other, 1000);

	/* a registered task whose connection closes */
	fd2 = task_connect(&t2);
	ck_assert_int_eq(notify(fd, PvmTaskExit, 79, 1, &t2), PvmOk);
	close(fd2);
	expect_notify(fd, 79, t2, 3000);

	/* a task that calls EXIT */
	fd3 = task_connect(&t3);
	ck_assert_int_eq(notify(fd, PvmTaskExit, 80, 1, &t3), PvmOk);
	ck_assert_int_eq(call_status(fd3, PVMI_OP_EXIT, NULL), PvmOk);
	expect_notify(fd, 80, t3, 3000);
	close(fd3);

	/* cancelling delivers the message, and nothing comes later */
	ck_assert_int_eq(spawn(fd, "/bin/sleep", 0, "", 1, longsleep, NULL, 0,
			       0, &t4), 1);
	ck_assert_int_eq(notify(fd, PvmTaskExit, 81, 1, &t4), PvmOk);
	ck_assert_int_eq(notify(fd, PvmTaskExit | PvmNotifyCancel, 81, 1,
				&t4), PvmOk);
	expect_notify(fd, 81, t4, 1000);
	ck_assert_int_eq(op_int(fd, PVMI_OP_KILL, t4), PvmOk);
	expect_nothing(fd, 300);

	/* another host's daemon is not in the machine */
	ck_assert_int_eq(notify(fd, PvmHostDelete, 82, 1, &dother), PvmOk);
	expect_notify(fd, 82, dother, 1000);
	ck_assert_int_eq(notify(fd, PvmHostAdd, 83, -1, NULL), PvmOk);
	ck_assert_int_eq(notify(fd, PvmRouteAdd, 84, 0, NULL), PvmNotImpl);
	ck_assert_int_eq(notify(fd, 99, 85, 0, NULL), PvmBadParam);
	expect_nothing(fd, 100);
	close(fd);
}
END_TEST

/* ---- hostile and broken clients ---- */

/* Expects the daemon to close `fd' without sending anything. */
static void expect_closed(int fd)
{
	struct pvmi_frame f;
	unsigned char *body;

	ck_assert_int_eq(read_frame(fd, 3000, &f, &body), 0);
	close(fd);
}

START_TEST(garbage_bytes)
{
	unsigned char junk[256];
	int i, me, fd = task_connect(&me);

	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 37 + 11);
	xwrite(fd, junk, sizeof(junk));
	expect_closed(fd);
	assert_alive();
	/* the task that sent it is gone */
	fd = task_connect(&i);
	ck_assert(!task_listed(fd, me));
	close(fd);
}
END_TEST

START_TEST(bad_magic)
{
	struct pvmi_frame f = { .magic = 0xdeadbeef, .len = 4,
				.kind = PVMI_KIND_REQUEST,
				.tag = PVMI_OP_CONFIG };
	unsigned char hdr[PVMI_FRAME_HDR_LEN + 4] = { 0 };
	int fd = try_connect();

	pvmi_frame_encode(&f, hdr);
	xwrite(fd, hdr, sizeof(hdr));
	expect_closed(fd);
	/* a bad kind is as fatal */
	f.magic = PVMI_FRAME_MAGIC;
	f.kind = 7;
	fd = try_connect();
	pvmi_frame_encode(&f, hdr);
	xwrite(fd, hdr, sizeof(hdr));
	expect_closed(fd);
	assert_alive();
}
END_TEST

START_TEST(truncated_frame)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = 100,
				.kind = PVMI_KIND_REQUEST,
				.tag = PVMI_OP_CONFIG };
	unsigned char buf[PVMI_FRAME_HDR_LEN + 10] = { 0 };
	int me, fd = task_connect(&me);

	pvmi_frame_encode(&f, buf);
	xwrite(fd, buf, sizeof(buf));
	close(fd);
	/* a header cut in the middle, too */
	fd = try_connect();
	xwrite(fd, buf, 13);
	close(fd);
	assert_alive();
}
END_TEST

START_TEST(huge_length)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = 0xffffffffu,
				.kind = PVMI_KIND_REQUEST,
				.tag = PVMI_OP_MBOX_PUT };
	unsigned char buf[PVMI_FRAME_HDR_LEN + 1000];
	int me, fd = task_connect(&me);

	memset(buf, 0, sizeof(buf));
	pvmi_frame_encode(&f, buf);
	xwrite(fd, buf, PVMI_FRAME_HDR_LEN);
	expect_closed(fd);
	/* the largest legal length, then silence and close */
	f.len = PVMI_FRAME_MAX_BODY;
	fd = task_connect(&me);
	pvmi_frame_encode(&f, buf);
	xwrite(fd, buf, sizeof(buf));
	msleep(50);
	assert_alive();
	close(fd);
	assert_alive();
}
END_TEST

START_TEST(unknown_op)
{
	int me, fd = try_connect();

	ck_assert_int_eq(call_status(fd, 999, NULL), PvmBadParam);
	ck_assert_int_eq(reg_full(fd, 0, NULL, NULL, NULL), 0x40001);
	(void)me;
	ck_assert_int_eq(call_status(fd, 999, NULL), PvmBadParam);
	ck_assert_int_eq(call_status(fd, 0, NULL), PvmBadParam);
	ck_assert_int_eq(call_status(fd, -5, NULL), PvmBadParam);
	ck_assert_int_eq(call_status(fd, PVMI_OP_MAX, NULL), PvmBadParam);
	ck_assert_int_eq(call_status(fd, PVMI_OP_NEWCTX, NULL) > 0, 1);
	close(fd);
	assert_alive();
}
END_TEST

START_TEST(malformed_bodies)
{
	static const unsigned char junk[] = {
		0, 0, 0, 9, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4,
	};
	struct pvmi_wbuf w = { 0 };
	int me, fd = task_connect(&me), op, fresh;

	/* every op refuses a body of the wrong shape, changing nothing */
	for (op = 1; op < PVMI_OP_MAX; op++) {
		send_raw(fd, PVMI_KIND_REQUEST, op, junk, sizeof(junk));
		{
			struct pvmi_frame f;
			struct pvmi_rbuf r;
			unsigned char *body;

			ck_assert_int_eq(read_frame(fd, REPLY_MS, &f, &body),
					 1);
			ck_assert_int_eq(f.tag, op);
			pvmi_r_init(&r, body, f.len);
			ck_assert_msg(pvmi_r_int(&r) == PvmBadMsg,
				      "op %d accepted junk", op);
			free(body);
		}
	}
	pvmi_w_int(&w, 1);
	ck_assert_int_eq(call_status(fd, PVMI_OP_CONFIG, &w), PvmBadMsg);
	pvmi_w_int(&w, 1);
	ck_assert_int_eq(call_status(fd, PVMI_OP_MSTAT, &w), PvmBadMsg);
	pvmi_w_str(&w, "x");
	ck_assert_int_eq(call_status(fd, PVMI_OP_PSTAT, &w), PvmBadMsg);
	pvmi_w_ints(&w, (int32_t[]){ me, me }, 2);
	ck_assert_int_eq(call_status(fd, PVMI_OP_PSTAT, &w), PvmBadMsg);
	pvmi_w_str(&w, "/bin/true");
	ck_assert_int_eq(call_status(fd, PVMI_OP_SPAWN, &w), PvmBadMsg);
	pvmi_w_str(&w, "/bin/true");
	pvmi_w_int(&w, 0);
	pvmi_w_str(&w, "");
	pvmi_w_int(&w, 1);
	pvmi_w_int(&w, 1000000);	/* argc, with no args behind it */
	ck_assert_int_eq(call_status(fd, PVMI_OP_SPAWN, &w), PvmBadMsg);
	pvmi_w_int(&w, PvmTaskExit);
	pvmi_w_int(&w, 1);
	pvmi_w_int(&w, 0);
	pvmi_w_int(&w, 5);
	pvmi_w_int(&w, me);		/* 5 announced, 1 sent */
	ck_assert_int_eq(call_status(fd, PVMI_OP_NOTIFY, &w), PvmBadMsg);
	pvmi_w_str(&w, "box");
	pvmi_w_int(&w, 0);
	pvmi_w_int(&w, 0);
	pvmi_w_int(&w, 0);		/* no body item */
	ck_assert_int_eq(call_status(fd, PVMI_OP_MBOX_PUT, &w), PvmBadMsg);
	pvmi_w_int(&w, 1);
	pvmi_w_str(&w, "a");
	pvmi_w_str(&w, "b");		/* one name too many */
	ck_assert_int_eq(call_status(fd, PVMI_OP_ADDHOSTS, &w), PvmBadMsg);

	/* nothing was changed by all that */
	ck_assert_int_eq(tasks(fd, 0, 0, NULL, NULL, NULL, NULL), 1);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MBOX_LIST, "*"), 0);

	/* a frame of another kind is ignored, the next request answered */
	send_raw(fd, PVMI_KIND_USER, 5, junk, sizeof(junk));
	send_raw(fd, PVMI_KIND_REPLY, 5, NULL, 0);
	ck_assert_int_eq(op_int(fd, PVMI_OP_PSTAT, me), PvmOk);

	/* REGISTER with a wrong body, on a fresh connection */
	fresh = try_connect();
	pvmi_w_str(&w, "not an int");
	ck_assert_int_eq(call_status(fresh, PVMI_OP_REGISTER, &w), PvmBadMsg);
	ck_assert_int_eq(call_status(fresh, PVMI_OP_CONFIG, NULL), PvmSysErr);
	close(fresh);
	close(fd);
	assert_alive();
}
END_TEST

/* COSCHED (daemon/costat.c): this host's record, its pages as
 * copvm-cosched -r lines with the daemon's host name and its clock; a
 * tid that is no daemon of the machine is PvmNoHost; the daemon serves
 * on. */
START_TEST(cosched_pages)
{
	struct pvmi_wbuf w = { 0 };
	struct cosched_page pg;
	struct pvmi_rbuf r;
	unsigned char *body, page[COSCHED_PAGE_SIZE] = { 0 };
	char path[900], host[256] = "", want[128], *lines;
	int32_t hi, lo, which;
	int me, fd = task_connect(&me), pfd, i;

	gethostname(host, sizeof(host) - 1);
	memset(&pg, 0, sizeof(pg));
	pg.magic = COSCHED_PAGE_MAGIC;
	pg.version = COSCHED_PAGE_VERSION;
	pg.pid = getpid();
	pg.tid = me;
	pg.uid = getuid();
	pg.model = COPVM_MODEL_PRE;
	pg.boosts = 5;
	pg.refusals = 2;
	memcpy(page, &pg, sizeof(pg));
	snprintf(path, sizeof(path), "%s/%s/t%x", dir, COSCHED_DIR, me);
	pfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(pfd, 0);
	xwrite(pfd, page, sizeof(page));
	close(pfd);

	for (i = 0; i < 2; i++) {
		pvmi_w_int(&w, i ? DTID : 0);
		body = call(fd, PVMI_OP_COSCHED, &w, &r);
		ck_assert_int_eq(pvmi_r_int(&r), 1);
		ck_assert_int_eq(pvmi_r_int(&r), DTID);
		ck_assert_int_eq(pvmi_r_int(&r), PvmOk);
		ck_assert(str_item_eq(&r, host));
		hi = pvmi_r_int(&r);
		lo = pvmi_r_int(&r);
		ck_assert(hi || lo);
		lines = pvmi_r_str(&r);
		ck_assert_int_eq(r.failed, 0);
		ck_assert_uint_eq(r.pos, r.len);
		snprintf(want, sizeof(want), "tid=t%x pid=%d model=pre ", me,
			 (int)getpid());
		ck_assert_msg(!strncmp(lines, want, strlen(want)), "%s", lines);
		ck_assert_ptr_nonnull(strstr(lines, " boosts=5 "));
		ck_assert_ptr_nonnull(strstr(lines, " refusals=2\n"));
		snprintf(want, sizeof(want), "\nnode=%s tasks=1 ", host);
		ck_assert_ptr_nonnull(strstr(lines, want));
		free(lines);
		free(body);
	}
	/* not a daemon of the machine: another host, a task, garbage */
	for (i = 0; i < 3; i++) {
		which = i == 0 ? 0x80000 : i == 1 ? me : -7;
		ck_assert_int_eq(op_int(fd, PVMI_OP_COSCHED, which), PvmNoHost);
	}
	unlink(path);
	close(fd);
	assert_alive();
}
END_TEST

START_TEST(other_uid)
{
	int st, fd;
	pid_t pid;
	char path[700];

	if (getuid() != 0) {
		fprintf(stderr, "other_uid: not root, case skipped\n");
		return;
	}
	/* open the way for uid 65534 so the daemon's own check is what
	 * stops it */
	chmod(base, 0711);
	chmod(dir, 0711);
	chmod(sockpath, 0666);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pvmi_frame f;
		struct pvmi_wbuf w = { 0 };
		unsigned char *body, hdr[PVMI_FRAME_HDR_LEN];

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		fd = try_connect();
		if (fd < 0)
			_exit(0);	/* refused at connect: fine too */
		pvmi_w_int(&w, getpid());
		pvmi_w_int(&w, 0);
		pvmi_w_str(&w, "intruder");
		/* no ck_assert in here: a raw write that may fail (EPIPE
		 * if the daemon was quick to close) */
		pvmi_frame_encode(&(struct pvmi_frame){
			.magic = PVMI_FRAME_MAGIC, .len = (uint32_t)w.len,
			.kind = PVMI_KIND_REQUEST, .tag = PVMI_OP_REGISTER },
			hdr);
		if (write(fd, hdr, sizeof(hdr)) < 0 ||
		    write(fd, w.data, w.len) < 0)
			_exit(0);
		/* must be closed without a reply */
		_exit(read_frame(fd, 2000, &f, &body) == 0 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert(log_has("refused a connection from uid 65534"));
	assert_alive();
	(void)path;
}
END_TEST

START_TEST(killed_mid_frame)
{
	int p[2], me, fd, st;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC,
					.len = 8u << 20,
					.kind = PVMI_KIND_REQUEST,
					.tag = PVMI_OP_MBOX_PUT };
		unsigned char *buf = calloc(1, 1 << 20);
		unsigned char hdr[PVMI_FRAME_HDR_LEN];
		int t, cfd = task_connect(&t);

		pvmi_frame_encode(&f, hdr);
		xwrite(cfd, hdr, sizeof(hdr));
		xwrite(cfd, buf, 1 << 20);
		if (write(p[1], &t, sizeof(t)) != sizeof(t))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &me, sizeof(me)), (ssize_t)sizeof(me));
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	assert_alive();
	fd = task_connect(&st);
	wait_task_gone(fd, me);
	close(fd);
	(void)c;
}
END_TEST

/* A task that never reads its connection must not slow anyone else:
 * neither a flood of output sent to it nor its own pipelined requests. */
START_TEST(nonreader_does_not_block)
{
	static const char *const args[] = { NULL };
	struct pvmi_wbuf w = { 0 };
	unsigned char frame[PVMI_FRAME_HDR_LEN];
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC,
				.kind = PVMI_KIND_REQUEST,
				.tag = PVMI_OP_CONFIG };
	long long t0;
	int32_t tid;
	int x, y, fx = task_connect(&x), fy = task_connect(&y), i, sent = 0;

	ck_assert_int_eq(spawn(fx, "/usr/bin/yes", 0, "", 1, args, NULL, x, 1,
			       &tid), 1);
	/* x also floods requests without reading a single reply */
	fcntl(fx, F_SETFL, O_NONBLOCK);
	pvmi_frame_encode(&f, frame);
	for (i = 0; i < 200000; i++) {
		if (write(fx, frame, sizeof(frame)) != sizeof(frame))
			break;
		sent++;
	}
	msleep(300);
	for (i = 0; i < 20; i++) {
		t0 = now_ms();
		ck_assert_int_eq(call_status(fy, PVMI_OP_CONFIG, NULL), 1);
		ck_assert_int_lt(now_ms() - t0, 1000);
		msleep(10);
	}
	ck_assert_int_eq(op_int(fy, PVMI_OP_KILL, tid), PvmOk);
	close(fx);
	wait_task_gone(fy, x);
	close(fy);
	assert_alive();
	pvmi_w_free(&w);
	ck_assert_int_gt(sent, 0);
}
END_TEST

/* A user message the daemon routes from one task to another keeps every
 * header field, the wait id of pvm_setminfo included (issue 13 item 8). */
START_TEST(a_routed_message_keeps_its_wait_id)
{
	static const unsigned char data[5] = "abcd";
	unsigned char hdr[PVMI_FRAME_HDR_LEN], *body = NULL;
	struct pvmi_frame f, g;
	int x, y, fx = task_connect(&x), fy = task_connect(&y);

	memset(&f, 0, sizeof(f));
	f.magic = PVMI_FRAME_MAGIC;
	f.len = sizeof(data);
	f.src = x;
	f.dst = y;
	f.tag = 11;
	f.ctx = 0;
	f.enc = PvmDataRaw;
	f.wid = 4242;
	f.kind = PVMI_KIND_USER;
	pvmi_frame_encode(&f, hdr);
	xwrite(fx, hdr, sizeof(hdr));
	xwrite(fx, data, sizeof(data));
	ck_assert_int_eq(next_user(fy, 3000, &g, &body), 1);
	ck_assert_int_eq(g.src, x);
	ck_assert_int_eq(g.tag, 11);
	ck_assert_int_eq(g.enc, PvmDataRaw);
	ck_assert_int_eq(g.wid, 4242);
	ck_assert_uint_eq(g.len, sizeof(data));
	ck_assert_mem_eq(body, data, sizeof(data));
	free(body);
	close(fx);
	close(fy);
}
END_TEST

/* ---- halting ---- */

static void check_clean_exit(const int32_t *pids, int n)
{
	char path[700];
	struct stat st;
	int i, k;

	ck_assert_int_eq(stat(sockpath, &st), -1);
	snprintf(path, sizeof(path), "%s/" PVMI_DAEMON_PID, dir);
	ck_assert_int_eq(stat(path, &st), -1);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 100 && kill(pids[i], 0) == 0; k++)
			msleep(10);
		ck_assert_msg(kill(pids[i], 0) == -1 && errno == ESRCH,
			      "task process %d survived", pids[i]);
	}
}

START_TEST(halt_cleans_up)
{
	static const char *const args[] = { "30", NULL };
	int32_t tids[2], t[8], pid[8], pids[2];
	char path[700], sess[700];
	struct stat st;
	int me, fd = task_connect(&me), n, i, k = 0, status;

	ck_assert_int_eq(spawn(fd, "/bin/sleep", 0, "", 2, args, NULL, 0, 0,
			       tids), 2);
	task_sock_path(sess, sizeof(sess), tids[0]);
	*strrchr(sess, '/') = '\0';	/* the session's directory */
	n = tasks(fd, 0, 8, t, NULL, NULL, pid);
	for (i = 0; i < n; i++)
		if (t[i] != me)
			pids[k++] = pid[i];
	ck_assert_int_eq(k, 2);
	ck_assert_int_eq(call_status(fd, PVMI_OP_HALT, NULL), PvmOk);
	status = wait_daemon(5000);
	ck_assert_int_ne(status, -1);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	check_clean_exit(pids, 2);
	/* the sockets went with their session's directory */
	ck_assert_int_eq(stat(sess, &st), -1);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/" PVMI_TASK_SOCK_FMT, sess,
			 (unsigned)tids[i]);
		ck_assert_int_eq(stat(path, &st), -1);
	}
	/* the caller's connection ends with the daemon */
	{
		struct pvmi_frame f;
		unsigned char *body;

		ck_assert_int_eq(read_frame(fd, 1000, &f, &body), 0);
	}
	close(fd);
}
END_TEST

START_TEST(sigterm_cleans_up)
{
	static const char *const args[] = { "30", NULL };
	int32_t tid, t[4], pid[4], pids[1];
	int me, fd = task_connect(&me), n, i, status;

	ck_assert_int_eq(spawn(fd, "/bin/sleep", 0, "", 1, args, NULL, 0, 0,
			       &tid), 1);
	n = tasks(fd, tid, 4, t, NULL, NULL, pid);
	ck_assert_int_eq(n, 1);
	pids[0] = pid[0];
	close(fd);		/* or we would be a task it stops, too */
	kill(dpid, SIGTERM);
	status = wait_daemon(5000);
	ck_assert_int_ne(status, -1);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	check_clean_exit(pids, 1);
	(void)i;
}
END_TEST

/* ---- start-up ---- */

static int run_and_wait(const char *a1, const char *a2, char *out,
			size_t size)
{
	char path[700];
	pid_t pid;
	FILE *f;
	size_t n;
	int st;

	snprintf(path, sizeof(path), "%s/run.out", base);
	unlink(path);
	pid = run_pvmd(a1, a2, path);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	out[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		n = fread(out, 1, size - 1, f);
		out[n] = '\0';
		fclose(f);
	}
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Halts the daemon at sockpath through `fd' and checks it is gone. */
static void halt_via(int fd)
{
	struct pvmi_frame f;
	unsigned char *body;

	ck_assert_int_eq(call_status(fd, PVMI_OP_HALT, NULL), PvmOk);
	ck_assert_int_eq(read_frame(fd, 3000, &f, &body), 0);
	close(fd);
	ck_assert_int_eq(access(sockpath, F_OK), -1);
}

/* The pid a daemon wrote under directory `d'. */
static pid_t read_pid(const char *d)
{
	char path[800];
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/" PVMI_DAEMON_PID, d);
	f = fopen(path, "r");
	ck_assert_ptr_ne(f, NULL);
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	ck_assert_int_gt(pid, 1);
	return pid;
}

START_TEST(startup_checks)
{
	char out[1024], other[600], path[700], hf[800];
	struct pvmi_rbuf r;
	unsigned char *body;
	int fd, me, st;
	int32_t tid;
	pid_t pid;

	/* a second daemon for this user is refused */
	ck_assert_int_eq(run_and_wait("-f", NULL, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "already running"), "said: %s", out);
	assert_alive();

	/* unsafe directories are refused */
	snprintf(other, sizeof(other), "%s/tmp2", base);
	mkdir(other, 0700);
	setenv("PVM_TMP", other, 1);
	snprintf(path, sizeof(path), PVMI_DIR_FMT, other, (unsigned)getuid());
	mkdir(path, 0755);
	chmod(path, 0755);
	ck_assert_int_eq(run_and_wait("-f", NULL, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "refusing"), "said: %s", out);
	rmdir(path);
	ck_assert_int_eq(symlink(base, path), 0);
	ck_assert_int_eq(run_and_wait("-f", NULL, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "not a directory"), "said: %s", out);
	unlink(path);

	/* without -f: the starter's pvmd exits 0 once the daemon serves;
	 * -n names the host, the hostfile sets this host's options.  We
	 * are the subreaper of the detached daemons, to reap them. */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	snprintf(hf, sizeof(hf), "%s/hostfile", base);
	write_file(hf, "# test\n* sp=77\n"
		   "myhost sp=1234 ep=/nonexistent:$HOME/mybin\n"
		   "otherhost ip=127.0.0.1\n", 0600);
	/* otherhost cannot start: its remote shell fails at once */
	setenv("PVM_RSH", "/bin/false", 1);
	snprintf(out, sizeof(out), "%s/mybin", home);
	mkdir(out, 0755);
	snprintf(out, sizeof(out), "%s/mybin/eptask", home);
	write_file(out, "#!/bin/sh\nexit 0\n", 0755);
	ck_assert_int_eq(run_and_wait("-nmyhost", hf, out, sizeof(out)), 0);
	snprintf(sockpath, sizeof(sockpath), "%s/" PVMI_DAEMON_SOCK, path);
	pid = read_pid(path);
	fd = task_connect(&me);
	body = call(fd, PVMI_OP_CONFIG, NULL, &r);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	ck_assert_int_eq(pvmi_r_int(&r), 1);
	ck_assert_int_eq(pvmi_r_int(&r), DTID);
	ck_assert(str_item_eq(&r, "myhost"));
	ck_assert(str_item_eq(&r, PVMI_ARCH_NAME));
	ck_assert_int_eq(pvmi_r_int(&r), 1234);
	free(body);
	ck_assert_int_eq(op_str(fd, PVMI_OP_MSTAT, "myhost"), PvmOk);
	/* ep= replaces the default search path */
	ck_assert_int_eq(spawn(fd, "eptask", 0, "", 1, no_args, NULL, 0, 0,
			       &tid), 1);
	ck_assert(log_has_in(path, "cannot add host otherhost"));
	unsetenv("PVM_RSH");
	halt_via(fd);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* a daemon that died hard leaves a stale socket and pid file,
	 * which the next one replaces */
	ck_assert_int_eq(run_and_wait("-d0x4", NULL, out, sizeof(out)), 0);
	pid = read_pid(path);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(access(sockpath, F_OK), 0);
	/* this one also shows the default path's $PVM_ROOT/bin/$PVM_ARCH */
	snprintf(out, sizeof(out), "%s/root", base);
	setenv("PVM_ROOT", out, 1);
	mkdir(out, 0755);
	snprintf(out, sizeof(out), "%s/root/bin", base);
	mkdir(out, 0755);
	mkdir(strcat(out, "/" PVMI_ARCH_NAME), 0755);
	strcat(out, "/roottask");
	write_file(out, "#!/bin/sh\nexit 0\n", 0755);
	ck_assert_int_eq(run_and_wait(NULL, NULL, out, sizeof(out)), 0);
	unsetenv("PVM_ROOT");
	pid = read_pid(path);
	fd = task_connect(&me);
	ck_assert_int_eq(spawn(fd, "roottask", 0, "", 1, no_args, NULL, 0, 0,
			       &tid), 1);
	ck_assert_int_eq(spawn(fd, "eptask", 0, "", 1, no_args, NULL, 0, 0,
			       &tid), 0);
	halt_via(fd);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);

	/* back to the fixture's daemon for teardown */
	setenv("PVM_TMP", base, 1);
	snprintf(sockpath, sizeof(sockpath), "%s/" PVMI_DAEMON_SOCK, dir);
	assert_alive();
}
END_TEST

static Suite *pvmd_suite(void)
{
	Suite *s = suite_create("pvmd");
	TCase *tc;

	tc = tcase_create("requests");
	tcase_add_checked_fixture(tc, start_daemon, stop_daemon);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, register_and_config);
	tcase_add_test(tc, contexts_stay_unique_and_go_with_their_owner);
	tcase_add_test(tc, spawn_files_and_hosts);
	tcase_add_test(tc, spawn_sockets_tasks_claims);
	tcase_add_test(tc, claim_needs_this_session);
	tcase_add_test(tc, spawn_output_env_debug);
	tcase_add_test(tc, notify_task_exit);
	tcase_add_test(tc, a_routed_message_keeps_its_wait_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_checked_fixture(tc, start_daemon, stop_daemon);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, garbage_bytes);
	tcase_add_test(tc, bad_magic);
	tcase_add_test(tc, truncated_frame);
	tcase_add_test(tc, huge_length);
	tcase_add_test(tc, unknown_op);
	tcase_add_test(tc, malformed_bodies);
	tcase_add_test(tc, cosched_pages);
	tcase_add_test(tc, other_uid);
	tcase_add_test(tc, killed_mid_frame);
	tcase_add_test(tc, nonreader_does_not_block);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifecycle");
	tcase_add_checked_fixture(tc, start_daemon, stop_daemon);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, halt_cleans_up);
	tcase_add_test(tc, sigterm_cleans_up);
	tcase_add_test(tc, startup_checks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pvmd_suite());
	int failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_group.c - dynamic groups (group/: libgpvm3 and the pvmgs server)
 * on a private pvmd: starting and finding the server, instance numbers,
 * the error codes of every call, barrier counts, a member dying inside a
 * barrier, pvm_bcast following membership changes, freezing a group,
 * the caller's buffers and context surviving group calls, and a new
 * server taking over from one that died.
 *
 * Several members are made by forking the test task: each child enrols
 * on its own (a new tid) and reports to the parent with PVM messages.
 * Each test uses group names of its own, as the server outlives tests.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gs_proto.h"
#include "pvm3.h"
#include "vm_fixture.h"

/* libgpvm3 exports these without a public declaration (stock's names). */
extern int gstid;
extern struct timeval *pvmgs_tmout;
int gs_getgstid(void);
int pvm_gsdump(void);

#define TAG_UP		100	/* child -> parent: a value */
#define TAG_GO		101	/* parent -> child: carry on */
#define TAG_HELLO	102	/* child -> parent: its tid */

static int parent_tid;

static void setup(void)
{
	vm_fixture_setup();
	setenv(GS_ENV_PROGRAM, PVMGS_PATH, 1);
}

/* Forks a member task running fn(arg); the child reports its tid first
 * (TAG_HELLO) and exits with fn's result. */
static pid_t fork_task(int (*fn)(int), int arg, int *tid)
{
	pid_t pid;

	parent_tid = pvm_mytid();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int rc;

		vm_send_int(parent_tid, TAG_HELLO, pvm_mytid());
		rc = fn(arg);
		pvm_exit();
		_exit(rc);
	}
	*tid = vm_recv_int(-1, TAG_HELLO);
	ck_assert_int_gt(*tid, 0);
	return pid;
}

/* Exit status of child `pid' (128 + signal when killed). */
static int reap(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Waits until `group' has `n' members (or the group is gone for 0). */
static int await_size(const char *group, int n)
{
	int i, s = -1;

	for (i = 0; i < 500; i++) {
		s = pvm_gsize((char *)group);
		if (s == n || (n == 0 && s == PvmNoGroup))
			return 1;
		pause_ms(10);
	}
	return 0;
}

/* A member that joins `groups[arg]', tells the parent its instance, and
 * leaves when told (TAG_GO with 1) or stays until killed or told 0. */
static const char *kid_group;

static int kid_join_and_wait(int arg)
{
	int inst = pvm_joingroup((char *)kid_group);

	(void)arg;
	vm_send_int(parent_tid, TAG_UP, inst);
	if (vm_recv_int(parent_tid, TAG_GO) == 1)
		return pvm_lvgroup((char *)kid_group) == 0 ? 0 : 1;
	return 0;
}

START_TEST(server_starts_on_first_use_and_registers)
{
	int me = pvm_mytid(), b, tid = 0, srv;

	ck_assert_int_gt(me, 0);
	ck_assert_int_eq(pvm_joingroup("start"), 0);
	srv = gs_getgstid();
	ck_assert_int_gt(srv, 0);
	ck_assert_int_eq(gstid, srv);
	ck_assert_int_ne(srv, me);
	ck_assert_int_eq(pvm_pstat(srv), PvmOk);
	b = pvm_recvinfo(GS_MBOX, 0, PvmMboxDefault);
	ck_assert_int_gt(b, 0);
	pvm_setrbuf(b);
	pvm_upkint(&tid, 1, 1);
	ck_assert_int_eq(tid, srv);
	ck_assert_int_eq(pvm_gsdump(), 0);
	ck_assert_int_eq(pvm_lvgroup("start"), 0);
	pvm_exit();
}
END_TEST

START_TEST(instances_are_lowest_free_and_reused)
{
	int me = pvm_mytid(), t1, t2, t3;
	pid_t k1, k2, k3;

	kid_group = "reuse";
	ck_assert_int_eq(pvm_joingroup("reuse"), 0);
	k1 = fork_task(kid_join_and_wait, 0, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 1);
	k2 = fork_task(kid_join_and_wait, 0, &t2);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 2);
	ck_assert_int_eq(pvm_gsize("reuse"), 3);
	ck_assert_int_eq(pvm_getinst("reuse", me), 0);
	ck_assert_int_eq(pvm_getinst("reuse", t1), 1);
	ck_assert_int_eq(pvm_gettid("reuse", 2), t2);

	/* The first child leaves: instance 1 is free and taken again. */
	vm_send_int(t1, TAG_GO, 1);
	ck_assert_int_eq(reap(k1), 0);
	ck_assert_int_eq(pvm_gsize("reuse"), 2);
	ck_assert_int_eq(pvm_gettid("reuse", 1), PvmNoInst);
	ck_assert_int_eq(pvm_getinst("reuse", t1), PvmNotInGroup);
	k3 = fork_task(kid_join_and_wait, 0, &t3);
	ck_assert_int_eq(vm_recv_int(t3, TAG_UP), 1);

	/* So is ours, after a leave and a new join. */
	ck_assert_int_eq(pvm_lvgroup("reuse"), 0);
	ck_assert_int_eq(pvm_gettid("reuse", 0), PvmNoInst);
	ck_assert_int_eq(pvm_joingroup("reuse"), 0);

	/* A member that dies loses its instance. */
	kill(k2, SIGKILL);
	ck_assert_int_eq(reap(k2), 128 + SIGKILL);
	ck_assert(await_size("reuse", 2));
	ck_assert_int_eq(pvm_gettid("reuse", 2), PvmNoInst);
	ck_assert_int_eq(pvm_gettid("reuse", 1), t3);

	/* The last member to leave takes the group with it. */
	vm_send_int(t3, TAG_GO, 1);
	ck_assert_int_eq(reap(k3), 0);
	ck_assert_int_eq(pvm_lvgroup("reuse"), 0);
	ck_assert_int_eq(pvm_gsize("reuse"), PvmNoGroup);
	pvm_exit();
}
END_TEST

START_TEST(errors_for_unknown_groups_and_bad_arguments)
{
	int me = pvm_mytid(), x = 1;

	ck_assert_int_gt(me, 0);
	pvm_initsend(PvmDataDefault);
	ck_assert_int_eq(pvm_gsize("nosuch"), PvmNoGroup);
	ck_assert_int_eq(pvm_errno, PvmNoGroup);
	ck_assert_int_eq(pvm_gettid("nosuch", 0), PvmNoGroup);
	ck_assert_int_eq(pvm_getinst("nosuch", me), PvmNoGroup);
	ck_assert_int_eq(pvm_lvgroup("nosuch"), PvmNoGroup);
	ck_assert_int_eq(pvm_barrier("nosuch", 1), PvmNoGroup);
	ck_assert_int_eq(pvm_bcast("nosuch", 1), PvmNoGroup);
	ck_assert_int_eq(pvm_freezegroup("nosuch", -1), PvmNoGroup);

	ck_assert_int_eq(pvm_joingroup(NULL), PvmNullGroup);
	ck_assert_int_eq(pvm_joingroup(""), PvmNullGroup);
	ck_assert_int_eq(pvm_lvgroup(NULL), PvmNullGroup);
	ck_assert_int_eq(pvm_gsize(""), PvmNullGroup);
	ck_assert_int_eq(pvm_gettid(NULL, 0), PvmNullGroup);
	ck_assert_int_eq(pvm_getinst(NULL, me), PvmNullGroup);
	ck_assert_int_eq(pvm_barrier(NULL, 1), PvmNullGroup);
	ck_assert_int_eq(pvm_bcast(NULL, 1), PvmNullGroup);
	ck_assert_int_eq(pvm_freezegroup(NULL, 1), PvmNullGroup);

	ck_assert_int_eq(pvm_joingroup("err"), 0);
	ck_assert_int_eq(pvm_joingroup("err"), PvmDupGroup);
	ck_assert_int_eq(pvm_errno, PvmDupGroup);
	ck_assert_int_eq(pvm_gettid("err", 1), PvmNoInst);
	ck_assert_int_eq(pvm_gettid("err", -1), PvmNoInst);
	ck_assert_int_eq(pvm_getinst("err", me + 1), PvmNotInGroup);
	ck_assert_int_eq(pvm_getinst("err", -5), PvmNotInGroup);
	ck_assert_int_eq(pvm_barrier("err", 0), PvmBadParam);
	ck_assert_int_eq(pvm_barrier("err", -2), PvmBadParam);
	ck_assert_int_eq(pvm_freezegroup("err", 0), PvmBadParam);
	ck_assert_int_eq(pvm_bcast("err", -1), PvmBadParam);
	/* Nobody but the caller to send to. */
	ck_assert_int_eq(pvm_bcast("err", 1), PvmNoInst);

	/* The collective calls print, as stock's do: keep them quiet. */
	pvm_setopt(PvmAutoErr, 0);
	ck_assert_int_eq(pvm_reduce(PvmSum, &x, 1, PVM_INT, 1, "nosuch", 0),
			 PvmNoGroup);
	ck_assert_int_eq(pvm_reduce(PvmSum, &x, 1, PVM_INT, 1, NULL, 0),
			 PvmNullGroup);
	ck_assert_int_eq(pvm_reduce(PvmSum, &x, 1, PVM_INT, 1, "err", 1),
			 PvmNoInst);
	ck_assert_int_eq(pvm_gather(&x, &x, 1, PVM_INT, 1, "err", -1),
			 PvmNoInst);
	ck_assert_int_eq(pvm_scatter(&x, &x, 1, PVM_INT, 1, "nosuch", 0),
			 PvmNoGroup);
	ck_assert_int_eq(pvm_lvgroup("err"), 0);
	ck_assert_int_eq(pvm_lvgroup("err"), PvmNoGroup);
	pvm_exit();
}
END_TEST

/* A member that passes one barrier of `arg' on group kid_group, tells
 * the result, then waits to be told to leave. */
static int kid_barrier(int arg)
{
	int rc;

	if (pvm_joingroup((char *)kid_group) < 0)
		return 1;
	vm_send_int(parent_tid, TAG_UP, 0);
	rc = pvm_barrier((char *)kid_group, arg);
	vm_send_int(parent_tid, TAG_UP, rc);
	vm_recv_int(parent_tid, TAG_GO);
	return pvm_lvgroup((char *)kid_group) == 0 ? 0 : 1;
}

START_TEST(barrier_counts)
{
	struct timeval limit = { 10, 0 };
	int t1, t2, t3;
	pid_t k1, k2, k3;

	pvm_mytid();
	kid_group = "bar";
	ck_assert_int_eq(pvm_joingroup("bar"), 0);
	/* Alone: 1 and -1 pass at once. */
	ck_assert_int_eq(pvm_barrier("bar", 1), 0);
	ck_assert_int_eq(pvm_barrier("bar", -1), 0);

	/* Three members with 3, or with -1 once all three are in. */
	k1 = fork_task(kid_barrier, 3, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	k2 = fork_task(kid_barrier, -1, &t2);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	ck_assert_int_eq(pvm_barrier("bar", -1), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	vm_send_int(t1, TAG_GO, 1);
	vm_send_int(t2, TAG_GO, 1);
	ck_assert_int_eq(reap(k1), 0);
	ck_assert_int_eq(reap(k2), 0);

	/* The first arrival sets the count: a later one that disagrees gets
	 * PvmMismatch and is not counted. */
	k1 = fork_task(kid_barrier, 2, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	pause_ms(300);		/* its barrier request is in */
	pvmgs_tmout = &limit;	/* fail rather than hang if it is not */
	ck_assert_int_eq(pvm_barrier("bar", 3), PvmMismatch);
	pvmgs_tmout = NULL;
	ck_assert_int_eq(pvm_barrier("bar", 2), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	vm_send_int(t1, TAG_GO, 1);
	ck_assert_int_eq(reap(k1), 0);

	/* A count above the size waits for members still to join. */
	k1 = fork_task(kid_barrier, 3, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	pause_ms(100);
	k2 = fork_task(kid_barrier, 3, &t2);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	pause_ms(100);
	ck_assert_int_eq(pvm_nrecv(t1, TAG_UP), 0);	/* still waiting */
	ck_assert_int_eq(pvm_barrier("bar", 3), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	vm_send_int(t1, TAG_GO, 1);
	vm_send_int(t2, TAG_GO, 1);
	ck_assert_int_eq(reap(k1), 0);
	ck_assert_int_eq(reap(k2), 0);

	/* Only members may wait. */
	kid_group = "bar-other";
	k3 = fork_task(kid_barrier, 1, &t3);
	ck_assert_int_eq(vm_recv_int(t3, TAG_UP), 0);
	ck_assert_int_eq(vm_recv_int(t3, TAG_UP), 0);
	ck_assert_int_eq(pvm_barrier("bar-other", 1), PvmNotInGroup);
	vm_send_int(t3, TAG_GO, 1);
	ck_assert_int_eq(reap(k3), 0);
	ck_assert_int_eq(pvm_lvgroup("bar"), 0);
	pvm_exit();
}
END_TEST

START_TEST(member_dying_in_a_barrier_releases_the_others)
{
	int t1, t2, t3;
	pid_t k1, k2, k3;

	pvm_mytid();
	kid_group = "die";
	ck_assert_int_eq(pvm_joingroup("die"), 0);
	k1 = fork_task(kid_barrier, 3, &t1);
	k2 = fork_task(kid_barrier, 3, &t2);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	pause_ms(100);		/* both wait in the barrier */
	kill(k1, SIGKILL);
	ck_assert_int_eq(reap(k1), 128 + SIGKILL);
	ck_assert(await_size("die", 2));
	/* The barrier needed all three; it now completes with the two left,
	 * and a count of 3 (or -1) still matches. */
	ck_assert_int_eq(pvm_barrier("die", 3), 0);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);

	/* A member exiting before it arrives releases those who wait. */
	k3 = fork_task(kid_barrier, 3, &t3);
	ck_assert_int_eq(vm_recv_int(t3, TAG_UP), 0);
	pause_ms(100);
	vm_send_int(t2, TAG_GO, 0);	/* t2 exits, still a member */
	ck_assert_int_eq(reap(k2), 0);
	ck_assert_int_eq(pvm_barrier("die", 3), 0);
	ck_assert_int_eq(vm_recv_int(t3, TAG_UP), 0);
	ck_assert_int_eq(pvm_gsize("die"), 2);
	vm_send_int(t3, TAG_GO, 1);
	ck_assert_int_eq(reap(k3), 0);
	ck_assert_int_eq(pvm_lvgroup("die"), 0);
	pvm_exit();
}
END_TEST

/* A member that joins kid_group, freezes it with size `arg', tells the
 * result, then waits to be told to leave (1) or to exit (0). */
static int kid_freeze(int arg)
{
	int rc;

	if (pvm_joingroup((char *)kid_group) < 0)
		return 1;
	vm_send_int(parent_tid, TAG_UP, 0);
	rc = pvm_freezegroup((char *)kid_group, arg);
	vm_send_int(parent_tid, TAG_UP, rc);
	if (vm_recv_int(parent_tid, TAG_GO) == 1)
		return pvm_lvgroup((char *)kid_group) == 0 ? 0 : 1;
	return 0;
}

START_TEST(static_group_losing_a_member_breaks_its_barriers)
{
	int t1;
	pid_t k1;

	pvm_mytid();
	kid_group = "brk";
	ck_assert_int_eq(pvm_joingroup("brk"), 0);
	k1 = fork_task(kid_freeze, 2, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	ck_assert_int_eq(pvm_freezegroup("brk", 2), 2);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 2);
	kill(k1, SIGKILL);
	ck_assert_int_eq(reap(k1), 128 + SIGKILL);
	pause_ms(200);
	ck_assert_int_eq(pvm_barrier("brk", 2), PvmNoGroup);
	ck_assert_int_eq(pvm_barrier("brk", 1), PvmNoGroup);
	/* Our copy of the static table is kept. */
	ck_assert_int_eq(pvm_gsize("brk"), 2);
	ck_assert_int_eq(pvm_gettid("brk", 1), t1);
	ck_assert_int_eq(pvm_lvgroup("brk"), 0);
	ck_assert_int_eq(pvm_gsize("brk"), PvmNoGroup);
	pvm_exit();
}
END_TEST

START_TEST(freeze_makes_the_group_static)
{
	int me = pvm_mytid(), t1, t2;
	pid_t k1, k2;

	kid_group = "frz";
	ck_assert_int_eq(pvm_joingroup("frz"), 0);
	ck_assert_int_eq(pvm_freezegroup("frz", 0), PvmBadParam);
	/* Freezing waits until `size' members have asked for it. */
	k1 = fork_task(kid_freeze, 3, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	k2 = fork_task(kid_freeze, -1, &t2);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	pause_ms(100);
	ck_assert_int_eq(pvm_nrecv(t1, TAG_UP), 0);
	ck_assert_int_eq(pvm_freezegroup("frz", 3), 3);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 3);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 3);
	ck_assert_int_eq(pvm_freezegroup("frz", -1), PvmDupGroup);
	/* Answered from the local copy; nobody may join any more. */
	ck_assert_int_eq(pvm_gsize("frz"), 3);
	ck_assert_int_eq(pvm_getinst("frz", me), 0);
	ck_assert_int_eq(pvm_gettid("frz", 1), t1);
	ck_assert_int_eq(pvm_gettid("frz", 2), t2);
	ck_assert_int_eq(pvm_gettid("frz", 3), PvmNoInst);
	ck_assert_int_eq(pvm_joingroup("frz"), PvmNotInGroup);
	vm_send_int(t1, TAG_GO, 1);
	vm_send_int(t2, TAG_GO, 1);
	ck_assert_int_eq(reap(k1), 0);
	ck_assert_int_eq(reap(k2), 0);
	ck_assert_int_eq(pvm_lvgroup("frz"), 0);
	pvm_exit();
}
END_TEST

/* A member that joins kid_group, tells its instance, then echoes every
 * broadcast (tag 55) it gets to the parent until it gets 0, and leaves. */
static int kid_echo(int arg)
{
	int v;

	(void)arg;
	vm_send_int(parent_tid, TAG_UP, pvm_joingroup((char *)kid_group));
	do {
		v = vm_recv_int(-1, 55);
		vm_send_int(parent_tid, TAG_UP, v);
	} while (v != 0);
	return pvm_lvgroup((char *)kid_group) == 0 ? 0 : 1;
}

static int bcast_int(const char *group, int v)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	return pvm_bcast((char *)group, 55);
}

START_TEST(bcast_reaches_the_members_as_they_change)
{
	int t1, t2;
	pid_t k1, k2;

	pvm_mytid();
	kid_group = "bc";
	ck_assert_int_eq(pvm_joingroup("bc"), 0);
	k1 = fork_task(kid_echo, 0, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 1);
	ck_assert_int_eq(bcast_int("bc", 1), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 1);
	/* A new member: our copy of the member list is refreshed. */
	k2 = fork_task(kid_echo, 0, &t2);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 2);
	ck_assert_int_eq(bcast_int("bc", 2), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 2);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 2);
	/* A member leaves: it gets nothing more. */
	ck_assert_int_eq(bcast_int("bc", 0), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	ck_assert_int_eq(vm_recv_int(t2, TAG_UP), 0);
	ck_assert_int_eq(reap(k1), 0);
	ck_assert_int_eq(reap(k2), 0);
	ck_assert_int_eq(bcast_int("bc", 3), PvmNoInst);
	k1 = fork_task(kid_echo, 0, &t1);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 1);
	/* Non-members may broadcast too. */
	ck_assert_int_eq(pvm_lvgroup("bc"), 0);
	ck_assert_int_eq(bcast_int("bc", 4), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 4);
	ck_assert_int_eq(bcast_int("bc", 0), 0);
	ck_assert_int_eq(vm_recv_int(t1, TAG_UP), 0);
	ck_assert_int_eq(reap(k1), 0);
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	pvm_exit();
}
END_TEST

START_TEST(group_calls_keep_the_callers_buffers_and_context)
{
	int me = pvm_mytid(), ctx, sbuf, rbuf, v = 0, w = 0;

	ctx = pvm_newcontext();
	pvm_setcontext(ctx);
	vm_send_int(me, 7, 4242);
	ck_assert_int_gt(pvm_recv(me, 7), 0);
	rbuf = pvm_getrbuf();
	sbuf = pvm_initsend(PvmDataDefault);
	v = 99;
	pvm_pkint(&v, 1, 1);
	ck_assert_int_eq(pvm_joingroup("buf"), 0);
	ck_assert_int_eq(pvm_gsize("buf"), 1);
	ck_assert_int_eq(pvm_barrier("buf", 1), 0);
	ck_assert_int_eq(pvm_gettid("buf", 0), me);
	ck_assert_int_eq(pvm_bcast("buf", 1), PvmNoInst);
	ck_assert_int_eq(pvm_reduce(PvmSum, &v, 1, PVM_INT, 3, "buf", 0), 0);
	ck_assert_int_eq(pvm_getsbuf(), sbuf);
	ck_assert_int_eq(pvm_getrbuf(), rbuf);
	ck_assert_int_eq(pvm_getcontext(), ctx);
	ck_assert_int_eq(pvm_upkint(&w, 1, 1), PvmOk);
	ck_assert_int_eq(w, 4242);
	/* The send buffer still holds 99: send it to ourselves. */
	ck_assert_int_eq(pvm_send(me, 8), PvmOk);
	ck_assert_int_eq(vm_recv_int(me, 8), 99);
	ck_assert_int_eq(pvm_lvgroup("buf"), 0);
	ck_assert_int_eq(pvm_nrecv(-1, -1), 0);
	pvm_exit();
}
END_TEST

START_TEST(a_new_server_replaces_one_that_died)
{
	int old, now;

	pvm_mytid();
	ck_assert_int_eq(pvm_joingroup("srv"), 0);
	old = gs_getgstid();
	ck_assert_int_gt(old, 0);
	ck_assert_int_eq(pvm_kill(old), PvmOk);
	/* Its groups are gone with it; the call goes to a new server. */
	ck_assert_int_eq(pvm_gsize("srv"), PvmNoGroup);
	now = gs_getgstid();
	ck_assert_int_gt(now, 0);
	ck_assert_int_ne(now, old);
	ck_assert_int_eq(pvm_joingroup("srv"), 0);
	ck_assert_int_eq(pvm_gsize("srv"), 1);
	ck_assert_int_eq(pvm_lvgroup("srv"), 0);
	pvm_exit();
}
END_TEST

static Suite *group_suite(void)
{
	Suite *s = suite_create("group");
	TCase *tc = tcase_create("groups");

	tcase_add_unchecked_fixture(tc, setup, vm_fixture_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, server_starts_on_first_use_and_registers);
	tcase_add_test(tc, instances_are_lowest_free_and_reused);
	tcase_add_test(tc, errors_for_unknown_groups_and_bad_arguments);
	tcase_add_test(tc, barrier_counts);
	tcase_add_test(tc, member_dying_in_a_barrier_releases_the_others);
	tcase_add_test(tc, static_group_losing_a_member_breaks_its_barriers);
	tcase_add_test(tc, freeze_makes_the_group_static);
	tcase_add_test(tc, bcast_reaches_the_members_as_they_change);
	tcase_add_test(tc, group_calls_keep_the_callers_buffers_and_context);
	tcase_add_test(tc, a_new_server_replaces_one_that_died);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(group_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

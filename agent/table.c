/*
 * table.c - the boost table and the watchdog.  The table lives in a
 * MAP_SHARED|MAP_ANONYMOUS mapping made before the watchdog is forked,
 * so the watchdog sees every entry the agent writes afterwards.  The
 * watchdog does nothing but wait: when the agent dies, by any signal
 * including SIGKILL, its end of a pipe closes (and PR_SET_PDEATHSIG
 * interrupts the wait as well), and the watchdog reverts every boost
 * still recorded, then exits.  It cannot share the agent's pidfds, so
 * it checks each task by pid and start time before touching it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agent.h"

struct agent_shared *agent_tab;

int table_create(void)
{
	void *p = mmap(NULL, sizeof(*agent_tab), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return -errno;
	agent_tab = p;
	for (i = 0; i < AGENT_MAX_TASKS; i++) {
		agent_tab->ent[i].pidfd = -1;
		agent_tab->ent[i].booster = -1;
	}
	return 0;
}

int table_revert_all(void)
{
	int i, n = 0;

	for (i = 0; i < AGENT_MAX_TASKS; i++) {
		struct agent_entry *e = &agent_tab->ent[i];
		int st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

		if (st == ENT_FREE)
			continue;
		/* Gone, or its pid now names another process. */
		if (boost_start_time(e->pid) != e->start_time)
			continue;
		if (st == ENT_BOOSTED && boost_undo(e)) {
			__atomic_add_fetch(&agent_tab->stats.undone, 1,
					   __ATOMIC_RELAXED);
			n++;
		}
		boost_rttime_restore(e);
	}
	return n;
}

static void on_pdeath(int sig)
{
	(void)sig;	/* only interrupts the read */
}

static void watchdog_main(int rfd, pid_t agent, int rt)
{
	struct sched_param sp = { .sched_priority = 2 };
	struct sigaction sa;
	char c;
	int n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_pdeath;
	sigaction(SIGUSR1, &sa, NULL);
	/* Ctrl-C reaches the whole process group: the agent cleans up
	 * itself, and the watchdog must outlive it to catch a crash. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* The agent's SCHED_RESET_ON_FORK gave us SCHED_OTHER: like the
	 * agent, run above the boosts we may have to undo. */
	if (rt)
		sched_setscheduler(0, SCHED_FIFO, &sp);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR1) < 0)
		agent_log("watchdog: PR_SET_PDEATHSIG: %s", strerror(errno));
	/* The agent may already be gone: then the read sees EOF. */
	for (;;) {
		n = read(rfd, &c, 1);
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n < 0 && getppid() != agent)
			break;
	}
	n = table_revert_all();
	if (n)
		agent_log("watchdog: agent gone, reverted %d boost(s)", n);
	_exit(0);
}

int watchdog_start(int rt)
{
	int fds[2];
	pid_t agent = getpid(), pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		close(fds[1]);
		/* Keep stderr and the pipe; drop the listening socket. */
		if (fds[0] > 3)
			close_range(3, fds[0] - 1, 0);
		close_range(fds[0] + 1, ~0u, 0);
		watchdog_main(fds[0], agent, rt);
	}
	close(fds[0]);
	/* The write end stays open, never written, until the agent dies;
	 * it must not leak into anything else. */
	return 0;
}

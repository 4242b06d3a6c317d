/*
 * main.c - copvm-agent: the privileged boost helper of copvm.  It parses
 * the options, creates the listening socket (mode 0666: every user may
 * ask, the agent checks each request), drops root for a plain user with
 * CAP_SYS_NICE and CAP_SYS_RESOURCE only (priv.c), forks the watchdog
 * (table.c) and runs one epoll loop over the listening socket, the
 * connections, the registered tasks' pidfds, a timerfd and a signalfd.
 * SIGTERM, SIGINT and SIGHUP revert every boost before it exits.  See
 * docs/agent.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

void agent_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "copvm-agent[%d]: %s\n", (int)getpid(), buf);
}

uint64_t agent_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: copvm-agent [-f] [-v] [-R] [-B] [-s PATH] [-u USER] [-n FLOOR]\n"
		"                   [-b BOX_MS] [-p PCT] [-d PCT] [-U PCT] [-w WINDOW_MS]\n"
		"                   [-t MS]\n"
		"  -f  stay in the foreground      -v  log every refusal\n"
		"  -R  do not run the agent itself at SCHED_FIFO 2\n"
		"  -B  give up CAP_SYS_RESOURCE: RT requests of other users'\n"
		"      tasks are then granted as nice (what a container without\n"
		"      the capability gives; for tests)\n"
		"  -s  socket path (default $" AGENT_SOCK_ENV " or " AGENT_SOCK_DEFAULT ")\n"
		"  -u  user to run as when started as root (default nobody)\n"
		"  -n  lowest nice it sets, -20..0 (default -10)\n"
		"  -b  longest time box in ms (default 20)\n"
		"  -p  most CPU share a task may use boosted, %% of a CPU (default 50)\n"
		"  -d  the share of a task that asks for none, %% (default "
		AGENT_SHARE_DEFAULT_TEXT ")\n"
		"  -U  most all users' boosts together take of each CPU, split\n"
		"      evenly among the users with registered tasks, %% (default "
		AGENT_USER_SHARE_TEXT ")\n"
		"  -w  a share's longest burst is share x this window, ms (default 100)\n"
		"  -t  CPU sampled at most this often while a boost lasts, ms (default 2)\n");
}

/* Parses a percentage in [0.01, 100] (a decimal fraction allowed) into
 * parts per million of a CPU, or exits with a message. */
static uint32_t pct_arg(const char *s, int opt)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.01 && v <= 100.0)) {
		fprintf(stderr, "copvm-agent: -%c wants a per cent, 0.01..100\n",
			opt);
		exit(2);
	}
	return (uint32_t)(v * (COSCHED_SHARE_ONE / 100) + 0.5);
}

/* Parses a decimal in [lo, hi] or exits with a message. */
static long num_arg(const char *s, long lo, long hi, int opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "copvm-agent: -%c wants %ld..%ld\n", opt, lo, hi);
		exit(2);
	}
	return v;
}

static void parse_args(int argc, char **argv, struct agent_conf *c)
{
	int opt;

	memset(c, 0, sizeof(*c));
	c->sock_path = getenv(AGENT_SOCK_ENV);
	if (!c->sock_path || !*c->sock_path)
		c->sock_path = AGENT_SOCK_DEFAULT;
	c->user = "nobody";
	c->nice_floor = -10;
	c->box_max_ns = 20 * 1000000ull;
	c->share_max_ppm = COSCHED_SHARE_ONE / 2;
	c->share_default_ppm = AGENT_SHARE_DEFAULT_PPM;
	c->user_share_ppm = AGENT_USER_SHARE_PPM;
	c->window_ns = 100 * 1000000ull;
	c->sample_ns = 2 * 1000000ull;
	c->rt_self = 1;
	while ((opt = getopt(argc, argv, "fvRBs:u:n:b:p:d:U:w:t:h")) != -1) {
		switch (opt) {
		case 'f': c->foreground = 1; break;
		case 'v': c->verbose = 1; break;
		case 'R': c->rt_self = 0; break;
		case 'B': c->no_backstop = 1; break;
		case 's': c->sock_path = optarg; break;
		case 'u': c->user = optarg; break;
		case 'n': c->nice_floor = (int)num_arg(optarg, -20, 0, opt); break;
		case 'b':
			c->box_max_ns = num_arg(optarg, 1, 10000, opt) * 1000000ull;
			break;
		case 'p': c->share_max_ppm = pct_arg(optarg, opt); break;
		case 'd': c->share_default_ppm = pct_arg(optarg, opt); break;
		case 'U': c->user_share_ppm = pct_arg(optarg, opt); break;
		case 'w':
			c->window_ns = num_arg(optarg, 10, 10000, opt) * 1000000ull;
			break;
		case 't':
			c->sample_ns = num_arg(optarg, 1, 100, opt) * 1000000ull;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc) {
		usage(stderr);
		exit(2);
	}
}

/* Binds the listening socket, replacing a stale one but never a live
 * agent's.  The socket or -errno. */
/* Makes the socket's directory if it is missing (its last component
 * only, mode 0755 so that every user's tasks reach the socket), as
 * systemd's RuntimeDirectory= would. */
static void make_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0)
		chmod(dir, 0755);	/* whatever the umask */
}

static int make_socket(const char *path)
{
	struct sockaddr_un sa;
	int fd, probe, one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	make_parent(path);
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(probe);
		agent_log("an agent already listens on %s", path);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* SO_PASSCRED: every datagram carries its sender's credentials. */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0666) < 0 || listen(fd, 128) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Runs the agent at SCHED_FIFO 2, above the boosts it grants, so that a
 * boosted task spinning on its CPU cannot delay its own undo. */
static void rt_self(void)
{
	struct sched_param sp = { .sched_priority = 2 };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		agent_log("cannot run at SCHED_FIFO 2: %s", strerror(errno));
}

static int add_ev(int ep, int fd, int type)
{
	struct epoll_event ev = {
		.events = EPOLLIN, .data.u64 = (uint64_t)type << 32,
	};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static int loop(int lfd, int ep, int sfd)
{
	struct epoll_event evs[32];
	struct signalfd_siginfo si;
	int i, n;

	for (;;) {
		n = epoll_wait(ep, evs, 32, -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			int type = (int)(evs[i].data.u64 >> 32);
			int idx = (int)(uint32_t)evs[i].data.u64;

			switch (type) {
			case AGENT_EV_LISTEN:
				serve_accept(lfd);
				break;
			case AGENT_EV_CONN:
				serve_conn(idx);
				break;
			case AGENT_EV_PIDFD:
				serve_pidfd(idx);
				break;
			case AGENT_EV_TIMER:
				serve_timer();
				break;
			case AGENT_EV_SIGNAL:
				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					break;
				if (si.ssi_signo == SIGCHLD) {
					agent_log("the watchdog exited");
					break;
				}
				agent_log("signal %u: reverting and exiting",
					  si.ssi_signo);
				return 0;
			}
		}
		serve_rearm();
	}
}

int main(int argc, char **argv)
{
	struct agent_conf conf;
	sigset_t sigs;
	int lfd, ep, tfd, sfd, rc;

	parse_args(argc, argv, &conf);
	signal(SIGPIPE, SIG_IGN);
	lfd = make_socket(conf.sock_path);
	if (lfd < 0) {
		agent_log("%s: %s", conf.sock_path, strerror(-lfd));
		return 1;
	}
	if (!conf.foreground && daemon(0, 1) < 0) {
		agent_log("daemon: %s", strerror(errno));
		return 1;
	}
	/* Before anything changes our own policy. */
	boost_detect(&conf);
	if (conf.rt_self)
		rt_self();
	rc = priv_drop(conf.user, conf.no_backstop);
	if (rc) {
		agent_log("cannot drop privileges: %s", strerror(-rc));
		unlink(conf.sock_path);
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	rc = table_create();
	if (!rc)
		rc = watchdog_start(conf.rt_self);
	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (rc || ep < 0 || tfd < 0 || sfd < 0 ||
	    add_ev(ep, lfd, AGENT_EV_LISTEN) || add_ev(ep, tfd, AGENT_EV_TIMER) ||
	    add_ev(ep, sfd, AGENT_EV_SIGNAL) || serve_init(&conf, ep, tfd)) {
		agent_log("cannot start: %s", strerror(rc ? -rc : errno));
		return 1;
	}
	agent_log("listening on %s (floor %d, box %llu ms, share %.2f%% by default,"
		  " at most %.2f%%, %.2f%% of each CPU for all users, window %llu ms,"
		  " sample %llu ms%s)",
		  conf.sock_path, conf.nice_floor,
		  (unsigned long long)(conf.box_max_ns / 1000000),
		  conf.share_default_ppm / 10000.0, conf.share_max_ppm / 10000.0,
		  conf.user_share_ppm / 10000.0,
		  (unsigned long long)(conf.window_ns / 1000000),
		  (unsigned long long)(conf.sample_ns / 1000000),
		  conf.slice_ok ? ", slices" : "");
	rc = loop(lfd, ep, sfd);
	serve_shutdown();
	close(lfd);
	/* As `nobody' we may not be allowed to; the next start replaces it. */
	if (unlink(conf.sock_path) < 0 && conf.verbose)
		agent_log("unlink %s: %s", conf.sock_path, strerror(errno));
	return rc ? 1 : 0;
}

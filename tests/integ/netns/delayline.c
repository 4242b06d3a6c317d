/*
 * delayline - a slow, lossy cable between two network namespaces, for
 * kernels without the netem qdisc (tests/integ/netns/netns.sh's
 * netns_slow).
 *
 * usage: delayline [-d MS] [-l PERCENT] [-s SEED] NS-A IF-A NS-B IF-B
 *
 * Makes a TAP interface IF-A in namespace NS-A and IF-B in NS-B (names
 * of `ip netns', or "-" for the namespace delayline runs in) and passes
 * every Ethernet frame that one of them sends out of the other, MS
 * milliseconds later (default 100: 200 ms round trip), dropping each
 * with probability PERCENT/100 (default 0), in each direction alike.
 * The drops come from a pseudo-random sequence seeded with SEED
 * (default 1), so a run can be repeated.  Frames are never reordered:
 * each direction is a FIFO and every frame waits the same time.  A
 * direction holds at most QUEUE_MAX frames in flight; one more is
 * dropped and counted apart (tail drop, as a router would).
 *
 * It prints "ready" on stdout once both interfaces exist (the caller
 * then sets their addresses, links them up, plugs one into a bridge...)
 * and runs until SIGTERM or SIGINT, then says on stderr how many frames
 * each direction passed and dropped.  The interfaces go when it exits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX	65536
#define QUEUE_MAX	8192

struct frame {
	struct frame *next;
	int64_t due;			/* when it leaves, ns (monotonic) */
	size_t len;
	unsigned char data[];
};

struct direction {
	const char *name;
	int in, out;			/* TAP fds: read from in, write to out */
	struct frame *head, *tail;
	unsigned queued;
	unsigned long passed, lost, full, failed;
};

static volatile sig_atomic_t stop;
static uint64_t rng;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* xorshift64*: a uniform double in [0, 1) */
static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* A TAP interface `name' in namespace `ns' ("-": this one); its fd. */
static int open_tap(const char *ns, const char *name)
{
	struct ifreq ifr;
	char path[256];
	int nsfd, fd;

	if (strcmp(ns, "-") != 0) {
		snprintf(path, sizeof path, "/run/netns/%s", ns);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
			fprintf(stderr, "delayline: namespace %s: %s\n", ns,
				strerror(errno));
			exit(1);
		}
		close(nsfd);
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		perror("delayline: /dev/net/tun");
		exit(1);
	}
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "delayline: TAP %s in %s: %s\n", name, ns,
			strerror(errno));
		exit(1);
	}
	return fd;
}

/* Reads what `d->in' has, queues each frame for now + delay or drops it. */
static void take_in(struct direction *d, int64_t delay, double loss)
{
	static unsigned char buf[FRAME_MAX];
	struct frame *f;
	ssize_t n;

	while ((n = read(d->in, buf, sizeof buf)) > 0) {
		if (uniform() < loss) {
			d->lost++;
			continue;
		}
		if (d->queued >= QUEUE_MAX || !(f = malloc(sizeof *f + n))) {
			d->full++;
			continue;
		}
		f->next = NULL;
		f->due = now_ns() + delay;
		f->len = (size_t)n;
		memcpy(f->data, buf, (size_t)n);
		if (d->tail)
			d->tail->next = f;
		else
			d->head = f;
		d->tail = f;
		d->queued++;
	}
}

/* Sends the frames that are due; the time until the next one, or -1. */
static int64_t give_out(struct direction *d, int64_t now)
{
	struct frame *f;

	while ((f = d->head) && f->due <= now) {
		if (write(d->out, f->data, f->len) == (ssize_t)f->len)
			d->passed++;
		else
			d->failed++;
		d->head = f->next;
		if (!d->head)
			d->tail = NULL;
		d->queued--;
		free(f);
	}
	return d->head ? d->head->due - now : -1;
}

int main(int argc, char **argv)
{
	struct direction dir[2];
	struct pollfd pfd[2];
	struct sigaction sa;
	double loss = 0;
	int64_t delay = 100 * 1000000LL, wait, w;
	struct timespec ts;
	int c, a, b, i;

	rng = 1;
	while ((c = getopt(argc, argv, "d:l:s:")) != -1) {
		switch (c) {
		case 'd':
			delay = (int64_t)(atof(optarg) * 1e6);
			break;
		case 'l':
			loss = atof(optarg) / 100;
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 4 || delay < 0 || loss < 0 || loss > 1)
		goto usage;
	/* xorshift must not start from 0; mix the seed a little */
	rng = rng * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
	if (!rng)
		rng = 1;
	a = open_tap(argv[optind], argv[optind + 1]);
	b = open_tap(argv[optind + 2], argv[optind + 3]);
	memset(dir, 0, sizeof dir);
	dir[0] = (struct direction){ .name = argv[optind + 1], .in = a, .out = b };
	dir[1] = (struct direction){ .name = argv[optind + 3], .in = b, .out = a };
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	printf("ready\n");
	fflush(stdout);

	pfd[0] = (struct pollfd){ .fd = a, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = b, .events = POLLIN };
	while (!stop) {
		wait = -1;
		for (i = 0; i < 2; i++) {
			w = give_out(&dir[i], now_ns());
			if (w >= 0 && (wait < 0 || w < wait))
				wait = w;
		}
		ts.tv_sec = wait / 1000000000;
		ts.tv_nsec = wait % 1000000000;
		if (ppoll(pfd, 2, wait < 0 ? NULL : &ts, NULL) < 0) {
			if (errno == EINTR)
				continue;
			perror("delayline: ppoll");
			return 1;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				fprintf(stderr, "delayline: %s is gone\n",
					dir[i].name);
				stop = 1;
			}
			if (pfd[i].revents & POLLIN)
				take_in(&dir[i], delay, loss);
		}
	}
	for (i = 0; i < 2; i++)
		fprintf(stderr, "delayline: from %s: %lu passed, %lu lost, "
			"%lu over the queue, %lu not written\n", dir[i].name,
			dir[i].passed, dir[i].lost, dir[i].full,
			dir[i].failed);
	return 0;
usage:
	fprintf(stderr, "usage: delayline [-d MS] [-l PERCENT] [-s SEED] "
		"NS-A IF-A NS-B IF-B\n");
	return 2;
}

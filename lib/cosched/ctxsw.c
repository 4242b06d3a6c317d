/*
 * ctxsw.c - the context-switch cost that IMP's spin bound is built on
 * (spin = 2 context switches, as the implicit-coscheduling papers and
 * the thesis measured with lmbench): a thread ping-pong over two pipes,
 * half a round trip being one switch plus one wake-up.  Measured once per
 * run directory (per host and user) and cached there as a number, beside
 * (not among) the pages.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cosched.h"
#include "cosched_page.h"
#include <sys/socket.h>

#include "rundir_path.h"

#define ROUNDS		200
/* Used when the measurement cannot be made. */
#define FALLBACK_NS	20000ULL
#define CACHE_NAME	"ctxsw_ns"

struct pingpong {
	int to_child[2], to_parent[2];
};

static void *echo(void *arg)
{
	struct pingpong *pp = arg;
	char c;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if (read(pp->to_child[0], &c, 1) != 1 ||
		    write(pp->to_parent[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/* Half the mean round trip of ROUNDS pipe exchanges, in ns; 0 if the
 * measurement failed. */
static uint64_t measure(void)
{
	struct pingpong pp;
	struct timespec a, b;
	pthread_t th;
	uint64_t ns = 0;
	char c = 'x';
	int i, ok = 1;

	if (pipe2(pp.to_child, O_CLOEXEC) < 0)
		return 0;
	if (pipe2(pp.to_parent, O_CLOEXEC) < 0) {
		close(pp.to_child[0]);
		close(pp.to_child[1]);
		return 0;
	}
	if (pthread_create(&th, NULL, echo, &pp) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < ROUNDS && ok; i++)
			ok = write(pp.to_child[1], &c, 1) == 1 &&
			     read(pp.to_parent[0], &c, 1) == 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (!ok)
			close(pp.to_child[1]);	/* lets the thread end */
		pthread_join(th, NULL);
		if (ok)
			ns = ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL +
			      (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec) /
			     (2 * ROUNDS);
	}
	close(pp.to_child[0]);
	if (ok)
		close(pp.to_child[1]);
	close(pp.to_parent[0]);
	close(pp.to_parent[1]);
	return ns;
}

uint64_t pvmi_cosched_ctxsw_ns(void)
{
	char path[300], buf[32];
	uint64_t ns = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pvmi_rundir(), CACHE_NAME);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			ns = strtoull(buf, NULL, 10);
		}
		if (ns > 0 && ns < 10000000ULL)
			return ns;
	}
	ns = measure();
	if (ns == 0)
		return FALLBACK_NS;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)ns);
		/* The cache only saves the next task a measurement. */
		(void)!write(fd, buf, (size_t)n);
		close(fd);
	}
	return ns;
}

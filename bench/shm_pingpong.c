/*
 * shm_pingpong.c - microbenchmark of the shared-memory ring
 * (lib/transport/shm_ring.c): two processes (fork), one ring each way.
 * Reports the median and 99th percentile of a small round trip (8 bytes,
 * or -b bytes from 2 up: 0 and 1 are the echo's commands), the
 * 1 MiB round trip and the bandwidth it gives (2 MiB moved per round
 * trip), and a one-way 1 MiB stream, once with a spinning receiver and
 * once with a receiver that blocks at once (spin 0: every wait arms and
 * sleeps on the eventfd).  No PVM, no daemon: the ring alone.
 *
 * With -c, messages of at least that many bytes go single-copy
 * (process_vm_readv) instead of through the ring.
 *
 * usage: shm_pingpong [-n small_iters] [-N large_iters] [-r ring_bytes]
 *                     [-m spin|block|both] [-s spin_ns] [-c single_copy_min]
 *                     [-b small_bytes]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm_ring.h"

#define LARGE	(1024 * 1024)

struct side {
	struct shm_ring out, in;
	int wake, peer_wake;
};

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "shm_pingpong: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void send_fd(int sock, int fd)
{
	char c = 'F', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { 0 };
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &m, 0) != 1)
		die("sendmsg", -errno);
}

static int recv_fd(int sock)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { 0 };
	struct cmsghdr *cm;
	int fd = -1;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	if (recvmsg(sock, &m, 0) != 1)
		die("recvmsg", -errno);
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Makes our outgoing ring, swaps memfds with the peer over `sock',
 * attaches its ring, and waits until the peer has attached ours. */
static size_t single_copy_min;

static void setup(struct side *s, int sock, uint32_t ring_bytes,
		  long spin_ns)
{
	char c = 'A';
	int rc, fd;

	rc = shm_ring_create(&s->out, ring_bytes);
	if (rc < 0)
		die("create", rc);
	send_fd(sock, shm_ring_fd(&s->out));
	fd = recv_fd(sock);
	rc = shm_ring_attach(&s->in, fd);
	if (rc < 0)
		die("attach", rc);
	close(fd);
	if (write(sock, &c, 1) != 1 || read(sock, &c, 1) != 1)
		die("handshake", -errno);
	shm_ring_drop_fd(&s->out);
	shm_ring_connect(&s->out, s->wake, s->peer_wake);
	shm_ring_connect(&s->in, s->wake, s->peer_wake);
	shm_ring_set_spin(&s->out, spin_ns);
	shm_ring_set_spin(&s->in, spin_ns);
	shm_ring_set_single_copy(&s->out, single_copy_min);
	shm_ring_set_single_copy(&s->in, single_copy_min);
}

static void xsend(struct side *s, const void *buf, size_t len)
{
	int rc = shm_ring_send(&s->out, 0, buf, len, SHM_WAIT_FOREVER);

	if (rc < 0)
		die("send", rc);
}

static void xrecv(struct side *s, void *buf, size_t cap)
{
	ssize_t n = shm_ring_recv(&s->in, NULL, buf, cap, SHM_WAIT_FOREVER);

	if (n < 0)
		die("recv", (int)n);
}

/* The echoing child: answers every message in kind; a 1-byte message
 * starts a stream of `count' messages answered once at the end, a
 * 0-byte one ends the run. */
static void echo(struct side *s, unsigned char *buf)
{
	ssize_t n;
	uint32_t count, i;

	for (;;) {
		n = shm_ring_recv(&s->in, NULL, buf, LARGE, SHM_WAIT_FOREVER);
		if (n < 0)
			die("echo recv", (int)n);
		if (n == 0)
			return;
		if (n == 1) {
			xrecv(s, &count, sizeof(count));
			for (i = 0; i < count; i++)
				xrecv(s, buf, LARGE);
			xsend(s, buf, 8);
			continue;
		}
		xsend(s, buf, (size_t)n);
	}
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Median and 99th percentile of `n' round trips of `len' bytes, ns. */
static void round_trips(struct side *s, unsigned char *buf, size_t len,
			long n, long *median, long *p99)
{
	long *t = malloc(sizeof(long) * (size_t)n), i, start;
	long warm = n / 10 + 10;

	if (!t)
		die("malloc", -ENOMEM);
	for (i = 0; i < warm; i++) {
		xsend(s, buf, len);
		xrecv(s, buf, LARGE);
	}
	for (i = 0; i < n; i++) {
		start = now_ns();
		xsend(s, buf, len);
		xrecv(s, buf, LARGE);
		t[i] = now_ns() - start;
	}
	qsort(t, (size_t)n, sizeof(long), cmp_long);
	*median = t[n / 2];
	*p99 = t[n * 99 / 100];
	free(t);
}

/* One-way stream of `count' 1 MiB messages; bytes per second. */
static double stream(struct side *s, unsigned char *buf, uint32_t count)
{
	long start;
	uint32_t i;

	xsend(s, buf, 1);
	xsend(s, &count, sizeof(count));
	start = now_ns();
	for (i = 0; i < count; i++)
		xsend(s, buf, LARGE);
	xrecv(s, buf, LARGE);
	return (double)count * LARGE / ((double)(now_ns() - start) / 1e9);
}

static void run(const char *mode, long spin_ns, uint32_t ring_bytes,
		long small, long large, long bytes)
{
	unsigned char *buf = malloc(LARGE);
	long med, p99, lmed, lp99;
	struct side s;
	int sv[2], st;
	double bw;
	pid_t pid;
	int a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	int b = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (!buf || a < 0 || b < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("setup", -errno);
	memset(buf, 0x5a, LARGE);
	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (pid == 0) {
		s.wake = b;
		s.peer_wake = a;
		setup(&s, sv[1], ring_bytes, spin_ns);
		echo(&s, buf);
		shm_ring_close(&s.out);
		shm_ring_close(&s.in);
		_exit(0);
	}
	s.wake = a;
	s.peer_wake = b;
	setup(&s, sv[0], ring_bytes, spin_ns);
	round_trips(&s, buf, bytes, small, &med, &p99);
	round_trips(&s, buf, LARGE, large, &lmed, &lp99);
	bw = stream(&s, buf, (uint32_t)large);
	xsend(&s, buf, 0);
	waitpid(pid, &st, 0);
	printf("%-5s spin=%ldns ring=%uKiB single-copy>=%zu"
	       "  %ldB rtt median %.2f us p99 %.2f us"
	       " (n=%ld) | 1MiB rtt median %.1f us p99 %.1f us -> %.2f GB/s"
	       " (n=%ld) | 1MiB stream %.2f GB/s | wakes %llu blocks %llu\n",
	       mode, spin_ns, ring_bytes >> 10, single_copy_min, bytes,
	       med / 1e3,
	       p99 / 1e3, small,
	       lmed / 1e3, lp99 / 1e3, 2.0 * LARGE / (lmed / 1e9) / 1e9,
	       large, bw / 1e9, (unsigned long long)s.out.wakes_sent,
	       (unsigned long long)s.in.blocks);
	fflush(stdout);
	shm_ring_close(&s.out);
	shm_ring_close(&s.in);
	close(sv[0]);
	close(sv[1]);
	close(a);
	close(b);
	free(buf);
}

int main(int argc, char **argv)
{
	long small = 200000, large = 2000, spin = 1000000000L, bytes = 8;
	uint32_t ring = SHM_RING_DEFAULT_BYTES;
	const char *mode = "both";
	int c;

	while ((c = getopt(argc, argv, "n:N:r:m:s:c:b:")) != -1) {
		switch (c) {
		case 'n':
			small = atol(optarg);
			break;
		case 'N':
			large = atol(optarg);
			break;
		case 'r':
			ring = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mode = optarg;
			break;
		case 's':
			spin = atol(optarg);
			break;
		case 'c':
			single_copy_min = (size_t)atol(optarg);
			break;
		case 'b':
			bytes = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n small_iters] "
				"[-N large_iters] [-r ring_bytes] "
				"[-m spin|block|both] [-s spin_ns] "
				"[-c single_copy_min] [-b small_bytes]\n",
				argv[0]);
			return 2;
		}
	}
	if (small < 1 || large < 1 || bytes < 2 || bytes > LARGE) {
		fprintf(stderr, "shm_pingpong: iterations must be >= 1, "
			"bytes 2 .. 1 MiB\n");
		return 2;
	}
	if (strcmp(mode, "spin") == 0 || strcmp(mode, "both") == 0)
		run("spin", spin, ring, small, large, bytes);
	if (strcmp(mode, "block") == 0 || strcmp(mode, "both") == 0)
		run("block", 0, ring, small, large, bytes);
	return 0;
}

/*
 * rawpingpong - a TCP ping-pong with no PVM, spinning on nonblocking
 * sockets: the wire's limit that bench-mh-pingpong.sh -t sets beside
 * examples/pingpong between the same two emulated hosts.
 *
 * usage: rawpingpong serve PORT
 *          accepts one connection and echoes every message until the
 *          client says it is done (a length of 0xffffffff)
 *        rawpingpong ADDR PORT [-r reps] [-s size,...]
 *          connects (retrying for 10 s while the server starts) and times
 *          round trips of each size (default 0,8,1024,65536,1048576) as
 *          examples/pingpong does: the same counts (pingpong_reps.h), a
 *          tenth more untimed first; prints pingpong's columns.
 * A message is a 4-byte length (network order) and that many bytes; the
 * echo sends both back (so 0 bytes is a round trip too).  Both ends spin (recv/send with MSG_DONTWAIT in a
 * loop, TCP_NODELAY), so the figure is the network stack's, not a
 * wakeup's.  With RAWPINGPONG_BLOCK=1 in its environment an end sleeps
 * in recv instead (bench/frontier.sh's "sleeping limit": each message
 * then pays a wake-up).  After pingpong's columns comes the 99th
 * percentile.  Exit status 0, or 1 on an error (said on stderr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pingpong_reps.h"	/* examples/ */

/* recv's flags: MSG_DONTWAIT (spin) unless RAWPINGPONG_BLOCK=1. */
static int recv_flags = MSG_DONTWAIT;

#define MAX_SIZES	16
#define DONE_LEN	0xffffffffu

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Sends all `len' bytes, spinning; 0 or -1. */
static int put(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Receives exactly `len' bytes, spinning; 0 or -1 (end or error). */
static int get(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, recv_flags);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void tune(int fd)
{
	int one = 1, sz = 4 << 20;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int serve(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int l = socket(AF_INET, SOCK_STREAM, 0), fd, one = 1;
	char *buf = NULL;
	size_t cap = 0;
	uint32_t len;

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one,
				sizeof(one)) < 0 ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0)
		return perror("rawpingpong: listen"), 1;
	fd = accept(l, NULL, NULL);
	close(l);
	if (fd < 0)
		return perror("rawpingpong: accept"), 1;
	tune(fd);
	while (get(fd, &len, sizeof(len)) == 0) {
		uint32_t n = ntohl(len);

		if (n == DONE_LEN) {
			close(fd);
			free(buf);
			return 0;
		}
		if (n > cap) {
			free(buf);
			cap = n;
			buf = malloc(cap);
			if (!buf)
				return fputs("rawpingpong: no memory\n", stderr), 1;
		}
		if (get(fd, buf, n) < 0 || put(fd, &len, sizeof(len)) < 0 ||
		    put(fd, buf, n) < 0)
			break;
	}
	fputs("rawpingpong: the client went away\n", stderr);
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Round trips of `size' bytes: `warm' untimed, then `n' into times[]. */
static int measure(int fd, char *out, char *in, int size, int warm, int n,
		   double *times)
{
	uint32_t len = htonl((uint32_t)size), back;
	double t0;
	int i;

	for (i = -warm; i < n; i++) {
		t0 = now_us();
		out[0] = (char)i;
		if (put(fd, &len, sizeof(len)) < 0 || put(fd, out, size) < 0 ||
		    get(fd, &back, sizeof(back)) < 0 || back != len ||
		    get(fd, in, size) < 0)
			return -1;
		if (i >= 0)
			times[i] = now_us() - t0;
		if (size > 0 && in[0] != out[0])
			return -1;
	}
	return 0;
}

static int client(const char *addr, int port, int argc, char **argv)
{
	int sizes[MAX_SIZES] = { 0, 8, 1024, 65536, 1048576 };
	int nsizes = 5, reps = 1000, maxsize = 0, opt, s, i, fd = -1;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	uint32_t done = htonl(DONE_LEN);
	double *times;
	char *out, *in, *tok, *save = NULL;

	optind = 3;
	while ((opt = getopt(argc, argv, "r:s:")) != -1) {
		if (opt == 'r') {
			reps = atoi(optarg);
		} else if (opt == 's') {
			nsizes = 0;
			for (tok = strtok_r(optarg, ",", &save);
			     tok && nsizes < MAX_SIZES;
			     tok = strtok_r(NULL, ",", &save))
				sizes[nsizes++] = atoi(tok);
		} else {
			return 1;
		}
	}
	for (s = 0; s < nsizes; s++) {
		if (sizes[s] < 0 || sizes[s] > (64 << 20))
			return fputs("rawpingpong: bad size\n", stderr), 1;
		if (sizes[s] > maxsize)
			maxsize = sizes[s];
	}
	if (reps < 1 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return fputs("rawpingpong: bad -r or address\n", stderr), 1;
	for (i = 0; i < 1000; i++) {	/* the server may not listen yet */
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa,
				       sizeof(sa)) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(10000);
	}
	if (fd < 0)
		return perror("rawpingpong: connect"), 1;
	tune(fd);
	out = calloc(1, (size_t)maxsize + 1);
	in = calloc(1, (size_t)maxsize + 1);
	times = calloc((size_t)pingpong_reps_for(0, reps), sizeof(*times));
	if (!out || !in || !times)
		return fputs("rawpingpong: no memory\n", stderr), 1;
	printf("# rawpingpong: TCP, %s, round trips to %s\n",
	       recv_flags ? "spinning" : "sleeping in recv", addr);
	printf("%10s %6s %12s %12s %12s %10s %12s\n", "bytes", "reps",
	       "median_us", "mean_us", "p90_us", "MB/s", "p99_us");
	for (s = 0; s < nsizes; s++) {
		int size = sizes[s], n = pingpong_reps_for(size, reps);
		double sum = 0, median;

		pingpong_mark("begin", size);
		if (measure(fd, out, in, size, n / 10 + 2, n, times) < 0)
			return fputs("rawpingpong: round trip failed\n",
				     stderr), 1;
		pingpong_mark("end", size);
		qsort(times, (size_t)n, sizeof(*times), cmp_double);
		for (i = 0; i < n; i++)
			sum += times[i];
		median = n % 2 ? times[n / 2] :
				 (times[n / 2 - 1] + times[n / 2]) / 2;
		printf("%10d %6d %12.2f %12.2f %12.2f %10.2f %12.2f\n", size,
		       n, median, sum / n, times[(n * 9) / 10],
		       median > 0 ? 2.0 * size / median : 0.0,
		       times[(n * 99) / 100]);
		fflush(stdout);
	}
	put(fd, &done, sizeof(done));
	close(fd);
	free(out);
	free(in);
	free(times);
	return 0;
}

int main(int argc, char **argv)
{
	const char *block = getenv("RAWPINGPONG_BLOCK");

	if (block && strcmp(block, "1") == 0)
		recv_flags = 0;
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(atoi(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "serve") != 0)
		return client(argv[1], atoi(argv[2]), argc, argv);
	fputs("usage: rawpingpong serve PORT | rawpingpong ADDR PORT "
	      "[-r reps] [-s size,...]\n", stderr);
	return 1;
}

/*
 * ringpingpong - a TCP ping-pong with no PVM, whose receives and sends go
 * through plain socket calls or through io_uring in several ways: the
 * measurement behind lib/transport/uring.c's split (sends through the
 * ring only when they wait or come in a batch, receives on the socket)
 * and behind COPVM_URING_ZC's default (docs/results/uring.md, session 9).
 *
 * usage: ringpingpong serve PORT MODE SIZE REPS
 *        ringpingpong ADDR PORT MODE SIZE REPS
 *   Both ends take the same MODE, SIZE and REPS.  The client sends SIZE
 *   bytes, the server echoes them, REPS times after REPS/10 untimed; the
 *   client prints "MODE SIZE mean_round_trip_us".  MODE, receive / send:
 *     s  recv() / send(), both spinning on nonblocking calls (the sockets)
 *     u  a recv in the ring, re-armed with each send / a send in the ring
 *        (copvm's ring before session 9)
 *     m  a multishot recv with provided buffers / a send in the ring
 *     r  a recv in the ring / send()
 *     h  recv() / a send in the ring
 *     z  recv() / a zero-copy send in the ring (IORING_OP_SEND_ZC)
 *     Z  recv() / a zero-copy send from a registered buffer
 *   Every ring is made as copvm makes its own (DEFER_TASKRUN,
 *   SINGLE_ISSUER, TASKRUN_FLAG), and each end spins on it.  Exit status
 *   0, or 1 on an error (said on stderr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NBUFS		64		/* provided buffers (mode m) */
#define BUF_LEN		65536
#define TAG_RECV	1
#define TAG_SEND	2

static char mode;
static size_t size;
static struct io_uring ring;
static struct io_uring_buf_ring *bufring;
static unsigned char *bufs, *in, *out;
static size_t got;			/* bytes of the current message */
static int sends_in_flight;

static void die(const char *what, int err)
{
	fprintf(stderr, "ringpingpong: %s: %s\n", what, strerror(err));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int ring_receives(void)
{
	return mode == 'u' || mode == 'm' || mode == 'r';
}

static int ring_sends(void)
{
	return mode != 's' && mode != 'r';
}

/* Runs deferred work, then waits (spinning) for one completion. */
static struct io_uring_cqe *next_cqe(void)
{
	struct io_uring_cqe *cqe;

	for (;;) {
		if (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN)
			io_uring_get_events(&ring);
		if (io_uring_peek_cqe(&ring, &cqe) == 0)
			return cqe;
	}
}

static void setup_ring(void)
{
	struct io_uring_params p;
	struct io_uring_buf_reg reg;
	struct iovec v;
	int i, r;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_TASKRUN_FLAG;
	r = io_uring_queue_init_params(64, &ring, &p);
	if (r < 0)
		die("io_uring_queue_init", -r);
	if (mode == 'm') {
		bufring = aligned_alloc(4096, NBUFS * sizeof(struct io_uring_buf));
		bufs = aligned_alloc(4096, (size_t)NBUFS * BUF_LEN);
		if (!bufring || !bufs)
			die("buffers", ENOMEM);
		memset(&reg, 0, sizeof(reg));
		reg.ring_addr = (uintptr_t)bufring;
		reg.ring_entries = NBUFS;
		r = io_uring_register_buf_ring(&ring, &reg, 0);
		if (r < 0)
			die("io_uring_register_buf_ring", -r);
		io_uring_buf_ring_init(bufring);
		for (i = 0; i < NBUFS; i++)
			io_uring_buf_ring_add(bufring, bufs + (size_t)i * BUF_LEN,
					      BUF_LEN, i,
					      io_uring_buf_ring_mask(NBUFS), i);
		io_uring_buf_ring_advance(bufring, NBUFS);
	}
	if (mode == 'Z') {
		v.iov_base = out;
		v.iov_len = size;
		r = io_uring_register_buffers(&ring, &v, 1);
		if (r < 0)
			die("io_uring_register_buffers", -r);
	}
}

/* Queues the recv for the rest of the message (mode m: the multishot). */
static void arm_recv(int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (mode == 'm') {
		io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = 0;
	} else {
		io_uring_prep_recv(sqe, fd, in + got, size - got, 0);
	}
	io_uring_sqe_set_data64(sqe, TAG_RECV);
}

/* Takes a recv's completion; 0, or -1 at the end of the stream. */
static int took(int fd, struct io_uring_cqe *cqe)
{
	int res = cqe->res, b;
	unsigned int flags = cqe->flags;

	if (res <= 0)
		return -1;
	if (mode == 'm') {
		b = (int)(flags >> IORING_CQE_BUFFER_SHIFT);
		memcpy(in + got, bufs + (size_t)b * BUF_LEN, (size_t)res);
		io_uring_buf_ring_add(bufring, bufs + (size_t)b * BUF_LEN,
				      BUF_LEN, b, io_uring_buf_ring_mask(NBUFS), 0);
		io_uring_buf_ring_advance(bufring, 1);
		got += (size_t)res;
		if (!(flags & IORING_CQE_F_MORE))
			arm_recv(fd);
		return 0;
	}
	got += (size_t)res;
	if (got < size) {
		arm_recv(fd);
		io_uring_submit(&ring);
	}
	return 0;
}

/* Receives one whole message; 0 or -1. */
static int receive(int fd)
{
	struct io_uring_cqe *cqe;
	ssize_t n;
	int rc = 0;

	got = 0;
	if (!ring_receives()) {
		while (got < size) {
			if (ring_sends() && (IO_URING_READ_ONCE(*ring.sq.kflags) &
					     IORING_SQ_TASKRUN))
				io_uring_get_events(&ring);
			n = recv(fd, in + got, size - got, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				return -1;
			got += (size_t)n;
		}
		return 0;
	}
	while (got < size && rc == 0) {
		if (io_uring_sq_ready(&ring))
			io_uring_submit(&ring);
		cqe = next_cqe();
		if (cqe->user_data == TAG_SEND) {
			if (!(cqe->flags & IORING_CQE_F_MORE))
				sends_in_flight--;
		} else {
			rc = took(fd, cqe);
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	return rc;
}

/* Sends one whole message; 0 or -1. */
static int send_all(int fd)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	size_t put = 0;
	ssize_t n;

	if (!ring_sends()) {
		while (put < size) {
			n = send(fd, out + put, size - put,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				return -1;
			put += (size_t)n;
		}
		if (mode == 'r') {	/* the next recv, as copvm re-armed */
			got = 0;
			arm_recv(fd);
			io_uring_submit(&ring);
		}
		return 0;
	}
	while (sends_in_flight > 0) {	/* the last one's buffer */
		cqe = next_cqe();
		if (cqe->user_data == TAG_SEND) {
			if (!(cqe->flags & IORING_CQE_F_NOTIF) &&
			    (cqe->res < 0 || (size_t)cqe->res != size))
				die("a send in the ring",
				    cqe->res < 0 ? -cqe->res : EMSGSIZE);
			if (!(cqe->flags & IORING_CQE_F_MORE))
				sends_in_flight--;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	sqe = io_uring_get_sqe(&ring);
	if (mode == 'z')
		io_uring_prep_send_zc(sqe, fd, out, size,
				      MSG_WAITALL | MSG_NOSIGNAL, 0);
	else if (mode == 'Z')
		io_uring_prep_send_zc_fixed(sqe, fd, out, size,
					    MSG_WAITALL | MSG_NOSIGNAL, 0, 0);
	else
		io_uring_prep_send(sqe, fd, out, size, MSG_WAITALL | MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, TAG_SEND);
	sends_in_flight++;
	if (mode == 'u') {		/* the reply's recv goes in with it */
		got = 0;
		arm_recv(fd);
	}
	io_uring_submit(&ring);
	return 0;
}

static int connect_to(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int fd, i;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		die("address", EINVAL);
	for (i = 0; i < 1000; i++) {	/* 10 s while the server starts */
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket", errno);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		usleep(10000);
	}
	die("connect", errno);
	return -1;
}

static int accept_one(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int l = socket(AF_INET, SOCK_STREAM, 0), fd, one = 1;

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one,
				sizeof(one)) < 0 ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0)
		die("listen", errno);
	fd = accept(l, NULL, NULL);
	if (fd < 0)
		die("accept", errno);
	close(l);
	return fd;
}

int main(int argc, char **argv)
{
	int server, fd, reps, warm, i, one = 1;
	double t0 = 0;

	if (argc != 6 || !strchr("sumrhzZ", argv[3][0]) || argv[3][1]) {
		fputs("usage: ringpingpong serve|ADDR PORT s|u|m|r|h|z|Z "
		      "SIZE REPS\n", stderr);
		return 2;
	}
	server = strcmp(argv[1], "serve") == 0;
	mode = argv[3][0];
	size = strtoul(argv[4], NULL, 0);
	reps = atoi(argv[5]);
	warm = reps / 10;
	in = aligned_alloc(4096, (size + 4096) & ~(size_t)4095);
	out = aligned_alloc(4096, (size + 4096) & ~(size_t)4095);
	if (size == 0 || reps <= 0 || !in || !out)
		die("arguments", EINVAL);
	memset(out, 'x', size);
	fd = server ? accept_one(atoi(argv[2])) :
		      connect_to(argv[1], atoi(argv[2]));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (mode != 's')
		setup_ring();
	if (mode == 'm' || (server && (mode == 'u' || mode == 'r'))) {
		arm_recv(fd);
		io_uring_submit(&ring);
	}
	for (i = 0; i < warm + reps; i++) {
		if (i == warm)
			t0 = now_us();
		if (server ? receive(fd) < 0 || send_all(fd) < 0 :
			     send_all(fd) < 0 || receive(fd) < 0)
			die("the peer went away", EPIPE);
	}
	if (!server)
		printf("%c %zu %.2f\n", mode, size, (now_us() - t0) / reps);
	return 0;
}

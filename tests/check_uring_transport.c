/*
 * check_uring_transport.c - the io_uring transport of direct routes
 * (lib/transport/uring.c) on TCP circuits over loopback, without a
 * virtual machine, so that it runs as any user: frames of every size
 * from 0 B to 16 MiB with checksums and in order, from uring to uring,
 * uring to plain sockets and back (the two share the wire); a lone
 * send that must not enter the ring; a send too big for the socket,
 * finished in the kernel; a multicast's
 * batch over three pipes, submitted in one io_uring_enter and
 * delivered whole and in order; a peer that sends garbage; a
 * sender killed in the middle of a frame; a receiver killed while our
 * send waits in the kernel; a pipe closed with requests in the kernel;
 * and the choice of backend: COPVM_URING=0 gives sockets, unset (the
 * default) the ring where it works, and io_uring_setup refused by a
 * seccomp filter (EPERM, ENOSYS) falls back with no word under
 * COPVM_URING=auto or unset, or with a warning when COPVM_URING=1 asked
 * for the ring.
 *
 * Every Check test runs in its own process (CK_FORK), which sets its
 * ring up at its first probe(1) of the transport's table.  Tests that
 * need the ring skip their body, saying so, where io_uring is not
 * allowed.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <liburing.h>

#include "bufcache.h"
#include "transport/registry.h"
#include "transport/stream.h"
#include "transport/uring.h"
#include "wire.h"

#define BIG	(16u << 20)
#define HUGE	(64u << 20)	/* more than two socket buffers */

/* What a receiving pipe got. */
struct got {
	int n;			/* frames */
	int bad;		/* out of order or corrupt */
	int32_t last_tag;
};

static unsigned char pattern(size_t i, int tag)
{
	return (unsigned char)(i * 13 + tag + (i >> 10));
}

/* The sink: checks each frame's tag (its order) and body. */
static int got_frame(void *arg, const struct pvmi_frame *f,
		     unsigned char *body)
{
	struct got *g = arg;
	size_t i;

	if (f->tag != g->n)
		g->bad++;
	for (i = 0; i < f->len; i++)
		if (body[i] != pattern(i, f->tag)) {
			g->bad++;
			break;
		}
	g->n++;
	g->last_tag = f->tag;
	pvmi_buf_free(body);
	return 0;
}

static const struct pvmi_pipe_sink sink = { .frame = got_frame };

/* A connected TCP pair over loopback: *a connected, *b accepted. */
static void tcp_pair(int *a, int *b)
{
	struct pollfd p;
	int l, port, i;

	ck_assert_int_eq(pvmi_tcp_listen(0, &l), 0);
	port = pvmi_tcp_port(l);
	ck_assert_int_gt(port, 0);
	ck_assert_int_eq(pvmi_tcp_connect("127.0.0.1", port, a), 0);
	p.fd = *a;
	p.events = POLLOUT;
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	*b = -1;
	for (i = 0; i < 500 && *b < 0; i++) {
		*b = pvmi_tcp_accept(l);
		if (*b < 0)
			usleep(10000);
	}
	ck_assert_int_ge(*b, 0);
	close(l);
}

static int have_ring(void)
{
	if (pvmi_transport_uring.probe(1))
		return 1;
	fprintf(stderr, "check_uring_transport: io_uring not allowed here, "
		"the test checks nothing\n");
	return 0;
}

/* Waits (up to 100 ms) for anything on the pipes' fds or the ring. */
static void wait_some(int fd1, int fd2)
{
	struct pollfd p[3] = {
		{ .fd = fd1, .events = POLLIN | POLLOUT },
		{ .fd = fd2, .events = POLLIN },
		{ .fd = pvmi_transport_uring.wait_fd(), .events = POLLIN },
	};

	poll(p, 3, 100);
	pvmi_transport_uring.woken();
}

/* A frame of `len' bytes tagged `tag' from pipe `tx' to pipe `rx',
 * reading `rx' while the send waits; returns the send's last result. */
static int pass(struct pvmi_pipe *tx, struct pvmi_pipe *rx, size_t len,
		int tag, unsigned char *body)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = len,
				.tag = tag, .kind = PVMI_KIND_USER };
	struct iovec iov[2];
	struct pvmi_tx t;
	size_t i;
	int r;

	for (i = 0; i < len; i++)
		body[i] = pattern(i, tag);
	pvmi_frame_encode(&f, t.hdr);
	iov[0].iov_base = t.hdr;
	iov[0].iov_len = sizeof(t.hdr);
	iov[1].iov_base = body;
	iov[1].iov_len = len;
	t.iov = iov;
	t.count = 2;
	t.next = 0;
	while ((r = tx->tp->send(tx, &t)) == 0) {
		if (rx->tp->progress(rx) < 0)
			return -1;
		wait_some(tx->fd, rx->fd);
	}
	return r;
}

/* Reads `rx' until it has `n' frames (at most 10 s). */
static void take(struct pvmi_pipe *rx, struct got *g, int n)
{
	int i;

	for (i = 0; i < 100 && g->n < n; i++) {
		ck_assert_int_ge(rx->tp->progress(rx), 0);
		if (g->n < n)
			wait_some(-1, rx->fd);
	}
}

static const size_t sizes[] = {
	0, 1, 7, 31, 32, 33, 1000, 4095, 4096, 4097, 65503, 65504, 65535,
	65536, 65537, 262145, 1 << 20, (1 << 20) + 3, 4 << 20, BIG
};
#define NSIZES	((int)(sizeof(sizes) / sizeof(sizes[0])))

/* Every size from `a' (transport) to `b', then the same back. */
static void every_size(const struct pvmi_transport *ta,
		       const struct pvmi_transport *tb)
{
	struct pvmi_pipe pa, pb;
	struct got ga = { 0 }, gb = { 0 };
	unsigned char *body = malloc(BIG);
	int a, b, i;

	ck_assert_ptr_nonnull(body);
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, ta, &sink, &ga);
	pvmi_pipe_init(&pb, b, tb, &sink, &gb);
	for (i = 0; i < NSIZES; i++)
		ck_assert_int_eq(pass(&pa, &pb, sizes[i], i, body), 1);
	take(&pb, &gb, NSIZES);
	for (i = 0; i < NSIZES; i++)
		ck_assert_int_eq(pass(&pb, &pa, sizes[i], i, body), 1);
	take(&pa, &ga, NSIZES);
	ck_assert_int_eq(gb.n, NSIZES);
	ck_assert_int_eq(ga.n, NSIZES);
	ck_assert_int_eq(gb.bad + ga.bad, 0);
	pa.tp->close(&pa);
	pb.tp->close(&pb);
	free(body);
}

START_TEST(test_every_size_uring_to_uring_in_order)
{
	if (have_ring())
		every_size(&pvmi_transport_uring, &pvmi_transport_uring);
}
END_TEST

START_TEST(test_every_size_uring_to_sockets_and_back)
{
	if (have_ring())
		every_size(&pvmi_transport_uring, &pvmi_transport_tcp);
}
END_TEST

/* Non-zero when this kernel has zero-copy sendmsg. */
static int kernel_has_zc(void)
{
	struct io_uring_probe *pr = io_uring_get_probe();
	int ok = pr && io_uring_opcode_supported(pr, IORING_OP_SENDMSG_ZC);

	if (pr)
		io_uring_free_probe(pr);
	return ok;
}

/* COPVM_URING_ZC=65536: frames of 64 KiB and more go zero-copy (where
 * the kernel has it), smaller ones are copied, and every size still
 * arrives intact and in order both ways. */
START_TEST(test_zero_copy_above_the_threshold_every_size_intact)
{
	struct pvmi_pipe pa, pb;
	struct got g = { 0 };
	unsigned char body[1000];
	unsigned long before;
	int a, b, i;

	setenv("COPVM_URING_ZC", "65536", 1);
	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	pvmi_pipe_init(&pb, b, &pvmi_transport_uring, &sink, &g);
	before = pvmi_uring_zc_sends();
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(pass(&pa, &pb, sizeof(body), i, body), 1);
	take(&pb, &g, 10);
	ck_assert_int_eq(g.n, 10);
	ck_assert_uint_eq(pvmi_uring_zc_sends(), before);
	pa.tp->close(&pa);
	pb.tp->close(&pb);
	every_size(&pvmi_transport_uring, &pvmi_transport_uring);
	/* 9 of the sizes make frames of 64 KiB or more, each way; an
	 * ordinary user's RLIMIT_MEMLOCK may refuse the largest, which then
	 * go copied (the next test) */
	if (kernel_has_zc())
		ck_assert_uint_ge(pvmi_uring_zc_sends(), 1);
	else
		fprintf(stderr, "check_uring_transport: no zero-copy send "
			"in this kernel, only the copies were checked\n");
}
END_TEST

/* Drops CAP_IPC_LOCK from this process's effective set (root has it,
 * and it exempts io_uring's zero-copy sends from RLIMIT_MEMLOCK). */
static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	syscall(SYS_capset, &h, d);
}

/* A zero-copy send the kernel will not pin (no CAP_IPC_LOCK, and an
 * RLIMIT_MEMLOCK of 512 KiB: room for the ring, not for a 1 MiB frame's
 * pages): one word on stderr, no error to the caller, and every frame
 * goes copied, intact and in order. */
START_TEST(test_zero_copy_refused_goes_copied)
{
	struct rlimit none = { 512 << 10, 512 << 10 };
	struct pvmi_pipe pa, pb;
	struct got g = { 0 };
	unsigned char *body = malloc(1 << 20);
	char said[512];
	int a, b, i, saved, pfd[2];
	ssize_t n;

	ck_assert_ptr_nonnull(body);
	if (!kernel_has_zc()) {
		fprintf(stderr, "check_uring_transport: no zero-copy send "
			"in this kernel, the test checks nothing\n");
		return;
	}
	setenv("COPVM_URING_ZC", "4096", 1);
	drop_ipc_lock();
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &none), 0);
	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	pvmi_pipe_init(&pb, b, &pvmi_transport_uring, &sink, &g);
	ck_assert_int_eq(pipe(pfd), 0);
	fflush(stderr);
	saved = dup(2);
	dup2(pfd[1], 2);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pass(&pa, &pb, 1 << 20, i, body), 1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(pfd[1]);
	n = read(pfd[0], said, sizeof(said) - 1);
	said[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	take(&pb, &g, 3);
	ck_assert_int_eq(g.n, 3);
	ck_assert_int_eq(g.bad, 0);
	ck_assert_uint_eq(pvmi_uring_zc_sends(), 1);	/* then copies */
	ck_assert_ptr_nonnull(strstr(said, "zero-copy send refused"));
	pa.tp->close(&pa);
	pb.tp->close(&pb);
	free(body);
}
END_TEST

/* 3000 small frames sent before any is read: in order, none lost. */
START_TEST(test_many_small_frames_in_order)
{
	struct pvmi_pipe pa, pb;
	struct got g = { 0 };
	unsigned char body[64];
	int a, b, i;

	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	pvmi_pipe_init(&pb, b, &pvmi_transport_uring, &sink, &g);
	for (i = 0; i < 3000; i++)
		ck_assert_int_eq(pass(&pa, &pb, (size_t)(i % 64), i, body), 1);
	take(&pb, &g, 3000);
	ck_assert_int_eq(g.n, 3000);
	ck_assert_int_eq(g.bad, 0);
	pa.tp->close(&pa);
	pb.tp->close(&pb);
}
END_TEST

/* A frame `len' bytes long, tagged `tag', from `body' (filled in). */
static void make_tx(struct pvmi_tx *t, struct iovec *iov,
		    unsigned char *body, size_t len, int tag)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = len,
				.tag = tag, .kind = PVMI_KIND_USER };
	size_t i;

	for (i = 0; i < len; i++)
		body[i] = pattern(i, tag);
	pvmi_frame_encode(&f, t->hdr);
	iov[0].iov_base = t->hdr;
	iov[0].iov_len = sizeof(t->hdr);
	iov[1].iov_base = body;
	iov[1].iov_len = len;
	t->iov = iov;
	t->count = 2;
	t->next = 0;
}

/* A send alone, on a socket with room, is one sendmsg: done at once,
 * and the ring is not entered. */
START_TEST(test_a_lone_send_does_not_enter_the_ring)
{
	struct pvmi_pipe pa, pb;
	struct got g = { 0 };
	struct pvmi_tx t;
	struct iovec iov[2];
	unsigned char body[64];
	unsigned long before;
	int a, b, i;

	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	pvmi_pipe_init(&pb, b, &pvmi_transport_uring, &sink, &g);
	before = pvmi_uring_submits();
	for (i = 0; i < 10; i++) {
		make_tx(&t, iov, body, sizeof(body), i);
		ck_assert_int_eq(pa.tp->send(&pa, &t), 1);
	}
	ck_assert_uint_eq(pvmi_uring_submits(), before);
	take(&pb, &g, 10);
	ck_assert_int_eq(g.n, 10);
	ck_assert_int_eq(g.bad, 0);
	pa.tp->close(&pa);
	pb.tp->close(&pb);
}
END_TEST

/* A send larger than the socket takes goes on in the kernel: send()
 * returns 0 with the request submitted, and, while another process reads
 * the peer's end, later send()s (woken by the socket or the ring's fd)
 * finish it; every byte arrives. */
START_TEST(test_a_send_too_big_for_the_socket_finishes_in_the_kernel)
{
	struct pvmi_pipe pa;
	struct pvmi_tx t;
	struct iovec iov[2];
	unsigned char *body = malloc(HUGE);
	size_t total = PVMI_FRAME_HDR_LEN + (size_t)HUGE;
	unsigned long before;
	int a, b, r, i, status;
	pid_t pid;

	ck_assert_ptr_nonnull(body);
	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	make_tx(&t, iov, body, HUGE, 5);
	before = pvmi_uring_submits();
	ck_assert_int_eq(pa.tp->send(&pa, &t), 0);
	ck_assert_uint_gt(pvmi_uring_submits(), before);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {		/* the peer: reads everything, blocking */
		static unsigned char buf[1 << 20];
		size_t got = 0;
		ssize_t n;

		fcntl(b, F_SETFL, fcntl(b, F_GETFL) & ~O_NONBLOCK);
		while (got < total && (n = read(b, buf, sizeof(buf))) > 0)
			got += (size_t)n;
		_exit(got == total ? 0 : 1);
	}
	close(b);
	r = 0;
	for (i = 0; i < 1000 && r == 0; i++) {
		struct pollfd p[2] = {
			{ .fd = a, .events = POLLOUT },
			{ .fd = pvmi_transport_uring.wait_fd(), .events = POLLIN },
		};

		poll(p, 2, 10);
		pvmi_transport_uring.woken();
		r = pa.tp->send(&pa, &t);
	}
	ck_assert_int_eq(r, 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pa.tp->close(&pa);
	free(body);
}
END_TEST

#define NFAN	3	/* pipes of a multicast */

/* One frame of `len' bytes tagged `tag' queued on each of the NFAN
 * pipes of `tx' (queue(), no system call) and submitted once; the sends
 * are then finished as conn.c does, reading the receivers meanwhile.
 * Returns how many io_uring_enter calls submit() made. */
static unsigned long fan_out(struct pvmi_pipe *tx, struct pvmi_pipe *rx,
			     size_t len, int tag, unsigned char *body)
{
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = len,
				.tag = tag, .kind = PVMI_KIND_USER };
	struct iovec iov[NFAN][2];
	struct pvmi_tx t[NFAN];
	unsigned long before;
	size_t i;
	int k, r;

	for (i = 0; i < len; i++)
		body[i] = pattern(i, tag);
	before = pvmi_uring_submits();
	for (k = 0; k < NFAN; k++) {
		pvmi_frame_encode(&f, t[k].hdr);
		iov[k][0].iov_base = t[k].hdr;
		iov[k][0].iov_len = sizeof(t[k].hdr);
		iov[k][1].iov_base = body;
		iov[k][1].iov_len = len;
		t[k].iov = iov[k];
		t[k].count = 2;
		t[k].next = 0;
		/* queued, not yet in the kernel */
		ck_assert_int_eq(tx[k].tp->queue(&tx[k], &t[k]), 0);
	}
	ck_assert_uint_eq(pvmi_uring_submits(), before);
	ck_assert_int_eq(tx[0].tp->submit(), 0);
	before = pvmi_uring_submits() - before;
	for (k = 0; k < NFAN; k++) {
		while ((r = tx[k].tp->send(&tx[k], &t[k])) == 0) {
			for (i = 0; i < NFAN; i++)
				ck_assert_int_ge(rx[i].tp->progress(&rx[i]), 0);
			wait_some(tx[k].fd, rx[k].fd);
		}
		ck_assert_int_eq(r, 1);
	}
	return before;
}

/* A multicast's batch (queue() on three pipes, one submit()): a single
 * io_uring_enter carries all three frames, and every receiver gets
 * every frame whole and in order, at every size. */
START_TEST(test_batch_of_three_pipes_one_submission_in_order)
{
	static const size_t fan_sizes[] = { 0, 8, 1000, 65536, 1 << 20 };
	struct pvmi_pipe tx[NFAN], rx[NFAN];
	struct got g[NFAN];
	unsigned char *body = malloc(1 << 20);
	unsigned long at;
	int a, b, k, i, n = 0;

	ck_assert_ptr_nonnull(body);
	if (!have_ring()) {
		free(body);
		return;
	}
	memset(g, 0, sizeof(g));
	for (k = 0; k < NFAN; k++) {
		tcp_pair(&a, &b);
		pvmi_pipe_init(&tx[k], a, &pvmi_transport_uring, &sink, NULL);
		/* plain sockets: only the sender's submissions are counted */
		pvmi_pipe_init(&rx[k], b, &pvmi_transport_tcp, &sink, &g[k]);
	}
	for (i = 0; i < 5 * (int)(sizeof(fan_sizes) / sizeof(*fan_sizes));
	     i++) {
		size_t len = fan_sizes[i % 5];

		at = pvmi_uring_submits();
		ck_assert_uint_eq(fan_out(tx, rx, len, n++, body), 1);
		/* small frames all complete within that one call */
		if (len <= 1000)
			ck_assert_uint_eq(pvmi_uring_submits(), at + 1);
	}
	for (k = 0; k < NFAN; k++) {
		take(&rx[k], &g[k], n);
		ck_assert_int_eq(g[k].n, n);
		ck_assert_int_eq(g[k].bad, 0);
		tx[k].tp->close(&tx[k]);
		rx[k].tp->close(&rx[k]);
	}
	free(body);
}
END_TEST

/* The sockets do not batch: no queue(), no submit() (callers send()). */
START_TEST(test_sockets_have_no_batch)
{
	ck_assert_ptr_null(pvmi_transport_tcp.queue);
	ck_assert_ptr_null(pvmi_transport_tcp.submit);
	ck_assert_ptr_nonnull(pvmi_transport_uring.queue);
	ck_assert_ptr_nonnull(pvmi_transport_uring.submit);
}
END_TEST

/* Bytes that are not a frame: -EPROTO, nothing delivered, no crash. */
START_TEST(test_garbage_is_a_protocol_error)
{
	struct pvmi_pipe pb;
	struct got g = { 0 };
	char junk[200];
	int a, b, i, r = 0;

	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pb, b, &pvmi_transport_uring, &sink, &g);
	memset(junk, 'x', sizeof(junk));
	ck_assert_int_eq(write(a, junk, sizeof(junk)), (int)sizeof(junk));
	for (i = 0; i < 100 && r == 0; i++) {
		r = pb.tp->progress(&pb);
		if (r == 0)
			wait_some(-1, b);
	}
	ck_assert_int_eq(r, -EPROTO);
	ck_assert_int_eq(g.n, 0);
	close(a);
	pb.tp->close(&pb);
}
END_TEST

/* How many fds this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A child writes a frame header announcing 16 MiB, 1 MiB of it, and is
 * killed: the receiver ends with an error, delivers nothing, and
 * closing it leaves no fd behind. */
START_TEST(test_sender_killed_mid_frame)
{
	struct pvmi_pipe pb;
	struct got g = { 0 };
	int a, b, i, r = 0, fds;
	pid_t pid;

	if (!have_ring())
		return;
	fds = open_fds();
	tcp_pair(&a, &b);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = BIG,
					.tag = 0, .kind = PVMI_KIND_USER };
		unsigned char hdr[PVMI_FRAME_HDR_LEN];
		static unsigned char part[1 << 20];
		size_t off = 0;
		ssize_t n;

		fcntl(a, F_SETFL, 0);
		pvmi_frame_encode(&f, hdr);
		if (write(a, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr))
			_exit(1);
		while (off < sizeof(part) &&
		       (n = write(a, part + off, sizeof(part) - off)) > 0)
			off += n;
		raise(SIGKILL);
	}
	close(a);
	pvmi_pipe_init(&pb, b, &pvmi_transport_uring, &sink, &g);
	for (i = 0; i < 200 && r >= 0; i++) {
		r = pb.tp->progress(&pb);
		if (r >= 0)
			wait_some(-1, b);
	}
	ck_assert(r == -EPIPE || r == -ECONNRESET);
	ck_assert_int_eq(g.n, 0);
	pb.tp->close(&pb);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

/* A child that never reads; our 16 MiB send waits in the kernel; the
 * child is killed: the send ends with an error, not a hang or a crash. */
START_TEST(test_receiver_killed_with_send_in_flight)
{
	struct pvmi_pipe pa;
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = HUGE,
				.tag = 0, .kind = PVMI_KIND_USER };
	unsigned char *body = calloc(1, HUGE);
	struct iovec iov[2];
	struct pvmi_tx t;
	int a, b, i, r;
	pid_t pid;

	ck_assert_ptr_nonnull(body);
	if (!have_ring())
		return;
	tcp_pair(&a, &b);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	close(b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	pvmi_frame_encode(&f, t.hdr);
	iov[0].iov_base = t.hdr;
	iov[0].iov_len = sizeof(t.hdr);
	iov[1].iov_base = body;
	iov[1].iov_len = HUGE;
	t.iov = iov;
	t.count = 2;
	t.next = 0;
	ck_assert_int_eq(pa.tp->send(&pa, &t), 0);	/* in the kernel */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 200 && (r = pa.tp->send(&pa, &t)) == 0; i++)
		wait_some(a, -1);
	ck_assert_int_lt(r, 0);
	pa.tp->close(&pa);
	free(body);
}
END_TEST

/* Closing pipes whose recv and send are both in the kernel (the peer
 * alive and not reading): close() returns, and the buffers may go. */
START_TEST(test_close_with_requests_in_flight)
{
	struct pvmi_pipe pa;
	struct pvmi_frame f = { .magic = PVMI_FRAME_MAGIC, .len = HUGE,
				.tag = 0, .kind = PVMI_KIND_USER };
	unsigned char *body = calloc(1, HUGE);
	struct iovec iov[2];
	struct pvmi_tx t;
	int a, b, fds;

	ck_assert_ptr_nonnull(body);
	if (!have_ring())
		return;
	fds = open_fds();
	tcp_pair(&a, &b);
	pvmi_pipe_init(&pa, a, &pvmi_transport_uring, &sink, NULL);
	ck_assert_int_eq(pa.tp->progress(&pa), 0);	/* recv in */
	pvmi_frame_encode(&f, t.hdr);
	iov[0].iov_base = t.hdr;
	iov[0].iov_len = sizeof(t.hdr);
	iov[1].iov_base = body;
	iov[1].iov_len = HUGE;
	t.iov = iov;
	t.count = 2;
	t.next = 0;
	ck_assert_int_eq(pa.tp->send(&pa, &t), 0);	/* send in */
	pa.tp->close(&pa);
	memset(body, 0xee, HUGE);
	free(body);
	close(b);
	ck_assert_int_eq(open_fds(), fds);
	pvmi_transport_uring.release();
	ck_assert_int_eq(open_fds(), fds - 1);	/* the ring went */
}
END_TEST

/* COPVM_URING=0: no ring, and not a word. */
START_TEST(test_env_zero_forces_sockets)
{
	setenv("COPVM_URING", "0", 1);
	ck_assert_int_eq(pvmi_transport_uring.probe(1), 0);
	ck_assert_int_eq(pvmi_transport_uring.wait_fd(), -1);
}
END_TEST

/* COPVM_URING unset: the ring, the default, wherever a plain ring can
 * be made here (else sockets). */
START_TEST(test_unset_means_the_ring_where_it_works)
{
	struct io_uring probe;
	int works = io_uring_queue_init(8, &probe, 0) == 0;

	if (works)
		io_uring_queue_exit(&probe);
	unsetenv("COPVM_URING");
	ck_assert_int_eq(pvmi_transport_uring.probe(1), works);
	ck_assert_int_eq(pvmi_transport_uring.wait_fd() >= 0, works);
}
END_TEST

/* Makes io_uring_setup fail with `err' in this process (seccomp);
 * 0, or -1 when the filter cannot be installed here. */
static int refuse_io_uring(int err)
{
#if defined(__x86_64__) && defined(__NR_io_uring_setup)
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 7, .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	return 0;
#else
	return -1;
#endif
}

/* What the transport's probe(1) writes on stderr, into `buf'; returns
 * its answer. */
static int usable_quietly(char *buf, size_t size)
{
	int pfd[2], saved, r;
	ssize_t n;

	ck_assert_int_eq(pipe(pfd), 0);
	fflush(stderr);
	saved = dup(2);
	dup2(pfd[1], 2);
	r = pvmi_transport_uring.probe(1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(pfd[1]);
	n = read(pfd[0], buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	return r;
}

/* io_uring_setup refused with `err', COPVM_URING set to `env' (NULL:
 * unset, the default): sockets, and a warning only for "1". */
static void refused(int err, const char *env)
{
	char said[512];

	if (env)
		setenv("COPVM_URING", env, 1);
	else
		unsetenv("COPVM_URING");
	if (refuse_io_uring(err) < 0) {
		fprintf(stderr, "check_uring_transport: no seccomp filter "
			"here, the test checks nothing\n");
		return;
	}
	ck_assert_int_eq(usable_quietly(said, sizeof(said)), 0);
	ck_assert_int_eq(pvmi_transport_uring.wait_fd(), -1);
	if (env && strcmp(env, "1") == 0)
		ck_assert_ptr_nonnull(strstr(said, "plain sockets"));
	else
		ck_assert_str_eq(said, "");
}

START_TEST(test_setup_refused_eperm_falls_back_silently)
{
	refused(EPERM, "auto");
}
END_TEST

START_TEST(test_setup_refused_enosys_falls_back_silently)
{
	refused(ENOSYS, NULL);
}
END_TEST

START_TEST(test_setup_refused_with_env_one_warns)
{
	refused(EPERM, "1");
}
END_TEST

/* A forked child leaves its parent's ring alone and makes its own. */
START_TEST(test_fork_child_gets_its_own_ring)
{
	int parent_fd, st;
	pid_t pid;

	if (!have_ring())
		return;
	parent_fd = pvmi_transport_uring.wait_fd();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int ok = pvmi_transport_uring.wait_fd() == -1;	/* foreign: not ours */

		ok = ok && pvmi_transport_uring.probe(1) && pvmi_transport_uring.wait_fd() >= 0;
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(pvmi_transport_uring.wait_fd(), parent_fd);
}
END_TEST

static Suite *uring_suite(void)
{
	Suite *s = suite_create("uring_transport");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_size_uring_to_uring_in_order);
	tcase_add_test(tc, test_every_size_uring_to_sockets_and_back);
	tcase_add_test(tc, test_many_small_frames_in_order);
	tcase_add_test(tc, test_zero_copy_above_the_threshold_every_size_intact);
	tcase_add_test(tc, test_zero_copy_refused_goes_copied);
	tcase_add_test(tc, test_a_lone_send_does_not_enter_the_ring);
	tcase_add_test(tc, test_a_send_too_big_for_the_socket_finishes_in_the_kernel);
	tcase_add_test(tc, test_batch_of_three_pipes_one_submission_in_order);
	tcase_add_test(tc, test_sockets_have_no_batch);
	tcase_add_test(tc, test_garbage_is_a_protocol_error);
	tcase_add_test(tc, test_sender_killed_mid_frame);
	tcase_add_test(tc, test_receiver_killed_with_send_in_flight);
	tcase_add_test(tc, test_close_with_requests_in_flight);
	tcase_add_test(tc, test_env_zero_forces_sockets);
	tcase_add_test(tc, test_unset_means_the_ring_where_it_works);
	tcase_add_test(tc, test_setup_refused_eperm_falls_back_silently);
	tcase_add_test(tc, test_setup_refused_enosys_falls_back_silently);
	tcase_add_test(tc, test_setup_refused_with_env_one_warns);
	tcase_add_test(tc, test_fork_child_gets_its_own_ring);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(uring_suite());
	int failed;

	/* the ring where it works (the default is sockets); each test runs
	 * in its own process, which may set its own */
	setenv("COPVM_URING", "auto", 1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/*
 * check_stream.c - unit tests of lib/transport/stream.c, the framing of
 * the stream transports, over a nonblocking socket pair: frames of every
 * size arrive whole and in order, however the bytes are cut; a send that
 * fills the socket resumes where it stopped; a handshake gate takes the
 * bytes before the first frame; bad data, a refused frame and the end of
 * the stream come back as the errors the contract (transport.h) names;
 * no body buffer is left behind.  A look takes everything staged until
 * the owner is sated, and then a batch (PVMI_LOOK_MSGS or
 * PVMI_LOOK_BYTES); the frames it leaves staged are always in sight,
 * either in the socket or reported by pvmi_stream_ready().
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bufcache.h"
#include "transport/registry.h"
#include "transport/stream.h"
#include "wire.h"

#define MAXGOT	16

/* What the sink saw. */
struct seen {
	int n;
	struct pvmi_frame f[MAXGOT];
	uint32_t sum[MAXGOT];
	int refuse;			/* frame(): return -1 */
	size_t gate_take;		/* gate(): consume this much, then open */
	size_t gate_seen;
	unsigned char gate_bytes[64];
};

static uint32_t checksum(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 31 + (i >> 9));
}

static int sink_frame(void *arg, const struct pvmi_frame *f,
		      unsigned char *body)
{
	struct seen *s = arg;

	if (s->refuse) {
		pvmi_buf_free(body);
		return -1;
	}
	ck_assert_int_lt(s->n, MAXGOT);
	s->f[s->n] = *f;
	s->sum[s->n] = checksum(body, f->len);
	s->n++;
	pvmi_buf_free(body);
	return 0;
}

static struct pvmi_pipe *gated_pipe;

static long sink_gate(void *arg, const unsigned char *data, size_t len)
{
	struct seen *s = arg;
	size_t take = s->gate_take - s->gate_seen;

	if (take > len)
		take = len;
	memcpy(s->gate_bytes + s->gate_seen, data, take);
	s->gate_seen += take;
	if (s->gate_seen == s->gate_take)
		gated_pipe->gated = 0;
	return (long)take;
}

static const struct pvmi_pipe_sink sink = {
	.frame = sink_frame,
	.gate = sink_gate,
};

/* The stream transport under test: stream.c over plain sockets. */
static const struct pvmi_transport stream_tp = {
	.name = "test-stream",
	.send = pvmi_stream_send,
	.progress = pvmi_stream_progress,
	.close = pvmi_stream_close,
	.writev = pvmi_sock_writev,
	.read = pvmi_sock_read,
};

static int fds[2];
static struct pvmi_pipe tx_pipe, rx_pipe;
static struct seen seen, ignored;

static void setup(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    fds), 0);
	memset(&seen, 0, sizeof(seen));
	pvmi_pipe_init(&tx_pipe, fds[0], &stream_tp, &sink, &ignored);
	pvmi_pipe_init(&rx_pipe, fds[1], &stream_tp, &sink, &seen);
}

static void teardown(void)
{
	pvmi_stream_close(&tx_pipe);
	pvmi_stream_close(&rx_pipe);
	/* every body went back to its owner, half-read ones included */
	ck_assert_int_eq(pvmi_buf_live(), 0);
}

static struct pvmi_frame frame_of(size_t len, int tag)
{
	struct pvmi_frame f = { 0 };

	f.magic = PVMI_FRAME_MAGIC;
	f.len = (uint32_t)len;
	f.src = 0x40001;
	f.dst = 0x40002;
	f.tag = tag;
	f.ctx = 7;
	f.kind = PVMI_KIND_USER;
	return f;
}

/* Sends one frame whole over tx_pipe, draining rx_pipe whenever the
 * socket is full (one process plays both ends). */
static void send_frame(size_t len, int tag, unsigned seed)
{
	struct pvmi_frame f = frame_of(len, tag);
	unsigned char *body = malloc(len ? len : 1);
	struct iovec iov[3];
	struct pvmi_tx tx;
	size_t half = len / 2;
	int r;

	fill(body, len, seed);
	pvmi_frame_encode(&f, tx.hdr);
	iov[0].iov_base = tx.hdr;
	iov[0].iov_len = sizeof(tx.hdr);
	iov[1].iov_base = body;		/* the body in two pieces */
	iov[1].iov_len = half;
	iov[2].iov_base = body + half;
	iov[2].iov_len = len - half;
	tx.iov = iov;
	tx.count = 3;
	tx.next = 0;
	while ((r = pvmi_stream_send(&tx_pipe, &tx)) == 0)
		ck_assert_int_ge(pvmi_stream_progress(&rx_pipe), 0);
	ck_assert_int_eq(r, 1);
	free(body);
}

START_TEST(frames_arrive_whole_and_in_order)
{
	static const size_t sizes[] = { 0, 1, 100, 65536 - 32, 65536,
					3 << 20, 7, (9 << 20) + 3 };
	unsigned char *ref;
	size_t i, n = sizeof(sizes) / sizeof(sizes[0]);

	for (i = 0; i < n; i++)
		send_frame(sizes[i], (int)i, (unsigned)i + 1);
	while (seen.n < (int)n)
		ck_assert_int_ge(pvmi_stream_progress(&rx_pipe), 0);
	ck_assert_int_eq(seen.n, (int)n);
	for (i = 0; i < n; i++) {
		ref = malloc(sizes[i] ? sizes[i] : 1);
		fill(ref, sizes[i], (unsigned)i + 1);
		ck_assert_int_eq(seen.f[i].tag, (int)i);
		ck_assert_uint_eq(seen.f[i].len, sizes[i]);
		ck_assert_int_eq(seen.f[i].src, 0x40001);
		ck_assert_int_eq(seen.f[i].ctx, 7);
		ck_assert_uint_eq(seen.sum[i], checksum(ref, sizes[i]));
		free(ref);
	}
	/* nothing more waits: progress says so without an error */
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 0);
}
END_TEST

START_TEST(declared_length_is_not_taken_up_front)
{
	struct pvmi_frame f = frame_of(1u << 30, 4);
	unsigned char buf[PVMI_FRAME_HDR_LEN + 100];
	size_t cap;

	pvmi_frame_encode(&f, buf);
	fill(buf + PVMI_FRAME_HDR_LEN, 100, 5);
	ck_assert_int_eq(write(fds[0], buf, sizeof(buf)), sizeof(buf));
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_ptr_nonnull(rx_pipe.body);
	ck_assert_uint_eq(rx_pipe.got, 100);
	cap = pvmi_buf_cap(rx_pipe.body);
	ck_assert_uint_le(cap, PVMI_BODY_EAGER);	/* not 1 GiB */
	ck_assert_int_eq(seen.n, 0);
}
END_TEST

START_TEST(bytes_one_at_a_time)
{
	struct pvmi_frame f = frame_of(40, 9);
	unsigned char buf[PVMI_FRAME_HDR_LEN + 40];
	size_t i;

	pvmi_frame_encode(&f, buf);
	fill(buf + PVMI_FRAME_HDR_LEN, 40, 3);
	for (i = 0; i < sizeof(buf); i++) {
		ck_assert_int_eq(write(fds[0], buf + i, 1), 1);
		ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
		ck_assert_int_eq(seen.n, i + 1 == sizeof(buf) ? 1 : 0);
	}
	ck_assert_int_eq(seen.f[0].tag, 9);
	ck_assert_uint_eq(seen.sum[0], checksum(buf + PVMI_FRAME_HDR_LEN, 40));
}
END_TEST

START_TEST(gate_takes_the_bytes_before_the_first_frame)
{
	struct pvmi_frame f = frame_of(5, 4);
	unsigned char buf[6 + PVMI_FRAME_HDR_LEN + 5];

	memcpy(buf, "HELLO!", 6);
	pvmi_frame_encode(&f, buf + 6);
	memcpy(buf + 6 + PVMI_FRAME_HDR_LEN, "abcde", 5);
	seen.gate_take = 6;
	gated_pipe = &rx_pipe;
	rx_pipe.gated = 1;
	/* the handshake's bytes and the first frame in one write */
	ck_assert_int_eq(write(fds[0], buf, sizeof(buf)), sizeof(buf));
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_int_eq(memcmp(seen.gate_bytes, "HELLO!", 6), 0);
	ck_assert_int_eq(rx_pipe.gated, 0);
	ck_assert_int_eq(seen.n, 1);
	ck_assert_int_eq(seen.f[0].tag, 4);
	ck_assert_uint_eq(seen.sum[0], checksum((const unsigned char *)
						"abcde", 5));
}
END_TEST

START_TEST(bad_magic_is_eproto)
{
	struct pvmi_frame f = frame_of(4, 1);
	unsigned char buf[PVMI_FRAME_HDR_LEN + 4] = { 0 };

	pvmi_frame_encode(&f, buf);
	buf[0] ^= 0xff;
	ck_assert_int_eq(write(fds[0], buf, sizeof(buf)), sizeof(buf));
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), -EPROTO);
	ck_assert_int_eq(seen.n, 0);
}
END_TEST

START_TEST(refused_frame_is_eproto)
{
	seen.refuse = 1;
	send_frame(10, 1, 1);
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), -EPROTO);
}
END_TEST

START_TEST(end_of_stream_is_epipe)
{
	send_frame(10, 1, 1);
	close(fds[0]);
	tx_pipe.fd = -1;
	/* what came before the end is handed on first */
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_int_eq(seen.n, 1);
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), -EPIPE);
	ck_assert_int_eq(seen.n, 1);
}
END_TEST

START_TEST(end_inside_a_frame_is_epipe)
{
	struct pvmi_frame f = frame_of(100000, 1);
	unsigned char hdr[PVMI_FRAME_HDR_LEN];

	pvmi_frame_encode(&f, hdr);
	ck_assert_int_eq(write(fds[0], hdr, sizeof(hdr)), sizeof(hdr));
	ck_assert_int_eq(write(fds[0], "xyz", 3), 3);
	close(fds[0]);
	tx_pipe.fd = -1;
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), -EPIPE);
	ck_assert_int_eq(seen.n, 0);	/* no half frame is handed on */
}
END_TEST

START_TEST(send_to_a_closed_peer_fails)
{
	struct pvmi_frame f = frame_of(0, 1);
	struct iovec iov;
	struct pvmi_tx tx;

	pvmi_stream_close(&rx_pipe);
	pvmi_frame_encode(&f, tx.hdr);
	iov.iov_base = tx.hdr;
	iov.iov_len = sizeof(tx.hdr);
	tx.iov = &iov;
	tx.count = 1;
	tx.next = 0;
	ck_assert_int_eq(pvmi_stream_send(&tx_pipe, &tx), -EPIPE);
}
END_TEST

/* What a flood's sink saw: frames counted and checked in order, the
 * owner sated once `sated_after' of them came (0: never). */
struct flood {
	int n, bad, sated_after;
	size_t bytes;
};

/* Counts flood frame `f' and frees its body; its tag must be its place
 * in the flood, else the flood is marked bad. */
static int flood_frame(void *arg, const struct pvmi_frame *f,
		       unsigned char *body)
{
	struct flood *fl = arg;

	if (f->tag != fl->n)
		fl->bad = 1;
	fl->n++;
	fl->bytes += f->len;
	pvmi_buf_free(body);
	return 0;
}

/* The owner holds what its receive waits for once `sated_after'
 * frames came (never when 0). */
static int flood_sated(void *arg)
{
	struct flood *fl = arg;

	return fl->sated_after > 0 && fl->n >= fl->sated_after;
}

static const struct pvmi_pipe_sink flood_sink = {
	.frame = flood_frame,
	.sated = flood_sated,
};

/* Writes `n' frames of `len' body bytes, tags `first' on, at once into
 * the socket (it holds them: the caller keeps the total small). */
static void write_flood(int first, int n, size_t len)
{
	size_t one = PVMI_FRAME_HDR_LEN + len, total = one * n, off;
	unsigned char *buf = malloc(total ? total : 1);
	int i, sz = 1 << 20;
	struct pvmi_frame f;
	ssize_t w;

	ck_assert_ptr_nonnull(buf);
	setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	for (i = 0; i < n; i++) {
		f = frame_of(len, first + i);
		pvmi_frame_encode(&f, buf + one * i);
		fill(buf + one * i + PVMI_FRAME_HDR_LEN, len, (unsigned)i);
	}
	for (off = 0; off < total; off += w) {
		w = write(fds[0], buf + off, total - off);
		ck_assert_int_gt(w, 0);
	}
	free(buf);
}

/* Whether the receiving socket has bytes that poll() sees: what a
 * pump would wake for. */
static int socket_readable(void)
{
	struct pollfd pf = { .fd = fds[1], .events = POLLIN };

	return poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN);
}

/* Reads flood frames into `fl' until `n' came, one look at a time as
 * the pump would: every look of a sated owner stops at its bound, and
 * whatever is left stays in sight (the socket readable, or
 * pvmi_stream_ready()), so that a pump never sleeps in poll() with
 * frames staged.  `len': the frames' body size. */
static void read_flood(struct flood *fl, int n, size_t len)
{
	int looks = 0, before, sated;
	size_t bytes;

	rx_pipe.sink = &flood_sink;
	rx_pipe.arg = fl;
	while (fl->n < n) {
		ck_assert_msg(socket_readable() || pvmi_stream_ready(&rx_pipe),
			      "frames %d to %d of %zu B out of sight (sated "
			      "from %d)", fl->n, n, len, fl->sated_after);
		before = fl->n;
		bytes = fl->bytes;
		sated = flood_sated(fl);
		ck_assert_int_ge(pvmi_stream_progress(&rx_pipe), 0);
		if (sated && fl->n > before) {
			/* the bound: no frame past the batch */
			ck_assert_int_le(fl->n - before, PVMI_LOOK_MSGS);
			ck_assert_uint_lt(fl->bytes - bytes - len,
					  PVMI_LOOK_BYTES);
		}
		ck_assert_int_lt(++looks, 4 * n + 8);
	}
	ck_assert_int_eq(fl->n, n);
	ck_assert_int_eq(fl->bad, 0);
	ck_assert_int_eq(pvmi_stream_ready(&rx_pipe), 0);
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 0);
}

/* Until the owner is sated a look takes everything: one look sees the
 * last of a thousand frames (a pvm_probe behind a thousand others). */
START_TEST(an_unsated_look_takes_everything)
{
	struct flood fl = { 0 };

	write_flood(0, 1000, 8);
	rx_pipe.sink = &flood_sink;
	rx_pipe.arg = &fl;
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_int_eq(fl.n, 1000);
	ck_assert_int_eq(fl.bad, 0);
	ck_assert_int_eq(pvmi_stream_ready(&rx_pipe), 0);
}
END_TEST

/* Once sated, a look hands on a batch and the rest stays staged, which
 * pvmi_stream_ready() reports while the socket is empty; the next looks
 * take the rest, a batch each, before what comes later. */
START_TEST(a_sated_look_takes_a_batch_and_reports_the_rest)
{
	struct flood fl = { .sated_after = 1 };

	write_flood(0, 1000, 8);
	rx_pipe.sink = &flood_sink;
	rx_pipe.arg = &fl;
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_int_eq(fl.n, PVMI_LOOK_MSGS);
	ck_assert_int_eq(socket_readable(), 0);
	ck_assert_int_eq(pvmi_stream_ready(&rx_pipe), 1);
	ck_assert_int_eq(pvmi_stream_progress(&rx_pipe), 1);
	ck_assert_int_eq(fl.n, 2 * PVMI_LOOK_MSGS);
	write_flood(1000, 10, 8);
	read_flood(&fl, 1010, 8);
}
END_TEST

/* Bounded looks over floods of many sizes, the owner sated from several
 * places, among them the last frame of a full staging buffer (64 frames
 * of 1 KiB with their headers, or 16 of 4 KiB), after which the next
 * read's first frame is already past the bound: nothing is lost,
 * reordered or left out of sight. */
START_TEST(bounded_looks_leave_nothing_out_of_sight)
{
	static const size_t lens[] = { 0, 8, 100, 988, 1000, 1028, 4060,
				       20000, 65500, 65536, 70000 };
	static const int from[] = { 1, 2, 15, 16, 17, 63, 64, 65 };
	size_t i, j, len;
	struct flood fl;
	int n;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (j = 0; j < sizeof(from) / sizeof(from[0]); j++) {
			len = lens[i];
			/* at most 160 KiB in the socket, at least 2 frames */
			n = (int)((160 << 10) / (PVMI_FRAME_HDR_LEN + len));
			if (n > 300)
				n = 300;
			memset(&fl, 0, sizeof(fl));
			fl.sated_after = from[j];
			write_flood(0, n, len);
			read_flood(&fl, n, len);
		}
	}
}
END_TEST

static Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("framing");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, frames_arrive_whole_and_in_order);
	tcase_add_test(tc, bytes_one_at_a_time);
	tcase_add_test(tc, declared_length_is_not_taken_up_front);
	tcase_add_test(tc, gate_takes_the_bytes_before_the_first_frame);
	tcase_add_test(tc, bad_magic_is_eproto);
	tcase_add_test(tc, refused_frame_is_eproto);
	tcase_add_test(tc, end_of_stream_is_epipe);
	tcase_add_test(tc, end_inside_a_frame_is_epipe);
	tcase_add_test(tc, send_to_a_closed_peer_fails);
	tcase_add_test(tc, an_unsated_look_takes_everything);
	tcase_add_test(tc, a_sated_look_takes_a_batch_and_reports_the_rest);
	tcase_add_test(tc, bounded_looks_leave_nothing_out_of_sight);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stream_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

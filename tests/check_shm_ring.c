/*
 * check_shm_ring.c - unit tests of lib/transport/shm_ring.c, the
 * shared-memory ring of the same-host fast path: order and contents from
 * 0 B to 16 MiB, wrap-around, back-pressure, the armed wake-up handshake
 * and no lost wake-ups when every wait blocks, and no allocation and no
 * growth over a million messages.  The ends of a peer, single copy and
 * bad input are in check_shm_ring_ends.c.
 *
 * Most tests fork a producer that makes its ring and passes the memfd
 * over a socketpair with SCM_RIGHTS, as a task will (shm_fixture.c); the
 * test process is the consumer.  A malloc interposer below counts
 * allocations.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm_layout.h"
#include "transport/shm_ring.h"
#include "shm_fixture.h"

/* ---- counting allocations (an interposer over glibc's malloc; under
 * AddressSanitizer, which owns malloc, its allocation hook) ---- */

static volatile int counting;
static volatile long allocations;

#ifdef __SANITIZE_ADDRESS__
/* from the sanitizer runtime (sanitizer/allocator_interface.h) */
int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *, size_t),
	void (*free_hook)(const volatile void *));

static void count_allocation(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	if (counting)
		allocations++;
}

static void ignore_free(const volatile void *p)
{
	(void)p;
}

/* (both hooks must be given) */
__attribute__((constructor)) static void install_count_hook(void)
{
	__sanitizer_install_malloc_and_free_hooks(count_allocation,
						  ignore_free);
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	if (counting)
		allocations++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (counting)
		allocations++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		allocations++;
	return __libc_realloc(p, n);
}
#endif

/* ---- order and contents ---- */

static size_t sizes[128];
static int nsizes;

/* 0 B .. 16 MiB: each power of two and its neighbours. */
static void make_sizes(void)
{
	size_t s;

	nsizes = 0;
	sizes[nsizes++] = 0;
	for (s = 1; s <= 16 * MIB; s <<= 1) {
		if (s > 2)
			sizes[nsizes++] = s - 1;
		sizes[nsizes++] = s;
		if (s < 16 * MIB)
			sizes[nsizes++] = s + 1;
	}
}

static int send_every_size(struct shm_ring *p, void *arg)
{
	unsigned char *buf = malloc(16 * MIB);
	int i, rc;

	(void)arg;
	if (!buf)
		return 10;
	for (i = 0; i < nsizes; i++) {
		fill(buf, (uint32_t)i, sizes[i]);
		rc = shm_ring_send(p, (uint32_t)i, buf, sizes[i],
				   SHM_WAIT_FOREVER);
		if (rc < 0)
			return 11;
	}
	free(buf);
	return 0;
}

START_TEST(test_sizes_0_to_16mib_arrive_in_order_intact)
{
	unsigned char *buf = malloc(16 * MIB);
	struct shm_ring c;
	struct pair pr;
	uint32_t tag;
	ssize_t n;
	int i;

	make_sizes();
	ck_assert_ptr_nonnull(buf);
	fork_producer(&pr, &c, 64 * 1024, SHM_RING_DEFAULT_SPIN_NS,
		      send_every_size, NULL);
	for (i = 0; i < nsizes; i++) {
		memset(buf, 0, sizes[i] + 1 < 16 * MIB ? sizes[i] + 1 : 16 * MIB);
		n = shm_ring_recv(&c, &tag, buf, 16 * MIB, SHM_WAIT_FOREVER);
		ck_assert_int_eq(n, (ssize_t)sizes[i]);
		ck_assert_uint_eq(tag, (uint32_t)i);
		ck_assert_msg(intact(buf, (uint32_t)i, sizes[i]),
			      "message %d (%zu B) corrupt", i, sizes[i]);
	}
	/* the producer closed after the last one */
	ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 16 * MIB,
				       SHM_WAIT_FOREVER), -EPIPE);
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&c);
	free(buf);
}
END_TEST

#define MIXED_COUNT	3000

/* The size of mixed message `n': mostly small, some of many chunks. */
static size_t mixed_size(uint32_t n)
{
	uint32_t h = n * 2654435761u;

	switch (h >> 29) {
	case 0:
		return h % 200000;
	case 1:
		return h % 9000;
	default:
		return h % 300;
	}
}

static int send_mixed(struct shm_ring *p, void *arg)
{
	unsigned char *buf = malloc(200000);
	uint32_t n;

	(void)arg;
	for (n = 0; n < MIXED_COUNT; n++) {
		fill(buf, n, mixed_size(n));
		if (shm_ring_send(p, n ^ 0xa5a5a5a5u, buf, mixed_size(n),
				  SHM_WAIT_FOREVER) < 0)
			return 12;
	}
	free(buf);
	return 0;
}

START_TEST(test_mixed_sizes_arrive_in_order_intact)
{
	unsigned char *buf = malloc(200000);
	struct shm_msg_info info;
	struct shm_ring c;
	struct pair pr;
	uint32_t n, tag;

	fork_producer(&pr, &c, 16 * 1024, 2000, send_mixed, NULL);
	for (n = 0; n < MIXED_COUNT; n++) {
		/* peek first on every third: it must not take anything */
		if (n % 3 == 0) {
			ck_assert_int_eq(shm_ring_peek(&c, &info,
						       SHM_WAIT_FOREVER), 0);
			ck_assert_uint_eq(info.len, mixed_size(n));
			ck_assert_uint_eq(info.tag, n ^ 0xa5a5a5a5u);
		}
		ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 200000,
					       SHM_WAIT_FOREVER),
				 (ssize_t)mixed_size(n));
		ck_assert_uint_eq(tag, n ^ 0xa5a5a5a5u);
		ck_assert_msg(intact(buf, n, mixed_size(n)), "message %u", n);
	}
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&c);
	free(buf);
}
END_TEST

START_TEST(test_zero_length_and_small_buffer)
{
	struct shm_ring p, c;
	struct shm_msg_info info;
	unsigned char out[100], in[100];
	uint32_t tag = 0;

	local_pair(&p, &c, 0);
	fill(out, 7, sizeof(out));
	ck_assert_int_eq(shm_ring_send(&p, 1, NULL, 0, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_send(&p, 2, out, sizeof(out), SHM_NO_WAIT),
			 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, NULL, 0, SHM_NO_WAIT), 0);
	ck_assert_uint_eq(tag, 1);
	/* too small a buffer leaves the message where it is */
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, 99, SHM_NO_WAIT),
			 -EMSGSIZE);
	ck_assert_int_eq(shm_ring_peek(&c, &info, SHM_NO_WAIT), 0);
	ck_assert_uint_eq(info.len, 100);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, 100, SHM_NO_WAIT), 100);
	ck_assert_uint_eq(tag, 2);
	ck_assert(intact(in, 7, 100));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, 100, SHM_NO_WAIT),
			 -EAGAIN);
	ck_assert_int_eq(shm_ring_peek(&c, &info, SHM_NO_WAIT), -EAGAIN);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

/* ---- wrap-around and back-pressure ---- */

START_TEST(test_records_wrap_around_the_ring_end)
{
	struct shm_ring p, c;
	unsigned char out[1100], in[1100];
	uint32_t n, tag, laps_bytes = 0;
	size_t len;
	ssize_t got;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	/* odd sizes, so that headers and payloads land everywhere and
	 * payloads straddle the end; a chunked one now and then */
	for (n = 0; n < 20000; n++) {
		len = (n * 37u) % (n % 50 == 0 ? 1100 : 300);
		fill(out, n, len);
		ck_assert_int_eq(shm_ring_send(&p, n, out, len,
					       SHM_NO_WAIT), 0);
		got = shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT);
		ck_assert_int_eq(got, (ssize_t)len);
		ck_assert_uint_eq(tag, n);
		ck_assert_msg(intact(in, n, len), "message %u", n);
		laps_bytes += (uint32_t)len;
	}
	ck_assert_uint_gt(laps_bytes, 100 * SHM_RING_MIN_BYTES);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_positions_wrap_past_2_pow_32)
{
	struct shm_ring p, c;
	unsigned char out[200], in[200];
	uint32_t n, tag, start = 0xffffffffu - 3000;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	/* as if 4 GiB had gone through already */
	start &= ~(uint32_t)(SHM_RING_REC_ALIGN - 1);
	p.pos = start;
	p.other = start;
	c.pos = start;
	p.hdr->head = start;
	p.hdr->tail = start;
	for (n = 0; n < 500; n++) {
		fill(out, n, n % 200);
		ck_assert_int_eq(shm_ring_send(&p, n, out, n % 200,
					       SHM_NO_WAIT), 0);
		if (n % 4 == 3) {
			while (shm_ring_readable(&c)) {
				ck_assert_int_ge(shm_ring_recv(&c, &tag, in,
							       200,
							       SHM_NO_WAIT),
						 0);
				ck_assert(intact(in, tag, tag % 200));
			}
		}
	}
	ck_assert_uint_lt(c.pos, start);	/* it did wrap */
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_stale_payload_is_never_a_header)
{
	struct shm_ring p, c;
	uint32_t words[750], tag, i;
	unsigned char b[500];

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	/* message 1, records 1-4 (chunks of 992, each after a 32-byte
	 * header and part field) from byte 0 to 3136: a payload of words
	 * equal to 7, the record number the consumer will wait for when it
	 * comes back to byte 128 */
	for (i = 0; i < 750; i++)
		words[i] = 7;
	ck_assert_int_eq(shm_ring_send(&p, 1, words, sizeof(words),
				       SHM_NO_WAIT), 0);
	ck_assert_uint_eq(p.pos, 3136);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, words, sizeof(words),
				       SHM_NO_WAIT), sizeof(words));
	/* records 5 and 6 (576 and 512 bytes) run past the end, up to
	 * byte 128 */
	fill(b, 5, 500);
	ck_assert_int_eq(shm_ring_send(&p, 5, b, 500, SHM_NO_WAIT), 0);
	fill(b, 6, 480);
	ck_assert_int_eq(shm_ring_send(&p, 6, b, 480, SHM_NO_WAIT), 0);
	ck_assert_uint_eq(p.pos, SHM_RING_MIN_BYTES + 128);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b), SHM_NO_WAIT),
			 500);
	ck_assert(intact(b, 5, 500));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b), SHM_NO_WAIT),
			 480);
	ck_assert(intact(b, 6, 480));
	ck_assert_uint_eq(c.seq, 7);
	/* nothing was sent since: the old 7 at byte 128 is not a record */
	ck_assert(!shm_ring_readable(&c));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b), SHM_NO_WAIT),
			 -EAGAIN);
	fill(b, 7, 10);
	ck_assert_int_eq(shm_ring_send(&p, 7, b, 10, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b), SHM_NO_WAIT),
			 10);
	ck_assert_uint_eq(tag, 7);
	ck_assert(intact(b, 7, 10));
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_full_ring_pushes_back)
{
	struct shm_ring p, c;
	unsigned char msg[100], in[100];
	uint32_t tag;
	int sent = 0, i;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	fill(msg, 0, sizeof(msg));
	while (shm_ring_send(&p, (uint32_t)sent, msg, sizeof(msg),
			     SHM_NO_WAIT) == 0)
		sent++;
	/* 128-byte records (a 16-byte header and 100 bytes, rounded up to
	 * two lines), 16 bytes kept for the cleared slot: 31 fit in 4 KiB */
	ck_assert_int_eq(sent, (SHM_RING_MIN_BYTES - 16) / 128);
	ck_assert_int_eq(shm_ring_send(&p, 0, msg, sizeof(msg), SHM_NO_WAIT),
			 -EAGAIN);
	ck_assert_int_eq(shm_ring_send(&p, 0, msg, sizeof(msg), 1000000),
			 -ETIMEDOUT);
	/* a message needing more room than is free waits too, whole */
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 100);
	ck_assert_uint_eq(tag, 0);
	ck_assert_int_eq(shm_ring_send(&p, 99, msg, sizeof(msg), SHM_NO_WAIT),
			 0);
	for (i = 1; i < sent; i++) {
		ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in),
					       SHM_NO_WAIT), 100);
		ck_assert_uint_eq(tag, (uint32_t)i);
	}
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 100);
	ck_assert_uint_eq(tag, 99);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

struct stream {
	uint32_t count;
	size_t len;
};

static int send_stream(struct shm_ring *p, void *arg)
{
	const struct stream *s = arg;
	unsigned char buf[4096];
	uint32_t n;

	for (n = 0; n < s->count; n++) {
		memcpy(buf, &n, sizeof(n));
		memset(buf + sizeof(n), (int)(n & 0xff), s->len - sizeof(n));
		if (shm_ring_send(p, n, buf, s->len, SHM_WAIT_FOREVER) < 0)
			return 13;
	}
	/* the blocking path of a full ring was taken */
	return p->blocks > 0 ? 0 : 14;
}

START_TEST(test_blocked_producer_resumes_when_consumer_reads)
{
	static struct stream s = { 20000, 1000 };
	unsigned char buf[4096];
	struct shm_ring c;
	struct pair pr;
	uint32_t n, tag, v;
	ssize_t got;

	fork_producer(&pr, &c, SHM_RING_MIN_BYTES, 0, send_stream, &s);
	/* let it fill the ring and block before we read anything */
	while (__atomic_load_n(&c.hdr->prod_armed, __ATOMIC_ACQUIRE) == 0)
		usleep(1000);
	for (n = 0; n < s.count; n++) {
		got = shm_ring_recv(&c, &tag, buf, sizeof(buf),
				    SHM_WAIT_FOREVER);
		ck_assert_int_eq(got, (ssize_t)s.len);
		memcpy(&v, buf, sizeof(v));
		ck_assert_uint_eq(v, n);
		ck_assert_uint_eq(tag, n);
		ck_assert_uint_eq(buf[s.len - 1], n & 0xff);
	}
	ck_assert_uint_gt(c.wakes_sent, 0);
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&c);
}
END_TEST

/* ---- waking ---- */

START_TEST(test_spinning_consumer_costs_no_wakeup)
{
	struct shm_ring p, c;
	unsigned char b[8] = "abcdefg";
	int efd = eventfd(0, EFD_NONBLOCK), i;
	uint64_t v;

	local_pair(&p, &c, 0);
	ck_assert_int_eq(shm_ring_connect(&p, -1, efd), 0);
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(shm_ring_send(&p, 0, b, 8, SHM_NO_WAIT), 0);
		ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	}
	ck_assert_uint_eq(p.wakes_sent, 0);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(efd);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_armed_consumer_gets_one_wakeup)
{
	struct shm_ring p, c;
	unsigned char b[8] = "abcdefg";
	int efd = eventfd(0, EFD_NONBLOCK);
	uint64_t v = 0;

	local_pair(&p, &c, 0);
	ck_assert_int_eq(shm_ring_connect(&p, -1, efd), 0);
	/* as a consumer about to block leaves it */
	c.hdr->cons_armed = 1;
	ck_assert_int_eq(shm_ring_send(&p, 0, b, 8, SHM_NO_WAIT), 0);
	ck_assert_uint_eq(c.hdr->cons_armed, 0);
	ck_assert_int_eq(shm_ring_send(&p, 0, b, 8, SHM_NO_WAIT), 0);
	ck_assert_uint_eq(p.wakes_sent, 1);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	ck_assert_uint_eq(v, 1);
	/* a consumer whose wait timed out leaves the flag down */
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	ck_assert_int_eq(shm_ring_connect(&c, efd, -1), 0);
	shm_ring_set_spin(&c, 0);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, 2000000), -ETIMEDOUT);
	ck_assert_uint_eq(c.hdr->cons_armed, 0);
	ck_assert_uint_ge(c.blocks, 1);
	close(efd);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

/* A producer waiting for room (its flag up) is woken by the consumer
 * within FREE_CHECK_EVERY (16) whole records taken, or as soon as the
 * consumer finds the ring empty and looks or waits: not at every record,
 * whose fence would cost each small message on its way. */
START_TEST(test_waiting_producer_is_woken_within_16_records_or_when_caught_up)
{
	struct shm_ring p, c;
	unsigned char b[8] = "abcdefg", *big;
	int efd = eventfd(0, EFD_NONBLOCK), i;
	uint64_t v = 0;

	local_pair(&p, &c, 0);
	ck_assert_int_eq(shm_ring_connect(&c, -1, efd), 0);
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(shm_ring_send(&p, 0, b, 8, SHM_NO_WAIT), 0);
	/* as a producer about to block for room leaves it */
	c.hdr->prod_armed = 1;
	for (i = 0; i < 15; i++)
		ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	ck_assert_uint_eq(c.wakes_sent, 0);
	ck_assert_uint_eq(c.hdr->prod_armed, 1);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	ck_assert_uint_eq(c.wakes_sent, 1);
	ck_assert_uint_eq(c.hdr->prod_armed, 0);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	/* the rest taken without a look, then the empty ring looked at */
	c.hdr->prod_armed = 1;
	for (i = 16; i < 40; i++)
		ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	ck_assert_uint_eq(c.wakes_sent, 2);	/* the 32nd record */
	c.hdr->prod_armed = 1;
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), -EAGAIN);
	ck_assert_uint_eq(c.wakes_sent, 2);	/* a poll alone is no wait */
	ck_assert(!shm_ring_readable(&c));
	ck_assert_uint_eq(c.wakes_sent, 3);
	ck_assert_uint_eq(c.hdr->prod_armed, 0);
	/* arming before a block looks too */
	ck_assert_int_eq(shm_ring_send(&p, 0, b, 8, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, 8, SHM_NO_WAIT), 8);
	c.hdr->prod_armed = 1;
	ck_assert_int_eq(shm_ring_arm(&c), 0);
	ck_assert_uint_eq(c.wakes_sent, 4);
	shm_ring_disarm(&c);
	/* a chunk is looked after at once: the producer of a long message
	 * waits for its room */
	big = calloc(2, (size_t)c.chunk + 1);
	ck_assert_ptr_nonnull(big);
	c.hdr->prod_armed = 1;
	ck_assert_int_eq(shm_ring_send(&p, 0, big, c.chunk + 1, SHM_NO_WAIT),
			 0);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, big + c.chunk + 1,
				       (size_t)c.chunk + 1, SHM_NO_WAIT),
			 (ssize_t)c.chunk + 1);
	ck_assert_uint_ge(c.wakes_sent, 5);
	free(big);
	close(efd);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_arm_for_own_poll_sees_data_or_gets_woken)
{
	struct shm_ring p1, c1, p2, c2;
	unsigned char b[8] = "abcdefg";
	int efd = eventfd(0, EFD_NONBLOCK);
	uint64_t v;

	/* two producers ring one consumer's doorbell */
	local_pair(&p1, &c1, 0);
	local_pair(&p2, &c2, 0);
	ck_assert_int_eq(shm_ring_connect(&p1, -1, efd), 0);
	ck_assert_int_eq(shm_ring_connect(&p2, -1, efd), 0);
	ck_assert_int_eq(shm_ring_arm(&p1), -EINVAL);
	ck_assert_int_eq(shm_ring_arm(&c1), 0);
	ck_assert_int_eq(shm_ring_arm(&c2), 0);
	ck_assert_int_eq(shm_ring_send(&p2, 0, b, 8, SHM_NO_WAIT), 0);
	ck_assert_uint_eq(p2.wakes_sent, 1);
	ck_assert_uint_eq(p1.wakes_sent, 0);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	shm_ring_disarm(&c1);
	shm_ring_disarm(&c2);
	/* data already there: arming says so and leaves the flag down */
	ck_assert_int_eq(shm_ring_arm(&c2), 1);
	ck_assert_uint_eq(c2.hdr->cons_armed, 0);
	ck_assert_int_eq(shm_ring_recv(&c2, NULL, b, 8, SHM_NO_WAIT), 8);
	ck_assert_int_eq(shm_ring_arm(&c2), 0);
	/* a close is also something to look at */
	shm_ring_close(&p2);
	ck_assert_int_eq(shm_ring_arm(&c2), 1);
	ck_assert_int_eq(shm_ring_recv(&c2, NULL, b, 8, SHM_NO_WAIT), -EPIPE);
	close(efd);
	shm_ring_close(&p1);
	shm_ring_close(&c1);
	shm_ring_close(&c2);
}
END_TEST

#define STRESS_COUNT	200000

struct stress {
	struct shm_ring back;	/* the reply ring, consumed by the child */
	struct pair *pr;
};

/* A stream of STRESS_COUNT numbered small messages, then STRESS_COUNT / 4
 * round trips answered on a second ring back; every wait blocks. */
static int stress_producer(struct shm_ring *p, void *arg)
{
	struct stress *st = arg;
	uint32_t n, v;

	if (shm_ring_connect(&st->back, st->pr->prod_wake,
			     st->pr->cons_wake) < 0)
		return 14;
	shm_ring_set_spin(&st->back, 0);
	for (n = 0; n < STRESS_COUNT; n++)
		if (shm_ring_send(p, n, &n, sizeof(n), SHM_WAIT_FOREVER) < 0)
			return 15;
	for (n = 0; n < STRESS_COUNT / 4; n++) {
		if (shm_ring_recv(&st->back, NULL, &v, sizeof(v),
				  SHM_WAIT_FOREVER) != sizeof(v) || v != n)
			return 16;
		if (shm_ring_send(p, n, &v, sizeof(v), SHM_WAIT_FOREVER) < 0)
			return 17;
	}
	return 0;
}

START_TEST(test_no_lost_wakeups_when_every_wait_blocks)
{
	struct shm_ring c, back_p;
	struct stress st;
	struct pair pr;
	uint32_t n, v, tag;
	uint64_t blocks_stream;

	/* the reply ring is made and attached here; the child keeps the
	 * consumer's side (fork copies it), we keep the producer's */
	ck_assert_int_eq(shm_ring_create(&back_p, SHM_RING_MIN_BYTES), 0);
	ck_assert_int_eq(shm_ring_attach(&st.back, shm_ring_fd(&back_p)), 0);
	st.pr = &pr;
	fork_producer(&pr, &c, SHM_RING_MIN_BYTES, 0, stress_producer, &st);
	/* the consumer of the reply ring is the child, not us */
	__atomic_store_n(&back_p.hdr->consumer_pid, pr.pid, __ATOMIC_RELEASE);
	shm_ring_forget(&st.back);
	ck_assert_int_eq(shm_ring_connect(&back_p, pr.cons_wake,
					  pr.prod_wake), 0);
	ck_assert_int_eq(back_p.peer_pid, pr.pid);
	shm_ring_set_spin(&back_p, 0);
	for (n = 0; n < STRESS_COUNT; n++) {
		ck_assert_int_eq(shm_ring_recv(&c, &tag, &v, sizeof(v),
					       SHM_WAIT_FOREVER), sizeof(v));
		ck_assert_uint_eq(v, n);
	}
	blocks_stream = c.blocks;
	for (n = 0; n < STRESS_COUNT / 4; n++) {
		ck_assert_int_eq(shm_ring_send(&back_p, n, &n, sizeof(n),
					       SHM_WAIT_FOREVER), 0);
		ck_assert_int_eq(shm_ring_recv(&c, &tag, &v, sizeof(v),
					       SHM_WAIT_FOREVER), sizeof(v));
		ck_assert_uint_eq(v, n);
	}
	/* the ping-pong had to wait for replies: it blocked */
	ck_assert_uint_gt(c.blocks, blocks_stream);
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&back_p);
	shm_ring_close(&c);
}
END_TEST

#define SENDERS		3
#define PER_SENDER	40000

/* The length of message `n' of a sender: 4 .. 1000 bytes. */
static size_t sender_len(uint32_t n)
{
	return 4 + (n * 7919u) % 997;
}

/* A sender of the many-to-one test, in its own process. */
static void run_sender(int id, int sock, int door, int own_wake)
{
	unsigned char buf[1000];
	struct shm_ring p;
	uint32_t n;
	char ack;

	if (shm_ring_create(&p, SHM_RING_MIN_BYTES) < 0)
		_exit(70);
	send_fd(sock, shm_ring_fd(&p));
	if (read(sock, &ack, 1) != 1)
		_exit(71);
	shm_ring_drop_fd(&p);
	shm_ring_connect(&p, own_wake, door);
	shm_ring_set_spin(&p, 0);
	for (n = 0; n < PER_SENDER; n++) {
		fill(buf, n + (uint32_t)id * PER_SENDER, sender_len(n));
		if (shm_ring_send(&p, n, buf, sender_len(n),
				  SHM_WAIT_FOREVER) < 0)
			_exit(72);
	}
	shm_ring_close(&p);
	_exit(0);
}

START_TEST(test_many_senders_one_doorbell_keep_order_per_sender)
{
	struct shm_ring c[SENDERS];
	int door = eventfd(0, EFD_NONBLOCK), wake[SENDERS], sv[2], i, fd;
	int closed[SENDERS] = { 0 }, done = 0, progress, st;
	uint32_t next[SENDERS] = { 0 }, tag;
	unsigned char buf[1000];
	pid_t pid[SENDERS];
	struct pollfd pf;
	uint64_t v;
	ssize_t n;

	ck_assert_int_ge(door, 0);
	for (i = 0; i < SENDERS; i++) {
		wake[i] = eventfd(0, EFD_NONBLOCK);
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0)
			run_sender(i, sv[1], door, wake[i]);
		fd = recv_fd(sv[0]);
		ck_assert_int_eq(shm_ring_attach(&c[i], fd), 0);
		close(fd);
		ck_assert_int_eq(shm_ring_connect(&c[i], door, wake[i]), 0);
		ck_assert_int_eq(write(sv[0], "A", 1), 1);
		close(sv[0]);
		close(sv[1]);
	}
	/* the loop a task runs: drain every ring, then arm them all and
	 * sleep on the one doorbell */
	while (done < SENDERS) {
		progress = 0;
		for (i = 0; i < SENDERS; i++) {
			if (closed[i])
				continue;
			while ((n = shm_ring_recv(&c[i], &tag, buf, sizeof(buf),
						  SHM_NO_WAIT)) >= 0) {
				ck_assert_uint_eq(tag, next[i]);
				ck_assert_int_eq(n, (ssize_t)sender_len(tag));
				ck_assert_msg(intact(buf, tag + (uint32_t)i *
						     PER_SENDER, (size_t)n),
					      "sender %d message %u", i, tag);
				next[i]++;
				progress = 1;
			}
			if (n == -EPIPE) {
				ck_assert_uint_eq(next[i], PER_SENDER);
				closed[i] = 1;
				done++;
			} else {
				ck_assert_int_eq(n, -EAGAIN);
			}
		}
		if (progress || done == SENDERS)
			continue;
		for (i = 0; i < SENDERS; i++)
			if (!closed[i] && shm_ring_arm(&c[i]) == 1)
				progress = 1;
		if (!progress) {
			pf.fd = door;
			pf.events = POLLIN;
			ck_assert_int_eq(poll(&pf, 1, -1), 1);
			(void)!read(door, &v, sizeof(v));
		}
		for (i = 0; i < SENDERS; i++)
			shm_ring_disarm(&c[i]);
	}
	for (i = 0; i < SENDERS; i++) {
		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		shm_ring_close(&c[i]);
		close(wake[i]);
	}
	close(door);
}
END_TEST

/* ---- steady state ---- */

#define FLAT_COUNT	1000000

static int send_million_counting(struct shm_ring *p, void *arg)
{
	uint64_t v;
	uint32_t n;

	(void)arg;
	counting = 1;
	for (n = 0; n < FLAT_COUNT; n++) {
		v = n;
		if (shm_ring_send(p, n, &v, sizeof(v), SHM_WAIT_FOREVER) < 0)
			return 40;
	}
	counting = 0;
	return allocations == 0 ? 0 : 41;
}

START_TEST(test_million_messages_no_allocation_no_growth)
{
	void *(*volatile alloc)(size_t) = malloc;
	struct shm_ring c;
	struct pair pr;
	struct stat before, after;
	uint64_t v;
	uint32_t n, tag;
	void *probe;
	int fd;

	/* the counter counts */
	counting = 1;
	probe = alloc(16);
	counting = 0;
	ck_assert_int_eq(allocations, 1);
	free(probe);
	allocations = 0;

	fork_producer(&pr, &c, 64 * 1024, SHM_RING_DEFAULT_SPIN_NS,
		      send_million_counting, NULL);
	fd = shm_ring_fd(&c);
	ck_assert_int_eq(fstat(fd, &before), 0);
	counting = 1;
	for (n = 0; n < FLAT_COUNT; n++) {
		if (shm_ring_recv(&c, &tag, &v, sizeof(v), SHM_WAIT_FOREVER) !=
		    sizeof(v) || v != n)
			break;
	}
	counting = 0;
	ck_assert_uint_eq(n, FLAT_COUNT);
	ck_assert_int_eq(allocations, 0);
	ck_assert_int_eq(fstat(fd, &after), 0);
	ck_assert_int_eq(after.st_size, before.st_size);
	/* sealed: no more pages than the segment has */
	ck_assert_int_le(after.st_blocks * 512, after.st_size);
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&c);
}
END_TEST

static Suite *shm_ring_suite(void)
{
	Suite *s = suite_create("shm_ring");
	TCase *tc;

	tc = tcase_create("data");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sizes_0_to_16mib_arrive_in_order_intact);
	tcase_add_test(tc, test_mixed_sizes_arrive_in_order_intact);
	tcase_add_test(tc, test_zero_length_and_small_buffer);
	tcase_add_test(tc, test_records_wrap_around_the_ring_end);
	tcase_add_test(tc, test_positions_wrap_past_2_pow_32);
	tcase_add_test(tc, test_stale_payload_is_never_a_header);
	tcase_add_test(tc, test_full_ring_pushes_back);
	tcase_add_test(tc, test_blocked_producer_resumes_when_consumer_reads);
	suite_add_tcase(s, tc);

	tc = tcase_create("wake");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_spinning_consumer_costs_no_wakeup);
	tcase_add_test(tc, test_armed_consumer_gets_one_wakeup);
	tcase_add_test(tc,
	    test_waiting_producer_is_woken_within_16_records_or_when_caught_up);
	tcase_add_test(tc, test_arm_for_own_poll_sees_data_or_gets_woken);
	tcase_add_test(tc, test_no_lost_wakeups_when_every_wait_blocks);
	tcase_add_test(tc, test_many_senders_one_doorbell_keep_order_per_sender);
	suite_add_tcase(s, tc);

	tc = tcase_create("steady_state");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_million_messages_no_allocation_no_growth);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(shm_ring_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

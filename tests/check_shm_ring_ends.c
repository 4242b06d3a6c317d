/*
 * check_shm_ring_ends.c - unit tests of the shared-memory ring
 * (lib/transport/shm_ring.c, shm_seg.c) at its edges: a producer killed
 * in the middle of a message or of a single copy, an exited producer,
 * a closed or dead consumer; single copy and its fallback; bad segments
 * and forged records; gathered and scattered records (shm_ring_sendv,
 * shm_ring_recvv), and the bad calls and records they refuse; the front
 * record checked once, then taken (shm_ring_front, shm_ring_take_front).
 * Fixtures in shm_fixture.c.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
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

/* Forges the producer `p''s first record as a whole message of `len'
 * bytes and publishes it (seq 1); returns it for more forging. */
static struct shm_rec *forge_front(struct shm_ring *p, uint32_t len)
{
	struct shm_rec *rec = (struct shm_rec *)p->data;

	rec->len = len;
	rec->flags = SHM_REC_FIRST | SHM_REC_LAST;
	__atomic_store_n(&rec->seq, 1, __ATOMIC_RELEASE);
	return rec;
}

/* ---- a peer's end ---- */

static int send_two_then_a_huge_one(struct shm_ring *p, void *arg)
{
	unsigned char *buf = malloc(4 * MIB);

	(void)arg;
	fill(buf, 1, 5000);
	if (shm_ring_send(p, 1, buf, 5000, SHM_WAIT_FOREVER) < 0)
		return 20;
	fill(buf, 2, 100);
	if (shm_ring_send(p, 2, buf, 100, SHM_WAIT_FOREVER) < 0)
		return 21;
	/* more than the ring holds: it blocks part way, and is killed */
	fill(buf, 3, 4 * MIB);
	shm_ring_send(p, 3, buf, 4 * MIB, SHM_WAIT_FOREVER);
	return 22;
}

START_TEST(test_killed_producer_mid_message_is_connreset_untorn)
{
	unsigned char *buf = malloc(4 * MIB);
	struct shm_ring c;
	struct pair pr;
	uint32_t tag;
	int i;

	fork_producer(&pr, &c, 64 * 1024, 0, send_two_then_a_huge_one, NULL);
	/* the whole messages published before the death are delivered */
	ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 4 * MIB,
				       SHM_WAIT_FOREVER), 5000);
	ck_assert(intact(buf, 1, 5000));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 4 * MIB,
				       SHM_WAIT_FOREVER), 100);
	ck_assert(intact(buf, 2, 100));
	/* wait until the producer sits on a full ring mid-message */
	for (i = 0; i < 10000; i++) {
		if (__atomic_load_n(&c.hdr->prod_armed, __ATOMIC_ACQUIRE))
			break;
		usleep(1000);
	}
	ck_assert_int_eq(kill(pr.pid, SIGKILL), 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 4 * MIB,
				       SHM_WAIT_FOREVER), -ECONNRESET);
	/* and stays so, whether or not the dead one is reaped */
	ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 4 * MIB, 1000000),
			 -ECONNRESET);
	ck_assert_int_eq(reap(&pr), 128 + SIGKILL);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, buf, 4 * MIB, 1000000),
			 -ECONNRESET);
	ck_assert_int_eq(shm_ring_peer_alive(&c), 0);
	shm_ring_close(&c);
	free(buf);
}
END_TEST

static int send_one_and_exit(struct shm_ring *p, void *arg)
{
	unsigned char b[300];

	(void)arg;
	fill(b, 5, sizeof(b));
	if (shm_ring_send(p, 5, b, sizeof(b), SHM_WAIT_FOREVER) < 0)
		_exit(30);
	_exit(0);	/* no close: as a crash after the send */
}

START_TEST(test_exited_producer_is_drained_then_connreset)
{
	unsigned char b[300];
	struct shm_ring c;
	struct pair pr;
	uint32_t tag;

	fork_producer(&pr, &c, 0, 0, send_one_and_exit, NULL);
	ck_assert_int_eq(reap(&pr), 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b),
				       SHM_WAIT_FOREVER), 300);
	ck_assert(intact(b, 5, 300));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b),
				       SHM_WAIT_FOREVER), -ECONNRESET);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_closed_consumer_is_epipe_for_producer)
{
	struct shm_ring p, c;
	unsigned char b[64] = { 0 };

	local_pair(&p, &c, 0);
	ck_assert_int_eq(shm_ring_send(&p, 0, b, 64, SHM_NO_WAIT), 0);
	shm_ring_close(&c);
	ck_assert_int_eq(shm_ring_send(&p, 0, b, 64, SHM_NO_WAIT), -EPIPE);
	ck_assert_int_eq(shm_ring_send(&p, 0, b, 64, SHM_WAIT_FOREVER),
			 -EPIPE);
	shm_ring_close(&p);
}
END_TEST

START_TEST(test_dead_consumer_is_epipe_for_blocked_producer)
{
	struct shm_ring p, c;
	unsigned char b[1000] = { 0 };
	int st, rc, efd = eventfd(0, EFD_NONBLOCK);
	pid_t pid;

	ck_assert_int_eq(shm_ring_create(&p, SHM_RING_MIN_BYTES), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		/* attaches, reads nothing, dies without closing */
		_exit(shm_ring_attach(&c, shm_ring_fd(&p)) == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(shm_ring_connect(&p, efd, -1), 0);
	ck_assert_int_eq(p.peer_pid, pid);
	shm_ring_set_spin(&p, 0);
	/* the ring fills; the next send would wait for a dead reader */
	do
		rc = shm_ring_send(&p, 0, b, sizeof(b), SHM_WAIT_FOREVER);
	while (rc == 0);
	ck_assert_int_eq(rc, -EPIPE);
	ck_assert_int_eq(shm_ring_peer_alive(&p), 0);
	close(efd);
	shm_ring_close(&p);
}
END_TEST

/* ---- single copy ---- */

static const size_t copy_sizes[] = { 1000, 65535, 65536, 1048579, 0,
				     16 * MIB, 70000 };
#define NCOPY	(sizeof(copy_sizes) / sizeof(copy_sizes[0]))

/* Sends copy_sizes offering single copy from 64 KiB; exits 0 when the
 * count of single copies is `*arg'. */
static int send_offering_single_copy(struct shm_ring *p, void *arg)
{
	unsigned char *buf = malloc(16 * MIB);
	size_t i;

	shm_ring_set_single_copy(p, 65536);
	for (i = 0; i < NCOPY; i++) {
		fill(buf, (uint32_t)i, copy_sizes[i]);
		if (shm_ring_send(p, (uint32_t)i, buf, copy_sizes[i],
				  SHM_WAIT_FOREVER) < 0)
			return 50;
		/* the buffer is ours again: scribbling cannot reach the
		 * consumer's copy */
		memset(buf, 0xee, copy_sizes[i]);
	}
	free(buf);
	return p->single_copies == *(uint64_t *)arg ? 0 : 51;
}

static void receive_copy_sizes(struct shm_ring *c)
{
	unsigned char *buf = malloc(16 * MIB);
	uint32_t tag;
	size_t i;

	for (i = 0; i < NCOPY; i++) {
		ck_assert_int_eq(shm_ring_recv(c, &tag, buf, 16 * MIB,
					       SHM_WAIT_FOREVER),
				 (ssize_t)copy_sizes[i]);
		ck_assert_uint_eq(tag, i);
		ck_assert_msg(intact(buf, (uint32_t)i, copy_sizes[i]),
			      "message %zu", i);
	}
	free(buf);
}

/* 1 when this process may read a sibling's memory (ptrace rules: the
 * same user and no Yama restriction, or CAP_SYS_PTRACE). */
static int single_copy_permitted(void)
{
	static int probe = 42;
	int sv[2], got = 0, ok;
	struct iovec mine = { &got, sizeof(got) }, theirs = { &probe, 4 };
	pid_t a, b;
	char c;

	if (pipe(sv) < 0)
		return 0;
	a = fork();
	if (a == 0) {
		close(sv[1]);
		(void)!read(sv[0], &c, 1);
		_exit(0);
	}
	b = fork();
	if (b == 0)
		_exit(process_vm_readv(a, &mine, 1, &theirs, 1, 0) == 4 &&
		      got == 42 ? 0 : 1);
	waitpid(b, &ok, 0);
	close(sv[1]);
	waitpid(a, NULL, 0);
	close(sv[0]);
	return WIFEXITED(ok) && WEXITSTATUS(ok) == 0;
}

START_TEST(test_single_copy_carries_large_messages)
{
	/* the sizes >= 64 KiB, or none where the ptrace rules forbid */
	static uint64_t expected;
	struct shm_ring c;
	struct pair pr;

	expected = single_copy_permitted() ? 4 : 0;
	if (!expected)
		fprintf(stderr, "process_vm_readv not permitted here: "
			"checking the fallback only\n");

	fork_producer(&pr, &c, 64 * 1024, SHM_RING_DEFAULT_SPIN_NS,
		      send_offering_single_copy, &expected);
	shm_ring_set_single_copy(&c, 1);
	receive_copy_sizes(&c);
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_refused_single_copy_falls_back_to_chunks)
{
	static uint64_t expected = 0;
	struct shm_ring c;
	struct pair pr;

	fork_producer(&pr, &c, 64 * 1024, 0, send_offering_single_copy,
		      &expected);
	/* this consumer does not take single copies */
	receive_copy_sizes(&c);
	ck_assert_int_eq(reap(&pr), 0);
	shm_ring_close(&c);
}
END_TEST

static int send_one_single_copy(struct shm_ring *p, void *arg)
{
	static unsigned char buf[1 << 20];

	(void)arg;
	shm_ring_set_single_copy(p, 1);
	fill(buf, 9, sizeof(buf));
	shm_ring_send(p, 9, buf, sizeof(buf), SHM_WAIT_FOREVER);
	return 60;	/* never answered: killed first */
}

START_TEST(test_producer_killed_during_single_copy_is_connreset)
{
	unsigned char *buf = malloc(1 << 20);
	struct shm_ring c;
	struct pair pr;
	int i;

	fork_producer(&pr, &c, 0, 0, send_one_single_copy, NULL);
	shm_ring_set_single_copy(&c, 1);
	for (i = 0; i < 10000 && !shm_ring_readable(&c); i++)
		usleep(1000);
	ck_assert(shm_ring_readable(&c));
	ck_assert_int_eq(kill(pr.pid, SIGKILL), 0);
	ck_assert_int_eq(reap(&pr), 128 + SIGKILL);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, buf, 1 << 20,
				       SHM_WAIT_FOREVER), -ECONNRESET);
	shm_ring_close(&c);
	free(buf);
}
END_TEST

/* ---- bad input ---- */

/* A sealed memfd holding `bytes' copied from a valid segment with
 * `patch' (4 bytes) written at `off' (off < 0: none), sized `size'. */
static int forged_segment(off_t off, uint32_t patch, off_t size, int seal)
{
	int good = shm_seg_make(SHM_RING_MIN_BYTES), fd;
	struct shm_ring_hdr h;

	ck_assert_int_ge(good, 0);
	ck_assert_int_eq(pread(good, &h, sizeof(h), 0), sizeof(h));
	close(good);
	fd = memfd_create("forged", MFD_ALLOW_SEALING);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	if (off >= 0)
		ck_assert_int_eq(pwrite(fd, &patch, 4, off), 4);
	if (seal)
		ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK |
				       F_SEAL_GROW | F_SEAL_SEAL), 0);
	return fd;
}

static int attach_result(int fd)
{
	struct shm_ring c;
	int rc = shm_ring_attach(&c, fd);

	if (rc == 0)
		shm_ring_close(&c);
	close(fd);
	return rc;
}

START_TEST(test_bad_segments_are_refused)
{
	off_t full = SHM_RING_HEADER_BYTES + SHM_RING_MIN_BYTES;
	struct shm_ring p, c;
	int pipefd[2];

	/* the forger itself makes an acceptable segment */
	ck_assert_int_eq(attach_result(forged_segment(-1, 0, full, 1)), 0);
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_MAGIC, 0x1234,
						      full, 1)), -EPROTO);
	/* the layout before 16-byte headers, and one not yet made */
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_VERSION, 1,
						      full, 1)), -EPROTO);
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_VERSION,
						      SHM_RING_VERSION + 1,
						      full, 1)), -EPROTO);
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_HEADER_BYTES,
						      8192, full, 1)),
			 -EINVAL);
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_RING_BYTES,
						      6000, full, 1)),
			 -EINVAL);
	/* a ring bigger than the file: truncated */
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_RING_BYTES,
						      1 << 20, full, 1)),
			 -EINVAL);
	ck_assert_int_eq(attach_result(forged_segment(SHM_OFF_CHUNK_BYTES,
						      1 << 20, full, 1)),
			 -EINVAL);
	ck_assert_int_eq(attach_result(forged_segment(-1, 0, full - 4096, 1)),
			 -EINVAL);
	ck_assert_int_eq(attach_result(forged_segment(-1, 0, 100, 1)),
			 -EINVAL);
	/* unsealed: the peer could shrink it under us */
	ck_assert_int_eq(attach_result(forged_segment(-1, 0, full, 0)),
			 -EINVAL);
	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(attach_result(pipefd[0]), -EINVAL);
	close(pipefd[1]);
	ck_assert_int_eq(shm_ring_attach(&c, -1), -EBADF);
	ck_assert_int_eq(shm_ring_create(&p, 6000), -EINVAL);
	ck_assert_int_eq(shm_ring_create(&p, 1024), -EINVAL);
	ck_assert_int_eq(shm_ring_create(&p, 1U << 31), -EINVAL);
	ck_assert_int_eq(shm_ring_create(NULL, 0), -EINVAL);
	/* one consumer per ring */
	local_pair(&p, &c, 0);
	ck_assert_int_eq(attach_result(dup(shm_ring_fd(&p))), -EBUSY);
	/* each side only does its own side's calls */
	ck_assert_int_eq(shm_ring_send(&c, 0, "x", 1, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_recv(&p, NULL, NULL, 0, SHM_NO_WAIT),
			 -EINVAL);
	ck_assert_int_eq(shm_ring_send(&p, 0, NULL, 1, SHM_NO_WAIT), -EINVAL);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

START_TEST(test_forged_record_is_eproto)
{
	struct shm_ring p, c;
	struct shm_rec *rec;
	struct shm_rec_part *part;
	unsigned char b[64];

	local_pair(&p, &c, 0);
	rec = forge_front(&p, 1U << 30);	/* far past the ring */
	part = (struct shm_rec_part *)(rec + 1);
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, sizeof(b), SHM_NO_WAIT),
			 -EPROTO);
	rec->len = 10;
	rec->flags = SHM_REC_FIRST;	/* the first of several parts */
	part->total = 5;		/* shorter than the record */
	part->offset = 0;
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, sizeof(b), SHM_NO_WAIT),
			 -EPROTO);
	part->total = 20;
	part->offset = 4;	/* a first part that is not at the start */
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, sizeof(b), SHM_NO_WAIT),
			 -EPROTO);
	part->offset = 0;
	rec->flags = 0;		/* a message that does not start */
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, sizeof(b), SHM_NO_WAIT),
			 -EPROTO);
	rec->flags = SHM_REC_FIRST | SHM_REC_LAST;
	rec->len = 10;		/* a whole message, well formed at last */
	ck_assert_int_eq(shm_ring_recv(&c, NULL, b, sizeof(b), SHM_NO_WAIT),
			 10);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

/* ---- gather and scatter (shm_ring_sendv, shm_ring_recvv) ---- */

START_TEST(test_gathered_record_scatters_and_mixes_with_plain)
{
	struct shm_ring p, c;
	unsigned char a[40], b[3000], in[4000], h[32], *big = malloc(MIB);
	struct iovec out[3] = { { a, sizeof(a) }, { NULL, 0 }, { b, sizeof(b) } };
	struct iovec v[2] = { { h, sizeof(h) }, { in, sizeof(in) } };
	uint32_t tag = 0;

	local_pair(&p, &c, 0);
	fill(a, 3, sizeof(a));
	fill(b, 4, sizeof(b));
	ck_assert_int_eq(shm_ring_sendv(&p, 7, out, 3, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_send(&p, 8, a, sizeof(a), SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_sendv(&p, 9, NULL, 0, SHM_NO_WAIT), 0);
	/* one record at most: a longer gather is refused, nothing sent */
	out[1].iov_base = big;
	out[1].iov_len = MIB;
	ck_assert_int_eq(shm_ring_sendv(&p, 10, out, 3, SHM_NO_WAIT),
			 -EMSGSIZE);
	/* too little room leaves the message where it is */
	v[1].iov_len = sizeof(a) + sizeof(b) - sizeof(h) - 1;
	ck_assert_int_eq(shm_ring_recvv(&c, &tag, v, 2, SHM_NO_WAIT),
			 -EMSGSIZE);
	v[1].iov_len = sizeof(in);
	ck_assert_int_eq(shm_ring_recvv(&c, &tag, v, 2, SHM_NO_WAIT),
			 sizeof(a) + sizeof(b));
	ck_assert_uint_eq(tag, 7);
	ck_assert(intact(h, 3, sizeof(h)));
	ck_assert(!memcmp(in, a + sizeof(h), sizeof(a) - sizeof(h)));
	ck_assert(intact(in + sizeof(a) - sizeof(h), 4, sizeof(b)));
	ck_assert_int_eq(shm_ring_recvv(&c, &tag, v, 2, SHM_NO_WAIT),
			 sizeof(a));
	ck_assert_uint_eq(tag, 8);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in),
				       SHM_NO_WAIT), 0);
	ck_assert_uint_eq(tag, 9);
	/* a message of several records is left to shm_ring_recv */
	fill(big, 5, MIB);
	ck_assert_int_eq(shm_ring_send(&p, 11, big, 100000, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_recvv(&c, &tag, v, 2, SHM_NO_WAIT),
			 -EMSGSIZE);
	memset(big, 0, MIB);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, big, MIB, SHM_NO_WAIT),
			 100000);
	ck_assert(intact(big, 5, 100000));
	ck_assert_int_eq(shm_ring_recvv(&c, &tag, v, 2, SHM_NO_WAIT), -EAGAIN);
	free(big);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

/* shm_ring_send2: a header and a body make one record, read back as one
 * message in order with the other calls; a full ring is -EAGAIN with
 * nothing written; the bad calls and a closed consumer are refused. */
START_TEST(test_two_piece_record_is_one_message)
{
	struct shm_ring p, c;
	unsigned char a[24], b[8], in[64], *big;
	uint32_t tag = 0;
	int rc, n = 0, i;

	local_pair(&p, &c, 0);
	fill(a, 6, sizeof(a));
	fill(b, 7, sizeof(b));
	ck_assert_int_eq(shm_ring_send2(&p, 3, a, sizeof(a), b, sizeof(b)), 0);
	ck_assert_int_eq(shm_ring_send(&p, 4, b, sizeof(b), SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_send2(&p, 5, a, sizeof(a), NULL, 0), 0);
	ck_assert_int_eq(shm_ring_send2(&p, 6, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 sizeof(a) + sizeof(b));
	ck_assert_uint_eq(tag, 3);
	ck_assert(intact(in, 6, sizeof(a)));
	ck_assert(intact(in + sizeof(a), 7, sizeof(b)));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 sizeof(b));
	ck_assert_uint_eq(tag, 4);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 sizeof(a));
	ck_assert_uint_eq(tag, 5);
	ck_assert(intact(in, 6, sizeof(a)));
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 0);
	ck_assert_uint_eq(tag, 6);

	/* the wrong side, no ring, pieces with bytes and no address, more
	 * than one record: refused, nothing published */
	big = malloc(p.chunk + 1);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(shm_ring_send2(&c, 0, a, 1, b, 1), -EINVAL);
	ck_assert_int_eq(shm_ring_send2(NULL, 0, a, 1, b, 1), -EINVAL);
	ck_assert_int_eq(shm_ring_send2(&p, 0, NULL, 1, b, 1), -EINVAL);
	ck_assert_int_eq(shm_ring_send2(&p, 0, a, 1, NULL, 1), -EINVAL);
	ck_assert_int_eq(shm_ring_send2(&p, 0, big, p.chunk, b, 1), -EMSGSIZE);
	ck_assert_int_eq(shm_ring_send2(&p, 0, big, p.chunk + 1, NULL, 0),
			 -EMSGSIZE);
	free(big);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 -EAGAIN);

	/* filled up: -EAGAIN and no torn record; all read back intact */
	while ((rc = shm_ring_send2(&p, 9, a, sizeof(a), b, sizeof(b))) == 0)
		n++;
	ck_assert_int_eq(rc, -EAGAIN);
	ck_assert_int_gt(n, 1000);
	for (i = 0; i < n; i++) {
		memset(in, 0, sizeof(in));
		ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in),
					       SHM_NO_WAIT),
				 sizeof(a) + sizeof(b));
		ck_assert_uint_eq(tag, 9);
		ck_assert(intact(in, 6, sizeof(a)));
		ck_assert(intact(in + sizeof(a), 7, sizeof(b)));
	}
	ck_assert_int_eq(shm_ring_recv(&c, &tag, in, sizeof(in), SHM_NO_WAIT),
			 -EAGAIN);
	/* and room again once read */
	ck_assert_int_eq(shm_ring_send2(&p, 10, a, sizeof(a), b, sizeof(b)), 0);

	shm_ring_close(&c);
	ck_assert_int_eq(shm_ring_send2(&p, 11, a, sizeof(a), b, sizeof(b)),
			 -EPIPE);
	shm_ring_close(&p);
}
END_TEST

/* The gathered calls check what the plain ones check: the side, the
 * iovec list, a closed peer, a record that is not a whole message. */
START_TEST(test_gather_and_scatter_refuse_bad_calls_and_records)
{
	struct shm_ring p, c;
	struct shm_rec *rec;
	struct shm_rec_part *part;
	unsigned char b[64];
	struct iovec v[2] = { { b, 32 }, { b + 32, 32 } };
	struct iovec hole[1] = { { NULL, 8 } };

	local_pair(&p, &c, 0);
	/* each side only does its own side's calls */
	ck_assert_int_eq(shm_ring_sendv(&c, 0, v, 2, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_recvv(&p, NULL, v, 2, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_sendv(NULL, 0, v, 2, SHM_NO_WAIT), -EINVAL);
	/* a list that is not one */
	ck_assert_int_eq(shm_ring_sendv(&p, 0, v, -1, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_sendv(&p, 0, NULL, 1, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_sendv(&p, 0, hole, 1, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, -1, SHM_NO_WAIT), -EINVAL);
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, hole, 1, SHM_NO_WAIT),
			 -EINVAL);
	/* none of them published anything */
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EAGAIN);

	/* forged records: past the ring, not a start, a single copy */
	rec = forge_front(&p, 1U << 30);	/* far past the ring */
	part = (struct shm_rec_part *)(rec + 1);
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EPROTO);
	rec->len = 10;
	part->total = 10;
	part->offset = 0;
	rec->flags = SHM_REC_LAST;
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EPROTO);
	rec->flags = SHM_REC_FIRST | SHM_REC_LAST | SHM_REC_SINGLE_COPY;
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EPROTO);
	shm_ring_close(&p);
	shm_ring_close(&c);

	/* a consumer that closed: the producer's gather gets -EPIPE */
	local_pair(&p, &c, 0);
	shm_ring_close(&c);
	ck_assert_int_eq(shm_ring_sendv(&p, 0, v, 2, SHM_NO_WAIT), -EPIPE);
	shm_ring_close(&p);
}
END_TEST

/* ---- the front checked once (shm_ring_front, shm_ring_take_front) ---- */

/* Whole messages of every size up to a few lines, in a ring small
 * enough that payloads straddle its end: each is split where asked, and
 * a message shorter than the head goes all into the head. */
START_TEST(test_front_take_splits_messages_across_the_ring_end)
{
	struct shm_ring p, c;
	struct shm_front f;
	unsigned char out[300], in[300];
	uint32_t n, wrapped = 0;
	size_t len, head;

	local_pair(&p, &c, SHM_RING_MIN_BYTES);
	ck_assert_int_eq(shm_ring_front(&c, &f), -EAGAIN);
	for (n = 0; n < 5000; n++) {
		len = (n * 37u) % sizeof(out);
		head = n % 40;
		fill(out, n, len);
		ck_assert_int_eq(shm_ring_send(&p, n, out, len, SHM_NO_WAIT),
				 0);
		memset(in, 0, sizeof(in));
		ck_assert_int_eq(shm_ring_front(&c, &f), 0);
		ck_assert_uint_eq(f.tag, n);
		ck_assert_uint_eq(f.len, len);
		/* a look changes nothing: the same record again */
		ck_assert_int_eq(shm_ring_front(&c, &f), 0);
		ck_assert_uint_eq(f.tag, n);
		if (((c.pos + 16) & c.mask) + len > c.mask + 1)
			wrapped++;
		ck_assert_int_eq(shm_ring_take_front(&c, &f, in, head,
						     in + head), (ssize_t)len);
		ck_assert_msg(intact(in, n, len), "message %u", n);
		ck_assert_int_eq(shm_ring_front(&c, &f), -EAGAIN);
	}
	ck_assert_uint_gt(wrapped, 10);
	/* the producer's end, once the ring is drained */
	ck_assert_int_eq(shm_ring_send(&p, 7, out, 10, SHM_NO_WAIT), 0);
	shm_ring_close(&p);
	ck_assert_int_eq(shm_ring_front(&c, &f), 0);
	ck_assert_int_eq(shm_ring_take_front(&c, &f, in, 10, NULL), 10);
	ck_assert_int_eq(shm_ring_front(&c, &f), -EPIPE);
	shm_ring_close(&c);
}
END_TEST

/* A message longer than one record (the default ring's chunk). */
#define BIG	100000

/* What shm_ring_recvv refuses, these refuse with the same error and
 * leave the record where it is; a stale or bad call is -EINVAL. */
START_TEST(test_front_take_refuse_what_recvv_refuses)
{
	struct shm_ring p, c;
	struct shm_rec *rec;
	struct shm_rec_part *part;
	struct shm_front f, old;
	unsigned char b[64], *big = malloc(BIG);
	struct iovec v[2] = { { b, 32 }, { big, BIG } };
	uint32_t tag;

	local_pair(&p, &c, 0);
	ck_assert_int_eq(shm_ring_front(&p, &f), -EINVAL);
	ck_assert_int_eq(shm_ring_front(&c, NULL), -EINVAL);
	fill(b, 1, 20);
	ck_assert_int_eq(shm_ring_send(&p, 1, b, 20, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_send(&p, 2, b, 20, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_front(&c, &old), 0);
	ck_assert_int_eq(shm_ring_take_front(&p, &old, b, 64, b), -EINVAL);
	ck_assert_int_eq(shm_ring_take_front(&c, &old, NULL, 8, b), -EINVAL);
	ck_assert_int_eq(shm_ring_take_front(&c, &old, b, 8, NULL), -EINVAL);
	ck_assert_int_eq(shm_ring_take_front(&c, &old, b, 64, NULL), 20);
	/* `old' names a record taken already: refused, nothing taken */
	ck_assert_int_eq(shm_ring_take_front(&c, &old, b, 64, NULL), -EINVAL);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, b, sizeof(b), SHM_NO_WAIT),
			 20);
	ck_assert_uint_eq(tag, 2);

	/* a message of several records: not one record, left for
	 * shm_ring_recv */
	fill(big, 3, BIG);
	ck_assert_int_eq(shm_ring_send(&p, 3, big, BIG, SHM_NO_WAIT), 0);
	ck_assert_int_eq(shm_ring_front(&c, &f), 0);
	ck_assert_uint_eq(f.len, BIG);
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT),
			 -EMSGSIZE);
	ck_assert_int_eq(shm_ring_take_front(&c, &f, b, 8, big), -EMSGSIZE);
	memset(big, 0, BIG);
	ck_assert_int_eq(shm_ring_recv(&c, &tag, big, BIG, SHM_NO_WAIT), BIG);
	ck_assert(intact(big, 3, BIG));
	shm_ring_close(&p);
	shm_ring_close(&c);

	/* forged records: past the ring, not a start, a single copy */
	local_pair(&p, &c, 0);
	rec = forge_front(&p, 1U << 30);	/* far past the ring */
	part = (struct shm_rec_part *)(rec + 1);
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EPROTO);
	ck_assert_int_eq(shm_ring_front(&c, &f), -EPROTO);
	rec->len = 10;
	part->total = 10;
	part->offset = 0;
	rec->flags = SHM_REC_LAST;
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EPROTO);
	ck_assert_int_eq(shm_ring_front(&c, &f), -EPROTO);
	rec->len = sizeof(uint64_t) * 2;
	part->total = 100;
	rec->flags = SHM_REC_FIRST | SHM_REC_LAST | SHM_REC_SINGLE_COPY;
	ck_assert_int_eq(shm_ring_recvv(&c, NULL, v, 2, SHM_NO_WAIT), -EPROTO);
	ck_assert_int_eq(shm_ring_front(&c, &f), 0);	/* as a peek */
	ck_assert_uint_eq(f.len, 100);
	ck_assert_int_eq(shm_ring_take_front(&c, &f, big, 8, big + 8),
			 -EPROTO);
	/* what the take checks is what the look saw, whatever the record
	 * says by now: a header rewritten since is not read again */
	rec->flags = SHM_REC_FIRST | SHM_REC_LAST;
	rec->len = 1U << 30;
	ck_assert_int_eq(shm_ring_take_front(&c, &f, big, 8, big + 8),
			 -EPROTO);
	ck_assert_int_eq(shm_ring_front(&c, &f), -EPROTO);
	rec->len = 10;
	ck_assert_int_eq(shm_ring_front(&c, &f), 0);
	ck_assert_int_eq(shm_ring_take_front(&c, &f, b, 4, b + 4), 10);
	ck_assert_int_eq(shm_ring_front(&c, &f), -EAGAIN);
	free(big);
	shm_ring_close(&p);
	shm_ring_close(&c);
}
END_TEST

static Suite *shm_ring_ends_suite(void)
{
	Suite *s = suite_create("shm_ring_ends");
	TCase *tc;

	tc = tcase_create("ends");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_killed_producer_mid_message_is_connreset_untorn);
	tcase_add_test(tc, test_exited_producer_is_drained_then_connreset);
	tcase_add_test(tc, test_closed_consumer_is_epipe_for_producer);
	tcase_add_test(tc, test_dead_consumer_is_epipe_for_blocked_producer);
	suite_add_tcase(s, tc);

	tc = tcase_create("single_copy");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_single_copy_carries_large_messages);
	tcase_add_test(tc, test_refused_single_copy_falls_back_to_chunks);
	tcase_add_test(tc, test_producer_killed_during_single_copy_is_connreset);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_test(tc, test_bad_segments_are_refused);
	tcase_add_test(tc, test_forged_record_is_eproto);
	suite_add_tcase(s, tc);

	tc = tcase_create("gather");
	tcase_add_test(tc, test_gathered_record_scatters_and_mixes_with_plain);
	tcase_add_test(tc, test_two_piece_record_is_one_message);
	tcase_add_test(tc, test_gather_and_scatter_refuse_bad_calls_and_records);
	suite_add_tcase(s, tc);

	tc = tcase_create("front");
	tcase_add_test(tc, test_front_take_splits_messages_across_the_ring_end);
	tcase_add_test(tc, test_front_take_refuse_what_recvv_refuses);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(shm_ring_ends_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

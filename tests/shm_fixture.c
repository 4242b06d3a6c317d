/*
 * shm_fixture.c - what the shared-memory ring's tests share: message
 * patterns, passing a memfd over a socket, a forked producer whose ring
 * the test process attaches as the consumer, and a local pair.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm_fixture.h"

/* The expected byte `i' of message `n'. */
unsigned char pattern(uint32_t n, size_t i)
{
	return (unsigned char)(n * 131u + i * 7u + (i >> 9) + 1u);
}

void fill(unsigned char *buf, uint32_t n, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(n, i);
}

/* 1 when `buf' holds message `n' of `len' bytes. */
int intact(const unsigned char *buf, uint32_t n, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != pattern(n, i))
			return 0;
	return 1;
}

void send_fd(int sock, int fd)
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
		_exit(90);
}

int recv_fd(int sock)
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
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Forks a producer that makes a ring of `ring_bytes', hands the memfd
 * over a socket, spins `spin_ns' and runs `body'; attaches `c' to it as
 * the consumer. */
void fork_producer(struct pair *pr, struct shm_ring *c,
			  uint32_t ring_bytes, long spin_ns,
			  producer_fn body, void *arg)
{
	struct shm_ring p;
	int sv[2], fd, rc;
	char ack;

	pr->cons_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pr->prod_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ck_assert_int_ge(pr->cons_wake, 0);
	ck_assert_int_ge(pr->prod_wake, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pr->pid = fork();
	ck_assert_int_ge(pr->pid, 0);
	if (pr->pid == 0) {
		close(sv[0]);
		if (shm_ring_create(&p, ring_bytes) < 0)
			_exit(91);
		send_fd(sv[1], shm_ring_fd(&p));
		/* the consumer's pid is in the header once it acks */
		if (read(sv[1], &ack, 1) != 1)
			_exit(92);
		shm_ring_drop_fd(&p);
		if (shm_ring_connect(&p, pr->prod_wake, pr->cons_wake) < 0)
			_exit(93);
		shm_ring_set_spin(&p, spin_ns);
		rc = body(&p, arg);
		shm_ring_close(&p);
		_exit(rc);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(shm_ring_attach(c, fd), 0);
	close(fd);
	ck_assert_int_eq(shm_ring_connect(c, pr->cons_wake, pr->prod_wake), 0);
	shm_ring_set_spin(c, spin_ns);
	ck_assert_int_eq(write(sv[0], "A", 1), 1);
	pr->sock = sv[0];
}

/* Waits for the producer; its exit status, or 128 + signal. */
int reap(struct pair *pr)
{
	int st;

	ck_assert_int_eq(waitpid(pr->pid, &st, 0), pr->pid);
	close(pr->sock);
	close(pr->cons_wake);
	close(pr->prod_wake);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A producer and a consumer in this one process, on one ring. */
void local_pair(struct shm_ring *p, struct shm_ring *c,
		       uint32_t ring_bytes)
{
	ck_assert_int_eq(shm_ring_create(p, ring_bytes), 0);
	ck_assert_int_eq(shm_ring_attach(c, shm_ring_fd(p)), 0);
}

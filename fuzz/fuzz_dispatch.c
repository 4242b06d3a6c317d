/*
 * fuzz_dispatch.c - libFuzzer target for pvmd's request dispatch
 * (daemon/dispatch.c and the op handlers it calls: tasks.c, ops.c,
 * mbox.c, notify.c, ...), run in this process.
 *
 * The daemon's state is set up as main.c does (host index, daemon tid,
 * an epoll set), without sockets or a loop.  For each input a task
 * connection is made over a socketpair, as if a task had connected, and
 * the input is a sequence of frames: one byte (low 5 bits: the op; bit
 * 5: a USER message instead of a request), one byte of body length
 * (times 4), then the body.  Each goes to pvmd_dispatch() exactly as the
 * event loop hands it a received frame.  At the end the connection is
 * closed, which ends its task, and the turn is ended, which frees it.
 * Replies are read off the other end of the socketpair and dropped.
 *
 * Ops that would act outside the process are not sent: SPAWN (forks),
 * KILL and SENDSIG (signals), HALT (exits), ADDHOSTS and DELHOSTS
 * (start or stop remote daemons).  The connection's peer pid is one that
 * has exited, so nothing the daemon records can reach a live process.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvmd.h"

static int setup_done;
static pid_t gone_pid;

static void setup(void)
{
	pid_t pid;

	pvmd_wire();		/* what main() does first */
	/* the log still formats every line; it only goes nowhere */
	if (pvmd_log_open("/dev/null", 0) < 0)
		abort();
	pvmd.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pvmd.epfd < 0)
		abort();
	pvmd.uid = getuid();
	pvmd.index = PVMI_MASTER_INDEX;
	pvmd.dtid = PVMI_DAEMON_TID(pvmd.index);
	strcpy(pvmd.hostname, "fuzzhost");
	strcpy(pvmd.sessname, "s0000000000000001");
	pvmd.opts.speed = PVMD_SPEED_DEFAULT;
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	gone_pid = pid;
	setup_done = 1;
}

static int op_allowed(int op)
{
	switch (op) {
	case PVMI_OP_SPAWN:
	case PVMI_OP_KILL:
	case PVMI_OP_SENDSIG:
	case PVMI_OP_HALT:
	case PVMI_OP_ADDHOSTS:
	case PVMI_OP_DELHOSTS:
		return 0;
	default:
		return 1;
	}
}

static void drain(int fd)
{
	char buf[65536];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvmd_conn *c;
	int sv[2];
	size_t pos = 0;

	if (!setup_done)
		setup();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv) < 0)
		abort();
	c = pvmd_conn_new(sv[0], gone_pid);
	if (!c)
		abort();
	while (pos + 2 <= size && !c->dead) {
		struct pvmi_frame f;
		size_t len = (size_t)data[pos + 1] * 4;
		int op = data[pos] & 31;
		unsigned char *body;

		pos += 2;
		if (len > size - pos)
			len = size - pos;
		memset(&f, 0, sizeof(f));
		f.magic = PVMI_FRAME_MAGIC;
		f.len = (uint32_t)len;
		f.tag = op;
		f.enc = PvmDataDefault;
		if (data[pos - 2] & 32) {
			f.kind = PVMI_KIND_USER;
			f.dst = c->task ? c->task->tid : 0;
			f.tag = data[pos - 2];
		} else {
			f.kind = PVMI_KIND_REQUEST;
			if (!op_allowed(op)) {
				pos += len;
				continue;
			}
		}
		/* the body in a buffer of its own size, as received */
		body = malloc(len ? len : 1);
		if (!body)
			abort();
		memcpy(body, data + pos, len);
		pvmd_dispatch(c, &f, body);
		free(body);
		pos += len;
		drain(sv[1]);
		pvmd_conn_turn_end();
	}
	if (!c->dead)
		pvmd_conn_close(c, "fuzz input done");
	pvmd_conn_turn_end();
	close(sv[1]);
	return 0;
}

/*
 * transport.h - the operations a transport provides to carry frames
 * between this task and another process.
 *
 * A transport owns endpoints and circuits; conn.c owns everything above
 * (framing, reassembly, queues, the handshake of TCP circuits).  Every fd
 * a transport returns is a nonblocking byte stream that conn.c drives
 * with the table's readv-like calls, so a transport can change how bytes
 * move (plain sockets today; shared memory or io_uring later) without
 * touching the message layer.  Tasks of one host use the unix table;
 * direct routes to tasks of other hosts use the TCP table (route.c picks
 * the route per destination).
 */
#ifndef COPVM_TRANSPORT_H
#define COPVM_TRANSPORT_H

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

struct pvmi_transport {
	const char *name;
	/* Opens a circuit to task `tid' and stores a nonblocking fd in *fd.
	 * May block briefly.  Returns PvmOk, PvmNoTask when `tid' has no
	 * endpoint (gone or never existed), or PvmSysErr.  NULL for
	 * transports reached by address (connect). */
	int (*open)(int tid, int *fd);
	/* Starts connecting to `addr' (dotted IPv4) port `port' and stores
	 * the nonblocking fd in *fd; the connection may still be under way
	 * (wait for writability, then check SO_ERROR).  Never blocks.
	 * Returns PvmOk or PvmSysErr.  NULL for transports opened by tid. */
	int (*connect)(const char *addr, int port, int *fd);
	/* Creates the endpoint of task `tid' and stores its listening
	 * nonblocking fd in *fd.  Returns PvmOk or PvmSysErr. */
	int (*listen)(int tid, int *fd);
	/* The port a listening fd of this transport answers on, or 0. */
	int (*port)(int lfd);
	/* Accepts one waiting peer on listening fd `lfd'.  Returns a
	 * nonblocking fd, or -1 when none is waiting or the peer is refused
	 * (another user); never blocks. */
	int (*accept)(int lfd);
	/* Removes the endpoint of task `tid' (its fd is closed by the
	 * caller).  Never fails. */
	void (*unlisten)(int tid);
	/* Writes from `iov'; returns bytes written, or -1 with errno
	 * (EAGAIN when the circuit is full).  Never blocks. */
	ssize_t (*writev)(int fd, const struct iovec *iov, int iovcnt);
	/* Reads up to `len' bytes; returns the count, 0 at end of stream, or
	 * -1 with errno (EAGAIN when nothing is waiting).  Never blocks. */
	ssize_t (*read)(int fd, void *buf, size_t len);
};

/* Same-host tasks: AF_UNIX stream sockets under the per-user directory. */
extern const struct pvmi_transport pvmi_transport_unix;
/* Tasks of other hosts: TCP (IPv4), no Nagle delay, large buffers. */
extern const struct pvmi_transport pvmi_transport_tcp;

/* writev and read for any stream socket, nonblocking, no SIGPIPE: the
 * same for both transports. */
ssize_t pvmi_sock_writev(int fd, const struct iovec *iov, int iovcnt);
ssize_t pvmi_sock_read(int fd, void *buf, size_t len);
/* A nonblocking listening stream socket of `domain' bound to `sa'; puts
 * it in *fd and returns PvmOk, or PvmSysErr. */
int pvmi_sock_listen(int domain, const struct sockaddr *sa, socklen_t len,
		     int *fd);

/* The per-user directory "$PVM_TMP/copvm-<uid>"; a static string. */
const char *pvmi_rundir(void);

#endif /* COPVM_TRANSPORT_H */

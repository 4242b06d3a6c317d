/*
 * transport/stream.h - the helpers the byte-stream transports share
 * (unix.c, tcp.c, shm.c before its ring, uring.c): the framing over a
 * nonblocking stream (stream.c) and the socket calls under it (sock.c).
 * Only transports include this header; the layers above see the tables
 * of transport.h.
 */
#ifndef COPVM_TRANSPORT_STREAM_H
#define COPVM_TRANSPORT_STREAM_H

#include "bufcache.h"
#include "transport/transport.h"

/* stream.c: the framing over a byte stream, the send, progress and close
 * of the stream transports (transport.h describes them). */
#define PVMI_STREAM_RX	65536	/* staging buffer for small frames */
int pvmi_stream_send(struct pvmi_pipe *p, struct pvmi_tx *tx);
int pvmi_stream_progress(struct pvmi_pipe *p);
void pvmi_stream_close(struct pvmi_pipe *p);
/* The messages, and their bodies' bytes, that one progress() hands on
 * at most once the receive under way has its match (the sink's sated):
 * what the buffer pools hold (docs/shm.md, "How much one look takes"),
 * and shm.c's rings' bound too (its BATCH_MSGS, BATCH_BYTES).  Without
 * a match a look takes everything. */
#define PVMI_LOOK_MSGS	PVMI_BUF_POOL_MAX
#define PVMI_LOOK_BYTES	(192UL << 10)
/* stream.c: the stream transports' poll_ready: 1 when a complete frame
 * waits staged (a look stopped at its bound before it), which poll() on
 * the fd cannot see; 0 otherwise.  No system call. */
int pvmi_stream_ready(struct pvmi_pipe *p);
/* stream.c, for transports that read without read() (uring.c): where
 * the next bytes of `p' go (*buf, at most *len bytes; 0 or -ENOMEM),
 * and the news that `n' bytes were put there, which hands on every
 * frame they complete, with no bound (0 or a negative errno). */
int pvmi_stream_target(struct pvmi_pipe *p, unsigned char **buf,
		       size_t *len);
int pvmi_stream_took(struct pvmi_pipe *p, size_t n);
/* stream.c: counts `n' more bytes of `tx' as written, advancing
 * tx->next and the iovecs. */
void pvmi_tx_advance(struct pvmi_tx *tx, size_t n);

/* sock.c: writev and read for any stream socket, nonblocking, no
 * SIGPIPE, the same for both socket transports. */
ssize_t pvmi_sock_writev(int fd, const struct iovec *iov, int iovcnt);
ssize_t pvmi_sock_read(int fd, void *buf, size_t len);
/* A nonblocking listening stream socket of `domain' bound to `sa'; puts
 * it in *fd and returns PvmOk, or PvmSysErr. */
int pvmi_sock_listen(int domain, const struct sockaddr *sa, socklen_t len,
		     int *fd);

/* tcp.c: the endpoint calls of the TCP transports (tcp, uring), as
 * struct pvmi_transport describes them. */
int pvmi_tcp_connect(const char *addr, int port, int *fd);
int pvmi_tcp_listen(int tid, int *fd);
int pvmi_tcp_port(int lfd);
int pvmi_tcp_accept(int lfd);
void pvmi_tcp_unlisten(int tid);

#endif /* COPVM_TRANSPORT_STREAM_H */

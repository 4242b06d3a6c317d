/*
 * route_link.h - the links of conn.c as route_tcp.c (the direct TCP
 * circuits to tasks of other hosts) needs to see them.  Internal to
 * libpvm3; nothing else should include it.
 *
 * A link is one byte stream with its reassembly state: the daemon link,
 * unix circuits out (LINK_OUT) and in (LINK_IN), and TCP circuits, which
 * carry frames both ways once their handshake is done.  conn.c owns the
 * list and the pump; route_tcp.c owns the TCP listener, the handshakes
 * and the machine's secret.
 */
#ifndef COPVM_ROUTE_LINK_H
#define COPVM_ROUTE_LINK_H

#include <stddef.h>

#include "msg.h"
#include "transport.h"
#include "wire.h"

#define RX_CAP		65536	/* staging buffer for small frames */

enum link_kind { LINK_DAEMON, LINK_OUT, LINK_IN, LINK_TCP };

struct pvmi_auth;

struct link {
	int fd;
	int kind;
	int peer;			/* other task (LINK_OUT, LINK_TCP) */
	const struct pvmi_transport *tp;
	unsigned char *rx;		/* staging buffer, RX_CAP bytes */
	size_t rxhead, rxtail;
	struct pvmi_frame f;		/* header of the frame in progress */
	unsigned char *body;		/* its body when read directly */
	size_t got;
	int dead;			/* ended; pvmi_link_sweep() frees */
	struct pvmi_auth *auth;		/* LINK_TCP: handshake under way */
	long long auth_end;		/* its deadline (ms) */
	int connecting;			/* LINK_TCP: connect() under way */
	int busy;			/* being written: not freed yet */
	unsigned long serial;		/* tells links apart over time */
};

/* conn.c */
/* Adds a link; NULL when out of memory (the caller closes `fd'). */
struct link *pvmi_link_add(int fd, int kind, int peer,
			   const struct pvmi_transport *tp);
/* Closes and frees a link at once. */
void pvmi_link_drop(struct link *l);
/* Calls `fn' on every link; `fn' must not add or drop links. */
void pvmi_link_each(void (*fn)(struct link *l, void *arg), void *arg);
/* Frees the links marked dead, except those being written. */
void pvmi_link_sweep(void);
/* One round of waiting for input for up to `timeout_ms' (and for `wfd'
 * to be writable if >= 0); 1 when anything happened, 0 on timeout,
 * PvmSysErr when nothing can ever arrive.  May free dead links. */
int pvmi_link_pump(int timeout_ms, int wfd);
/* Writes frame `f' with message `m' on `l', reading input while it
 * waits; PvmOk, PvmNoMem, or -1 when the link broke (drop it). */
int pvmi_link_send(struct link *l, struct pvmi_frame *f,
		   const struct pvmi_msg *m);

/* route_tcp.c */
/* Our TCP listener, or -1. */
int pvmi_tcp_listen_fd(void);
/* Accepts waiting TCP circuits and starts their handshakes. */
void pvmi_tcp_accept(void);
/* Feeds a TCP link's staged bytes to its handshake: 0 while it goes on
 * or once done (frames may follow), -1 when it failed. */
int pvmi_tcp_auth_input(struct link *l);
/* Forgets a link's handshake state (the link is going away). */
void pvmi_tcp_auth_end(struct link *l);
/* Marks links whose handshake is overdue dead. */
void pvmi_tcp_expire(void);
/* Closes the listener and forgets the secret (leaving the machine). */
void pvmi_tcp_reset(void);
/* Milliseconds on the monotonic clock. */
long long pvmi_now_ms(void);

#endif /* COPVM_ROUTE_LINK_H */

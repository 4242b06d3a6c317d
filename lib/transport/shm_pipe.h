/*
 * transport/shm_pipe.h - what the two halves of the shm transport share
 * (private to transport/shm*.c): the state of a pipe, the record tags of
 * its ring, and the calls of the handshake (shm_setup.c) that the data
 * path (shm.c) makes.
 */
#ifndef COPVM_TRANSPORT_SHM_PIPE_H
#define COPVM_TRANSPORT_SHM_PIPE_H

#include <sys/types.h>
#include <time.h>

#include "msg.h"
#include "transport/shm_ring.h"
#include "transport/transport.h"

/* The RING frame's tag: SHM_RING_VERSION offers the ring, SWITCH_TAG
 * (after a yes) says that the frames after it are in the ring. */
#define SWITCH_TAG	0

/* A sender looks for its receiver's greeting before each of its first
 * PROBE_SENDS frames, then before a frame at most every PROBE_EVERY_NS:
 * a receiver that starts late (a burst sent to a task just spawned)
 * still gets its ring, and an old peer that never greets costs one
 * recvmsg per interval. */
#define PROBE_SENDS	256
#define PROBE_EVERY_NS	10000000L
/* Ring bytes of one circuit (one direction). */
#define RING_BYTES	(1U << 20)
/* Largest record of a whole frame (header and body together). */
#define WHOLE_MAX	(16U << 10)
/* A whole frame's record leaves out the header's first WHOLE_SKIP bytes
 * (magic and length): WHOLE_HDR_LEN header bytes, then the body. */
#define WHOLE_SKIP	8
#define WHOLE_HDR_LEN	(PVMI_FRAME_HDR_LEN - WHOLE_SKIP)
/* How long one send() waits for room before it lets conn.c pump. */
#define ROOM_WAIT_NS	1000000L
/* How often a sender looks whether its receiver's socket ended. */
#define LIVENESS_NS	10000000L

/* Bytes of bodies lent over one circuit and not given back, at most,
 * once two are out (pvmi_heap_lend, bufheap.h): four times the ring. */
#define LEND_CAP	(4UL << 20)

/* Smallest body sent single-copy when COPVM_SHM_SINGLECOPY is on. */
#define COPY_MIN	(64U << 10)

/* Record tags: what a record of the ring holds.  REC_COPY names the
 * sender's body buffer, which the receiver reads with process_vm_readv
 * (single copy); refused, the body follows as REC_BODY pieces.  REC_LEND
 * is a whole frame whose body is lent: the frame's header, then the
 * body's place in the sender's export heap (bufheap.h). */
enum { REC_WHOLE = 1, REC_HEAD = 2, REC_BODY = 3, REC_COPY = 4,
       REC_LEND = 5 };

enum sender_mode {
	S_PROBE,	/* no greeting read yet: frames on the socket */
	S_SOCKET,	/* refused or failed: the socket for good */
	S_OFFER,	/* ring made, the RING frame not (all) sent yet */
	S_ANSWER,	/* offer sent, no answer read yet: the socket */
	S_SWITCH,	/* mapped: the switch frame not (all) sent yet */
	S_RING,		/* frames through the ring */
};

/* The coarse monotonic clock in ns (a vDSO read): the sender's liveness
 * look (shm.c) and its greeting looks (shm_setup.c) are timed by it. */
static inline long shm_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Bodies from this size on are read in the ring rather than copied out
 * (shm_keep.c); a smaller one costs less to copy than to keep. */
#define KEEP_MIN	256U

struct shm_pipe;
/* A record of the ring kept in place for the message that reads its body
 * (shm_keep.c): the lend that message holds, and the record's place. */
struct shm_keep {
	struct pvmi_lend lend;		/* first: the lend is the keep */
	struct shm_pipe *s;
	uint32_t at;
};

/* A pipe's own state (p->priv). */
struct shm_pipe {
	struct shm_ring ring;
	int have_ring;
	pid_t pid;			/* the process that set the ring up */
	int peer_wake;			/* the peer's eventfd, or -1 */
	/* sender */
	int mode;			/* enum sender_mode */
	int probes;			/* greeting looks so far */
	long probed;			/* when the last one was (coarse) */
	int mid;			/* a socket frame partly written */
	long checked;			/* when receiver_gone() last looked */
	size_t copy_min;		/* bodies from this go single-copy,
					 * 0: never */
	int copying;			/* a REC_COPY waits for its answer */
	int lend;			/* the receiver maps our heap */
	unsigned char offer[PVMI_FRAME_HDR_LEN];
	size_t offer_sent;
	/* receiver */
	const struct pvmi_pipe_sink *up;	/* the owner's sink */
	void *up_arg;
	int armed;
	int draining;			/* mapped; socket frames until the
					 * switch frame */
	struct pvmi_heap_map *heap;	/* the sender's heap, or NULL */
	struct pvmi_frame f;		/* frame being put together */
	unsigned char *body;
	size_t got;
	int batch_msgs;			/* delivered in this progress call */
	size_t batch_bytes;		/* and their bodies' bytes */
	struct shm_keep keeps[SHM_RING_KEEPS];	/* bodies read in place */
	struct pvmi_pipe *pipe;		/* ours, while on the readers list */
	int room_armed;			/* armed by arm_readers() */
	struct shm_pipe *next_reader;
};

/* Receiving pipes with a ring (defined in shm_keep.c, whose fork handler
 * walks them; shm.c's send reads them too).  A sender waiting for room arms
 * them, so that input for this task ends the wait too: the peer it waits
 * for may be waiting for us to read (two tasks exchanging large
 * messages).  shm_setup.c adds a pipe when it maps its ring. */
extern struct shm_pipe *pvmi_shm_readers;

/* shm_keep.c: a free keep of pipe `s' for a body read in place, its
 * pipe and lend set (ring_take has already copied out the bodies that
 * held back a quarter of the ring); NULL when none is free, or the fork
 * handler that copies them out could not be set. */
struct shm_keep *pvmi_shm_keep_slot(struct shm_pipe *s);
/* shm_keep.c: copies out every body that pipe `s' lends and frees their
 * records (the messages keep reading their own copies).  With `must'
 * (the ring goes), a body that cannot be copied (out of memory) is
 * dropped from its message rather than left reading an unmapped ring. */
void pvmi_shm_keeps_out(struct shm_pipe *s, int must);

/* shm_setup.c: non-zero unless COPVM_SHM=0 (read once per process, and
 * again in a fork). */
int pvmi_shm_enabled(void);
/* shm_setup.c: the table's probe, wait_fd, woken, release and accepted
 * (transport.h): rings unless COPVM_SHM=0 (with setup, if the wake
 * eventfd can be made); this task's wake eventfd, made on first use or
 * -1; its emptying; its closing; the greeting on an accepted circuit. */
int pvmi_shm_probe(int setup);
int pvmi_shm_wake_fd(void);
void pvmi_shm_woken(void);
void pvmi_shm_release(void);
void pvmi_shm_accepted(int fd, const struct pvmi_transport *carrier);
/* shm_setup.c: the socket read of a receiving pipe, which keeps the fds
 * that come with a RING frame (the table's read); and the dropping of
 * those kept for socket `sock' (its pipe closes). */
ssize_t pvmi_shm_sock_read(int fd, void *buf, size_t len);
void pvmi_shm_stash_drop(int sock);
/* shm_setup.c, the receiver: maps the ring a RING offer brought and
 * answers yes or no; 0, or -1 when the offer breaks the protocol. */
int pvmi_shm_take_ring(struct pvmi_pipe *p, struct shm_pipe *s);
/* shm_setup.c, the sender at a frame boundary: looks for the greeting
 * (S_PROBE: an invitation makes the ring, S_OFFER), reads the answer to
 * the offer (S_ANSWER: yes starts the switch, S_SWITCH, no keeps the
 * socket), and sends (the rest of) a RING frame, the offer or the switch:
 * 1 once all sent, 0 when the socket is full, or a negative errno.
 * None blocks. */
void pvmi_shm_greeting(struct pvmi_pipe *p, struct shm_pipe *s);
void pvmi_shm_read_answer(struct pvmi_pipe *p, struct shm_pipe *s);
int pvmi_shm_send_ring_frame(struct pvmi_pipe *p, struct shm_pipe *s);

#endif /* COPVM_TRANSPORT_SHM_PIPE_H */

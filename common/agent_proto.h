/*
 * agent_proto.h - the wire protocol between libpvm3's agent backend
 * (lib/cosched/backend_agent.c) and the privileged boost helper
 * copvm-agent (agent/).  One Unix SOCK_SEQPACKET connection per task;
 * each datagram is exactly one struct agent_req, answered by exactly one
 * struct agent_reply.  Both are fixed-size, of fixed-width fields in host
 * byte order (the peers share a host), with every padding byte named.
 *
 * Identity is never taken from a message: the agent uses the connection's
 * SO_PEERCRED and each datagram's SCM_CREDENTIALS.  A connection can
 * register one process only, the one that opened it.
 *
 * Statuses are 0 or a negative errno:
 *   -EBADMSG          a datagram that is not exactly one request
 *   -EPROTONOSUPPORT  a version other than AGENT_PROTO_VERSION
 *   -EOPNOTSUPP       an unknown op
 *   -EINVAL           a level, nice or box out of range
 *   -EPERM            another user's process, a policy other than
 *                     SCHED_OTHER, a request from a process other than
 *                     the connection's, or BOOST_PEER from a caller that
 *                     did not register
 *   -ESRCH            a target that is not registered (or has exited),
 *                     and APPLY or UNREGISTER from a caller that did not
 *                     register
 *   -EAGAIN           (no longer sent: a task over its CPU share has
 *                     its boost held, not refused; see agent/serve.c)
 *   -EALREADY         REGISTER on a connection already registered
 */
#ifndef COPVM_AGENT_PROTO_H
#define COPVM_AGENT_PROTO_H

#include <stdint.h>

#define AGENT_PROTO_VERSION	2
#define AGENT_SOCK_DEFAULT	"/run/copvm-agent/agent.sock"
#define AGENT_SOCK_ENV		"COPVM_AGENT_SOCK"

/* Requests (agent_req.op). */
#define AGENT_OP_REGISTER	1	/* register the caller itself */
#define AGENT_OP_APPLY		2	/* boost (or unboost) the caller */
#define AGENT_OP_BOOST_PEER	3	/* boost a registered same-uid pid */
#define AGENT_OP_UNREGISTER	4	/* undo everything, forget the caller */
#define AGENT_OP_STATS		5	/* counters and caps; also the hello */

/* Limits checked on every request. */
#define AGENT_NICE_MIN		(-20)
#define AGENT_NICE_MAX		19
#define AGENT_BOX_NS_LIMIT	10000000000ull	/* larger boxes: -EINVAL */

/* Capabilities in agent_reply.caps. */
#define AGENT_CAP_SLICE		0x1	/* EEVDF slice requests honoured */
#define AGENT_CAP_NICE		0x2	/* negative nice, down to nice_floor */
#define AGENT_CAP_RT		0x4	/* time-boxed SCHED_FIFO */
#define AGENT_CAP_PEERS		0x8	/* BOOST_PEER of same-uid tasks */

struct agent_req {
	uint16_t version;	/* AGENT_PROTO_VERSION */
	uint16_t op;		/* AGENT_OP_* */
	uint32_t seq;		/* echoed in the reply */
	int32_t pid;		/* BOOST_PEER: the target; else 0 */
	int32_t tid;		/* BOOST_PEER: its PVM tid (logs only) */
	int32_t level;		/* COPVM_BOOST_* (copvm.h) */
	int32_t nice;		/* the nice wanted at COPVM_BOOST_NICE */
	uint64_t box_ns;	/* the time box; clamped to the agent's max */
	uint32_t share_ppm;	/* REGISTER: the CPU share wanted while
				 * boosted, ppm of a CPU (0: the agent's
				 * default); clamped to the agent's max */
	uint32_t reserved;	/* 0 */
};

/* Global counters since the agent started. */
struct agent_stats {
	uint64_t applied;	/* boosts put in force */
	uint64_t undone;	/* boosts reverted (box end, request, exit) */
	uint64_t demotions;	/* boosts held for their CPU share */
	uint64_t refused;	/* requests refused (permission, cool-down) */
};

struct agent_reply {
	uint16_t version;	/* AGENT_PROTO_VERSION */
	uint16_t op;		/* the request's op (0 if unreadable) */
	uint32_t seq;		/* the request's seq (0 if unreadable) */
	int32_t status;		/* 0 or -errno */
	uint32_t caps;		/* AGENT_CAP_* */
	int32_t nice_floor;	/* lowest nice the agent sets */
	uint32_t box_max_us;	/* longest box it grants */
	uint64_t box_ns;	/* APPLY/BOOST_PEER: the box granted */
	uint32_t share_ppm;	/* REGISTER: the share granted; else 0 */
	uint32_t reserved;	/* 0 */
	struct agent_stats stats;	/* STATS: filled; else zero */
};

_Static_assert(sizeof(struct agent_req) == 40, "agent_req has no hidden padding");
_Static_assert(sizeof(struct agent_stats) == 32, "agent_stats is 4 counters");
_Static_assert(sizeof(struct agent_reply) == 72, "agent_reply has no hidden padding");

#endif /* COPVM_AGENT_PROTO_H */

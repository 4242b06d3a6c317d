/*
 * gs_proto.h - the conversation between libgpvm3 and the group server.
 *
 * Group state lives in one task, pvmgs, found through a mailbox entry.
 * Every message between a task's library and the server travels in one
 * reserved context, so no user receive can take it and no group message
 * can take a user's.  All bodies are packed with PvmDataDefault (XDR), as
 * the server may later run on a host of another kind.
 *
 * Request (task -> server, GS_TAG_REQ):
 *	int op, int serial, string group, int arg
 * Answer (server -> task, GS_TAG_REPLY):
 *	int serial, <result>
 * Release (server -> every waiter of a barrier or freeze, one pvm_mcast,
 * GS_TAG_RELEASE):
 *	int n, n x (int tid, int serial), <result>
 * where <result> is
 *	int status, int frozen, int nslots, nslots x int tid
 * status is the call's value (instance, tid, size, 0) or an error code;
 * the slot table (tid by instance, 0 for a free instance) is present only
 * for GS_OP_LIST and GS_OP_FREEZE, otherwise nslots is 0.
 *
 * A task that fetched a group's table (GS_OP_LIST) is the group's
 * watcher until its copy goes stale: when the membership changes, the
 * server sends it one GS_TAG_INVAL (string group) and forgets it.  As the
 * server's messages to a task arrive in order, a task released from a
 * barrier has already been told about every change made before it.
 */
#ifndef COPVM_GS_PROTO_H
#define COPVM_GS_PROTO_H

/* Context of all library <-> server traffic.  Contexts handed out by
 * pvm_newcontext() stay below 0x40000000 (a host's tid bits). */
#define GS_CTX			0x7fffff00

/* Mailbox class where the running server leaves a message holding its
 * tid (owner-bound: the entry goes when the server goes). */
#define GS_MBOX			"###_COPVM_GROUP_SERVER_###"

/* Program name the library spawns, and the variable that overrides it
 * with a path (the tests point it at the built server). */
#define GS_PROGRAM		"pvmgs"
#define GS_ENV_PROGRAM		"COPVM_PVMGS"

/* Message tags, all in GS_CTX. */
#define GS_TAG_REQ		1	/* task -> server: a request */
#define GS_TAG_REPLY		2	/* server -> task: its answer */
#define GS_TAG_RELEASE		3	/* server -> waiters: sync done */
#define GS_TAG_INVAL		4	/* server -> watcher: copy stale */
#define GS_TAG_EXIT		5	/* pvmd -> server: a member exited */
#define GS_TAG_SRVEXIT		6	/* pvmd -> task: the server exited */

/* Requests; `arg' is noted where used. */
enum gs_op {
	GS_OP_JOIN = 1,		/* -> instance */
	GS_OP_LEAVE,		/* -> 0 */
	GS_OP_GETINST,		/* arg tid -> instance */
	GS_OP_GETTID,		/* arg instance -> tid */
	GS_OP_GSIZE,		/* -> members */
	GS_OP_BARRIER,		/* arg count (-1: all) -> 0, by release */
	GS_OP_FREEZE,		/* arg size (-1: all) -> size, by release */
	GS_OP_LIST,		/* -> members, with the slot table */
	GS_OP_DUMP,		/* server prints its tables -> 0 */
	GS_OP_MAX
};

#endif /* COPVM_GS_PROTO_H */

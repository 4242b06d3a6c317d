/*
 * soak.h - what the files of bench/soak share: the message tags, the
 * limits, a worker's state towards a peer and the counts each one
 * reports.  soak_msg.c makes, sends and checks the data messages and
 * carries the counts; soak_worker.c is a worker; soak.c is the master.
 */
#ifndef COPVM_SOAK_H
#define COPVM_SOAK_H

#include <stddef.h>
#include <stdint.h>

#define TAG_CONFIG	101
#define TAG_READY	102
#define TAG_DATA	103
#define TAG_ACK		104
#define TAG_FINAL	105
#define TAG_STOP	106
#define TAG_REPORT	107
#define TAG_BYE		108
#define TAG_PROGRESS	109
#define TAG_EXIT	110
#define TAG_HDEL	111

#define MAX_WORKERS	64
#define MAX_LIST	128
#define PATTERN_WORDS	(1 << 17)	/* 1 MiB of 8-byte words */
#define SLACK_WORDS	4096
#define PROGRESS_EVERY	100000
#define MAX_SAMPLES	4096

#define CHILD_ARG	"--soak-worker"

enum kind { K_BYTE, K_INT, K_DOUBLE, K_STR, K_KINDS };

/* The state of one worker towards each peer. */
struct peer {
	int tid;
	int dead;		/* its TaskExit notify came */
	int credit;		/* messages we may still send it */
	int final;		/* its final message came */
	long sent;		/* data messages sent to it */
	long recvd;		/* next sequence number expected from it */
	long since_ack;		/* received since our last ack */
};

struct counts {
	long sent, recvd, bytes, corrupt, lost, dup, badfinal;
	int nexit, exits[MAX_LIST], nhdel, hdels[MAX_LIST];
};

/* soak_msg.c: the data messages and the counts. */
void make_patterns(void);
void add_list(int *list, int *n, int v);
int send_data(struct peer *p, uint64_t *rng, size_t max, char *strbuf,
	      struct counts *c);
void recv_data(struct peer *p, char *buf, int want_ack, struct counts *c);
void pack_counts(const struct counts *c);
void unpack_counts(struct counts *c);

/* soak_worker.c: the worker's whole run; its exit status. */
int soak_worker(void);

#endif /* COPVM_SOAK_H */

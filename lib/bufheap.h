/*
 * bufheap.h - large message bodies that a same-host peer reads where
 * they were packed: this task's export heap, which lends them
 * (bufheap.c), and the peers' heaps it borrows from (bufloan.c).
 *
 * The export heap is a sealed memfd of COPVM_SHM_HEAP_MB MiB (default
 * 64; 0 turns lending off), made when this task first offers a ring.
 * From then on bufcache.c takes every body over PVMI_HEAP_MIN from it,
 * as long as it has room.  A peer that maps the heap (the ring's handshake,
 * transport/shm_setup.c) is sent such a body as its place in the heap
 * (pvmi_heap_lend) instead of its bytes; its message reads the bytes
 * there (pvmi_loan_take), so the unpack is the one copy on its side.
 * When its message lets go of the body (pvmi_buf_free), the borrower
 * writes the loan's generation into the loan's slot, in the heap's first
 * page, the one page it maps writable.  The lender reuses a block once
 * its own message freed it and each loan of it came back or its
 * borrower died.
 */
#ifndef COPVM_BUFHEAP_H
#define COPVM_BUFHEAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bodies larger than this are lent.  From 64 to 512 KiB a ping-pong
 * gains less and a stream loses (docs/results/msg_breakdown.md, "Lent
 * bodies"). */
#define PVMI_HEAP_MIN		(512UL << 10)

/* Slots of outstanding loans in the heap's first page; the blocks
 * follow it. */
#define PVMI_HEAP_SLOTS		256
#define PVMI_HEAP_DATA_OFF	4096UL

struct pvmi_heap_slot {
	uint32_t done;		/* the generation given back: borrower */
	uint32_t pad[3];
};

/* What a lending record names: `len' bytes at `off' from the start of
 * the heap's blocks, lent under `slot' and `gen'. */
struct pvmi_heap_ref {
	uint64_t off;
	uint64_t len;
	uint32_t slot;
	uint32_t gen;
};

/* ---- the lender (bufheap.c) ---- */

/* This task's export heap's memfd, made on the first call; -1 when
 * lending is off (COPVM_SHM_HEAP_MB=0) or the heap cannot be made (or
 * this process is a fork of the one that made it).  Still owned here. */
int pvmi_heap_fd(void);
/* A block of at least `n' bytes in the export heap, or NULL: no heap
 * yet, no room, or a fork's inherited heap. */
void *pvmi_heap_alloc(size_t n);
/* Gives back block `p' if it is the heap's: 1 (reused once its loans
 * are back), or 0 when `p' is not the heap's. */
int pvmi_heap_free(void *p);
/* Lends the `len' bytes at `p' to process `pid' over circuit `who': 0
 * with *ref filled, or -1 when they are not inside one block of the
 * heap, no slot is free, or two loans or more are out over `who' and
 * would pass `cap' bytes with this one.  The cap keeps a sender from
 * running further ahead of its receiver than a ring would let it: what
 * it packs far ahead has left the caches when it is read.  Two loans
 * are free of it: a receiver keeps its last message until the next. */
int pvmi_heap_lend(const void *p, size_t len, pid_t pid, const void *who,
		   size_t cap, struct pvmi_heap_ref *ref);
/* Takes back a loan whose record was never sent (the ring was full). */
void pvmi_heap_unlend(const struct pvmi_heap_ref *ref);
/* Loans outstanding, after collecting those given back. */
int pvmi_heap_lent(void);
/* Bodies lent so far. */
unsigned long pvmi_heap_lends(void);
/* The task leaves: the heap is closed and unmapped when no block of it
 * is in use (after collecting the loans of dead borrowers); else it
 * stays until the process ends.  A later offer makes a new one. */
void pvmi_heap_release(void);
/* Hands the free parts of the heap back to the kernel (idle). */
void pvmi_heap_trim(void);
/* Registers, once, the fork handlers of the lender and the borrower
 * (the child's private copies); 0, or -1 when it cannot. */
int pvmi_heap_fork_hooks(void);

/* ---- the borrower (bufloan.c) ---- */

struct pvmi_heap_map;

/* Loans held now; pvmi_buf_free asks pvmi_loan_end only when some are. */
extern int pvmi_loans_live;

/* Maps the heap memfd `fd' of a peer (sealed against shrinking, at
 * least one block's page past the slots); NULL when it cannot.  The fd
 * stays the caller's. */
struct pvmi_heap_map *pvmi_loan_map(int fd);
/* The circuit lets go of `m'; it is unmapped once no loan of it is
 * held (NULL is ignored). */
void pvmi_loan_unmap(struct pvmi_heap_map *m);
/* The body `ref' names in `m', held as a loan until pvmi_buf_free; NULL
 * when `ref' lies outside the heap (the sender broke the protocol) or
 * out of memory. */
unsigned char *pvmi_loan_take(struct pvmi_heap_map *m,
			      const struct pvmi_heap_ref *ref);
/* Gives loan `p' back: 1, or 0 when `p' is no loan. */
int pvmi_loan_end(const void *p);
/* The length of loan `p', or 0 when `p' is no loan. */
size_t pvmi_loan_len(const void *p);
/* In a forked child (bufheap.c's fork handler): the loans become the
 * child's private copies, never given back (its parent gives back its
 * own). */
void pvmi_loan_forked(void);

#endif /* COPVM_BUFHEAP_H */

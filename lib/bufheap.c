/*
 * bufheap.c - this task's export heap (bufheap.h): a sealed memfd whose
 * blocks hold the bodies above PVMI_HEAP_MIN, lent to same-host peers
 * that read them in place.
 *
 * The memfd is one page of loan slots, then COPVM_SHM_HEAP_MB MiB of
 * blocks, sparse until touched.  Blocks are page-rounded and first-fit
 * in a sorted table of at most BLOCKS_MAX; a body that does not fit
 * comes from bufcache.c's pools and kept blocks as before, and is sent
 * through the ring.  A block lives while its owner (a message's fragment) holds it
 * or a loan of it is out.  A loan is out from pvmi_heap_lend until the
 * borrower writes its generation into the slot (bufloan.c), or, when
 * the heap runs short, until its borrower is found dead.  A borrower
 * that keeps a message for good keeps its block: the heap then fills,
 * and bodies go through the ring again.
 *
 * A fork's child must neither see its parent write into blocks it
 * inherited, nor give back loans that are its parent's: the fork
 * handler copies the blocks in use (and bufloan.c the loans held) into
 * private memory at the same addresses, while the parent waits, and the
 * child never lends from the inherited heap.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bufheap.h"
#include "task_state.h"

#define HEAP_MB_DEFAULT	64
#define HEAP_MB_MAX	4096
#define BLOCKS_MAX	256
#define DEAD_EVERY_MS	10
#define DEAD_NOW	2	/* collect(): look for dead borrowers now */
/* Loans over one circuit that its cap does not bound: a receiver keeps
 * the message it received last until the next one comes, so a
 * ping-pong holds two. */
#define LENDS_FREE	2
#define PAGE		4096UL
#define SEALS		(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

struct block {
	size_t off;		/* from the start of the blocks */
	size_t len;		/* page-rounded */
	int owned;		/* a buffer still holds it */
	int lends;		/* loans of it out */
};

struct loan_slot {
	int busy;
	uint32_t gen;
	size_t off;		/* the block lent */
	size_t len;		/* the bytes lent */
	pid_t pid;		/* the borrower */
	const void *who;	/* its circuit */
};

static struct {
	int state;		/* 0 not tried, 1 made, -1 off or failed */
	int fd;
	pid_t pid;		/* the process that made it */
	unsigned char *map;	/* the whole memfd */
	unsigned char *data;	/* its blocks */
	size_t size;		/* bytes of blocks */
	struct pvmi_heap_slot *shared;	/* the slot page */
	struct block blk[BLOCKS_MAX];
	int nblk;
	struct loan_slot slot[PVMI_HEAP_SLOTS];
	int nlent;
	unsigned long lends;
	long dead_checked;	/* when borrowers were last looked for */
} heap = { .fd = -1 };

static char lock;

static void lock_heap(void)
{
	while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE))
		;
}

static void unlock_heap(void)
{
	__atomic_clear(&lock, __ATOMIC_RELEASE);
}

/* The heap's size from COPVM_SHM_HEAP_MB, in bytes; 0: off. */
static size_t heap_bytes(void)
{
	const char *e = getenv("COPVM_SHM_HEAP_MB");
	long mb = HEAP_MB_DEFAULT;

	if (e && *e)
		mb = atol(e);
	if (mb <= 0)
		return 0;
	if (mb > HEAP_MB_MAX)
		mb = HEAP_MB_MAX;
	return (size_t)mb << 20;
}

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
static int hooks_rc = -1;

static void hooks_register(void)
{
	hooks_rc = pthread_atfork(fork_prepare, fork_parent, fork_child) ?
			   -1 : 0;
}

/* Registers the fork handlers once (bufheap.h). */
int pvmi_heap_fork_hooks(void)
{
	pthread_once(&hooks_once, hooks_register);
	return hooks_rc;
}

/* Makes the memfd and maps it; lock held. */
static void heap_make(void)
{
	size_t size = heap_bytes();
	void *m;
	int fd;

	heap.state = -1;
	if (!size)
		return;
	fd = memfd_create("copvm-heap", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return;
	if (ftruncate(fd, (off_t)(PVMI_HEAP_DATA_OFF + size)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
		close(fd);
		return;
	}
	m = mmap(NULL, PVMI_HEAP_DATA_OFF + size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return;
	}
	if (pvmi_heap_fork_hooks() < 0) {
		munmap(m, PVMI_HEAP_DATA_OFF + size);
		close(fd);
		return;
	}
	heap.fd = fd;
	heap.pid = pvmi_self_pid();
	heap.map = m;
	heap.shared = m;
	heap.data = (unsigned char *)m + PVMI_HEAP_DATA_OFF;
	heap.size = size;
	heap.state = 1;
}

/* The export heap's memfd (bufheap.h). */
int pvmi_heap_fd(void)
{
	int fd;

	lock_heap();
	if (heap.state == 0)
		heap_make();
	fd = heap.state > 0 && heap.pid == pvmi_self_pid() ? heap.fd : -1;
	unlock_heap();
	return fd;
}

/* The block starting at `off', or -1; lock held. */
static int block_at(size_t off)
{
	int lo = 0, hi = heap.nblk - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (heap.blk[mid].off == off)
			return mid;
		if (heap.blk[mid].off < off)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The block holding byte `off', or -1; lock held. */
static int block_holding(size_t off)
{
	int i;

	for (i = 0; i < heap.nblk; i++)
		if (off >= heap.blk[i].off &&
		    off - heap.blk[i].off < heap.blk[i].len)
			return i;
	return -1;
}

/* Drops block `i' once nothing holds it; lock held. */
static void block_settle(int i)
{
	if (heap.blk[i].owned || heap.blk[i].lends)
		return;
	memmove(heap.blk + i, heap.blk + i + 1,
		(heap.nblk - i - 1) * sizeof(heap.blk[0]));
	heap.nblk--;
}

/* Ends the loan in slot `s'; lock held. */
static void slot_end(int s)
{
	int i = block_at(heap.slot[s].off);

	heap.slot[s].busy = 0;
	heap.nlent--;
	if (i >= 0) {
		heap.blk[i].lends--;
		block_settle(i);
	}
}

/* The coarse monotonic clock in ms (a vDSO read). */
static long coarse_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Ends the loans given back, and with `dead' those whose borrower is
 * gone: a kill() each, so at most every DEAD_EVERY_MS unless `dead' is
 * DEAD_NOW; lock held. */
static void collect(int dead)
{
	long now;
	int s;

	if (dead == 1) {
		now = coarse_ms();
		if (now - heap.dead_checked < DEAD_EVERY_MS)
			dead = 0;
		else
			heap.dead_checked = now;
	}
	for (s = 0; s < PVMI_HEAP_SLOTS && heap.nlent; s++) {
		if (!heap.slot[s].busy)
			continue;
		if (__atomic_load_n(&heap.shared[s].done, __ATOMIC_ACQUIRE) ==
			    heap.slot[s].gen ||
		    (dead && kill(heap.slot[s].pid, 0) < 0 && errno == ESRCH))
			slot_end(s);
	}
}

/* First fit of `len' bytes: the index to insert at, *off set; -1 when
 * no gap holds it; lock held. */
static int fit(size_t len, size_t *off)
{
	size_t at = 0;
	int i;

	if (heap.nblk == BLOCKS_MAX)
		return -1;
	for (i = 0; i < heap.nblk; i++) {
		if (heap.blk[i].off - at >= len)
			break;
		at = heap.blk[i].off + heap.blk[i].len;
	}
	if (i == heap.nblk && heap.size - at < len)
		return -1;
	*off = at;
	return i;
}

/* A block of at least `n' bytes (bufheap.h). */
void *pvmi_heap_alloc(size_t n)
{
	size_t len = (n + PAGE - 1) & ~(PAGE - 1), off;
	int i;

	if (heap.state <= 0 || n == 0 || n > heap.size)
		return NULL;
	lock_heap();
	if (heap.pid != pvmi_self_pid()) {
		unlock_heap();
		return NULL;
	}
	collect(0);
	i = fit(len, &off);
	if (i < 0) {
		collect(1);
		i = fit(len, &off);
	}
	if (i < 0) {
		unlock_heap();
		return NULL;
	}
	memmove(heap.blk + i + 1, heap.blk + i,
		(heap.nblk - i) * sizeof(heap.blk[0]));
	heap.blk[i] = (struct block){ .off = off, .len = len, .owned = 1 };
	heap.nblk++;
	unlock_heap();
	return heap.data + off;
}

/* Gives back block `p' if it is the heap's (bufheap.h). */
int pvmi_heap_free(void *p)
{
	unsigned char *b = p;
	int i;

	if (heap.state <= 0 || b < heap.data || b >= heap.data + heap.size)
		return 0;
	lock_heap();
	i = block_holding((size_t)(b - heap.data));
	if (i >= 0) {
		heap.blk[i].owned = 0;
		block_settle(i);
	}
	unlock_heap();
	return 1;
}

/* Whether a loan of `len' more bytes over circuit `who' stays within
 * `cap' (bufheap.h); lock held. */
static int within_cap(const void *who, size_t len, size_t cap)
{
	size_t bytes = len;
	int s, n = 0;

	for (s = 0; s < PVMI_HEAP_SLOTS && heap.nlent; s++)
		if (heap.slot[s].busy && heap.slot[s].who == who) {
			bytes += heap.slot[s].len;
			n++;
		}
	return n < LENDS_FREE || bytes <= cap;
}

/* Lends `len' bytes at `p' to `pid' over `who' (bufheap.h). */
int pvmi_heap_lend(const void *p, size_t len, pid_t pid, const void *who,
		   size_t cap, struct pvmi_heap_ref *ref)
{
	const unsigned char *b = p;
	size_t off;
	int i, s;

	if (heap.state <= 0 || b < heap.data || b >= heap.data + heap.size)
		return -1;
	off = (size_t)(b - heap.data);
	lock_heap();
	i = heap.pid == pvmi_self_pid() ? block_holding(off) : -1;
	if (i < 0 || len > heap.blk[i].off + heap.blk[i].len - off) {
		unlock_heap();
		return -1;
	}
	if (!within_cap(who, len, cap) || heap.nlent == PVMI_HEAP_SLOTS)
		collect(0);
	for (s = 0; s < PVMI_HEAP_SLOTS && heap.slot[s].busy; s++)
		;
	if (s == PVMI_HEAP_SLOTS || !within_cap(who, len, cap)) {
		unlock_heap();
		return -1;
	}
	heap.slot[s].busy = 1;
	if (++heap.slot[s].gen == 0)
		heap.slot[s].gen = 1;
	heap.slot[s].off = heap.blk[i].off;
	heap.slot[s].len = len;
	heap.slot[s].pid = pid;
	heap.slot[s].who = who;
	heap.blk[i].lends++;
	heap.nlent++;
	heap.lends++;
	ref->off = off;
	ref->len = len;
	ref->slot = (uint32_t)s;
	ref->gen = heap.slot[s].gen;
	unlock_heap();
	return 0;
}

/* Takes back a loan never sent (bufheap.h). */
void pvmi_heap_unlend(const struct pvmi_heap_ref *ref)
{
	lock_heap();
	if (ref->slot < PVMI_HEAP_SLOTS && heap.slot[ref->slot].busy &&
	    heap.slot[ref->slot].gen == ref->gen) {
		slot_end((int)ref->slot);
		heap.lends--;
	}
	unlock_heap();
}

/* Loans outstanding (bufheap.h). */
int pvmi_heap_lent(void)
{
	int n;

	lock_heap();
	collect(0);
	n = heap.nlent;
	unlock_heap();
	return n;
}

/* Bodies lent so far (bufheap.h). */
unsigned long pvmi_heap_lends(void)
{
	return __atomic_load_n(&heap.lends, __ATOMIC_RELAXED);
}

/* Closes an idle heap as the task leaves (bufheap.h). */
void pvmi_heap_release(void)
{
	lock_heap();
	if (heap.state > 0 && heap.pid == pvmi_self_pid()) {
		collect(DEAD_NOW);
		if (heap.nblk == 0) {
			unsigned long lends = heap.lends;

			munmap(heap.map, PVMI_HEAP_DATA_OFF + heap.size);
			close(heap.fd);
			memset(&heap, 0, sizeof(heap));
			heap.fd = -1;
			heap.lends = lends;
		}
	}
	unlock_heap();
}

/* The free parts of the heap back to the kernel (bufheap.h). */
void pvmi_heap_trim(void)
{
	size_t at = 0, end;
	int i;

	lock_heap();
	if (heap.state > 0 && heap.pid == pvmi_self_pid()) {
		collect(0);
		for (i = 0; i <= heap.nblk; i++) {
			end = i < heap.nblk ? heap.blk[i].off : heap.size;
			if (end > at)
				fallocate(heap.fd, FALLOC_FL_PUNCH_HOLE |
					  FALLOC_FL_KEEP_SIZE,
					  (off_t)(PVMI_HEAP_DATA_OFF + at),
					  (off_t)(end - at));
			if (i < heap.nblk)
				at = heap.blk[i].off + heap.blk[i].len;
		}
	}
	unlock_heap();
}

/* ---- fork ---- */

static int fork_sync[2] = { -1, -1 };

/* Before a fork: when the heap has blocks in use or loans are held, a
 * pipe on which the parent waits until the child has made its copies. */
static void fork_prepare(void)
{
	lock_heap();
	if ((heap.nblk || pvmi_loans_live) &&
	    pipe2(fork_sync, O_CLOEXEC) < 0)
		fork_sync[0] = fork_sync[1] = -1;
	/* the lock stays held across the fork: released in both */
}

static void fork_parent(void)
{
	char c;

	unlock_heap();
	if (fork_sync[0] < 0)
		return;
	close(fork_sync[1]);
	while (read(fork_sync[0], &c, 1) < 0 && errno == EINTR)
		;
	close(fork_sync[0]);
	fork_sync[0] = fork_sync[1] = -1;
}

/* Puts private memory under the blocks in use, with their bytes. */
static void privatize_blocks(void)
{
	size_t used = 0, at;
	unsigned char *tmp = NULL;
	void *m;
	int i;

	for (i = 0; i < heap.nblk; i++)
		used += heap.blk[i].len;
	if (used) {
		tmp = mmap(NULL, used, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tmp == MAP_FAILED)
			return;	/* out of memory: the blocks stay shared */
	}
	for (i = 0, at = 0; i < heap.nblk; at += heap.blk[i].len, i++)
		memcpy(tmp + at, heap.data + heap.blk[i].off, heap.blk[i].len);
	m = mmap(heap.map, PVMI_HEAP_DATA_OFF + heap.size,
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0);
	if (m != MAP_FAILED)
		for (i = 0, at = 0; i < heap.nblk; at += heap.blk[i].len, i++)
			memcpy(heap.data + heap.blk[i].off, tmp + at,
			       heap.blk[i].len);
	if (tmp)
		munmap(tmp, used);
}

/* In the child: its own copies of the blocks and the loans, and no
 * lending from its parent's heap. */
static void fork_child(void)
{
	char c = 0;
	int i;

	if (heap.state > 0) {
		privatize_blocks();
		close(heap.fd);
		heap.fd = -1;
		heap.nlent = 0;
		memset(heap.slot, 0, sizeof(heap.slot));
		/* its parent's loans are its parent's to collect */
		for (i = heap.nblk - 1; i >= 0; i--) {
			heap.blk[i].lends = 0;
			block_settle(i);
		}
	}
	pvmi_loan_forked();
	unlock_heap();
	if (fork_sync[1] >= 0) {
		while (write(fork_sync[1], &c, 1) < 0 && errno == EINTR)
			;
		close(fork_sync[1]);
		close(fork_sync[0]);
		fork_sync[0] = fork_sync[1] = -1;
	}
}

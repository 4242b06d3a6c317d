/*
 * bufcache.c - the one owner of message body memory, and its packet
 * buffer pools (virtual circuit caching, VCC).
 *
 * Every body buffer comes from a size class: powers of two from
 * 256 B to 2 MiB of usable bytes.  A
 * buffer given back goes into its class's pool instead of to the heap,
 * and the next request of that class takes it again: in steady state a
 * message whose body is up to 2 MiB (a 1 MiB payload with its item
 * headers) is packed, sent, received and unpacked with no malloc or
 * free.  The pools are bounded: at most BUF_POOL_MAX buffers per
 * class up to 64 KiB (16), BUF_POOL_MAX_BIG above (4), and
 * BUF_CACHE_MAX_BYTES (16 MiB) cached in the whole process; a buffer that
 * would pass a bound goes back to the heap.  A body above 2 MiB is a
 * plain heap block, grown with realloc; the last BUF_LARGE_KEEP (2) of
 * those given back, up to BUF_LARGE_MAX_BYTES (64 MiB) together, are
 * kept for the next body that fits in one.  Freed to glibc, a block that
 * large goes back to the kernel, and the next message's faulted in every
 * page anew: at 4 MiB that was about 600 page faults a round trip in
 * each task, and keeping two blocks took 18 % off that round trip
 * (docs/results/msg_breakdown.md, "Bodies above 2 MiB").
 *
 * Once the task has offered a ring, a body above PVMI_HEAP_MIN (512 KiB)
 * comes from its export heap instead (bufheap.h), where a peer of this
 * host reads it in place; the pools and the kept blocks serve such a
 * body only when the heap is full or lending is off.  The idle sweep
 * also hands the heap's free parts back to the kernel.
 *
 * Pools shrink when idle, with no timer and no thread: every allocation
 * reads the coarse monotonic clock (a vDSO read), and when a whole idle
 * interval (COPVM_VCC_IDLE_MS, default 1000 ms) has passed since the last
 * sweep, every class not used during that interval is emptied, and the
 * kept heap blocks when no body above the classes was asked for.  A task
 * that stops communicating keeps at most the bound above until its next
 * message.
 *
 * COPVM_VCC=0 turns the pools off (every buffer is a heap block, as
 * before VCC), for the on/off comparison; the message layer (msg.c) and
 * the circuits (route.c) ask pvmi_vcc_enabled() for the same switch.
 *
 * Every buffer carries a small header in front of it naming its class.
 * A pooled buffer's body starts on a cache line (BUF_ALIGN): reused, it
 * keeps its address, and memcpy's `rep movsb' on this machine's AMD CPU
 * ran 2-3x slower at some offsets (16-20 KB round trips 8-15 us instead
 * of 5 with VCC on, docs/results/vcc_precomm.txt, session 8).  A plain
 * heap block (class BUF_LARGE, and every buffer with VCC off) is a
 * malloc block with the header first, grown with realloc.
 * The pools and the counters are guarded by a spin lock (the counters
 * are read atomically), so a buffer may be freed on another thread than
 * the one that made it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bufcache.h"
#include "bufheap.h"

#define BUF_MIN_SHIFT		8	/* 256 B */
#define BUF_MAX_SHIFT		21	/* 2 MiB */
#define BUF_NCLASS		(BUF_MAX_SHIFT - BUF_MIN_SHIFT + 1)
#define BUF_BIG_SHIFT		16	/* classes above 64 KiB keep fewer */
#define BUF_POOL_MAX		PVMI_BUF_POOL_MAX
#define BUF_POOL_MAX_BIG	4
#define BUF_CACHE_MAX_BYTES	(16L << 20)
#define BUF_IDLE_MS_DEFAULT	1000
#define BUF_LARGE		0xffu	/* class of a plain heap block */
#define BUF_SHARED		0xfeu	/* class of an export heap block */
#define BUF_LARGE_KEEP		2	/* plain heap blocks kept for reuse */
#define BUF_LARGE_MAX_BYTES	(64L << 20)	/* their bytes, at most */
#define BUF_MAGIC		0x42554643u	/* "BUFC" */
#define BUF_ALIGN		64	/* a pooled body's alignment */

/* In front of every buffer; 16 bytes keep the body aligned. */
struct bufhdr {
	uint32_t magic;
	uint32_t cls;			/* class index, or BUF_LARGE */
	uint64_t cap;			/* usable bytes */
};

struct pool {
	struct bufhdr *free[BUF_POOL_MAX];
	int n;
	int max;		/* buffers it keeps at most */
	long last_use;
};

/* Buffers handed out and given back: live ones are the difference, so
 * that each call counts once. */
static unsigned long allocs;
static unsigned long frees;
static unsigned long heap_allocs;

static struct pool pools[BUF_NCLASS] = {
	[0 ... BUF_BIG_SHIFT - BUF_MIN_SHIFT] = { .max = BUF_POOL_MAX },
	[BUF_BIG_SHIFT - BUF_MIN_SHIFT + 1 ... BUF_NCLASS - 1] =
		{ .max = BUF_POOL_MAX_BIG },
};
/* Plain heap blocks given back, for the next body above the classes:
 * the kernel would otherwise fault in every page of a fresh block at
 * each message (glibc hands blocks this large back to it). */
static struct {
	struct bufhdr *free[BUF_LARGE_KEEP];
	int n;
	long bytes;
	long last_use;
} large;
static long cached_bytes;
static long last_sweep;
/* The export heap's blocks were used since its last trim. */
static int heap_used;
static char lock;
static int configured;
static int enabled = 1;
/* configured && enabled: the one test of the short paths */
static int pooling;
static long idle_ns = BUF_IDLE_MS_DEFAULT * 1000000L;	/* the interval */

/* Adds `d' to counter `c' with the lock held: no other writer runs, so
 * a plain load and store do, where an atomic add per buffer would cost
 * a locked instruction more (readers load it atomically). */
#define COUNT(c, d) __atomic_store_n(&(c), \
		__atomic_load_n(&(c), __ATOMIC_RELAXED) + (d), __ATOMIC_RELAXED)

static void lock_pools(void)
{
	while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE))
		;
}

static void unlock_pools(void)
{
	__atomic_clear(&lock, __ATOMIC_RELEASE);
}

/* The coarse monotonic clock in ns: no division, for every allocation. */
static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Reads COPVM_VCC and COPVM_VCC_IDLE_MS (configure() once). */
static void read_settings(void)
{
	const char *s;

	s = getenv("COPVM_VCC");
	if (s && *s && atoi(s) == 0 && s[0] == '0')
		enabled = 0;
	s = getenv("COPVM_VCC_IDLE_MS");
	if (s && *s && atol(s) > 0)
		idle_ns = atol(s) * 1000000L;
	configured = 1;
	pooling = enabled;
}

/* Reads the settings the first time (inline: every buffer asks). */
static inline void configure(void)
{
	if (!configured)
		read_settings();
}

/* VCC on (the pools and the other caches are used) (bufcache.h). */
int pvmi_vcc_enabled(void)
{
	configure();
	return enabled;
}

/* Sets the switch and the idle interval, for tests (bufcache.h). */
void pvmi_bufcache_setup(int on, long idle)
{
	configured = 1;
	enabled = on;
	pooling = on;
	idle_ns = (idle > 0 ? idle : BUF_IDLE_MS_DEFAULT) * 1000000L;
	pvmi_bufcache_trim();
}


/* The class holding `n' usable bytes, or BUF_LARGE: the power of two
 * at or above n, counted from the smallest class. */
static unsigned class_of(size_t n)
{
	if (n > (1UL << BUF_MAX_SHIFT))
		return BUF_LARGE;
	if (n <= (1UL << BUF_MIN_SHIFT))
		return 0;
	return (unsigned)(64 - __builtin_clzll((unsigned long long)n - 1)) -
	       BUF_MIN_SHIFT;
}

/* Frees the memory of buffer `h' (NULL is ignored). */
static void block_free(struct bufhdr *h)
{
	if (h && h->cls == BUF_SHARED)
		pvmi_heap_free(h);
	else if (h && h->cls != BUF_LARGE)
		free((char *)(h + 1) - BUF_ALIGN);
	else
		free(h);
}

/* Empties pool `p' into the heap; the lock is held. */
static void pool_empty(struct pool *p, int cls)
{
	while (p->n > 0) {
		block_free(p->free[--p->n]);
		cached_bytes -= 1L << (cls + BUF_MIN_SHIFT);
	}
}

/* Empties the kept heap blocks into the heap; the lock is held. */
static void large_empty(void)
{
	while (large.n > 0)
		free(large.free[--large.n]);
	large.bytes = 0;
}

/* Takes a pooled buffer of class `cls', or NULL, marking the class used
 * at `now'; the lock is held. */
static struct bufhdr *pool_take(unsigned cls, long now)
{
	struct pool *p = &pools[cls];

	p->last_use = now;
	if (p->n == 0)
		return NULL;
	/* a pooled buffer's cap is its class's size: its header's line is
	 * left for whoever needs it */
	cached_bytes -= 1L << (cls + BUF_MIN_SHIFT);
	return p->free[--p->n];
}

/* Keeps buffer `h' of a class in its pool when the pool and the cache's
 * bytes have room: 1 when kept; the lock is held. */
static int pool_keep(struct bufhdr *h)
{
	struct pool *p = &pools[h->cls];

	if (p->n >= p->max ||
	    cached_bytes + (long)h->cap > BUF_CACHE_MAX_BYTES)
		return 0;
	p->free[p->n++] = h;
	cached_bytes += (long)h->cap;
	return 1;
}

/* Takes the smallest kept heap block of at least `n' usable bytes, or
 * NULL, marking the kept blocks used at `now'; the lock is held. */
static struct bufhdr *large_take(size_t n, long now)
{
	struct bufhdr *h;
	int i, best = -1;

	large.last_use = now;
	for (i = 0; i < large.n; i++)
		if (large.free[i]->cap >= n &&
		    (best < 0 || large.free[i]->cap < large.free[best]->cap))
			best = i;
	if (best < 0)
		return NULL;
	h = large.free[best];
	large.free[best] = large.free[--large.n];
	large.bytes -= (long)h->cap;
	return h;
}

/* Empties the classes not used for an idle interval; lock held.
 * Returns 1 when the export heap is to be trimmed too (outside the
 * lock: that is a system call per free part). */
static int sweep(long now)
{
	int i, trim = 0;

	if (now - last_sweep < idle_ns)
		return 0;
	for (i = 0; i < BUF_NCLASS; i++)
		if (now - pools[i].last_use >= idle_ns)
			pool_empty(&pools[i], i);
	if (now - large.last_use >= idle_ns) {
		large_empty();
		trim = heap_used;
		heap_used = 0;
	}
	last_sweep = now;
	return trim;
}

static struct bufhdr *heap_block(unsigned cls, size_t n)
{
	size_t cap = cls == BUF_LARGE ? n : 1UL << (cls + BUF_MIN_SHIFT);
	struct bufhdr *h;
	void *b;

	if (cls == BUF_LARGE) {
		h = malloc(sizeof(*h) + cap);
	} else if (posix_memalign(&b, BUF_ALIGN, BUF_ALIGN + cap) == 0) {
		h = (struct bufhdr *)((char *)b + BUF_ALIGN) - 1;
	} else {
		h = NULL;
	}
	if (!h)
		return NULL;
	h->magic = BUF_MAGIC;
	h->cls = cls;
	h->cap = cap;
	return h;
}

/* pvmi_buf_alloc() past its short path: a loan of the export heap, a
 * kept heap block, an idle sweep, or a new block. */
static __attribute__((noinline)) void *buf_alloc_slow(size_t n)
{
	unsigned cls = class_of(n);
	struct bufhdr *h = NULL;

	configure();
	if (enabled && n > PVMI_HEAP_MIN &&
	    (h = pvmi_heap_alloc(BUF_ALIGN + n)) != NULL) {
		/* a body a peer may read in place (bufheap.h), on a cache
		 * line as a pooled one */
		h = (struct bufhdr *)((char *)h + BUF_ALIGN) - 1;
		h->magic = BUF_MAGIC;
		h->cls = BUF_SHARED;
		h->cap = n;
		lock_pools();
		large.last_use = now_ns();
		heap_used = 1;
		COUNT(allocs, 1);
		unlock_pools();
		return h + 1;
	}
	if (enabled) {
		long now = now_ns();
		int trim;

		lock_pools();
		trim = sweep(now);
		h = cls == BUF_LARGE ? large_take(n, now) : pool_take(cls, now);
		if (h) {
			COUNT(allocs, 1);
		}
		unlock_pools();
		if (trim)
			pvmi_heap_trim();
		if (h)
			return h + 1;
	}
	if (!(h = heap_block(enabled ? cls : BUF_LARGE, n)))
		return NULL;
	lock_pools();
	COUNT(heap_allocs, 1);
	COUNT(allocs, 1);
	unlock_pools();
	return h + 1;
}

/* A body buffer of at least `n' bytes (bufcache.h).  The short path:
 * pools on, a body no export heap would take, its class's pool not
 * empty and no sweep due; the clock is still read, for the sweep. */
void *pvmi_buf_alloc(size_t n)
{
	struct bufhdr *h;
	long now;

	if (pooling && n <= PVMI_HEAP_MIN) {
		now = now_ns();
		lock_pools();
		if (now - last_sweep < idle_ns &&
		    (h = pool_take(class_of(n), now))) {
			COUNT(allocs, 1);
			unlock_pools();
			return h + 1;
		}
		unlock_pools();
	}
	return buf_alloc_slow(n);
}

static struct bufhdr *hdr_of(void *p)
{
	return (struct bufhdr *)p - 1;
}

/* Usable bytes of body buffer `p' (bufcache.h): a loan's own length,
 * never more, so that a pack onto it moves it into a buffer of ours. */
size_t pvmi_buf_cap(void *p)
{
	if (!p)
		return 0;
	if (pvmi_loans_live) {
		size_t n = pvmi_loan_len(p);

		if (n)
			return n;
	}
	return hdr_of(p)->cap;
}

/* Gives a buffer to its pool, or to the heap past a bound. */
static void release(struct bufhdr *h)
{
	lock_pools();
	COUNT(frees, 1);
	if (h->cls == BUF_SHARED) {
		/* the export heap keeps it while a loan of it is out */
	} else if (enabled && h->cls != BUF_LARGE) {
		if (pool_keep(h))
			h = NULL;
	} else if (enabled && large.n < BUF_LARGE_KEEP &&
		   large.bytes + (long)h->cap <= BUF_LARGE_MAX_BYTES) {
		large.free[large.n++] = h;
		large.bytes += (long)h->cap;
		h = NULL;
	}
	unlock_pools();
	if (h)		/* not kept */
		block_free(h);
}

/* Resizes body buffer `p', or makes one (bufcache.h). */
void *pvmi_buf_realloc(void *p, size_t n)
{
	struct bufhdr *h;
	size_t len;
	void *q;

	if (!p)
		return pvmi_buf_alloc(n);
	if (pvmi_loans_live && (len = pvmi_loan_len(p)) != 0) {
		/* a peer's body, read-only: ours from now on */
		q = pvmi_buf_alloc(n > len ? n : len);
		if (!q)
			return NULL;
		memcpy(q, p, len);
		pvmi_loan_end(p);
		return q;
	}
	h = hdr_of(p);
	if (n <= h->cap)
		return p;
	if (h->cls == BUF_LARGE && (!enabled || class_of(n) == BUF_LARGE)) {
		h = realloc(h, sizeof(*h) + n);
		if (!h)
			return NULL;
		h->cap = n;
		return h + 1;
	}
	q = pvmi_buf_alloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, h->cap);
	lock_pools();
	/* the move is no allocation, nor is its free below one */
	COUNT(allocs, -1);
	COUNT(frees, -1);
	unlock_pools();
	pvmi_buf_free(p);
	return q;
}

/* The first body buffer of a `len'-byte frame (bufcache.h). */
void *pvmi_buf_body_start(size_t len, size_t have)
{
	size_t n = have > PVMI_BODY_EAGER ? have : PVMI_BODY_EAGER;

	return pvmi_buf_alloc(n < len ? n : len);
}

/* Room for `want' more bytes in a frame's body (bufcache.h). */
void *pvmi_buf_body_room(void *p, size_t got, size_t want, size_t len)
{
	size_t cap = pvmi_buf_cap(p), n;

	if (got + want <= cap)
		return p;
	n = cap * 2 > got + want ? cap * 2 : got + want;
	return pvmi_buf_realloc(p, n < len ? n : len);
}

/* Gives body buffer `p' back (bufcache.h). */
void pvmi_buf_free(void *p)
{
	struct bufhdr *h;

	if (!p)
		return;
	if (pvmi_loans_live && pvmi_loan_end(p))
		return;
	h = hdr_of(p);
	/* the short path: into its pool, within the bounds */
	if (pooling && h->cls < BUF_NCLASS) {
		lock_pools();
		if (pool_keep(h)) {
			COUNT(frees, 1);
			unlock_pools();
			return;
		}
		unlock_pools();
	}
	release(h);
}

/* Empties every pool into the heap (bufcache.h). */
void pvmi_bufcache_trim(void)
{
	int i;

	lock_pools();
	for (i = 0; i < BUF_NCLASS; i++)
		pool_empty(&pools[i], i);
	large_empty();
	unlock_pools();
}

/* Bytes cached in the pools and the kept heap blocks (bufcache.h). */
long pvmi_bufcache_bytes(void)
{
	long n;

	lock_pools();
	n = cached_bytes + large.bytes;
	unlock_pools();
	return n;
}

/* Body buffers not given back (bufcache.h). */
long pvmi_buf_live(void)
{
	return (long)(__atomic_load_n(&allocs, __ATOMIC_RELAXED) -
		      __atomic_load_n(&frees, __ATOMIC_RELAXED));
}

/* Body buffers handed out so far (bufcache.h). */
unsigned long pvmi_buf_allocs(void)
{
	return __atomic_load_n(&allocs, __ATOMIC_RELAXED);
}

/* Body buffers that came from the heap (bufcache.h). */
unsigned long pvmi_buf_heap_allocs(void)
{
	return __atomic_load_n(&heap_allocs, __ATOMIC_RELAXED);
}

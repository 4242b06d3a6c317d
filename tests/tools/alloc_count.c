/*
 * alloc_count.c - a preloadable allocation counter for tests and
 * benchmarks (LD_PRELOAD=.../alloc_count.so): it wraps malloc, calloc,
 * realloc, free, posix_memalign and aligned_alloc, passes each call to
 * glibc's own allocator, and counts the calls that allocate.  A program
 * reads the count through alloc_count_calls(), found with dlsym(), so it
 * runs unchanged without the interposer.  A test may also arm
 * alloc_count_fail_realloc() to see how code copes when one given
 * realloc fails with ENOMEM.  Built for checks only.
 */
#include <errno.h>
#include <stddef.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);
void *__libc_memalign(size_t align, size_t n);

static unsigned long calls;
/* The armed realloc failure: its pointer and size, how many are left,
 * and how many were delivered. */
static void *fail_p;
static size_t fail_size;
static unsigned fail_left;
static unsigned long failed;

/* Calls of malloc, calloc, realloc and the aligned allocators so far. */
unsigned long alloc_count_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

static void count(void)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

/* Makes the next `n' calls of realloc(p, size), with this very pointer
 * (NULL too) and size, fail with ENOMEM; n = 0 disarms.  Returns nothing. */
void alloc_count_fail_realloc(void *p, size_t size, unsigned n)
{
	__atomic_store_n(&fail_left, 0, __ATOMIC_RELEASE);
	fail_p = p;
	fail_size = size;
	__atomic_store_n(&fail_left, n, __ATOMIC_RELEASE);
}

/* Returns how many reallocs alloc_count_fail_realloc() has made fail
 * so far in this process. */
unsigned long alloc_count_failed(void)
{
	return __atomic_load_n(&failed, __ATOMIC_RELAXED);
}

/* Whether this realloc(p, n) is one armed to fail; takes it if so. */
static int fail_now(void *p, size_t n)
{
	unsigned left = __atomic_load_n(&fail_left, __ATOMIC_ACQUIRE);

	while (left && p == fail_p && n == fail_size)
		if (__atomic_compare_exchange_n(&fail_left, &left, left - 1, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
			return 1;
		}
	return 0;
}

void *malloc(size_t n)
{
	count();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	count();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	count();
	if (fail_now(p, n)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	count();
	p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	count();
	return __libc_memalign(align, n);
}

/*
 * alloc_count.c - a preloadable allocation counter for tests and
 * benchmarks (LD_PRELOAD=.../alloc_count.so): it wraps malloc, calloc,
 * realloc, free, posix_memalign and aligned_alloc, passes each call to
 * glibc's own allocator, and counts the calls that allocate.  A program
 * reads the count through alloc_count_calls(), found with dlsym(), so it
 * runs unchanged without the interposer.  Built for checks only.
 */
#include <errno.h>
#include <stddef.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);
void *__libc_memalign(size_t align, size_t n);

static unsigned long calls;

/* Calls of malloc, calloc, realloc and the aligned allocators so far. */
unsigned long alloc_count_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

static void count(void)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
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

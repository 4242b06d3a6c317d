/*
 * bufloan.c - the bodies this task reads in its peers' export heaps
 * (bufheap.h): the heaps it maps, and the loans its messages hold.
 *
 * A peer's heap is mapped twice: its slot page writable, to give loans
 * back, and its blocks read-only.  The memfd must be sealed against
 * shrinking, or the peer could make every read of a loan a SIGBUS.  A
 * mapping lives while its circuit or a loan holds it, so a message
 * outlives the circuit, and the sender, that brought it.  Loans are few
 * (at most a peer's slots each): a table searched from its newest end.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bufheap.h"
#include "task_state.h"

/* The largest heap mapped: COPVM_SHM_HEAP_MB's bound, bufheap.c. */
#define MAP_MAX		((size_t)4096 << 20)

struct pvmi_heap_map {
	struct pvmi_heap_slot *slots;	/* the slot page, writable */
	unsigned char *data;		/* the blocks, read-only */
	size_t size;
	int refs;			/* the circuit's and each loan's */
	pid_t pid;			/* the process that gives back */
	struct pvmi_heap_map *next;
};

struct loan {
	const unsigned char *p;
	size_t len;
	struct pvmi_heap_map *m;
	uint32_t slot;
	uint32_t gen;
};

int pvmi_loans_live;

static struct pvmi_heap_map *maps;
static struct loan *loans;
static int loancap;
static char lock;

static void lock_loans(void)
{
	while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE))
		;
}

static void unlock_loans(void)
{
	__atomic_clear(&lock, __ATOMIC_RELEASE);
}

/* Maps peer heap `fd' (bufheap.h). */
struct pvmi_heap_map *pvmi_loan_map(int fd)
{
	struct pvmi_heap_map *m;
	struct stat st;
	void *slots, *data;
	size_t size;
	int seals;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size <= (off_t)PVMI_HEAP_DATA_OFF ||
	    (size_t)st.st_size - PVMI_HEAP_DATA_OFF > MAP_MAX)
		return NULL;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || pvmi_heap_fork_hooks())
		return NULL;
	size = (size_t)st.st_size - PVMI_HEAP_DATA_OFF;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	slots = mmap(NULL, PVMI_HEAP_DATA_OFF, PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, 0);
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd,
		    (off_t)PVMI_HEAP_DATA_OFF);
	if (slots == MAP_FAILED || data == MAP_FAILED) {
		if (slots != MAP_FAILED)
			munmap(slots, PVMI_HEAP_DATA_OFF);
		if (data != MAP_FAILED)
			munmap(data, size);
		free(m);
		return NULL;
	}
	m->slots = slots;
	m->data = data;
	m->size = size;
	m->refs = 1;
	m->pid = pvmi_self_pid();
	lock_loans();
	m->next = maps;
	maps = m;
	unlock_loans();
	return m;
}

/* Drops a hold on `m', unmapping it with the last; lock held. */
static void map_put(struct pvmi_heap_map *m)
{
	struct pvmi_heap_map **pp;

	if (--m->refs > 0)
		return;
	for (pp = &maps; *pp && *pp != m; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = m->next;
	munmap(m->slots, PVMI_HEAP_DATA_OFF);
	munmap(m->data, m->size);
	free(m);
}

/* The circuit lets go of `m' (bufheap.h). */
void pvmi_loan_unmap(struct pvmi_heap_map *m)
{
	if (!m)
		return;
	lock_loans();
	map_put(m);
	unlock_loans();
}

/* The body `ref' names, held as a loan (bufheap.h). */
unsigned char *pvmi_loan_take(struct pvmi_heap_map *m,
			      const struct pvmi_heap_ref *ref)
{
	struct loan *t;
	unsigned char *p;

	if (!m || ref->len == 0 || ref->off > m->size ||
	    ref->len > m->size - ref->off || ref->slot >= PVMI_HEAP_SLOTS)
		return NULL;
	p = m->data + ref->off;
	lock_loans();
	if (pvmi_loans_live == loancap) {
		t = realloc(loans, (loancap ? 2 * loancap : 16) *
				   sizeof(*loans));
		if (!t) {
			unlock_loans();
			return NULL;
		}
		loans = t;
		loancap = loancap ? 2 * loancap : 16;
	}
	loans[pvmi_loans_live] = (struct loan){ p, ref->len, m, ref->slot,
						ref->gen };
	m->refs++;
	__atomic_store_n(&pvmi_loans_live, pvmi_loans_live + 1,
			 __ATOMIC_RELEASE);
	unlock_loans();
	return p;
}

/* The index of loan `p', or -1; lock held. */
static int find(const void *p)
{
	int i;

	for (i = pvmi_loans_live - 1; i >= 0; i--)
		if (loans[i].p == p)
			return i;
	return -1;
}

/* Gives loan `p' back (bufheap.h). */
int pvmi_loan_end(const void *p)
{
	struct loan l;
	int i;

	lock_loans();
	i = find(p);
	if (i < 0) {
		unlock_loans();
		return 0;
	}
	l = loans[i];
	loans[i] = loans[pvmi_loans_live - 1];
	__atomic_store_n(&pvmi_loans_live, pvmi_loans_live - 1,
			 __ATOMIC_RELEASE);
	/* a fork's copy is not its to give back: its parent gives back
	 * its own */
	if (l.m->pid == pvmi_self_pid())
		__atomic_store_n(&l.m->slots[l.slot].done, l.gen,
				 __ATOMIC_RELEASE);
	map_put(l.m);
	unlock_loans();
	return 1;
}

/* The length of loan `p' (bufheap.h). */
size_t pvmi_loan_len(const void *p)
{
	size_t n = 0;
	int i;

	lock_loans();
	i = find(p);
	if (i >= 0)
		n = loans[i].len;
	unlock_loans();
	return n;
}

/* Puts private memory under map `m''s loans, with their bytes. */
static void privatize(struct pvmi_heap_map *m)
{
	size_t used = 0, at;
	unsigned char *tmp;
	void *r;
	int i;

	for (i = 0; i < pvmi_loans_live; i++)
		if (loans[i].m == m)
			used += loans[i].len;
	if (!used)
		return;
	tmp = mmap(NULL, used, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tmp == MAP_FAILED)
		return;	/* out of memory: the loans stay shared */
	for (i = 0, at = 0; i < pvmi_loans_live; i++)
		if (loans[i].m == m) {
			memcpy(tmp + at, loans[i].p, loans[i].len);
			at += loans[i].len;
		}
	r = mmap(m->data, m->size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (r != MAP_FAILED)
		for (i = 0, at = 0; i < pvmi_loans_live; i++)
			if (loans[i].m == m) {
				memcpy((void *)loans[i].p, tmp + at,
				       loans[i].len);
				at += loans[i].len;
			}
	munmap(tmp, used);
}

/* In a forked child (bufheap.h). */
void pvmi_loan_forked(void)
{
	struct pvmi_heap_map *m;

	/* the child runs alone: a lock held by another thread of the
	 * parent would never be released */
	__atomic_clear(&lock, __ATOMIC_RELEASE);
	for (m = maps; m; m = m->next)
		privatize(m);
}

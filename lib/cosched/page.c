/*
 * page.c - the coscheduling pages of this task and of its correspondents
 * on this host: files in the run directory's cosched/ folder, mapped
 * shared (common/cosched_page.h says who writes what).
 *
 * The run directory is the daemon's (0700, owned by the user), so a page
 * is reachable only by the user's own processes; a correspondent's page
 * is still checked (owner, size, magic, tid) before it is trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched.h"
#include "cosched_page.h"
#include <sys/socket.h>

#include "rundir_path.h"

/* Correspondent pages kept mapped. */
#define PEER_CACHE	32
/* A correspondent without a page is looked for again after this. */
#define PEER_RETRY_NS	10000000ULL

static struct {
	int tid;
	struct cosched_page *page;	/* NULL: none found before retry_ns */
	uint64_t retry_ns;
} peer_cache[PEER_CACHE];
static int peer_next;

/* Writes the path of task `tid''s page into `buf'; 0 or -1. */
static int page_path(char *buf, size_t len, int tid)
{
	int n = snprintf(buf, len, "%s/%s/" COSCHED_PAGE_FMT, pvmi_rundir(),
			 COSCHED_DIR, (unsigned)tid);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

static struct cosched_page *map_fd(int fd)
{
	void *p = mmap(NULL, COSCHED_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct cosched_page *pvmi_cosched_page_create(int tid)
{
	char path[300], dir[300];
	struct cosched_page *page;
	int fd;

	snprintf(dir, sizeof(dir), "%s/%s", pvmi_rundir(), COSCHED_DIR);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return NULL;
	if (page_path(path, sizeof(path), tid) < 0)
		return NULL;
	/* A page left by an earlier task with this tid may still be mapped
	 * by a reader (the daemon's watch, a tool): truncating it would
	 * make their next read a SIGBUS.  A new file leaves them the old. */
	if (unlink(path) < 0 && errno != ENOENT)
		return NULL;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, COSCHED_PAGE_SIZE) < 0) {
		close(fd);
		unlink(path);
		return NULL;
	}
	page = map_fd(fd);
	close(fd);
	if (!page)
		unlink(path);
	return page;
}

void pvmi_cosched_page_release(struct cosched_page *page, int tid, int unlink_it)
{
	char path[300];

	if (!page)
		return;
	if (unlink_it) {
		__atomic_store_n(&page->magic, 0, __ATOMIC_RELEASE);
		if (page_path(path, sizeof(path), tid) == 0)
			unlink(path);
	}
	munmap(page, COSCHED_PAGE_SIZE);
}

/* Maps the page of `tid' if it is a valid page of ours; NULL if not. */
static struct cosched_page *open_peer(int tid)
{
	struct cosched_page *page;
	struct stat st;
	char path[300];
	int fd;

	if (page_path(path, sizeof(path), tid) < 0)
		return NULL;
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_uid != getuid() ||
	    !S_ISREG(st.st_mode) || st.st_size < COSCHED_PAGE_SIZE) {
		close(fd);
		return NULL;
	}
	page = map_fd(fd);
	close(fd);
	if (page && (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) !=
		     COSCHED_PAGE_MAGIC || page->tid != tid)) {
		munmap(page, COSCHED_PAGE_SIZE);
		page = NULL;
	}
	return page;
}

struct cosched_page *pvmi_cosched_peer_page(int tid)
{
	struct cosched_page *page;
	int i;

	for (i = 0; i < PEER_CACHE; i++) {
		if (peer_cache[i].tid != tid)
			continue;
		page = peer_cache[i].page;
		if (!page) {
			if (pvmi_cosched_coarse_ns() < peer_cache[i].retry_ns)
				return NULL;
			page = open_peer(tid);
			peer_cache[i].page = page;
			peer_cache[i].retry_ns = pvmi_cosched_coarse_ns() + PEER_RETRY_NS;
			return page;
		}
		/* The task left: its file is gone and the magic cleared. */
		if (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) ==
		    COSCHED_PAGE_MAGIC)
			return page;
		munmap(page, COSCHED_PAGE_SIZE);
		peer_cache[i].page = NULL;
		peer_cache[i].tid = 0;
		return NULL;
	}
	page = open_peer(tid);
	i = peer_next;
	peer_next = (peer_next + 1) % PEER_CACHE;
	if (peer_cache[i].page)
		munmap(peer_cache[i].page, COSCHED_PAGE_SIZE);
	peer_cache[i].tid = tid;
	peer_cache[i].page = page;
	peer_cache[i].retry_ns = pvmi_cosched_coarse_ns() + PEER_RETRY_NS;
	return page;
}

void pvmi_cosched_peer_pages_drop(void)
{
	int i;

	for (i = 0; i < PEER_CACHE; i++) {
		if (peer_cache[i].page)
			munmap(peer_cache[i].page, COSCHED_PAGE_SIZE);
		peer_cache[i].page = NULL;
		peer_cache[i].tid = 0;
	}
	peer_next = 0;
}

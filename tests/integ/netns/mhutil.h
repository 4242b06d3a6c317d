/*
 * mhutil.h - small helpers shared by the multi-host test programs
 * (mhcheck.c, mhmcast.c), which are built against copvm and stock PVM
 * alike: only libc and the PVM API here.
 */
#ifndef COPVM_MHUTIL_H
#define COPVM_MHUTIL_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* FNV-1a of `n' bytes: the checksum both ends of a message compute. */
static inline unsigned checksum(const unsigned char *p, int n)
{
	unsigned s = 2166136261u;
	int i;

	for (i = 0; i < n; i++)
		s = (s ^ p[i]) * 16777619u;
	return s;
}

/* How many io_uring instances this process has open (Linux: their fds
 * read "anon_inode:[io_uring]"); 0 for stock PVM, -1 on error. */
static inline int uring_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[64];
	ssize_t n;
	int count = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		count += strcmp(link, "anon_inode:[io_uring]") == 0;
	}
	closedir(d);
	return count;
}

#endif /* COPVM_MHUTIL_H */

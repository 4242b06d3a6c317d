/*
 * procfile.c - reading a small file whole (procfile.h).
 */
#include <fcntl.h>
#include <unistd.h>

#include "procfile.h"

ssize_t copvm_read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len < 2)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

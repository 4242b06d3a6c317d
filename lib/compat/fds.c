/*
 * fds.c - the extra descriptors a program adds with pvm_fd_add().  Stock
 * keeps them for its own waits and pvm_getfds() does not report them;
 * copvm keeps the list and waits on none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "compat/compat.h"
#include "pvmi.h"

/* Descriptors added with pvm_fd_add(), in the order added. */
static int *extra_fds;
static int n_extra_fds;
static int cap_extra_fds;

/* Adds `fd' to the descriptors watched for input if bit 1 of `sets' is
 * set (other bits ignored, as stock).  Returns 0, PvmBadParam or PvmNoMem. */
PVMI_EXPORT int pvm_fd_add(int fd, int sets)
{
	int i;

	if (fd < 0)
		return PvmBadParam;
	if (!(sets & 1))
		return 0;
	for (i = 0; i < n_extra_fds; i++)
		if (extra_fds[i] == fd)
			return 0;
	if (n_extra_fds == cap_extra_fds) {
		int cap = cap_extra_fds ? 2 * cap_extra_fds : 8;
		int *grown = realloc(extra_fds, cap * sizeof(*grown));

		if (!grown)
			return PvmNoMem;
		extra_fds = grown;
		cap_extra_fds = cap;
	}
	extra_fds[n_extra_fds++] = fd;
	return 0;
}

/* Removes `fd' from the watched descriptors when bit 1 of `sets' is
 * set; an fd never added is ignored.  Returns 0 or PvmBadParam. */
PVMI_EXPORT int pvm_fd_delete(int fd, int sets)
{
	int i;

	if (fd < 0)
		return PvmBadParam;
	if (!(sets & 1))
		return 0;
	for (i = 0; i < n_extra_fds; i++) {
		if (extra_fds[i] == fd) {
			memmove(extra_fds + i, extra_fds + i + 1,
				(n_extra_fds - i - 1) * sizeof(*extra_fds));
			n_extra_fds--;
			break;
		}
	}
	return 0;
}

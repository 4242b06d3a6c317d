/*
 * pollset.c - the epoll set that pvm_getfds() reports as fds[0]: one
 * descriptor that becomes readable for anything that would end a
 * receive's wait (conn.c lists those fds).
 *
 * The set is never edited in place: a change builds a new epoll
 * instance and moves it onto the old number with dup3(), so the number a
 * program holds stays valid, and a registration of a descriptor closed
 * meanwhile (whose file a forked child may keep open, where epoll would
 * go on reporting it) does not outlive the rebuild.  The fds change
 * rarely (a circuit comes or goes), so a rebuild costs little.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "pollset.h"

static int setfd = -1;
static int *last;		/* the list of the last sync */
static int nlast, caplast;

/* Opens the set once (pollset.h). */
int pvmi_pollset_open(void)
{
	if (setfd < 0) {
		setfd = epoll_create1(EPOLL_CLOEXEC);
		nlast = 0;
	}
	return setfd;
}

/* The set's descriptor, -1 when not open (pollset.h). */
int pvmi_pollset_fd(void)
{
	return setfd;
}

/* Remembers `fds' as the list the set now watches; -1 when out of
 * memory (the next sync then builds anew). */
static int remember(const int *fds, int n)
{
	if (n > caplast) {
		int *nl = realloc(last, n * sizeof(*nl));

		if (!nl) {
			nlast = -1;
			return -1;
		}
		last = nl;
		caplast = n;
	}
	if (n)
		memcpy(last, fds, n * sizeof(*fds));
	nlast = n;
	return 0;
}

/* Keeps the set equal to `fds' (pollset.h). */
int pvmi_pollset_sync(const int *fds, int n, int changed)
{
	struct epoll_event ev;
	int fresh, i, err;

	if (setfd < 0)
		return 0;
	if (!changed && n == nlast &&
	    (!n || !memcmp(fds, last, n * sizeof(*fds))))
		return 0;
	fresh = epoll_create1(EPOLL_CLOEXEC);
	if (fresh < 0)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.fd = fds[i];
		/* EEXIST: listed twice; EBADF, EPERM: an fd that cannot
		 * wake anyone (closed, or a file), which a wait skips too */
		if (epoll_ctl(fresh, EPOLL_CTL_ADD, fds[i], &ev) < 0 &&
		    errno != EEXIST && errno != EBADF && errno != EPERM)
			goto fail;
	}
	if (dup3(fresh, setfd, O_CLOEXEC) < 0)
		goto fail;
	close(fresh);
	return remember(fds, n);
fail:
	err = errno;
	close(fresh);
	nlast = -1;		/* try again at the next sync */
	errno = err;
	return -1;
}

/* Closes the set (pollset.h). */
void pvmi_pollset_close(void)
{
	if (setfd >= 0)
		close(setfd);
	setfd = -1;
	nlast = 0;
}

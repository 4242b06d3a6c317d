/*
 * ring_none.c - what ring.c provides, for a build without liburing: the
 * daemon writes its links with writev() alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd.h"

/* Never: there is no ring in this build. */
int pvmd_ring_usable(void)
{
	static int warned;
	const char *e = getenv("COPVM_URING");

	if (!warned && e && strcmp(e, "1") == 0) {
		warned = 1;
		pvmd_log("COPVM_URING=1 but this copvm was built without "
			 "liburing: the links are written with writev");
	}
	return 0;
}

/* Not reached (pvmd_ring_usable() says no); leaves every write to
 * writev. */
void pvmd_ring_writev(struct pvmd_write *w, int n)
{
	int i;

	for (i = 0; i < n; i++)
		w[i].res = -EAGAIN;
}

/* No ring, no batch. */
unsigned long pvmd_ring_batches(void)
{
	return 0;
}

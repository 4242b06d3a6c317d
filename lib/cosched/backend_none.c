/*
 * backend_none.c - the backend that boosts nothing: LIN, IMP and EXP use
 * it, and every other model falls back to it when no mechanism works.
 */
#include <string.h>

#include "backend.h"
#include "copvm.h"

static int none_probe(struct cosched_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	return 0;
}

static int none_attach(struct cosched_page *page, uint32_t share_ppm)
{
	return 0;
}

static int none_apply(int level, int nice, uint64_t box_ns)
{
	return 0;
}

static int none_boost_peer(int pid, int tid, int level, int nice,
			   uint64_t box_ns)
{
	return 0;
}

static void none_detach(void)
{
}

const struct cosched_backend_ops cosched_backend_none = {
	.name = "none",
	.id = COPVM_BACKEND_NONE,
	.self_timed = 1,
	.probe = none_probe,
	.attach = none_attach,
	.apply = none_apply,
	.boost_peer = none_boost_peer,
	.detach = none_detach,
};

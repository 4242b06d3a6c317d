/*
 * backend_self.c - boosts an unprivileged task can give itself and its
 * own user's correspondents: an EEVDF slice request (sched_setattr with
 * SCHED_OTHER and a short sched_runtime, honoured by 6.12+ kernels) and
 * a lower nice value within what RLIMIT_NICE (or CAP_SYS_NICE) permits,
 * never below the engine's floor.  Boosts set SCHED_RESET_ON_FORK so a
 * child never inherits them; the undo clears it where the kernel allows
 * (it refuses an unprivileged caller).  Undoing is always permitted (a higher nice,
 * sched_runtime 0); the task undoes its own boost at its next decision
 * and the daemon's watch undoes those whose time box ended
 * (daemon/cosched_watch.c), so self_timed is 0.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "copvm.h"
#include "cosched_page.h"
#include "sched_attr.h"

/* The slice requested while boosted (the kernel's minimum). */
#define BOOST_SLICE_NS	100000ULL
/* The lowest nice this backend ever tries. */
#define SELF_NICE_FLOOR	(-10)

static struct cosched_page *mine;
static int has_slice;

/* Sets SCHED_OTHER with `nice' and slice `runtime' (0: the default) on
 * `pid', with SCHED_RESET_ON_FORK while `boost' (a raised level) and
 * without it otherwise; 0 or -errno. */
static int set_other(int pid, int nice, uint64_t runtime, int boost)
{
	struct copvm_sched_attr a;

	memset(&a, 0, sizeof(a));
	a.sched_policy = SCHED_OTHER;
	a.sched_flags = boost ? SCHED_FLAG_RESET_ON_FORK : 0;
	a.sched_nice = nice;
	a.sched_runtime = has_slice ? runtime : 0;
	return copvm_sched_setattr(pid, &a);
}

/* Back to `base' and the default slice.  The flag goes too where the
 * kernel lets us clear it (CAP_SYS_NICE); an unprivileged caller may not
 * (EPERM), so after the first refusal the flag is kept. */
static int undo_to(int pid, int base)
{
	static int clear_refused;
	int rc;

	if (!clear_refused) {
		rc = set_other(pid, base, 0, 0);
		if (rc != -EPERM)
			return rc;
		clear_refused = 1;
	}
	return set_other(pid, base, 0, 1);
}

/* The lowest nice this process may set on itself: tried, not computed,
 * so CAP_SYS_NICE and RLIMIT_NICE both count. */
static int probe_nice_floor(int base)
{
	struct rlimit rl;
	int floor;

	if (set_other(0, SELF_NICE_FLOOR, 0, 1) == 0) {
		undo_to(0, base);
		return SELF_NICE_FLOOR;
	}
	if (getrlimit(RLIMIT_NICE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	floor = 20 - (int)rl.rlim_cur;	/* can_nice(): 20 - nice <= rlimit */
	if (floor < SELF_NICE_FLOOR)
		floor = SELF_NICE_FLOOR;
	return floor < base && floor < 0 ? floor : 0;
}

static int self_probe(struct cosched_caps *caps)
{
	struct copvm_sched_attr a;
	int base, rc;

	memset(caps, 0, sizeof(*caps));
	rc = copvm_sched_getattr(0, &a);
	if (rc < 0)
		return rc;
	if (a.sched_policy != SCHED_OTHER)
		return -EPERM;	/* someone else manages this task */
	has_slice = a.sched_runtime != 0;
	caps->slice = has_slice;
	errno = 0;
	base = getpriority(PRIO_PROCESS, 0);
	if (errno)
		base = 0;
	caps->nice_floor = probe_nice_floor(base);
	caps->peers = 1;
	return caps->slice || caps->nice_floor < 0 ? 0 : -EPERM;
}

static int self_attach(struct cosched_page *page, uint32_t share_ppm)
{
	mine = page;
	return 0;
}

/* The nice and slice of `level' for a task whose base nice is `base'. */
static int level_set(int pid, int level, int nice, int base)
{
	switch (level) {
	case COPVM_BOOST_NONE:
		return undo_to(pid, base);
	case COPVM_BOOST_SLICE:
		return set_other(pid, base, BOOST_SLICE_NS, 1);
	case COPVM_BOOST_NICE:
		return set_other(pid, nice < base ? nice : base, BOOST_SLICE_NS,
				 1);
	default:
		return -EINVAL;
	}
}

static int self_apply(int level, int nice, uint64_t box_ns)
{
	return level_set(0, level, nice, mine ? mine->base_nice : 0);
}

static int self_boost_peer(int pid, int tid, int level, int nice,
			   uint64_t box_ns)
{
	if (pid <= 0 || pid == getpid())
		return -EINVAL;
	if (level == COPVM_BOOST_NONE)
		return 0;
	/* The engine passes the correspondent's base nice for a slice
	 * boost, and never a nice above it. */
	return level_set(pid, level, nice, nice);
}

static void self_detach(void)
{
	if (mine)
		undo_to(0, mine->base_nice);
	mine = NULL;
}

const struct cosched_backend_ops cosched_backend_self = {
	.name = "self",
	.id = COPVM_BACKEND_SELF,
	.self_timed = 0,
	.probe = self_probe,
	.attach = self_attach,
	.apply = self_apply,
	.boost_peer = self_boost_peer,
	.detach = self_detach,
};

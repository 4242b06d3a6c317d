/*
 * backend.h - the one contract between the coscheduling policy engine
 * (cosched.c) and the mechanisms that apply its boosts: none, self,
 * agent, and the kernel module.  Each backend file exports exactly one
 * table of these operations.  At start-up the engine probes, for
 * COPVM_BACKEND=auto, the kernel module, the agent, then self, and uses
 * the first that works; a backend named explicitly is probed alone.
 * Falling back is never an error for the program: the worst case is
 * `none'.
 *
 * Rules for every operation:
 * - none may block for longer than one round trip to a local helper;
 * - none calls back into the engine, the receive path or the send path;
 * - errors are negative errno values; the engine treats any error of
 *   apply/boost_peer as "not applied" and carries on;
 * - a boost always carries its time box (`box_ns'); a backend that
 *   cannot undo it by itself says so with `self_timed' = 0, and the
 *   engine then undoes it at the end of the box (the daemon watches the
 *   pages of tasks that stopped calling the library).
 */
#ifndef COPVM_COSCHED_BACKEND_H
#define COPVM_COSCHED_BACKEND_H

#include <stdint.h>

struct cosched_page;

/* What a backend may do, found by its probe. */
struct cosched_caps {
	int slice;		/* EEVDF slice requests (6.12+) */
	int nice_floor;		/* lowest nice it may set; 0: none */
	int rt;			/* time-boxed SCHED_FIFO */
	int peers;		/* may boost same-uid correspondents */
	int arrival;		/* boosts on input to a watched fd (watch) */
	int charged;		/* charges nice and rt boosts to a share */
	uint64_t box_max_ns;	/* longest time box it grants; 0: any */
};

struct cosched_backend_ops {
	const char *name;	/* "none", "self", "agent", "kmod" */
	int id;			/* COPVM_BACKEND_* */
	int self_timed;		/* undoes its boosts itself at box end */

	/* Is the mechanism usable by this process?  Fills `caps'; 0 or a
	 * negative errno (-ENOENT: no helper, -EPERM: not permitted). */
	int (*probe)(struct cosched_caps *caps);

	/* Registers the calling task, whose page is `page', asking for
	 * `share_ppm' of a CPU while boosted (0: the mechanism's default;
	 * backends without a share ignore it); 0 or -errno.  Called once
	 * after a successful probe, again after fork. */
	int (*attach)(struct cosched_page *page, uint32_t share_ppm);

	/* Puts the calling task at boost `level' (COPVM_BOOST_*, already
	 * clamped to the caps) with nice `nice' when the level is
	 * COPVM_BOOST_NICE, for at most `box_ns'; COPVM_BOOST_NONE undoes
	 * the current boost.  0 or -errno. */
	int (*apply)(int level, int nice, uint64_t box_ns);

	/* Boosts correspondent `pid' (task `tid', same user, registered)
	 * to `level' for at most `box_ns', with nice `nice' (for a slice
	 * boost: the correspondent's base nice).  0 or -errno. */
	int (*boost_peer)(int pid, int tid, int level, int nice,
			  uint64_t box_ns);

	/* Optional (NULL where not offered): input that arrives on this
	 * task's file `fd' (a socket, an eventfd) while the task is
	 * blocked boosts it at once, before it runs, to `level' with
	 * `nice' for at most `box_ns'; COPVM_BOOST_NONE ends the watch, as
	 * closing the file soon does.  0 or -errno. */
	int (*watch)(int fd, int level, int nice, uint64_t box_ns);
	/* Optional: how many boosts `watch' put in force for this task so
	 * far (0 when it cannot tell). */
	uint64_t (*arrivals)(void);
	/* Undoes every boost this task applied or asked for, and
	 * unregisters; safe to call when attach failed. */
	void (*detach)(void);
};

extern const struct cosched_backend_ops cosched_backend_none;
extern const struct cosched_backend_ops cosched_backend_self;
extern const struct cosched_backend_ops cosched_backend_agent;
extern const struct cosched_backend_ops cosched_backend_kmod;

#endif /* COPVM_COSCHED_BACKEND_H */

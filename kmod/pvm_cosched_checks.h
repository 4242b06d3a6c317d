/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvm_cosched_checks.h - the module's checks of its ioctl arguments and
 * its clamp of a boost request to the limits: pure functions of their
 * arguments, with no kernel state, so that the same code runs in the
 * module (pcs_dev.c, pcs_watch.c, pcs_boost.c) and, built in user
 * space, in the fuzz target fuzz/fuzz_kmod_args.c.
 *
 * The includer supplies the kernel's names this file uses: s32, u32, u64,
 * bool, EINVAL, MIN_NICE, MAX_NICE, NSEC_PER_USEC, NSEC_PER_MSEC,
 * NSEC_PER_SEC and ARRAY_SIZE, then uapi/pvm_cosched.h.
 */
#ifndef PVM_COSCHED_CHECKS_H
#define PVM_COSCHED_CHECKS_H

#include "pvm_cosched_bucket.h"

/* The share of a task that asks for none: 5 % of a CPU (the agent's -d). */
#define PCS_SHARE_DEFAULT_PPM	50000u
/* A share's unit, one CPU (the same as COSCHED_SHARE_ONE). */
#define PCS_SHARE_ONE		1000000u

/* A boost request once copied in: REPORT's and BOOST's common part. */
struct pcs_request {
	s32 level;
	s32 nice;
	u64 box_ns;
	bool clamped;
};

/* True if `reserved' (n words) is all zero. */
static inline bool pcs_zero(const __u64 *reserved, int n)
{
	while (n--)
		if (reserved[n])
			return false;
	return true;
}

/* Checks a request's level, nice and box: 0 or -EINVAL. */
static inline int pcs_check_request(s32 level, s32 nice, u64 box_ns)
{
	if (level < PVM_COSCHED_BOOST_NONE || level > PVM_COSCHED_BOOST_RT)
		return -EINVAL;
	if (nice < MIN_NICE || nice > MAX_NICE)
		return -EINVAL;
	if (level != PVM_COSCHED_BOOST_NONE && box_ns == 0)
		return -EINVAL;
	return 0;
}

/* Checks REGISTER's input fields other than the ABI version: 0 or
 * -EINVAL.
 */
static inline int pcs_check_register(const struct pvm_cosched_register *reg)
{
	if (reg->flags || reg->pad ||
	    !pcs_zero(reg->reserved, ARRAY_SIZE(reg->reserved)))
		return -EINVAL;
	return 0;
}

/* The share of a task that registered asking for `asked' millionths of a
 * CPU (0: the default) under limits l: at most l->share_max_ppm.
 */
static inline u32 pcs_share_for(const struct pvm_cosched_limits *l,
				u32 asked)
{
	if (!asked)
		asked = PCS_SHARE_DEFAULT_PPM;
	return asked < l->share_max_ppm ? asked : l->share_max_ppm;
}

/* Checks REPORT's fields, but for the two it ignores (the unused_
 * words, whatever they hold): 0 or -EINVAL.
 */
static inline int pcs_check_report(const struct pvm_cosched_report *rep)
{
	if (rep->flags || !pcs_zero(rep->reserved, ARRAY_SIZE(rep->reserved)))
		return -EINVAL;
	return pcs_check_request(rep->level, rep->nice, rep->box_ns);
}

/* Checks BOOST's fields: 0 or -EINVAL. */
static inline int pcs_check_boost(const struct pvm_cosched_boost *b)
{
	if (b->flags || !pcs_zero(b->reserved, ARRAY_SIZE(b->reserved)) ||
	    b->pid <= 0)
		return -EINVAL;
	return pcs_check_request(b->level, b->nice, b->box_ns);
}

/* The longest box a WATCH may ask for (the module clamps it further). */
#define PCS_WATCH_BOX_MAX_NS	(10ull * 1000000000ull)

/* Checks WATCH's fields: 0 or -EINVAL (the fd is the module's to check). */
static inline int pcs_check_watch(const struct pvm_cosched_watch *w)
{
	if (!pcs_zero(w->reserved, ARRAY_SIZE(w->reserved)))
		return -EINVAL;
	if (w->op == PVM_COSCHED_WATCH_DEL)
		return w->level || w->nice || w->box_ns ? -EINVAL : 0;
	if (w->op != PVM_COSCHED_WATCH_ADD)
		return -EINVAL;
	if (w->level == PVM_COSCHED_BOOST_NONE ||
	    w->box_ns > PCS_WATCH_BOX_MAX_NS)
		return -EINVAL;
	return pcs_check_request(w->level, w->nice, w->box_ns);
}

/* Checks new limits against the ranges of the uapi header. */
static inline bool pcs_limits_valid(const struct pvm_cosched_limits *l)
{
	return l->nice_floor >= MIN_NICE && l->nice_floor <= 0 &&
	       l->allow_rt <= 1 &&
	       l->box_max_ns >= NSEC_PER_USEC && l->box_max_ns <= NSEC_PER_SEC &&
	       l->share_max_ppm >= 1 && l->share_max_ppm <= PCS_SHARE_ONE &&
	       !l->pad &&
	       l->window_ns >= 10 * NSEC_PER_MSEC &&
	       l->window_ns <= 10 * NSEC_PER_SEC &&
	       l->sample_ns >= NSEC_PER_MSEC &&
	       l->sample_ns <= 100 * NSEC_PER_MSEC &&
	       l->user_share_ppm >= 1 && l->user_share_ppm <= PCS_SHARE_ONE &&
	       l->node_share_ppm <= PCS_SHARE_ONE &&
	       pcs_zero(l->reserved, ARRAY_SIZE(l->reserved));
}

/* The share of each CPU of a user's bucket under limits l while `users'
 * users (0 counts as 1) have registered tasks: its part of the node's
 * budget (cosched_part_ppm, the agent's split) and at most
 * l->user_share_ppm; l->user_share_ppm alone without a node budget.
 */
static inline u32 pcs_user_part(const struct pvm_cosched_limits *l,
				u32 users)
{
	u32 part;

	if (!l->node_share_ppm)
		return l->user_share_ppm;
	part = cosched_part_ppm(l->node_share_ppm, users);
	return part < l->user_share_ppm ? part : l->user_share_ppm;
}

/* Clamps checked request r to limits l, for a task whose base nice is
 * base_nice, on a kernel that honours slices (have_slice) or not: RT not
 * allowed becomes NICE at the floor, SLICE without slices becomes NONE,
 * a nice is raised to the floor (NONE if that is no lower than the
 * base), the box is cut to box_max_ns (0 at NONE).  r->clamped says
 * whether anything changed.
 */
static inline void pcs_clamp_request(const struct pvm_cosched_limits *l,
				     bool have_slice, s32 base_nice,
				     struct pcs_request *r)
{
	s32 level = r->level, nice = r->nice;
	u64 box = r->box_ns;

	if (level == PVM_COSCHED_BOOST_RT && !l->allow_rt) {
		level = PVM_COSCHED_BOOST_NICE;
		nice = l->nice_floor;
	}
	if (level == PVM_COSCHED_BOOST_SLICE && !have_slice)
		level = PVM_COSCHED_BOOST_NONE;
	if (level == PVM_COSCHED_BOOST_NICE) {
		if (nice < l->nice_floor)
			nice = l->nice_floor;
		if (nice >= base_nice)
			level = PVM_COSCHED_BOOST_NONE;
	}
	if (box > l->box_max_ns)
		box = l->box_max_ns;
	if (level == PVM_COSCHED_BOOST_NONE)
		box = 0;
	r->clamped = level != r->level || box != r->box_ns ||
		     (level == PVM_COSCHED_BOOST_NICE && nice != r->nice);
	r->level = level;
	r->nice = nice;
	r->box_ns = box;
}

#endif /* PVM_COSCHED_CHECKS_H */

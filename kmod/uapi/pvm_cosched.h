/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pvm_cosched.h - the ioctl ABI of /dev/pvm_cosched, the copvm kernel
 * module that applies bounded, time-boxed scheduling boosts on behalf of
 * an ordinary user's PVM tasks.  Shared by the module (kmod/pcs_*.c) and
 * by libpvm3's kmod backend (lib/cosched/backend_kmod.c).
 *
 * Rules of the ABI:
 * - fixed-width types only, pointers carried as __u64, every padding
 *   byte named and required to be zero (as are `reserved' fields and
 *   unknown flags: -EINVAL otherwise, so they can be given a meaning
 *   later);
 * - REGISTER carries PVM_COSCHED_ABI_VERSION; another version gets
 *   -EPROTONOSUPPORT and nothing else works on that fd until it
 *   registers with the right one;
 * - one open file registers exactly one task, the one that opened it;
 *   a forked child opens its own;
 * - the module undoes every boost it set: at the end of its time box,
 *   when the fd is released, when the task exits, and on unload.  An
 *   undo restores the task's registered base only if the task is still
 *   at the value the module set (someone else's later change wins).
 *
 * Errors (negative errno from ioctl, errno in user space):
 *   ENOTTY           an unknown command
 *   EFAULT           an argument that cannot be copied
 *   EINVAL           a reserved field or flag not zero, a level, nice or
 *                    box out of range
 *   EPROTONOSUPPORT  REGISTER with another ABI version
 *   EALREADY         REGISTER on an fd already registered
 *   ENOTCONN         REPORT or BOOST on an fd not registered
 *   EPERM            a target owned by another user (without
 *                    CAP_SYS_NICE in its user namespace), a target not
 *                    at SCHED_NORMAL, SET_LIMITS without CAP_SYS_NICE
 *                    in the initial user namespace, or a caller that is
 *                    not the process that opened the fd
 *   ESRCH            a target pid that does not exist or is not
 *                    registered with the module
 *   ENOMEM           REGISTER without memory for the user's record, or
 *                    WATCH without memory for the watch
 *   EBADF            WATCH of a descriptor that is not open
 *   EEXIST           WATCH_ADD of a file already watched by this fd
 *   ENOENT           WATCH_DEL of a file not watched by this fd
 *   ENOSPC           WATCH_ADD beyond PVM_COSCHED_MAX_WATCH files
 *
 * No boost is refused for its CPU: a strong boost (nice, RT) whose share
 * is spent is held at the slice level, and comes back by itself once the
 * share is repaid (struct pvm_cosched_limits).
 */
#ifndef _UAPI_PVM_COSCHED_H
#define _UAPI_PVM_COSCHED_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PVM_COSCHED_DEVICE	"/dev/pvm_cosched"
#define PVM_COSCHED_ABI_VERSION	2	/* 2: the share; 1: budget, cool-down */
#define PVM_COSCHED_IOC_MAGIC	0xC5

/* Boost levels; the same values as COPVM_BOOST_* in copvm.h. */
#define PVM_COSCHED_BOOST_NONE	0	/* back to the registered base */
#define PVM_COSCHED_BOOST_SLICE	1	/* a short EEVDF slice (6.12+) */
#define PVM_COSCHED_BOOST_NICE	2	/* a lower nice, down to the floor */
#define PVM_COSCHED_BOOST_RT	3	/* SCHED_FIFO, if the limits allow */

/* Capabilities, in pvm_cosched_register.caps and the stats. */
#define PVM_COSCHED_CAP_SLICE	0x1	/* slice requests honoured */
#define PVM_COSCHED_CAP_NICE	0x2	/* negative nice down to the floor */
#define PVM_COSCHED_CAP_RT	0x4	/* time-boxed SCHED_FIFO allowed */
#define PVM_COSCHED_CAP_PEERS	0x8	/* BOOST of registered same-uid tasks */
#define PVM_COSCHED_CAP_WATCH	0x10	/* WATCH: boosts on arrival */

#define PVM_COSCHED_MAX_WATCH	16	/* files watched by one fd */

/* REGISTER: the caller becomes a registered task of this fd. */
struct pvm_cosched_register {
	__u32 abi_version;	/* in: PVM_COSCHED_ABI_VERSION */
	__u32 flags;		/* in: 0 */
	__s32 tid;		/* in: the PVM task id (statistics only) */
	__s32 base_nice;	/* out: the nice the task had, restored on undo */
	__u32 caps;		/* out: PVM_COSCHED_CAP_* under the limits */
	__s32 nice_floor;	/* out: the lowest nice the module sets */
	__u64 box_max_ns;	/* out: the longest time box it grants */
	__u32 share_ppm;	/* in: the CPU share its strong boosts may
				 * take, in millionths of a CPU (0: the
				 * module's default, 5 %); out: the share
				 * granted, at most limits.share_max_ppm
				 */
	__u32 pad;		/* in: 0 */
	__u64 reserved[1];	/* in: 0 */
};

/*
 * REPORT: the caller's current frequency, and the boost it wants for
 * itself now (BOOST_NONE undoes its boost).  The box is clamped to the
 * limits; `level' and `nice' are clamped to the limits too, and the
 * values put in force are written back.  A correspondent is boosted with
 * BOOST, or by its own WATCH when the message reaches it.
 *
 * The two `unused_' words carried the caller's local correspondents (a
 * pointer to up to 8 pids), which the module checked and never used.
 * They are ignored: neither read nor checked, whatever they hold, so
 * that a caller built before, which fills them, keeps working.  Not
 * reserved, since such callers put non-zero values there: a later use
 * of the room must be asked for by a flag.
 */
struct pvm_cosched_report {
	__u64 freq_milli;	/* in: F in messages per second, x 1000 */
	__u64 unused_peers_ptr;	/* ignored */
	__u32 unused_npeers;	/* ignored */
	__s32 level;		/* in/out: PVM_COSCHED_BOOST_* */
	__s32 nice;		/* in/out: the nice wanted at BOOST_NICE */
	__u32 flags;		/* in: 0 */
	__u64 box_ns;		/* in/out: the time box, 1 ns..box_max_ns */
	__u64 reserved[2];	/* in: 0 */
};

/*
 * BOOST: a registered correspondent `pid' (a task of the caller's user,
 * registered with the module) gets `level' for at most `box_ns', with
 * clamping and write-back as for REPORT.  The level written back is the
 * one granted for the box: the target's share may hold it at the slice
 * level at times (STATS' my_level is the level in force).
 */
struct pvm_cosched_boost {
	__s32 pid;		/* in: the target, in the caller's pid namespace */
	__s32 level;		/* in/out: PVM_COSCHED_BOOST_* */
	__s32 nice;		/* in/out: the nice wanted at BOOST_NICE */
	__u32 flags;		/* in: 0 */
	__u64 box_ns;		/* in/out: the time box */
	__u64 reserved[2];	/* in: 0 */
};

/*
 * WATCH: input arriving on one of the caller's own files (a socket, an
 * eventfd: anything that polls) while the caller is blocked boosts the
 * caller at once, in the kernel, at `level' for `box_ns', as a REPORT
 * asking for it would (clamped, held by a spent share): DCS's boost on
 * arrival, with no system call and before the task runs.  Input that
 * finds the task running boosts nothing.  WATCH_DEL ends a watch; so do
 * the task's unregistering, the fd's release and the task's exit.  The
 * module holds a reference on the file while it watches it: a file the
 * task closed without WATCH_DEL is dropped at the task's next request
 * (any ioctl on this fd) or at the next input on it.
 */
#define PVM_COSCHED_WATCH_ADD	1
#define PVM_COSCHED_WATCH_DEL	2
struct pvm_cosched_watch {
	__s32 fd;		/* in: the caller's descriptor */
	__u32 op;		/* in: PVM_COSCHED_WATCH_ADD or _DEL */
	__s32 level;		/* in: ADD: PVM_COSCHED_BOOST_SLICE..RT */
	__s32 nice;		/* in: ADD: the nice wanted at BOOST_NICE */
	__u64 box_ns;		/* in: ADD: the time box, 1 ns..10 s */
	__u64 reserved[1];	/* in: 0 */
};

/* The module's enforced limits.  SET_LIMITS needs CAP_SYS_NICE in the
 * initial user namespace; the stats return them to anyone.  A strong
 * boost (nice, RT) takes CPU from others: its CPU time is charged every
 * sample_ns to a token bucket of its task's share, refilled at the share,
 * holding at most share x window_ns, and to its user's (real uid) bucket,
 * refilled at the user's part of each online CPU.  When either is spent
 * the boost is held at the slice level (none before 6.12) until the debt
 * is repaid.
 *
 * A user's part: node_share_ppm is the node's budget, the most all
 * users' boosts together take of each CPU; with n users that have
 * registered tasks, each one's part is node_share_ppm / n, and never
 * more than user_share_ppm.  The parts are computed again when a user
 * registers its first task and when its last one goes; a bucket keeps
 * its tokens or its debt, within its new cap.  A user's record (and its
 * debt) outlives its last task until its bucket is full again, at the
 * part it had.  node_share_ppm 0 is no node budget: each user's part is
 * user_share_ppm however many users there are.  The word was padding
 * that had to be 0, so a caller built before it sets no node budget.
 *
 * A task's bucket keeps the share and window of its REGISTER; SET_LIMITS
 * gives every user's bucket its part under the new limits, and their new
 * window.  Shares are millionths of a CPU.
 */
struct pvm_cosched_limits {
	__s32 nice_floor;	/* -20..0; default -5 */
	__u32 allow_rt;		/* 0 or 1; default 0 */
	__u64 box_max_ns;	/* 1 us..1 s; default 20 ms */
	__u32 share_max_ppm;	/* 1..10^6: a task's largest share; 50 % */
	__u32 pad;		/* 0 */
	__u64 window_ns;	/* 10 ms..10 s; default 100 ms */
	__u64 sample_ns;	/* 1 ms..100 ms; default 2 ms */
	__u32 user_share_ppm;	/* 1..10^6: the most one user's boosts
				 * take of each CPU; default 10 %
				 */
	__u32 node_share_ppm;	/* 0..10^6: the node's budget, split among
				 * the users (above); 0: none; default 10 %
				 */
	__u64 reserved[1];	/* 0 */
};

/* STATS: counters of the caller's registration and of the module. */
struct pvm_cosched_stats {
	__u32 flags;		/* in: 0 */
	__u32 registered;	/* out: tasks registered now, module-wide */
	__u64 boosted_now;	/* out: boosts in force now, module-wide */
	__u64 applied;		/* out: boosts put in force, module-wide */
	__u64 undone_box;	/* out: undone at the end of their box */
	__u64 undone_release;	/* out: undone by fd release or task exit */
	__u64 demotions;	/* out: strong boosts held by a spent share */
	__u64 refused;		/* out: requests refused (EPERM, ESRCH) */
	__u64 clamped;		/* out: requests clamped to the limits */
	__u64 my_applied;	/* out: boosts this fd put in force */
	__u64 my_freq_milli;	/* out: the caller's last reported F */
	__s32 my_level;		/* out: the caller's boost now */
	__s32 my_nice;		/* out: the caller's nice now */
	struct pvm_cosched_limits limits;	/* out */
	__u64 my_arrivals;	/* out: boosts put in force by WATCH */
	__u32 users;		/* out: users with registered tasks now */
	__u32 my_part_ppm;	/* out: the caller's user's part of each
				 * CPU now; 0 if the caller is not
				 * registered
				 */
};

#define PVM_COSCHED_IOC_REGISTER \
	_IOWR(PVM_COSCHED_IOC_MAGIC, 1, struct pvm_cosched_register)
#define PVM_COSCHED_IOC_REPORT \
	_IOWR(PVM_COSCHED_IOC_MAGIC, 2, struct pvm_cosched_report)
#define PVM_COSCHED_IOC_BOOST \
	_IOWR(PVM_COSCHED_IOC_MAGIC, 3, struct pvm_cosched_boost)
#define PVM_COSCHED_IOC_STATS \
	_IOWR(PVM_COSCHED_IOC_MAGIC, 4, struct pvm_cosched_stats)
#define PVM_COSCHED_IOC_SET_LIMITS \
	_IOW(PVM_COSCHED_IOC_MAGIC, 5, struct pvm_cosched_limits)
#define PVM_COSCHED_IOC_WATCH \
	_IOW(PVM_COSCHED_IOC_MAGIC, 6, struct pvm_cosched_watch)

#endif /* _UAPI_PVM_COSCHED_H */

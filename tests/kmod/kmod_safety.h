/*
 * kmod_safety.h - the ioctl suite's cases on the safety of the module's
 * boosts (kmod_safety.c): fork and threads, the undo of a task that
 * spins, the undo thread's priority.  Each returns KT_PASS, KT_FAIL or
 * KT_SKIP (ktest.h).
 */
#ifndef COPVM_KMOD_SAFETY_H
#define COPVM_KMOD_SAFETY_H

#include "pvm_cosched.h"

/* A task boosted to each level (slice only if `have_slice') forks and
 * creates a thread: both start unboosted, and the task's own
 * reset-on-fork flag is what it was once the box ends.  Runs under `l'
 * with RT allowed, and leaves `l' in force. */
int case_no_boost_through_fork(const struct pvm_cosched_limits *l,
			       int have_slice);

/* One task per CPU boosted (nice, then RT) spins: each is undone within
 * its box plus one tick.  Runs under `l' with RT allowed, and leaves `l'
 * in force. */
int case_spinning_task_undone_in_box(const struct pvm_cosched_limits *l);

/* User A runs 16 busy tasks that ask for the strongest boost and a whole
 * CPU of share, user B one busy loop per CPU: B keeps its share without
 * boosts minus 0.05, with RT refused and with RT allowed, under base's
 * user share (a control at 80 % is printed).  Leaves `base' in force. */
int case_one_user_cannot_take_anothers_cpu(const struct pvm_cosched_limits *base);

/* Two tasks of one user, each alone on its CPU with a whole CPU of
 * share, are boosted together at about their user's share of each CPU
 * (10 %), no more and not much less, and a task of another user is
 * boosted meanwhile.  Leaves `base' in force. */
int case_user_share_is_shared(const struct pvm_cosched_limits *base);

/* A task whose user's share is in debt closes its fd, registers again
 * and asks for a boost: it is held at once (the user's record, and its
 * debt, outlive the user's last registration).  Leaves `base' in force. */
int case_reregistering_keeps_the_users_debt(const struct pvm_cosched_limits *base);

/* A SCHED_FIFO spinner with a 20 % share leaves a busy loop on its CPU
 * at least 0.25 of it; with a whole CPU of share (the control) it does
 * not.  Leaves `base' in force. */
int case_spinner_held_to_its_share(const struct pvm_cosched_limits *base);

/* A task boosted to RT that blocks for 5 windows is still at SCHED_FIFO;
 * when it then spins it is held after about its share's tokens, and put
 * back in force by itself within about a window.  Leaves `base' in
 * force. */
int case_blocked_task_spends_no_share(const struct pvm_cosched_limits *base);

/* The module's undo thread is one kthread at SCHED_FIFO above the RT
 * boost's priority 1. */
int case_undo_thread_outranks_boosts(void);

#endif /* COPVM_KMOD_SAFETY_H */

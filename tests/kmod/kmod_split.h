/*
 * kmod_split.h - the ioctl suite's cases on the node's budget, split
 * evenly among the users with registered tasks (kmod_split.c).  Each
 * returns KT_PASS, KT_FAIL or KT_SKIP (ktest.h) and leaves `base' in
 * force.
 */
#ifndef COPVM_KMOD_SPLIT_H
#define COPVM_KMOD_SPLIT_H

#include "pvm_cosched.h"

/* STATS' users and parts as users come and go: one user has the whole
 * budget, two half each, a second task of a user changes nothing, new
 * limits split again, the user share bounds a part, the last user left
 * gets the whole budget back, and no node budget gives each user the
 * user share. */
int case_node_budget_parts_follow_the_users(const struct pvm_cosched_limits *base);

/* One spinning task of user A, alone on CPU 0, boosted at about the whole
 * node budget; user B's task comes on CPU 1: each at about half; B
 * leaves: A at about the whole budget again.  The control, without a
 * node budget, boosts both users more than twice the budget. */
int case_two_users_each_get_half_the_node_budget(const struct pvm_cosched_limits *base);

/* User B's four tasks spin asking constantly for boosts while user A's
 * one task asks now and then: A's boosts are granted and in force at
 * once, A's part is half the budget whatever B's number of tasks, and B
 * is boosted no more than its half. */
int case_a_user_asking_constantly_leaves_the_other_its_part(const struct pvm_cosched_limits *base);

#endif /* COPVM_KMOD_SPLIT_H */

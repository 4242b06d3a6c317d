/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcs_user_space.h - what pvm_cosched_checks.h takes from the kernel, for
 * building those checks in user space: the fuzz target
 * (fuzz/fuzz_kmod_args.c) and their unit tests
 * (tests/check_cosched_checks.c).  Not part of the module.
 */
#ifndef PCS_USER_SPACE_H
#define PCS_USER_SPACE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int32_t s32;
typedef uint32_t u32;
typedef uint64_t u64;
#define MIN_NICE	(-20)
#define MAX_NICE	19
#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* PCS_USER_SPACE_H */

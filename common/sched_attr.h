/*
 * sched_attr.h - sched_getattr(2) and sched_setattr(2) for the library's
 * backends, the daemon's watch and the agent: glibc 2.36 has no wrappers,
 * and <linux/sched/types.h> clashes with <sched.h>, so the kernel's
 * struct sched_attr (its first, 48-byte version) is spelt out here once.
 */
#ifndef COPVM_SCHED_ATTR_H
#define COPVM_SCHED_ATTR_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* The kernel's struct sched_attr, first version. */
struct copvm_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;		/* SCHED_OTHER: the slice (6.12+) */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif

/* Reads the scheduling attributes of `pid' (0: the caller) into `a';
 * 0 or -errno. */
static inline int copvm_sched_getattr(pid_t pid, struct copvm_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, pid, a, sizeof(*a), 0) < 0)
		return -errno;
	return 0;
}

/* Sets the scheduling attributes `a' on `pid' (0: the caller); the size
 * field is filled in.  0 or -errno. */
static inline int copvm_sched_setattr(pid_t pid, struct copvm_sched_attr *a)
{
	a->size = sizeof(*a);
	if (syscall(SYS_sched_setattr, pid, a, 0) < 0)
		return -errno;
	return 0;
}

#endif /* COPVM_SCHED_ATTR_H */

/*
 * users.c - the per-user bound of copvm-agent: every uid with a
 * registered task has one more token bucket (common/cosched_bucket.h),
 * refilled at -U of each CPU, that every boosted task of that uid is
 * charged to besides its own share.  When it is spent, all of the user's
 * boosts are held together: however many tasks a user registers, its
 * boosts take at most -U of each CPU from everyone else.  A user's
 * record outlives its last task until its bucket is full again, so that
 * leaving and registering anew does not wipe a debt.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

struct user_share {
	uint32_t uid;
	int used;		/* the record holds a user */
	int refs;		/* its registered tasks */
	struct cosched_bucket b;
};

static struct user_share users[AGENT_MAX_TASKS];
static uint32_t share_ppm;
static uint64_t window_ns;
static uint64_t ncpu = 1;

void users_init(uint32_t per_cpu_ppm, uint64_t window)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	share_ppm = per_cpu_ppm;
	window_ns = window;
	ncpu = n > 0 ? (uint64_t)n : 1;
	memset(users, 0, sizeof(users));
}

/* May record `u' be given to another user: unused, or without tasks and
 * with its bucket full again at `now'? */
static int reusable(struct user_share *u, uint64_t now)
{
	if (!u->used)
		return 1;
	if (u->refs > 0)
		return 0;
	cosched_bucket_charge(&u->b, now, 0);
	return u->b.tokens_ns >= (int64_t)u->b.cap_ns;
}

int users_get(uint32_t uid, uint64_t now)
{
	int i, free_slot = -1;

	for (i = 0; i < AGENT_MAX_TASKS; i++) {
		if (users[i].used && users[i].uid == uid) {
			users[i].refs++;
			return i;
		}
	}
	for (i = 0; i < AGENT_MAX_TASKS && free_slot < 0; i++)
		if (reusable(&users[i], now))
			free_slot = i;
	if (free_slot < 0)
		return -1;
	users[free_slot].uid = uid;
	users[free_slot].used = 1;
	users[free_slot].refs = 1;
	/* Charged with CPU time / ncpu: a share of each CPU. */
	cosched_bucket_init(&users[free_slot].b, share_ppm, window_ns, now);
	return free_slot;
}

void users_put(int u)
{
	if (u >= 0 && u < AGENT_MAX_TASKS && users[u].refs > 0)
		users[u].refs--;
}

void users_charge(int u, uint64_t now, uint64_t used_ns)
{
	if (u >= 0 && u < AGENT_MAX_TASKS && users[u].used)
		cosched_bucket_charge(&users[u].b, now, used_ns / ncpu);
}

int users_allow(int u)
{
	if (u < 0 || u >= AGENT_MAX_TASKS || !users[u].used)
		return 0;
	return cosched_bucket_allows(&users[u].b);
}

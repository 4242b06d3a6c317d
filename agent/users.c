/*
 * users.c - the per-user bound of copvm-agent: every uid with a
 * registered task has one more token bucket (common/cosched_bucket.h),
 * refilled at -U of each CPU, that every boosted task of that uid is
 * charged to besides its own share.  When it is spent, all of the user's
 * boosts are held together: however many tasks a user registers, its
 * boosts take at most -U of each CPU from everyone else.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

struct user_share {
	uint32_t uid;
	int refs;		/* registered tasks; 0: slot free */
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

int users_get(uint32_t uid, uint64_t now)
{
	int i, free_slot = -1;

	for (i = 0; i < AGENT_MAX_TASKS; i++) {
		if (users[i].refs > 0 && users[i].uid == uid) {
			users[i].refs++;
			return i;
		}
		if (users[i].refs == 0 && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return -1;
	users[free_slot].uid = uid;
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
	if (u >= 0 && u < AGENT_MAX_TASKS && users[u].refs > 0)
		cosched_bucket_charge(&users[u].b, now, used_ns / ncpu);
}

int users_allow(int u)
{
	if (u < 0 || u >= AGENT_MAX_TASKS || users[u].refs == 0)
		return 0;
	return cosched_bucket_allows(&users[u].b);
}

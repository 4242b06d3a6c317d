/*
 * users.c - the node's boost budget in copvm-agent: -U of each CPU for
 * all users together, split evenly among the users with registered
 * tasks.  Each such uid has one token bucket (common/cosched_bucket.h),
 * refilled at -U / n of each CPU for n users, that every boosted task
 * of that uid is charged to besides its own share; when it is spent, all
 * of the user's boosts are held together.  However many tasks a user
 * registers and however often they ask, its boosts take at most its part
 * of -U, and all users' together at most -U, of each CPU.  A user's
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
static uint32_t budget_ppm;	/* -U: all users together, of each CPU */
static uint64_t window_ns;
static uint64_t ncpu = 1;
static int nactive;		/* users with a registered task */

void users_init(uint32_t per_cpu_ppm, uint64_t window)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	budget_ppm = per_cpu_ppm;
	window_ns = window;
	ncpu = n > 0 ? (uint64_t)n : 1;
	nactive = 0;
	memset(users, 0, sizeof(users));
}

/* The part of the budget of each user with a registered task (the
 * module's split too). */
static uint32_t part_ppm(void)
{
	return cosched_part_ppm(budget_ppm, (uint32_t)nactive);
}

/* Gives every user with a registered task its part of the budget from
 * `now' on.  Each bucket keeps its tokens or its debt, within its new
 * cap, so a user whose part grows gains no burst by it.  A record
 * without tasks keeps the rate it had, repaying its debt at it: it
 * boosts nothing meanwhile. */
static void rebalance(uint64_t now)
{
	uint32_t p = part_ppm();
	int i;

	for (i = 0; i < AGENT_MAX_TASKS; i++)
		if (users[i].used && users[i].refs > 0 &&
		    users[i].b.share_ppm != p)
			cosched_bucket_set_share(&users[i].b, p, window_ns, now);
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
			if (users[i].refs++ == 0) {
				/* Back while its record repays a debt. */
				nactive++;
				rebalance(now);
			}
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
	nactive++;
	/* Full at its part; charged with CPU time / ncpu: a share of each
	 * CPU. */
	cosched_bucket_init(&users[free_slot].b, part_ppm(), window_ns, now);
	rebalance(now);
	return free_slot;
}

void users_put(int u, uint64_t now)
{
	if (u < 0 || u >= AGENT_MAX_TASKS || users[u].refs <= 0)
		return;
	if (--users[u].refs == 0) {
		nactive--;
		rebalance(now);
	}
}

/* The bucket of user slot `u', or NULL when `u' holds nobody: the one
 * check of a slot number that the accessors below share. */
static struct cosched_bucket *bucket_of(int u)
{
	if (u < 0 || u >= AGENT_MAX_TASKS || !users[u].used)
		return NULL;
	return &users[u].b;
}

void users_charge(int u, uint64_t now, uint64_t used_ns)
{
	struct cosched_bucket *b = bucket_of(u);

	if (b)
		cosched_bucket_charge(b, now, used_ns / ncpu);
}

int users_allow(int u)
{
	struct cosched_bucket *b = bucket_of(u);

	return b ? cosched_bucket_allows(b) : 0;
}

uint32_t users_part_ppm(int u)
{
	struct cosched_bucket *b = bucket_of(u);

	return b ? b->share_ppm : 0;
}

int64_t users_tokens_ns(int u)
{
	struct cosched_bucket *b = bucket_of(u);

	return b ? b->tokens_ns : 0;
}

uint64_t users_wait_ns(int u)
{
	struct cosched_bucket *b = bucket_of(u);

	return b ? cosched_bucket_wait_ns(b) : 0;
}
